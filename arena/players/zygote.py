"""The host's side of a zygote: a Python bot loaded once, each game a fresh fork of it.

The SDK runtime's ``--zygote`` mode (:func:`bots.sdk.runtime.zygote_main`) loads the
bot and forks a process per game; this module checks and resets what the bot's code
cannot be trusted to: everything is read from the kernel (``/proc``, the bot's
cgroup), never from the bot. The rule and its proof are in docs/protocol.md, "Every
game from a pristine bot":

* :func:`find_zygote` and :func:`pristine_faults`: before its first game and at the
  start of each game the zygote has one thread, no open file but its pipes, no shared
  mapping, no signal handler, blocked or pending signal, no process besides the
  reaper (process 1), its working directory ``/``, and memory no other process of
  its user may read or write (not dumpable);
* :func:`snapshot`: while a game plays the zygote stays stopped; what the kernel
  counts of it (context switches, its pipes' flags) is the same at the game's end as
  at its start, so it did not run and no game's process changed what it holds;
* :func:`end_game`: every process of the game is killed (all but the reaper and the
  zygote);
* :func:`renew`: the writable places (``/tmp``, ``/dev/shm``, the working directory)
  are fresh tmpfs mounts again and the PID namespace hands out the same process ids
  as before the first game.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import select
import signal
import time
from dataclasses import dataclass

from arena.players.sandbox import kernel
from arena.players.sandbox.isolation import in_child
from arena.players.sandbox.process import SandboxedProcess
from arena.players.sandbox.rootfs import FRESH, RuntimeBelow
from arena.players.sandbox.runtime import WORK_DIR, Runtime, host_runtime
from arena.players.sandbox.warden import WardenError, draw_last_pid

GAME_AFTER_LAST_PID = 1
"""The game's process id is the last PID drawn plus this, as a rule: the zygote's fork."""
SIGCHLD_BIT = 1 << (signal.SIGCHLD - 1)
PROTOCOL_FDS = frozenset({0, 1, 2, 3})
"""The zygote's pipes to the arena: stdin, stdout (then pointed at stderr), stderr,
and its copy of stdout for the protocol."""
SHELL = "/bin/sh"
POLL_SECONDS = 0.001
PROC_READ_BYTES = 1 << 16
FIRST_PAUSE_SECONDS = 0.00002
STOP_SECONDS = 10.0
RENEW_SECONDS = 10.0
"""How long the warden may take to renew a sandbox (a loaded machine's worst case)."""


class ZygoteUnfit(Exception):
    """The zygote is not (or no longer) pristine-safe; the message says why."""


@dataclass(frozen=True)
class Snapshot:
    """What a process of the zygote's user could change of the stopped zygote from
    outside, read when a game starts: it must be the same at every game's start."""

    flags: tuple[str, ...]
    """The flags of its pipes' open files (fdinfo), shared with its games."""
    settings: tuple[str, ...]
    """Its priority, nice value, scheduling policy and real-time priority, CPU
    affinity, resource limits (``prlimit``), and its pending signals."""


STOPPED_WCHAN = "do_signal_stop"
"""Where a stopped process waits (``/proc/PID/wchan``); a running one shows ``0``."""


def _read(path: str) -> str:
    """A ``/proc`` file whole, as text.

    Raises:
        OSError: it cannot be read (the process ended).
    """
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        data = os.read(fd, PROC_READ_BYTES)
        while chunk := os.read(fd, PROC_READ_BYTES):  # a long file (maps) in parts
            data += chunk
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace")


def _status(pid: int) -> dict[str, str]:
    lines = _read(f"/proc/{pid}/status").splitlines()
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/PID/stat`` from the state on (field 3 is item 0)."""
    return _read(f"/proc/{pid}/stat").rpartition(")")[2].split()


def _state(pid: int) -> str:
    return _stat(pid)[0]


def find_zygote(process: SandboxedProcess) -> int:
    """The zygote's PID (the host's numbering): the one process of the bot's cgroup
    besides its process 1, whose child it is.

    Raises:
        ZygoteUnfit: other processes, or none.
    """
    assert process.cgroup is not None and process.bot_pid is not None
    others = process.cgroup.members() - {process.bot_pid}
    if len(others) != 1:
        raise ZygoteUnfit(f"{len(others)} processes besides its reaper (loading it started some)")
    pid = others.pop()
    try:
        parent = int(_status(pid)["PPid"])
    except (OSError, KeyError, ValueError):
        raise ZygoteUnfit("its zygote ended") from None
    if parent != process.bot_pid:
        raise ZygoteUnfit("its one process is not the reaper's child")
    return pid


def pristine_faults(
    pid: int, pipes: frozenset[str], status: dict[str, str] | None = None
) -> list[str]:
    """Why the zygote ``pid`` is not pristine-safe (empty: it is). ``pipes`` are the
    names (``pipe:[inode]``) of the arena's pipes to the bot; ``status``, its
    ``/proc/PID/status`` when just read."""
    faults: list[str] = []
    try:
        status = status or _status(pid)
        if status.get("Threads") != "1":
            faults.append(f"{status.get('Threads')} threads")
        fds = {int(fd) for fd in os.listdir(f"/proc/{pid}/fd")}
        if fds != PROTOCOL_FDS:
            faults.append(f"open files beyond its pipes (fds {sorted(fds)})")
        elif any(os.readlink(f"/proc/{pid}/fd/{fd}") not in pipes for fd in PROTOCOL_FDS):
            faults.append("its standard streams are not the arena's pipes")
        shared = _shared_mappings(pid)
        if shared:
            faults.append(f"{len(shared)} shared memory mappings ({shared[0]}, …)")
        if not int(status.get("SigIgn", "0"), 16) & SIGCHLD_BIT:
            faults.append("it does not ignore SIGCHLD (it could learn how its games ended)")
        for key, what in (
            ("SigCgt", "signal handlers"),
            ("SigBlk", "blocked signals"),
            ("SigPnd", "pending signals"),
            ("ShdPnd", "pending signals"),
        ):
            if int(status.get(key, "0"), 16):
                faults.append(what)
        if os.stat(f"/proc/{pid}/mem").st_uid != 0:  # a non-dumpable task's: root's
            faults.append("memory other processes of its user may read (dumpable)")
        if os.readlink(f"/proc/{pid}/cwd") != "/":
            faults.append("a working directory other than /")
    except (OSError, ValueError) as exc:
        faults.append(
            f"it cannot be inspected ({exc.strerror if isinstance(exc, OSError) else exc})"
        )
    return faults


def inspect(pid: int, pipes: frozenset[str]) -> tuple[list[str], Snapshot | None]:
    """:func:`pristine_faults` and :func:`snapshot` of the stopped zygote at once;
    the snapshot is None when there are faults."""
    try:
        stat = _stat(pid)
        status = _status(pid)
    except OSError:
        return ["its zygote ended"], None
    faults = pristine_faults(pid, pipes, status)
    if faults:
        return faults, None
    try:
        return [], snapshot(pid, stat, status)
    except ZygoteUnfit as exc:
        return [str(exc)], None


def _shared_mappings(pid: int) -> list[str]:
    """The zygote's shared mappings but those of the read-only runtime's files (a
    locale's cache): every game would inherit them, shared."""
    runtime = host_runtime()
    found = []
    for line in _read(f"/proc/{pid}/maps").splitlines():
        fields = line.split(maxsplit=5)
        if fields[1][3:4] != "s":
            continue
        path = fields[5].strip() if len(fields) > 5 else ""
        if not (path.startswith("/") and runtime.shows(path)):
            found.append(path or "anonymous")
    return found


def wait_stopped(pid: int, deadline: float) -> bool:
    """Wait until ``pid`` is stopped (SIGSTOP); False when it is not by ``deadline``
    (or it ended). The kernel tells nobody but a parent when a process stops, so this
    looks, at first every few microseconds (a zygote stops within a millisecond of
    ``new_game``), then every :data:`POLL_SECONDS`."""
    pause = FIRST_PAUSE_SECONDS
    while True:
        try:
            if _state(pid) == "T":
                return True
        except OSError:
            return False
        if time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(POLL_SECONDS, pause * 2)


def stop_reaper(process: SandboxedProcess) -> None:
    """Stop the sandbox's process 1 (the reaper) for good: nothing a game does (the
    freezer's rounds, its processes' ends) then changes what ``/proc/1`` shows.

    Raises:
        ZygoteUnfit: it cannot be stopped (it ended).
    """
    assert process.bot_pid is not None
    try:
        pidfd = os.pidfd_open(process.bot_pid)
    except OSError:
        raise ZygoteUnfit("its reaper ended") from None
    cgroup = process.cgroup
    assert cgroup is not None
    try:
        cgroup.thaw()  # a frozen process stops only once it runs
        signal.pidfd_send_signal(pidfd, signal.SIGSTOP)
        stopped = wait_stopped(process.bot_pid, time.monotonic() + STOP_SECONDS)
        cgroup.freeze()
    except OSError:
        raise ZygoteUnfit("its reaper ended") from None
    finally:
        os.close(pidfd)
    if not stopped:
        raise ZygoteUnfit("its reaper did not stop")


def stillness(process: SandboxedProcess, zygote: int) -> tuple[str, ...]:
    """Where the zygote and the reaper wait and how often each has run
    (``/proc/PID/wchan`` and ``schedstat``): read when a game starts and again when it
    ends, equal and both stopped when neither ran meanwhile (a few microseconds a
    file, where ``stat`` and ``status`` cost tens).

    Raises:
        ZygoteUnfit: one of them ended.
    """
    assert process.bot_pid is not None
    try:
        return tuple(
            _read(f"/proc/{pid}/{name}")
            for pid in (zygote, process.bot_pid)
            for name in ("wchan", "schedstat")
        )
    except OSError:
        raise ZygoteUnfit("its zygote or its reaper ended") from None


def stayed_still(start: tuple[str, ...], end: tuple[str, ...]) -> bool:
    """Whether the zygote and the reaper, stopped at ``start``, neither ran nor were
    continued by ``end`` (:func:`stillness`)."""
    return start == end and end[0] == STOPPED_WCHAN and end[2] == STOPPED_WCHAN


def snapshot(
    pid: int, stat: list[str] | None = None, status: dict[str, str] | None = None
) -> Snapshot:
    """What the kernel counts of the stopped zygote (``stat`` and ``status``: its
    ``/proc`` files when just read).

    Raises:
        ZygoteUnfit: it is not stopped or has ended.
    """
    try:
        stat = stat or _stat(pid)
        if stat[0] != "T":
            raise ZygoteUnfit("its zygote ran while a game played")
        status = status or _status(pid)
        flags = []
        for fd in sorted(PROTOCOL_FDS):
            info = _read(f"/proc/{pid}/fdinfo/{fd}")
            flags.append(next(line for line in info.splitlines() if line.startswith("flags:")))
        settings = (*_scheduling(stat), _read(f"/proc/{pid}/limits"))
        settings += tuple(status[key] for key in SETTINGS_STATUS)
    except (OSError, StopIteration, KeyError, IndexError):
        raise ZygoteUnfit("its zygote ended") from None
    return Snapshot(tuple(flags), settings)


def _scheduling(stat: list[str]) -> tuple[str, ...]:
    """Priority, nice, real-time priority and policy (fields 18, 19, 40, 41)."""
    return (stat[15], stat[16], stat[37], stat[38])


SETTINGS_STATUS = ("Cpus_allowed_list", "Mems_allowed_list", "SigPnd", "ShdPnd")


def game_processes(process: SandboxedProcess, zygote: int) -> set[int]:
    """The game's processes: the bot's but its reaper and its zygote."""
    assert process.cgroup is not None
    return process.cgroup.members() - {process.bot_pid, zygote}


def game_process(process: SandboxedProcess, zygote: int, last_pid: int) -> int | None:
    """The game's process (host PID), the zygote having stopped: the one its PID
    namespace numbers ``last_pid`` + :data:`GAME_AFTER_LAST_PID`, or (an id the kernel
    had not freed yet was skipped) the zygote's child numbered first after
    ``last_pid``; None when there is none."""
    first: tuple[int, int] | None = None
    for pid in game_processes(process, zygote):
        with contextlib.suppress(OSError, KeyError, ValueError):
            status = _status(pid)
            number = int(status["NSpid"].split()[-1])
            if number == last_pid + GAME_AFTER_LAST_PID:
                return pid
            if int(status["PPid"]) == zygote and number > last_pid:
                first = min(first or (number, pid), (number, pid))
    return first[1] if first else None


def end_game(
    process: SandboxedProcess, zygote: int, game: int | None, grace: float, deadline: float
) -> bool:
    """Give the game's process ``grace`` seconds to exit (``game``: its pidfd; None:
    the processes of the game all get them), then kill every process of the game left;
    True once none is left (by ``deadline``)."""
    cgroup = process.cgroup
    assert cgroup is not None
    if game is not None:
        ending = select.poll()
        ending.register(game, select.POLLIN)
        ending.poll(max(0, math.ceil(grace * 1000)))
    else:
        until = time.monotonic() + grace
        while game_processes(process, zygote) and time.monotonic() < until:
            time.sleep(POLL_SECONDS)
    pause = FIRST_PAUSE_SECONDS
    while True:
        left = game_processes(process, zygote)
        if not left:
            return True
        if time.monotonic() >= deadline:
            return False
        with contextlib.suppress(OSError):
            cgroup.freeze()  # nothing forks while it is killed
        for pid in left:
            _kill(pid, process, zygote)
        cgroup.thaw_to_die()
        time.sleep(pause)
        pause = min(POLL_SECONDS, pause * 2)


def _kill(pid: int, process: SandboxedProcess, zygote: int) -> None:
    # A pidfd pins the process: checked to be a game's after it was opened, the
    # signal cannot reach another that got a recycled PID meanwhile.
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        if pid in game_processes(process, zygote):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(pidfd)


def drain_input(zygote: int) -> None:
    """Throw away what the game left unread in the bot's input (a new reader of the
    same pipe, which never blocks).

    Raises:
        OSError: the pipe cannot be opened.
    """
    fd = os.open(f"/proc/{zygote}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
    try:
        with contextlib.suppress(BlockingIOError):
            while os.read(fd, 65536):
                pass
    finally:
        os.close(fd)


def start_renewal(process: SandboxedProcess) -> None:
    """Ask the sandbox's warden to renew it now (a game ended), to be waited for by
    :func:`renew` when the next game starts; nothing without a warden, and nothing
    when it has ended (:func:`renew` says so)."""
    if process.warden is not None:
        with contextlib.suppress(WardenError):
            process.warden.ask()


def renew(process: SandboxedProcess, zygote: int) -> int:
    """Fresh ``/tmp``, ``/dev/shm`` and working directory in the zygote's mount
    namespace, and a last PID drawn afresh in its PID namespace (returned): by the
    sandbox's warden (:mod:`arena.players.sandbox.warden`), or where it has none (the
    runtime lies below ``/tmp``) in a child of the host, which joins them.

    Raises:
        ZygoteUnfit: the kernel refused, or the warden failed.
    """
    if process.warden is not None:
        try:
            return process.warden.wait(RENEW_SECONDS)
        except WardenError as exc:
            raise ZygoteUnfit(str(exc)) from None
    plan = process.root
    assert plan is not None
    mounts = (
        ("/tmp", plan.scratch_options),
        ("/dev/shm", plan.scratch_options),
        (WORK_DIR, plan.work_options),
    )
    with open("/proc/sys/kernel/pid_max", encoding="ascii") as limit:
        last_pid = draw_last_pid(int(limit.read()))
    renewing = functools.partial(_renew, zygote, mounts, plan.runtime, last_pid)
    if not in_child(renewing):
        raise ZygoteUnfit("its sandbox could not be renewed")
    return last_pid


def _renew(
    zygote: int, mounts: tuple[tuple[str, str], ...], runtime: Runtime, last_pid: int
) -> None:
    os.umask(0o022)
    mount_ns = os.open(f"/proc/{zygote}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
    pid_ns = os.open(f"/proc/{zygote}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    below_tmp = RuntimeBelow.clone(runtime, "/tmp")  # a checkout below /tmp
    kernel.setns(mount_ns, kernel.CLONE_NEWNS)
    for path, options in mounts:
        kernel.detach(path)
        kernel.mount("tmpfs", path, "tmpfs", FRESH, options)
        if path == "/tmp":
            below_tmp.show()
    kernel.setns(pid_ns, kernel.CLONE_NEWPID)
    # Only a process inside the namespace sets its last PID (its own PID comes first):
    # a shell, spawned without copying this process (posix_spawn uses vfork).
    script = f"echo {last_pid} > /proc/sys/kernel/ns_last_pid"
    child = os.posix_spawn(SHELL, [SHELL, "-c", script], {})
    if os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) != 0:
        raise OSError("ns_last_pid")
