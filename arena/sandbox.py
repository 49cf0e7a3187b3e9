"""The sandbox every submitted bot runs in: one fenced-in process tree per game.

A :class:`SandboxedProcess` starts a bot program with pipes for stdin, stdout and
stderr and fences it in as far as this machine allows (:func:`detect_isolation`
finds out once per process, and silently does without what it cannot have):

* its own session and process group, resource limits (address space, CPU time, file
  size, no core dumps, number of processes), a scrubbed environment and an empty
  temporary working directory that is deleted afterwards;
* when the arena runs as root, a user id of its own, leased from a pool so that two
  bots never share one (the process limit is counted per user id, and one bot must
  not be able to signal or read another);
* where the kernel permits, namespaces of its own: network (no network at all), PIDs
  (the bot is PID 1 of its namespace, so killing it kills and reaps every process it
  started, even those that left its process group) and mounts (fresh ``/proc``;
  fresh size-limited ``/tmp``, ``/var/tmp``, ``/dev/shm`` and working directory, so
  nothing the bot writes survives the game; directories the bot's user could not
  enter, such as an interpreter installed under ``/root``, are replaced by a
  directory showing only the paths the bot needs).

With a PID namespace the host forks twice: the process :mod:`subprocess` starts
creates the namespaces and forks the bot (PID 1 inside), then waits for it and exits
with its status, so the host's own bookkeeping stays that of one child.

Deadlines are the caller's business (:mod:`arena.subprocess_bot` reads with
``poll``); :meth:`SandboxedProcess.close` kills everything and cleans up.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import fcntl
import functools
import itertools
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
SHARED_MEMORY = "/dev/shm"
SCRATCH_DIRS = ("/tmp", "/var/tmp", SHARED_MEMORY)
UID_BASE = 1_900_000_000
"""Sandbox user ids are UID_BASE + slot: far above any real or subordinate user."""
UID_SLOTS = 4096
REAP_SECONDS = 5.0


class SandboxError(ArenaError):
    """A bot program could not be started in the sandbox."""


@dataclass(frozen=True)
class SandboxLimits:
    """What a submitted bot may use. Times in seconds, sizes in bytes.

    Attributes:
        move_seconds: the per-move deadline when the tournament sets none.
        game_seconds: the per-game time budget when the tournament sets none.
        startup_seconds: start-up, handshake and ``new_game`` together.
        memory_bytes: address space per process (RLIMIT_AS).
        file_bytes: the largest file it may write (RLIMIT_FSIZE).
        scratch_bytes: the size of each fresh tmpfs (working directory, /tmp …).
        processes: processes and threads of the sandbox user (RLIMIT_NPROC).
        stderr_bytes: how much of the end of its stderr is kept for its owner.
        line_bytes: the longest message line it may write.
        quit_seconds: how long it may take to exit after ``quit``.
        isolate: use a user id and namespaces of its own where possible.
    """

    move_seconds: float = 10.0
    game_seconds: float = 600.0
    startup_seconds: float = 10.0
    memory_bytes: int = 2 * GIB
    file_bytes: int = 16 * MIB
    scratch_bytes: int = 64 * MIB
    processes: int = 64
    stderr_bytes: int = 64 * KIB
    line_bytes: int = 1 * MIB
    quit_seconds: float = 0.2
    isolate: bool = True

    def __post_init__(self) -> None:
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if item.name != "isolate" and not value > 0:
                raise ValueError(f"sandbox limit {item.name} must be positive, not {value!r}")

    def cpu_seconds(self, game_seconds: float) -> int:
        """The CPU-time limit for a game with this budget: no more than one busy core."""
        return int(game_seconds + self.startup_seconds) + 1


DEFAULT_LIMITS = SandboxLimits()


@dataclass(frozen=True)
class Isolation:
    """What fences this machine gives a bot, beyond limits and a process group."""

    user: bool
    """A leased unprivileged user id (the arena runs as root)."""
    network: bool
    """A network namespace of its own, without interfaces: no network."""
    pids: bool
    """A PID namespace of its own: every process it starts dies with it."""
    mounts: bool
    """A mount namespace of its own: fresh /proc, /tmp and working directory."""

    @property
    def process_limit(self) -> bool:
        """RLIMIT_NPROC binds only an unprivileged user (root ignores it)."""
        return self.user or os.geteuid() != 0

    def describe(self) -> str:
        parts = [
            f"user id of its own: {'yes' if self.user else 'no'}",
            f"network namespace: {'yes' if self.network else 'no'}",
            f"PID namespace: {'yes' if self.pids else 'no'}",
            f"mount namespace: {'yes' if self.mounts else 'no'}",
            f"process limit: {'yes' if self.process_limit else 'no (runs as root)'}",
        ]
        return "; ".join(parts)


NO_ISOLATION = Isolation(user=False, network=False, pids=False, mounts=False)

# -- the kernel interface (ctypes: Python 3.11 has no unshare or mount) ---------------

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_MS_NOSUID = 0x2
_MS_NODEV = 0x4
_MS_NOEXEC = 0x8
_MS_REC = 0x4000
_MS_PRIVATE = 0x40000
_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
_SYS_OPEN_TREE = 428  # the same number on every architecture (new syscalls are shared)
_SYS_MOVE_MOUNT = 429
_AT_FDCWD = -100
_AT_RECURSIVE = 0x8000
_OPEN_TREE_CLONE = 1
_MOVE_MOUNT_F_EMPTY_PATH = 0x4

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong]
_libc.mount.argtypes += [ctypes.c_char_p]
_libc.syscall.restype = ctypes.c_long


def _check(result: int, what: str) -> int:
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")
    return result


def _unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str) -> None:
    _check(
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def _open_tree(path: str) -> int:
    flags = _OPEN_TREE_CLONE | os.O_CLOEXEC | _AT_RECURSIVE
    return _check(_libc.syscall(_SYS_OPEN_TREE, _AT_FDCWD, path.encode(), flags), "open_tree")


def _move_mount(tree: int, target: str) -> None:
    _check(
        _libc.syscall(
            _SYS_MOVE_MOUNT, tree, b"", _AT_FDCWD, target.encode(), _MOVE_MOUNT_F_EMPTY_PATH
        ),
        f"move_mount {target}",
    )


def _prctl(option: int, value: int) -> None:
    _check(_libc.prctl(option, value, 0, 0, 0), "prctl")


# -- finding out what this machine allows ----------------------------------------------


def _namespace_flags(network: bool, pids: bool, mounts: bool) -> int:
    flags = (
        (_CLONE_NEWNET if network else 0)
        | (_CLONE_NEWPID if pids else 0)
        | (_CLONE_NEWNS if mounts else 0)
    )
    if flags and os.geteuid() != 0:
        flags |= _CLONE_NEWUSER  # an unprivileged user may create namespaces inside one
    return flags


def _in_child(attempt: Callable[[], object]) -> bool:
    """Run ``attempt()`` in a forked child; True when it neither raised nor failed."""
    pid = os.fork()
    if pid == 0:
        try:
            ok = attempt() is not False
        except BaseException:
            ok = False
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _try_user() -> None:
    os.setgroups([])
    os.setresgid(UID_BASE, UID_BASE, UID_BASE)
    os.setresuid(UID_BASE, UID_BASE, UID_BASE)


def _try_pids() -> bool:
    _unshare(_namespace_flags(False, True, False))
    return _in_child(lambda: os.getpid() == 1)


def _try_mounts() -> bool:
    _unshare(_namespace_flags(False, True, True))

    def inside() -> None:
        _mount(None, "/", None, _MS_REC | _MS_PRIVATE, "")
        os.close(_open_tree("/"))
        _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "")
        _mount("tmpfs", tempfile.gettempdir(), "tmpfs", _MS_NOSUID | _MS_NODEV, "size=64k")

    return _in_child(inside)


@functools.cache
def detect_isolation() -> Isolation:
    """What :class:`SandboxedProcess` can use here; probed once per process in
    throw-away child processes."""
    root = os.geteuid() == 0
    tempfile.gettempdir()  # computed here: a forked child must not take its lock
    user = root and _in_child(_try_user)
    network = _in_child(lambda: _unshare(_namespace_flags(True, False, False)))
    pids = _in_child(_try_pids)
    # Mounts are only worth it for root: the bot keeps the host's view otherwise.
    mounts = root and pids and _in_child(_try_mounts)
    return Isolation(user=user, network=network, pids=pids, mounts=mounts)


# -- leasing user ids -------------------------------------------------------------------

_lease_counter = itertools.count()


class _UidLease:
    """An exclusive claim on one sandbox user id, held as a lock on a file."""

    def __init__(self) -> None:
        directory = Path(tempfile.gettempdir()) / f"arena-sandbox-uids-{os.geteuid()}"
        with contextlib.suppress(FileExistsError):
            directory.mkdir(mode=0o700)
        info = directory.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
            raise SandboxError(f"{str(directory)!r} is not a private directory of this user")
        start = (os.getpid() * 31 + next(_lease_counter)) % UID_SLOTS
        for offset in range(UID_SLOTS):
            slot = (start + offset) % UID_SLOTS
            fd = os.open(directory / str(slot), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid = UID_BASE + slot
            self._fd: int | None = fd
            return
        raise SandboxError(f"all {UID_SLOTS} sandbox user ids are in use")

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


# -- the process --------------------------------------------------------------------


@dataclass(frozen=True)
class Overlay:
    """A fresh tmpfs over ``directory``, with the trees ``keep`` put back into it."""

    directory: str
    options: str
    keep: tuple[str, ...]


@dataclass(frozen=True)
class _ChildPlan:
    """Everything the child does between fork and exec, computed beforehand."""

    namespaces: int
    supervise: bool
    status_fd: int
    uid: int | None
    rlimits: tuple[tuple[int, int, int], ...]
    overlays: tuple[Overlay, ...]
    workdir: str
    work_options: str
    fresh_proc: bool
    max_fd: int
    arena_pid: int


def _enter_child(plan: _ChildPlan) -> None:
    """The preexec function: runs in the forked child, before exec."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if plan.namespaces:
        _unshare(plan.namespaces)
    if plan.supervise:
        bot = os.fork()  # the bot becomes PID 1 of the new PID namespace
        if bot:
            _supervise(bot, plan)
        os.close(plan.status_fd)
    if plan.overlays:
        _arrange_mounts(plan)
    for limit, soft, hard in plan.rlimits:
        resource.setrlimit(limit, (soft, hard))
    if plan.uid is not None:
        os.setgroups([])
        os.setresgid(plan.uid, plan.uid, plan.uid)
        os.setresuid(plan.uid, plan.uid, plan.uid)
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    if plan.supervise:
        # Its parent is the single-threaded supervisor, so this fires exactly when
        # the supervisor dies. Set after the user switch, which clears it.
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _supervise(bot: int, plan: _ChildPlan) -> None:
    """The supervisor: report the bot's PID, wait for it, exit as it exited."""
    os.write(plan.status_fd, str(bot).encode())
    os.closerange(0, plan.max_fd)  # its pipes too: the bot's end must be the last
    # Spawned from a thread that outlives the bot (the executor's), so this only
    # fires when the arena itself dies; the bot then follows (its own PDEATHSIG).
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != plan.arena_pid:  # the arena died before that took effect
        os.kill(bot, signal.SIGKILL)
    _, status = os.waitpid(bot, 0)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _arrange_mounts(plan: _ChildPlan) -> None:
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE, "")
    # Clone every tree to keep before covering the directories that hold them; the
    # overlays go shallow to deep, so a deeper one lands inside a tree put back.
    trees = {
        path: (_open_tree(path), os.path.isdir(path))
        for overlay in plan.overlays
        for path in overlay.keep
    }
    for overlay in plan.overlays:
        _mount("tmpfs", overlay.directory, "tmpfs", _MS_NOSUID | _MS_NODEV, overlay.options)
        for path in overlay.keep:
            tree, is_dir = trees[path]
            if is_dir:
                os.mkdir(path)
            else:
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
            _move_mount(tree, path)
            os.close(tree)
    if plan.fresh_proc:
        _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "")
    _mount("tmpfs", plan.workdir, "tmpfs", _MS_NOSUID | _MS_NODEV, plan.work_options)
    os.chdir(plan.workdir)


def _enterable(directory: str, uid: int) -> bool:
    info = os.stat(directory)
    if info.st_uid == uid:
        return bool(info.st_mode & stat.S_IXUSR)
    if info.st_gid == uid:
        return bool(info.st_mode & stat.S_IXGRP)
    return bool(info.st_mode & stat.S_IXOTH)


def _mount_layout(needed: Sequence[str], uid: int, scratch_bytes: int) -> tuple[Overlay, ...]:
    """The tmpfs overlays, shallow to deep, through which ``uid`` reaches every
    ``needed`` path (absolute, symbolic links resolved).

    Scratch directories are covered with fresh tmpfs; a directory the user cannot
    enter is covered with one that holds only the needed paths below it.
    """
    scratch = [d for d in SCRATCH_DIRS if os.path.isdir(d) and not os.path.islink(d)]
    options = {d: f"mode=1777,size={scratch_bytes}" for d in scratch}
    keep: dict[str, set[str]] = {d: set() for d in scratch}
    for path in needed:
        parts = Path(path).parts
        for depth in range(1, len(parts)):
            directory = os.path.join(*parts[:depth])
            if directory not in options and not _enterable(directory, uid):
                options[directory] = "mode=0755,size=64k"
                keep[directory] = set()
            if directory in options:
                keep[directory].add(os.path.join(directory, parts[depth]))
    return tuple(
        Overlay(directory, options[directory], tuple(sorted(keep[directory])))
        for directory in sorted(options, key=lambda d: (d.count("/"), d))
    )


def _own_process_count() -> int:
    uid = os.geteuid()
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                count += entry.stat().st_uid == uid
    return count


def describe_exit(returncode: int | None) -> str:
    """``exited with status 1`` / ``killed by SIGXCPU (CPU time limit)`` …"""
    if returncode is None:
        return "still running"
    if returncode >= 0:
        return f"exited with status {returncode}"
    number = -returncode
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    why = {"SIGXCPU": " (CPU time limit)", "SIGXFSZ": " (file size limit)"}.get(name, "")
    return f"killed by {name}{why}"


class SandboxedProcess:
    """A bot program running in the sandbox.

    ``argv`` items may contain ``{code}``, replaced by the directory holding
    ``files`` (read-only for the bot). ``env`` adds to the scrubbed environment.

    Raises:
        SandboxError: the program cannot be started (not found, not executable,
            the sandbox cannot be set up).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        limits: SandboxLimits,
        cpu_seconds: int,
        files: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not argv:
            raise SandboxError("the bot command is empty")
        self.isolation = detect_isolation() if limits.isolate else NO_ISOLATION
        self.limits = limits
        self._lease = _UidLease() if self.isolation.user else None
        self.uid = self._lease.uid if self._lease else os.geteuid()
        # With a mount namespace the bot writes to a tmpfs of its own, so the host's
        # side of its directory can live in memory too: ext4 takes ms to delete it.
        memory = self.isolation.mounts and os.path.isdir(SHARED_MEMORY)
        parent = SHARED_MEMORY if memory else tempfile.gettempdir()
        prefix = "arena-bot-"
        if self._lease is not None:
            # Directories named after a user id just leased belong to no live bot: an
            # arena killed outright left them behind.
            prefix = f"arena-bot-{self.uid}-"
            for stale in Path(parent).glob(f"{prefix}*"):
                shutil.rmtree(stale, ignore_errors=True)
        self.base = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
        self.bot_pid: int | None = None
        self._bot_pidfd: int | None = None
        self._killed = self._closed = False
        try:
            self.process = self._start(argv, cpu_seconds, files or {}, env or {})
        except BaseException:
            self._release()
            raise
        self.pgid = self.process.pid
        self._finalizer = weakref.finalize(self, SandboxedProcess._kill_quietly, self.process)

    @property
    def workdir(self) -> Path:
        return self.base / "work"

    def _start(
        self,
        argv: Sequence[str],
        cpu_seconds: int,
        files: Mapping[str, str],
        env: Mapping[str, str],
    ) -> subprocess.Popen[bytes]:
        isolation = self.isolation
        self.base.chmod(0o711)
        self.workdir.mkdir(mode=0o700)
        if isolation.user:
            os.chown(self.workdir, self.uid, self.uid)
        code_dir = self.base / "code"
        if files:
            code_dir.mkdir(mode=0o755)
            for name, text in files.items():
                # Archive members may sit in folders (names checked on upload).
                for folder in reversed(Path(name).parents[:-1]):
                    (code_dir / folder).mkdir(mode=0o755, exist_ok=True)
                (code_dir / name).write_text(text, encoding="utf-8")
                (code_dir / name).chmod(0o644)
        args = [item.replace("{code}", str(code_dir)) if files else item for item in argv]
        program = shutil.which(args[0], path=SANDBOX_PATH) if "/" not in args[0] else args[0]
        if program is None:
            raise SandboxError(f"no program {args[0]!r} on the sandbox's PATH ({SANDBOX_PATH})")
        environment = {
            "PATH": SANDBOX_PATH,
            "LANG": "C.UTF-8",
            "HOME": str(self.workdir),
            "TMPDIR": str(self.workdir),
            **env,
        }
        overlays: tuple[Overlay, ...] = ()
        if isolation.mounts:
            needed = [
                os.path.realpath(program),
                os.path.realpath(sys.executable),
                sys.prefix,
                sys.base_prefix,
                str(self.base),
                *_named_paths(args[1:]),
                *(p for p in env.get("PYTHONPATH", "").split(":") if p),
            ]
            real = [os.path.realpath(path) for path in needed]
            overlays = _mount_layout(real, self.uid, self.limits.scratch_bytes)
        processes = self.limits.processes
        if os.geteuid() != 0:
            processes += _own_process_count()  # counted per user: ours count too
        limits = self.limits
        status_read, status_write = os.pipe() if isolation.pids else (-1, -1)
        plan = _ChildPlan(
            namespaces=_namespace_flags(isolation.network, isolation.pids, isolation.mounts),
            supervise=isolation.pids,
            status_fd=status_write,
            uid=self.uid if isolation.user else None,
            rlimits=(
                (resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes),
                (resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1),
                (resource.RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes),
                (resource.RLIMIT_NPROC, processes, processes),
            ),
            overlays=overlays,
            workdir=str(self.workdir),
            work_options=f"mode=0700,uid={self.uid},gid={self.uid},size={limits.scratch_bytes}",
            fresh_proc=isolation.mounts,
            max_fd=resource.getrlimit(resource.RLIMIT_NOFILE)[0],
            arena_pid=os.getpid(),
        )
        try:
            process = subprocess.Popen(
                [program, *args[1:]],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.workdir,
                env=environment,
                start_new_session=True,
                pass_fds=(status_write,) if isolation.pids else (),
                preexec_fn=functools.partial(_enter_child, plan),
            )
        except (OSError, subprocess.SubprocessError) as exc:
            if isolation.pids:
                os.close(status_read)
            if isinstance(exc, OSError):
                raise SandboxError(f"cannot start {args[0]!r}: {exc.strerror}") from None
            raise SandboxError(f"cannot set up the sandbox for {args[0]!r}: {exc}") from None
        finally:
            if isolation.pids:
                os.close(status_write)
        if isolation.pids:
            with os.fdopen(status_read, "rb") as status:
                reported = status.read()
            if reported:
                self.bot_pid = int(reported)
                with contextlib.suppress(OSError):
                    self._bot_pidfd = os.pidfd_open(self.bot_pid)
        return process

    def kill(self) -> int | None:
        """Kill every process of the bot and reap them; returns the exit code
        (negative: the signal). Its pipes stay open, to read what is left in them."""
        if self._killed:
            return self.process.returncode
        self._killed = True
        self._finalizer.detach()
        process = self.process
        if self._bot_pidfd is not None:
            # Killing PID 1 of the namespace kills the rest; the supervisor reaps them
            # all and exits. A pidfd cannot hit a recycled PID.
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._bot_pidfd, signal.SIGKILL)
            os.close(self._bot_pidfd)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(REAP_SECONDS)
        if process.returncode is None:
            # The group leader is not reaped yet, so its PGID cannot have been reused.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pgid, signal.SIGKILL)
            if self.isolation.user and not self.isolation.pids:
                _kill_all_of(self.uid)
            process.wait()
        return process.returncode

    def close(self) -> int | None:
        """Kill the bot (:meth:`kill`), close its pipes, delete its directories and give
        back its user id; returns the exit code. Idempotent."""
        code = self.kill()
        if not self._closed:
            self._closed = True
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            self._release()
        return code

    def _release(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)
        if self._lease is not None:
            self._lease.release()

    @staticmethod
    def _kill_quietly(process: subprocess.Popen[bytes]) -> None:
        # The last resort when an unclosed sandbox is garbage-collected.
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            process.wait(REAP_SECONDS)


def _named_paths(args: Sequence[str]) -> list[str]:
    """Existing absolute paths among ``args``, also as ``PATH:Class`` (the SDK's form):
    the files a command names stay visible when /tmp is replaced."""
    paths = []
    for arg in args:
        for candidate in (arg, arg.rpartition(":")[0]):
            if candidate.startswith("/") and os.path.exists(candidate):
                paths.append(candidate)
                break
    return paths


def _kill_all_of(uid: int) -> None:
    """Kill every process of ``uid`` (those that left the process group too)."""

    def kill_as_that_user() -> None:
        os.setresuid(uid, uid, uid)
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)

    _in_child(kill_as_that_user)
