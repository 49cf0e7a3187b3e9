"""The sandbox every submitted bot runs in: one fenced-in process tree per game.

A :class:`SandboxedProcess` starts a bot program with pipes for stdin, stdout and
stderr and fences it in as far as this machine allows (:func:`detect_isolation`
finds out once per process; :meth:`Isolation.missing` names what is absent):

* its own session and process group, resource limits (address space, CPU time, file
  size, no core dumps, number of processes), a scrubbed environment;
* when the arena runs as root, a user id of its own, leased from a pool so that two
  bots never share one (:mod:`arena.players.sandbox.uids`);
* namespaces of its own: network (no network), PIDs (the bot is PID 1, so killing it
  kills every process it started), IPC (no SysV IPC object or POSIX message queue
  is shared with another game or outlives this one), UTS (a host name of its own),
  cgroup (its cgroup looks like the root) and mounts;
* a fresh root (:mod:`arena.players.sandbox.rootfs`): the runtime read-only
  (:mod:`arena.players.sandbox.runtime`, the one definition of what of the host a bot
  sees), its code read-only, private tmpfs for its work, ``/tmp`` and ``/dev/shm``;
  nothing of the host outside the runtime, and nothing it writes outlives its game;
* a cgroup of its own (:mod:`arena.players.sandbox.cgroups`, v2 or v1): memory, process
  count and CPU (one share, at most a core) held for all its processes together,
  frozen while it is not its turn, removed when the game ends;
* a system call filter and a session keyring of its own
  (:mod:`arena.players.sandbox.syscalls`): no keyrings, locks or notifications on shared
  files, no new namespaces, tracing, BPF or perf events.

With ``warm`` (:mod:`arena.players.zygote`) one such sandbox holds a Python bot's
zygote, and each game is a fresh fork of it, renewed in between.

Deadlines are the caller's business (:mod:`arena.players.subprocess_bot` reads with
``poll``); :meth:`SandboxedProcess.close` kills everything and cleans up.
"""

from arena.players.sandbox.errors import SandboxError
from arena.players.sandbox.isolation import NO_ISOLATION, Isolation, detect_isolation
from arena.players.sandbox.limits import DEFAULT_LIMITS, GIB, KIB, MIB, SandboxLimits
from arena.players.sandbox.process import SandboxedProcess, describe_exit

__all__ = [
    "DEFAULT_LIMITS",
    "GIB",
    "KIB",
    "MIB",
    "NO_ISOLATION",
    "Isolation",
    "SandboxError",
    "SandboxLimits",
    "SandboxedProcess",
    "describe_exit",
    "detect_isolation",
]
