"""Starting an arena command the way a terminal does, for the tests that press Ctrl-C."""

from __future__ import annotations

import signal


def as_from_a_terminal() -> None:
    """``preexec_fn`` of a command a test interrupts: Ctrl-C's signal at its default
    and no signal blocked, as a shell starts a program. A pytest worker may carry
    another disposition or mask (left by code it ran before), which the child would
    otherwise inherit: then SIGINT never reaches the arena and the test measures that,
    not the arena's Ctrl-C."""
    signal.pthread_sigmask(signal.SIG_SETMASK, ())
    signal.signal(signal.SIGINT, signal.SIG_DFL)
