"""A bot program running in the sandbox: :class:`SandboxedProcess`.

With a PID namespace the host forks twice: the process :mod:`subprocess` starts
creates the namespaces and forks the bot (PID 1 inside), then waits for it and exits
with its status, so the host's own bookkeeping stays that of one child. The bot's
child then joins its cgroup, takes a cgroup namespace, enters its fresh root, sets its
rlimits, drops to its user id and seals itself (a keyring of its own, the system call
filter) before it executes the program.
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.players.sandbox import kernel
from arena.players.sandbox.cgroups import BOT_PREFIX, BotCgroup, Enforced, sweep
from arena.players.sandbox.errors import SandboxError
from arena.players.sandbox.isolation import (
    HOSTNAME,
    NO_ISOLATION,
    Isolation,
    detect_isolation,
    in_child,
    namespace_flags,
)
from arena.players.sandbox.limits import GIB, MIB, SandboxLimits
from arena.players.sandbox.rootfs import FRESH, RootPlan, bot_etc_files, enter_fresh_root
from arena.players.sandbox.runtime import CODE_DIR, WORK_DIR, check_named_paths, host_runtime
from arena.players.sandbox.syscalls import SyscallSeal, bot_seal, clear_keys_of, keys_left
from arena.players.sandbox.uids import UidLease
from arena.players.sandbox.warden import WardenLink, WardenPlan, start_warden

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
SHARED_MEMORY = "/dev/shm"
REAP_SECONDS = 5.0


@dataclass(frozen=True)
class _ChildPlan:
    """Everything the child does between fork and exec, computed beforehand."""

    namespaces: int
    hostname: str | None
    supervise: bool
    status_fd: int
    cgroup_joins: tuple[int, ...]
    cgroup_namespace: bool
    root: RootPlan | None
    uid: int | None
    rlimits: tuple[tuple[int, int, int], ...]
    max_fd: int
    arena_pid: int
    seal: SyscallSeal | None
    thaw: tuple[int, bytes] | None = None
    """The bot's open freezer file and what thaws it: the supervisor thaws a bot it
    kills, which a frozen v1 cgroup would otherwise keep."""
    warden: WardenPlan | None = None
    """The warden the supervisor forks for a warm sandboxes (:mod:`.warden`)."""


def _enter_child(plan: _ChildPlan) -> None:
    """The preexec function: runs in the forked child, before exec."""
    # No signal blocked by the arena's thread (Ray's workers block some) reaches the bot.
    signal.pthread_sigmask(signal.SIG_SETMASK, ())
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if plan.namespaces:
        kernel.unshare(plan.namespaces)
    if plan.hostname is not None:
        kernel.sethostname(plan.hostname)
    # The new mount namespace, for a warm sandbox's warden (opened while /proc is
    # still the host's; closed when the bot's program starts).
    mount_ns = os.open("/proc/self/ns/mnt", os.O_RDONLY | os.O_CLOEXEC) if plan.warden else -1
    if plan.supervise:
        bot = os.fork()  # the bot becomes PID 1 of the new PID namespace
        if bot:
            _supervise(bot, plan, mount_ns)
        os.close(plan.status_fd)
    for join in plan.cgroup_joins:
        os.write(join, b"0")  # 0: the writer itself
    if plan.cgroup_namespace:
        kernel.unshare(kernel.CLONE_NEWCGROUP)  # after joining: its cgroup is its root
    if plan.root is not None:
        enter_fresh_root(plan.root)
    for limit, soft, hard in plan.rlimits:
        resource.setrlimit(limit, (soft, hard))
    if plan.uid is not None:
        os.setgroups([])
        os.setresgid(plan.uid, plan.uid, plan.uid)
        os.setresuid(plan.uid, plan.uid, plan.uid)
    kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
    if plan.supervise:
        # Its parent is the single-threaded supervisor, so this fires exactly when
        # the supervisor dies. Set after the user switch, which clears it.
        kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
    if plan.seal is not None:
        plan.seal.enter()  # last: the set-up above is not filtered


def _supervise(bot: int, plan: _ChildPlan, mount_ns: int) -> None:
    """The supervisor: fork the warden (warm sandboxes), report the bot's PID, wait for
    it, exit as it exited; kill it when the arena dies."""
    if plan.warden is not None:
        start_warden(plan.warden, plan.max_fd, mount_ns)
        os.close(mount_ns)
    os.write(plan.status_fd, str(bot).encode())
    keep = plan.thaw[0] if plan.thaw else plan.max_fd
    os.closerange(0, keep)  # its pipes too: the bot's end must be the last
    os.closerange(keep + 1, plan.max_fd)
    waited = {signal.SIGCHLD, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, waited)  # kept pending for sigwait
    # Spawned from a thread that outlives the bot (the executor's), so this only
    # fires when the arena itself dies.
    kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != plan.arena_pid:  # the arena died before that took effect
        _kill_frozen(bot, plan)
    while True:
        reaped, status = os.waitpid(bot, os.WNOHANG)
        if reaped:
            break
        if signal.sigwait(waited) == signal.SIGTERM:
            _kill_frozen(bot, plan)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _kill_frozen(bot: int, plan: _ChildPlan) -> None:
    """SIGKILL the bot (PID 1 of its namespace: all of it) and thaw it, so that it dies
    even when frozen off its turn."""
    os.kill(bot, signal.SIGKILL)
    if plan.thaw is not None:
        with contextlib.suppress(OSError):
            os.write(*plan.thaw)


def _own_process_count() -> int:
    uid = os.geteuid()
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                count += entry.stat().st_uid == uid
    return count


def _size(size: int) -> str:
    return f"{size / GIB:g} GiB" if size % GIB == 0 else f"{size / MIB:g} MiB"


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
    ``isolation`` chooses fences (at most those :func:`detect_isolation` found; all of
    them by default, none when ``limits.isolate`` is off). ``warm``: the program is a
    zygote that plays many games (:mod:`arena.players.zygote`): its system call filter
    also refuses what those games would share.

    Raises:
        SandboxError: the program cannot be started (not found, not executable, its
            command names a host path outside the runtime, the sandbox or the bot's
            cgroup cannot be set up).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        limits: SandboxLimits,
        cpu_seconds: int,
        files: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        isolation: Isolation | None = None,
        warm: bool = False,
    ) -> None:
        if not argv:
            raise SandboxError("the bot command is empty")
        if not limits.isolate:
            isolation = NO_ISOLATION
        self.isolation: Isolation = isolation or detect_isolation()
        self.limits = limits
        self.warm = warm
        self.root: RootPlan | None = None
        """The fresh root's plan (its tmpfs options); None without a fresh root."""
        self._lease = UidLease() if self.isolation.user else None
        self.uid = self._lease.uid if self._lease else os.geteuid()
        # With a fresh root the bot writes to tmpfs of its own, so the host's side of
        # its directory (only its code) can live in memory: ext4 takes ms to delete it.
        memory = self.isolation.filesystem and os.path.isdir(SHARED_MEMORY)
        parent = SHARED_MEMORY if memory else tempfile.gettempdir()
        prefix = BOT_PREFIX
        if self._lease is not None:
            # Directories and cgroups named after a user id just leased belong to no
            # live bot: an arena killed outright left them behind.
            prefix = f"{BOT_PREFIX}{self.uid}-"
            for stale in Path(parent).glob(f"{prefix}*"):
                shutil.rmtree(stale, ignore_errors=True)
            sweep(self.isolation.cgroups.parents, prefix)
            seal = bot_seal() if self.isolation.syscall_filter else None
            if seal is not None and keys_left(self.uid):  # left by a bot before the filter
                in_child(functools.partial(clear_keys_of, self.uid, seal.keyctl))
        self.base = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
        self.cgroup: BotCgroup | None = None
        self.warden: WardenLink | None = None
        """The link to a warm sandbox's warden (:mod:`.warden`); None without one."""
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
        """The bot's working directory, as the bot sees it."""
        return Path(WORK_DIR) if self.isolation.filesystem else self.base / "work"

    def enforced(self) -> str:
        """What holds this bot's memory and process count, in words."""
        held = self.cgroup.enforced if self.cgroup else Enforced()
        kind = f"cgroup v{self.isolation.cgroups.version}"
        memory = f"memory {_size(self.limits.memory_bytes)}"
        if held.memory:
            memory += f" for the whole bot ({kind}{', swap included' if held.swap else ''})"
        else:
            memory += " per process (address space only)"
        processes = f"{self.limits.processes} processes for the whole bot"
        if held.pids:
            processes += f" ({kind})"
        elif self.isolation.process_limit:
            processes += " (its user id's process limit)"
        else:
            processes = "no process limit (runs as root without cgroups)"
        return f"{memory}; {processes}"

    def describe_end(self, returncode: int | None) -> str:
        """:func:`describe_exit`, and whether the bot's memory limit was hit."""
        text = describe_exit(returncode)
        if self.cgroup is not None and self.cgroup.oom_kills():
            memory = _size(self.limits.memory_bytes)
            text += f" (the bot reached its memory limit, {memory} for all its processes)"
        return text

    def _write_code(self, files: Mapping[str, str]) -> Path:
        code = self.base / "code"
        code.mkdir(mode=0o755)
        for name, text in files.items():
            # Archive members may sit in folders (names checked on upload).
            for folder in reversed(Path(name).parents[:-1]):
                (code / folder).mkdir(mode=0o755, exist_ok=True)
            (code / name).write_text(text, encoding="utf-8")
            (code / name).chmod(0o755)  # scripts run by their #! line; the mount is nosuid
        return code

    def _start(
        self,
        argv: Sequence[str],
        cpu_seconds: int,
        files: Mapping[str, str],
        env: Mapping[str, str],
    ) -> subprocess.Popen[bytes]:
        isolation, limits = self.isolation, self.limits
        fresh_root = isolation.filesystem
        self.base.chmod(0o711)
        code = self._write_code(files) if files else None
        code_seen = CODE_DIR if fresh_root else str(self.base / "code")
        args = [item.replace("{code}", code_seen) for item in argv] if files else list(argv)
        program = shutil.which(args[0], path=SANDBOX_PATH) if "/" not in args[0] else args[0]
        if program is None:
            raise SandboxError(f"no program {args[0]!r} on the sandbox's PATH ({SANDBOX_PATH})")
        check_named_paths([program, *args[1:]], host_runtime(), code_seen)
        if not fresh_root:
            self.workdir.mkdir(mode=0o700)
            if isolation.user:
                os.chown(self.workdir, self.uid, self.uid)
        environment = {
            "PATH": SANDBOX_PATH,
            "LANG": "C.UTF-8",
            "HOME": str(self.workdir),
            "TMPDIR": str(self.workdir),
            **env,
        }
        root = None
        if fresh_root:
            (self.base / "root").mkdir(mode=0o700)
            scratch = f"size={limits.scratch_bytes}"
            root = RootPlan(
                mount_point=str(self.base / "root"),
                runtime=host_runtime(),
                code=str(code) if code else None,
                etc_files=bot_etc_files(self.uid),
                scratch_options=f"mode=1777,{scratch}",
                work_options=f"mode=0700,uid={self.uid},gid={self.uid},{scratch}",
            )
        self.root = root
        joins = self._make_cgroup()
        processes = limits.processes
        if os.geteuid() != 0:
            processes += _own_process_count()  # counted per user: ours count too
        status_read, status_write = os.pipe() if isolation.pids else (-1, -1)
        warden, warden_ends = self._plan_warden(root)
        plan = _ChildPlan(
            namespaces=namespace_flags(
                *(
                    flag
                    for flag, wanted in (
                        (kernel.CLONE_NEWNET, isolation.network),
                        (kernel.CLONE_NEWPID, isolation.pids),
                        (kernel.CLONE_NEWNS, fresh_root),
                        (kernel.CLONE_NEWIPC, isolation.ipc),
                        (kernel.CLONE_NEWUTS, isolation.uts),
                    )
                    if wanted
                )
            ),
            hostname=HOSTNAME if isolation.uts else None,
            supervise=isolation.pids,
            status_fd=status_write,
            cgroup_joins=tuple(joins),
            cgroup_namespace=isolation.cgroup_namespace,
            root=root,
            uid=self.uid if isolation.user else None,
            rlimits=(
                (resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes),
                (resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + 1),
                (resource.RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes),
                (resource.RLIMIT_NPROC, processes, processes),
            ),
            max_fd=resource.getrlimit(resource.RLIMIT_NOFILE)[0],
            arena_pid=os.getpid(),
            seal=bot_seal(self.warm) if isolation.syscall_filter else None,
            thaw=self.cgroup.thawing() if self.cgroup else None,
            warden=warden,
        )
        self.warden = None if warden is None else WardenLink(*warden_ends)
        try:
            process = subprocess.Popen(
                [program, *args[1:]],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=None if fresh_root else self.workdir,
                env=environment,
                start_new_session=True,
                pass_fds=(status_write,) if isolation.pids else (),
                preexec_fn=functools.partial(_enter_child, plan),
            )
        except (OSError, subprocess.SubprocessError) as exc:
            if isolation.pids:
                os.close(status_read)
            self.warden = None
            if isinstance(exc, OSError):
                raise SandboxError(f"cannot start {args[0]!r}: {exc.strerror}") from None
            raise SandboxError(f"cannot set up the sandbox for {args[0]!r}: {exc}") from None
        finally:
            for fd in joins:
                os.close(fd)
            if isolation.pids:
                os.close(status_write)
            if warden is not None:
                os.close(warden.requests)
                os.close(warden.answers)
                if self.warden is None:  # it did not start
                    for fd in warden_ends:
                        os.close(fd)
        if isolation.pids:
            with os.fdopen(status_read, "rb") as status:
                reported = status.read()
            if reported:
                self.bot_pid = int(reported)
                with contextlib.suppress(OSError):
                    self._bot_pidfd = os.pidfd_open(self.bot_pid)
        return process

    def _plan_warden(self, root: RootPlan | None) -> tuple[WardenPlan | None, tuple[int, int]]:
        """The warden of a warm sandbox with PID and mount namespaces of its own, and
        the arena's ends of its pipes; none when it has no such namespaces, or when the
        runtime lies below a directory it renews (a checkout below ``/tmp``: that is
        renewed from the host, :func:`arena.players.zygote.renew`)."""
        if not (self.warm and self.isolation.pids and root is not None):
            return None, (-1, -1)
        if any(path.startswith(("/tmp/", "/dev/shm/")) for path in root.runtime.read_only):
            return None, (-1, -1)
        requests_read, requests_write = os.pipe()
        answers_read, answers_write = os.pipe()
        plan = WardenPlan(
            requests=requests_read,
            answers=answers_write,
            mounts=(
                ("/tmp", root.scratch_options),
                (SHARED_MEMORY, root.scratch_options),
                (WORK_DIR, root.work_options),
            ),
            flags=FRESH,
        )
        return plan, (requests_write, answers_read)

    def _make_cgroup(self) -> list[int]:
        """Make the bot's cgroup; returns the files its child writes itself into."""
        support = self.isolation.cgroups
        if not support.parents:
            return []
        try:
            self.cgroup = BotCgroup.create(
                support.parents,
                self.base.name,
                memory=self.limits.memory_bytes,
                processes=self.limits.processes,
            )
            return self.cgroup.open_joins()
        except OSError as exc:
            raise SandboxError(f"cannot make the bot's cgroup: {exc}") from None

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
            if self.cgroup is not None:
                self.cgroup.thaw_to_die()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(REAP_SECONDS)
        elif self.cgroup is not None:
            self.cgroup.kill()  # no PID namespace: its cgroup knows every process
        if process.returncode is None:
            # The group leader is not reaped yet, so its PGID cannot have been reused.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pgid, signal.SIGKILL)
            if self.isolation.user and not self.isolation.pids:
                _kill_all_of(self.uid)
            process.wait()
        return process.returncode

    def close(self) -> int | None:
        """Kill the bot (:meth:`kill`), close its pipes, remove its directories and
        cgroup and give back its user id; returns the exit code. Idempotent."""
        code = self.kill()
        if not self._closed:
            self._closed = True
            if self.warden is not None:
                self.warden.close()
            for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            self._release()
        return code

    def _release(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)
        if self.cgroup is not None:
            self.cgroup.remove()
        if self._lease is not None:
            self._lease.release()

    @staticmethod
    def _kill_quietly(process: subprocess.Popen[bytes]) -> None:
        # The last resort when an unclosed sandbox is garbage-collected.
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            process.wait(REAP_SECONDS)


def _kill_all_of(uid: int) -> None:
    """Kill every process of ``uid`` (those that left the process group too)."""

    def kill_as_that_user() -> None:
        os.setresuid(uid, uid, uid)
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)

    in_child(kill_as_that_user)
