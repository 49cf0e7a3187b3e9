"""The warden: a root process inside a warm sandbox's namespaces that renews it between games.

A zygote's sandbox (:mod:`arena.players.zygote`) is renewed after every game: ``/tmp``,
``/dev/shm`` and the working directory become fresh tmpfs mounts again, and the PID
namespace's next process id is drawn afresh. Only a process *inside* the bot's mount
and PID namespaces, with root's capabilities, can do that; forking one from the arena
for every game (a copy of the whole arena, a shell for ``ns_last_pid``) cost about 4 ms
of a 10 ms game.

So the sandbox's supervisor (:mod:`arena.players.sandbox.process`) forks the warden
once, right after the bot's process 1: it lives in the bot's namespaces, outside the
bot's cgroup (never frozen, never charged to the bot), as root; the bot's ``/proc`` is
mounted ``hidepid=2``, so the bot cannot even see it. It holds no file but its two
pipes to the arena, and it obeys one request, one byte on its command pipe:
:data:`RENEW`. It answers :data:`DONE` and the last PID it set, or :data:`FAILED` and
a line saying why. The end of its command pipe (the arena closed the sandbox) ends it,
and so does the end of the bot's process 1 (the kernel kills a PID namespace's
processes with it).

**Why the process ids are drawn, not set back to one value.** The kernel frees a dead
process's id some milliseconds after the process is gone (measured on Linux 6.18: a
fork 1 ms after the last process of a game ended skipped its id in 1% of games, 4 ms
after in none of 2,000), so a fixed last PID would give the next game's process another
id whenever the last game's processes ended late: a channel the last game controls. A
last PID drawn from a secret generator over the whole range makes every game's ids
uniform and independent of every other game's, whatever ids are still held; the
warden waits only until the game's processes are gone from the namespace.

The arena sends the request as soon as a game's processes are gone and reads the
answer when the next game starts (:class:`WardenLink`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import signal
import time
from dataclasses import dataclass

from arena.players.sandbox import kernel

FIRST_LAST_PID = 1000
"""The lowest last PID drawn (ids below are left to the namespace's own processes)."""
PID_HEADROOM = 200
"""Ids kept free above the highest last PID drawn: a game's first processes never wrap."""
RENEW = b"r"
DONE = b"+"
FAILED = b"-"
LAST_PID_FILE = "/proc/sys/kernel/ns_last_pid"
PID_MAX_FILE = "/proc/sys/kernel/pid_max"
STAYING = 3
"""The processes of a warm sandbox's PID namespace between games: process 1 (the
reaper), the warden and the zygote."""
RELEASE_SECONDS = 5.0
ANSWER_BYTES = 4096


class WardenError(Exception):
    """The warden did not renew the sandbox (it failed, ended, or did not answer in
    time); the message says why."""


@dataclass(frozen=True)
class WardenPlan:
    """What the warden does and the pipe ends it keeps (the child's side)."""

    requests: int
    """The read end of its command pipe."""
    answers: int
    """The write end of its answer pipe."""
    mounts: tuple[tuple[str, str], ...]
    """The tmpfs mounts it renews: (path, mount options)."""
    flags: int
    """The mount flags of each fresh tmpfs."""


def start_warden(plan: WardenPlan, max_fd: int, mount_ns: int) -> None:
    """Fork the warden (in the supervisor, after its bot). The warden never returns: it
    serves until its command pipe ends, then exits (or dies with the bot's PID
    namespace). ``mount_ns`` is the bot's mount namespace, open: the warden joins it
    before each renewal, which makes the bot's root its own (a fork racing with the
    bot's ``pivot_root`` may keep the old root, detached a moment later)."""
    pid = os.fork()
    if pid:
        os.close(plan.requests)
        os.close(plan.answers)
        os.waitpid(pid, 0)  # it exits at once, its child serving
        return
    code = 1
    try:
        # Forked once more and orphaned: inside the bot's PID namespace, so that its
        # reaper (process 1, ignoring SIGCHLD) adopts it and the kernel reaps it when
        # it ends. A child of the supervisor (outside) would be left to the host's
        # init when the supervisor is killed, a zombie process 1's end waits for.
        if os.fork():
            os._exit(0)
        _keep_only((plan.requests, plan.answers, mount_ns), max_fd)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        code = serve(plan, mount_ns)
    finally:
        os._exit(code)


def _keep_only(kept: tuple[int, ...], max_fd: int) -> None:
    low = 0
    for fd in sorted(kept):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, max_fd)


def serve(plan: WardenPlan, mount_ns: int) -> int:
    """Answer requests until the command pipe ends; returns the exit status.
    ``mount_ns``: the bot's mount namespace, open."""
    while True:
        try:
            request = os.read(plan.requests, 1)
        except InterruptedError:
            continue
        if not request:
            return 0
        if request != RENEW:
            _answer(plan, FAILED + b"unknown request\n")
            continue
        try:
            kernel.setns(mount_ns, kernel.CLONE_NEWNS)
            last_pid = renew(plan)
        except OSError as exc:
            _answer(plan, FAILED + f"{exc}\n".encode(errors="replace"))
        else:
            _answer(plan, DONE + str(last_pid).encode())


def _answer(plan: WardenPlan, data: bytes) -> None:
    with contextlib.suppress(OSError):
        os.write(plan.answers, data[:ANSWER_BYTES])


def renew(plan: WardenPlan) -> int:
    """Fresh tmpfs mounts and a last PID drawn afresh (returned), once the game's
    processes are all gone from the namespace.

    Raises:
        OSError: the kernel refused a step, or a process of the game was still there
            after :data:`RELEASE_SECONDS`.
    """
    for path, options in plan.mounts:
        kernel.detach(path)
        kernel.mount("tmpfs", path, "tmpfs", plan.flags, options)
    _wait_released()
    last_pid = draw_last_pid(_pid_max())
    fd = os.open(LAST_PID_FILE, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, str(last_pid).encode())
    finally:
        os.close(fd)
    return last_pid


def draw_last_pid(pid_max: int) -> int:
    """A last PID drawn uniformly from the namespace's range by a secret generator."""
    highest = max(FIRST_LAST_PID, pid_max - PID_HEADROOM)
    return FIRST_LAST_PID + secrets.randbelow(highest - FIRST_LAST_PID + 1)


def _pid_max() -> int:
    with open(PID_MAX_FILE, encoding="ascii") as file:
        return int(file.read())


def _wait_released() -> None:
    """Wait until the namespace holds only its :data:`STAYING` processes.

    The arena has killed the game's processes and seen them leave the bot's cgroup,
    but a process leaves its cgroup, and its pidfd reports its end, a moment before
    the kernel releases its process id: set back before then, the last PID would give
    the next game other ids.

    Raises:
        OSError: some other process was still there after :data:`RELEASE_SECONDS`.
    """
    deadline = time.monotonic() + RELEASE_SECONDS
    pause = 0.00002
    while True:
        others = [name for name in os.listdir("/proc") if name.isdigit()]
        if len(others) <= STAYING:
            return
        if time.monotonic() >= deadline:
            raise OSError(f"{len(others) - STAYING} processes of the game did not end")
        time.sleep(pause)
        pause = min(0.001, pause * 2)


class WardenLink:
    """The arena's side: the ends of the warden's pipes it keeps."""

    def __init__(self, requests: int, answers: int) -> None:
        self.requests = requests
        self.answers = answers
        self.pending = False
        """A request was sent and its answer not read yet."""

    def ask(self) -> None:
        """Send a renewal request (answered later, :meth:`wait`).

        Raises:
            WardenError: the warden has ended.
        """
        if self.pending:
            return
        try:
            os.write(self.requests, RENEW)
        except OSError as exc:
            raise WardenError(f"the warden ended ({exc.strerror})") from None
        self.pending = True

    def wait(self, seconds: float) -> int:
        """Wait for the answer to the request sent (sending one first if none was);
        returns the last PID the warden drew.

        Raises:
            WardenError: it failed, ended or did not answer within ``seconds``.
        """
        self.ask()
        waiting = select.poll()
        waiting.register(self.answers, select.POLLIN)
        if not waiting.poll(max(0, int(seconds * 1000))):
            raise WardenError(f"the warden did not answer within {seconds:g} s")
        self.pending = False
        answer = os.read(self.answers, ANSWER_BYTES)
        if answer[:1] == DONE and answer[1:].isdigit():
            return int(answer[1:])
        if not answer:
            raise WardenError("the warden ended")
        why = answer[1:].decode(errors="replace").strip() or "no reason given"
        raise WardenError(f"the warden could not renew the sandbox: {why}")

    def close(self) -> None:
        """Close the pipes (the warden then exits)."""
        for fd in (self.requests, self.answers):
            with contextlib.suppress(OSError):
                os.close(fd)
