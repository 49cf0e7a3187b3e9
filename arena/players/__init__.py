"""Players behind a seat: loading bots, the subprocess protocol, the sandbox that runs
submitted programs, and the checks a submission passes before it is stored."""
