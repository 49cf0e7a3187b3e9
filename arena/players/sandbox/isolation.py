"""What fences this machine gives a bot: :func:`detect_isolation`, probed once.

Each fence is tried in a throw-away child process, the way a bot's sandbox would use
it; what fails is left out (and :meth:`Isolation.missing` names it, so that
``arena serve`` can refuse uploads from the web without it).
"""

from __future__ import annotations

import errno
import fcntl
import functools
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass

from arena.players.sandbox import kernel
from arena.players.sandbox.cgroups import NO_CGROUPS, CgroupSupport, detect_cgroups
from arena.players.sandbox.rootfs import RootPlan, bot_etc_files, enter_fresh_root
from arena.players.sandbox.runtime import host_runtime
from arena.players.sandbox.syscalls import SyscallSeal, bot_seal
from arena.players.sandbox.uids import UID_BASE


@dataclass(frozen=True)
class Isolation:
    """The fences a bot gets here, beyond rlimits and a process group of its own."""

    user: bool
    """A leased unprivileged user id (the arena runs as root)."""
    network: bool
    """A network namespace without interfaces: no network, no abstract sockets shared."""
    pids: bool
    """A PID namespace: every process it starts dies with it."""
    ipc: bool
    """An IPC namespace: its SysV IPC objects and POSIX message queues are its own."""
    uts: bool
    """A UTS namespace: a host name of its own (``arena-bot``), not the host's."""
    cgroup_namespace: bool
    """A cgroup namespace: its cgroup looks like the root, the host's are hidden."""
    filesystem: bool
    """A fresh root (mount namespace, pivot_root): only the runtime, read-only, and
    its own files; nothing it writes outlives its game."""
    cgroups: CgroupSupport = NO_CGROUPS
    """Memory and process limits for the whole bot."""
    syscall_filter: bool = False
    """A seccomp filter (:mod:`arena.players.sandbox.syscalls`, made by libseccomp) and
    a session keyring of its own: no keyrings, locks or inotify on shared files, no new
    namespaces, tracing, BPF or perf events."""

    @property
    def process_limit(self) -> bool:
        """RLIMIT_NPROC binds only an unprivileged user (root ignores it)."""
        return self.user or os.geteuid() != 0

    def missing(self) -> list[str]:
        """What hosted play relies on (docs/protocol.md) and this machine lacks."""
        needed = {
            "a user id of its own (the arena must run as root)": self.user,
            "a network namespace": self.network,
            "a PID namespace": self.pids,
            "an IPC namespace": self.ipc,
            "a UTS namespace": self.uts,
            "a fresh root filesystem (mount namespace and pivot_root)": self.filesystem,
            "a memory limit for the whole bot (cgroup memory controller)": (
                self.cgroups.enforced.memory
            ),
            "a process limit for the whole bot (cgroup pids controller)": (
                self.cgroups.enforced.pids
            ),
            "one CPU share for the whole bot (cgroup cpu controller)": self.cgroups.enforced.cpu,
            "a freeze while it is not its turn (cgroup freezer)": self.cgroups.enforced.freeze,
            "a system call filter (seccomp, made with libseccomp: libseccomp.so.2 and the"
            " pyseccomp package)": self.syscall_filter,
        }
        return [what for what, present in needed.items() if not present]

    def describe(self) -> str:
        namespaces = {
            "network": self.network,
            "PID": self.pids,
            "IPC": self.ipc,
            "UTS": self.uts,
            "cgroup": self.cgroup_namespace,
            "mount": self.filesystem,
        }
        present = [name for name, on in namespaces.items() if on]
        parts = [
            f"user id of its own: {'yes' if self.user else 'no'}",
            f"namespaces: {', '.join(present) or 'none'}",
            "filesystem: "
            + ("fresh root with the runtime read-only" if self.filesystem else "the host's"),
            self.cgroups.describe(),
            f"process limit per user: {'yes' if self.process_limit else 'no (runs as root)'}",
            f"system call filter: {'yes' if self.syscall_filter else 'no'}",
        ]
        return "; ".join(parts)


NO_ISOLATION = Isolation(
    user=False,
    network=False,
    pids=False,
    ipc=False,
    uts=False,
    cgroup_namespace=False,
    filesystem=False,
)
HOSTNAME = "arena-bot"


def namespace_flags(*flags: int) -> int:
    """``flags`` together; inside a user namespace when not root (an unprivileged
    user may create the others there)."""
    combined = 0
    for flag in flags:
        combined |= flag
    if combined and os.geteuid() != 0:
        combined |= kernel.CLONE_NEWUSER
    return combined


def in_child(attempt: Callable[[], object]) -> bool:
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
    kernel.unshare(namespace_flags(kernel.CLONE_NEWPID))
    return in_child(lambda: os.getpid() == 1)


def _try_uts() -> None:
    kernel.unshare(namespace_flags(kernel.CLONE_NEWUTS))
    kernel.sethostname(HOSTNAME)


def _try_fresh_root() -> bool:
    """Build a bot's root without code, and look around in it."""
    mount_point = tempfile.mkdtemp(prefix="arena-probe-")
    scratch = "mode=1777,size=64k"
    plan = RootPlan(mount_point, host_runtime(), None, bot_etc_files(UID_BASE), scratch, scratch)

    def look_around() -> bool:
        enter_fresh_root(plan)
        return os.path.isdir("/usr") and not os.path.exists(mount_point)

    def inside() -> bool:
        kernel.unshare(kernel.CLONE_NEWNS | kernel.CLONE_NEWPID)
        return in_child(look_around)

    try:
        return in_child(inside)
    finally:
        shutil.rmtree(mount_point, ignore_errors=True)


def _try_syscall_filter(seal: SyscallSeal) -> bool:
    """Seal a child as a bot is sealed; a lock must then be refused."""
    kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
    seal.enter()
    with open(os.devnull) as file:
        try:
            fcntl.flock(file, fcntl.LOCK_SH)
        except OSError as exc:
            return exc.errno == errno.ENOLCK
    return False


@functools.cache
def detect_isolation() -> Isolation:
    """What a sandbox can use here; probed once per process."""
    root = os.geteuid() == 0
    tempfile.gettempdir()  # computed here: a forked child must not take its lock
    pids = in_child(_try_pids)
    seal = bot_seal()  # built here: a forked child must not take tempfile's lock either
    return Isolation(
        user=root and in_child(_try_user),
        network=in_child(lambda: kernel.unshare(namespace_flags(kernel.CLONE_NEWNET))),
        pids=pids,
        ipc=in_child(lambda: kernel.unshare(namespace_flags(kernel.CLONE_NEWIPC))),
        uts=in_child(_try_uts),
        cgroup_namespace=in_child(lambda: kernel.unshare(namespace_flags(kernel.CLONE_NEWCGROUP))),
        # A fresh root is only worth it for root: a user namespace's bot keeps the host's view.
        filesystem=root and pids and _try_fresh_root(),
        cgroups=detect_cgroups(),
        syscall_filter=seal is not None and in_child(functools.partial(_try_syscall_filter, seal)),
    )
