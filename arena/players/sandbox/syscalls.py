"""The system calls a bot never needs: :data:`POLICY`, a seccomp filter made by libseccomp.

Every bot program runs under one filter, loaded as the last step before it executes
(after its user switch and ``no_new_privs``, so the sandbox's own set-up is not
filtered). The filter allows by default and denies a list: a bot is any program in
any language (Python, Node, a compiled binary), so an allow-list like Docker's would
have to follow every runtime's needs, while what an unprivileged user without
capabilities can reach through the allowed calls is the kernel's own business. What
is denied is what carries information between games (keyrings, locks and
notifications on the shared read-only runtime, the page cache's residency) or opens
kernel surface a bot never needs (new namespaces, tracing, BPF, perf events, mounts,
modules, ``io_uring``). docs/protocol.md lists each with its error and the reason.

The filter is built once per host process (:func:`bot_seal`) and exported as a BPF
program, so a sandbox's child only hands that program to the kernel.
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile
from dataclasses import dataclass
from typing import Any

from arena.players.sandbox import kernel

_DENIED: tuple[tuple[int, tuple[str, ...]], ...] = (
    # Keyrings outlive a bot (a user id's keyrings live as long as the kernel does).
    (errno.EPERM, ("add_key", "request_key", "keyctl")),
    # Locks on the shared read-only runtime files are seen by every game: ENOLCK is
    # what a file system without locks answers (NFS without lockd).
    (errno.ENOLCK, ("flock",)),
    # Notifications and the page cache's residency of shared files show other bots'
    # accesses.
    (errno.EPERM, ("inotify_init", "inotify_init1", "fanotify_init", "mincore")),
    # Other processes, the kernel's own surface, and privileged calls a user without
    # capabilities is refused anyway (denied here too, as Docker's profile does).
    (
        errno.EPERM,
        (
            "ptrace",
            "process_vm_readv",
            "process_vm_writev",
            "kcmp",
            "pidfd_getfd",
            "bpf",
            "perf_event_open",
            "userfaultfd",
            "setns",
            "mount",
            "umount2",
            "pivot_root",
            "chroot",
            "fsopen",
            "fsconfig",
            "fsmount",
            "fspick",
            "open_tree",
            "move_mount",
            "mount_setattr",
            "open_by_handle_at",
            "name_to_handle_at",
            "init_module",
            "finit_module",
            "delete_module",
            "kexec_load",
            "kexec_file_load",
            "swapon",
            "swapoff",
            "reboot",
            "acct",
            "quotactl",
            "quotactl_fd",
            "lookup_dcookie",
            "syslog",
            "iopl",
            "ioperm",
            "settimeofday",
            "clock_settime",
            "sethostname",
            "setdomainname",
            "vhangup",
        ),
    ),
    # Not built in, as far as a program can tell: runtimes fall back (libc's clone3
    # falls back to clone, whose flags the filter can read; libuv to epoll).
    (errno.ENOSYS, ("clone3", "io_uring_setup", "io_uring_enter", "io_uring_register")),
    # Advice to another process (paging its file pages out): not built in either.
    (errno.ENOSYS, ("process_madvise",)),
)
_WARM_DENIED: tuple[tuple[int, tuple[str, ...]], ...] = (
    # A zygote's games share its IPC namespace: SysV IPC and POSIX message queues
    # would outlive a game, so they are not built in (as in a kernel without them).
    (errno.ENOSYS, ("shmget", "shmat", "msgget", "semget", "mq_open")),
    # The I/O priority of another process of its user (the zygote's), which the
    # arena cannot read from /proc.
    (errno.EPERM, ("ioprio_set",)),
)
# Nor may a game change what the zygote's open pipes say to the next game (their
# owner for SIGIO, their signal, their size).
_WARM_FCNTL = (
    8,  # F_SETOWN
    10,  # F_SETSIG
    15,  # F_SETOWN_EX
    1031,  # F_SETPIPE_SZ
)
_AF_UNIX = 1
_CACHESTAT = 451
"""``cachestat`` (Linux 6.5, the page cache's residency again), one number on every
architecture; libseccomp 2.5 does not know its name."""
_FCNTL_LOCKS = (
    5,  # F_GETLK
    6,  # F_SETLK
    7,  # F_SETLKW
    36,  # F_OFD_GETLK
    37,  # F_OFD_SETLK
    38,  # F_OFD_SETLKW
    1024,  # F_SETLEASE
    1025,  # F_GETLEASE
    1026,  # F_NOTIFY (dnotify)
)
_NAMESPACES = (
    kernel.CLONE_NEWNS,
    kernel.CLONE_NEWCGROUP,
    kernel.CLONE_NEWUTS,
    kernel.CLONE_NEWIPC,
    kernel.CLONE_NEWUSER,
    kernel.CLONE_NEWPID,
    kernel.CLONE_NEWNET,
)
_CLONE_NEWTIME = 0x80  # unshare only: in clone's flags these bits are the exit signal
_PERSONALITY_KEPT = 0x0008 | 0x20000  # PER_LINUX32, UNAME26 (Docker's allowed values)
_PERSONALITY_QUERY = 0x80000000  # set only in 0xffffffff (asks without changing)
_POSIX_FADV_DONTNEED = 4
_MADV_COLD = 20
_MADV_PAGEOUT = 21
_RWF_NOWAIT = 0x8
_USER_KEYRINGS = 2
"""Keys a user id holds with nothing in them: its user and user-session keyrings."""


@dataclass(frozen=True)
class SyscallSeal:
    """What a bot's child does last before it executes: a keyring of its own, then
    the filter (``program``, libseccomp's BPF export)."""

    keyctl: int
    """The ``keyctl`` system call's number on this architecture."""
    program: bytes

    def enter(self) -> None:
        """Join a new session keyring, then load the filter (``no_new_privs`` must be set).

        Raises:
            OSError: the kernel refused either.
        """
        kernel.join_session_keyring(self.keyctl)
        kernel.load_syscall_filter(self.program)


def _build(warm: bool) -> SyscallSeal:
    """The filter for this architecture, exported; ``warm``: for a zygote's games too.

    Raises:
        RuntimeError: libseccomp is not installed (pyseccomp's own error).
        ImportError: pyseccomp is not installed.
        OSError: libseccomp refused a rule.
        ValueError: the architecture is neither x86_64 nor aarch64.
    """
    import pyseccomp as seccomp  # loads libseccomp.so.2 (RuntimeError without it)

    native = seccomp.system_arch()
    if native not in (seccomp.Arch.X86_64, seccomp.Arch.AARCH64):
        # clone's flags are its first argument on these two (not on s390, for one).
        raise ValueError(f"no system call filter for architecture {native:#x}")
    syscalls = seccomp.SyscallFilter(seccomp.ALLOW)
    # Only the native architecture: x32 and i386 calls on x86_64 kill the bot.
    syscalls.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    syscalls.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)  # a binary tree of system calls
    for error, names in _DENIED:
        for name in names:
            if seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) >= 0:  # absent on aarch64
                syscalls.add_rule(seccomp.ERRNO(error), name)
    syscalls.add_rule(seccomp.ERRNO(errno.ENOSYS), _CACHESTAT)
    if warm:
        _deny_shared_between_games(seccomp, syscalls)
    for command in _FCNTL_LOCKS:
        syscalls.add_rule(seccomp.ERRNO(errno.ENOLCK), "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    for flag in (*_NAMESPACES, _CLONE_NEWTIME):
        new_namespace = seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag)
        syscalls.add_rule(seccomp.ERRNO(errno.EPERM), "unshare", new_namespace)
        if flag != _CLONE_NEWTIME:
            syscalls.add_rule(seccomp.ERRNO(errno.EPERM), "clone", new_namespace)
    for bit in range(31):  # any personality flag beyond Docker's (ADDR_NO_RANDOMIZE, …)
        if not _PERSONALITY_KEPT & 1 << bit:
            flag = seccomp.Arg(0, seccomp.MASKED_EQ, 1 << bit | _PERSONALITY_QUERY, 1 << bit)
            syscalls.add_rule(seccomp.ERRNO(errno.EPERM), "personality", flag)
    # Advice only: a no-op rather than dropping a shared file's pages from the cache.
    dontneed = seccomp.Arg(3, seccomp.EQ, _POSIX_FADV_DONTNEED)
    syscalls.add_rule(seccomp.ERRNO(0), "fadvise64", dontneed)
    # Paging out a mapped file's pages evicts them from the cache too: refused as a
    # kernel before 5.4 refuses advice it does not know (runtimes expect EINVAL there).
    for advice in (_MADV_COLD, _MADV_PAGEOUT):
        syscalls.add_rule(
            seccomp.ERRNO(errno.EINVAL), "madvise", seccomp.Arg(2, seccomp.EQ, advice)
        )
    # A read that fails rather than wait for the disk tells whether a page is cached,
    # without timing: RWF_NOWAIT is refused as a file system without it refuses it.
    nowait = seccomp.Arg(5, seccomp.MASKED_EQ, _RWF_NOWAIT, _RWF_NOWAIT)
    syscalls.add_rule(seccomp.ERRNO(errno.EOPNOTSUPP), "preadv2", nowait)
    with tempfile.TemporaryFile() as exported:
        syscalls.export_bpf(exported)
        exported.seek(0)
        program = exported.read()
    return SyscallSeal(seccomp.resolve_syscall(seccomp.Arch.NATIVE, "keyctl"), program)


def _deny_shared_between_games(seccomp: Any, syscalls: Any) -> None:
    """What a zygote's games would share (its IPC and network namespaces, its pipes)."""
    for error, names in _WARM_DENIED:
        for name in names:
            if seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) >= 0:
                syscalls.add_rule(seccomp.ERRNO(error), name)
    for command in _WARM_FCNTL:
        syscalls.add_rule(seccomp.ERRNO(errno.EINVAL), "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    # Only local sockets: the loopback's counters (/proc/net/dev) would outlive a game.
    other = seccomp.Arg(0, seccomp.NE, _AF_UNIX)
    syscalls.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", other)


@functools.cache
def bot_seal(warm: bool = False) -> SyscallSeal | None:
    """The seal every bot gets, built once per process and kind; None when this
    machine cannot make it (no libseccomp, another architecture). ``warm``: the seal
    of a zygote (docs/protocol.md, "Every game from a pristine bot"), which also
    refuses what its games would share."""
    try:
        return _build(warm)
    except (ImportError, RuntimeError, OSError, ValueError):
        return None


def keys_left(uid: int) -> bool:
    """Whether ``uid`` holds keys beyond its empty user keyrings (/proc/key-users):
    what a bot of it left before the filter, or where there was none."""
    try:
        with open("/proc/key-users") as users:
            for line in users:
                user, _, usage = line.partition(":")
                if user.strip() == str(uid):
                    return int(usage.split()[1].partition("/")[0]) > _USER_KEYRINGS
    except OSError:
        pass
    return False


def clear_keys_of(uid: int, keyctl: int) -> None:
    """Empty the user and user-session keyrings of ``uid``; runs in a throw-away
    child of the host (it becomes ``uid``).

    Raises:
        OSError: the kernel refused.
    """
    os.setresuid(uid, uid, uid)
    for keyring in (kernel.KEY_SPEC_USER_KEYRING, kernel.KEY_SPEC_USER_SESSION_KEYRING):
        kernel.clear_keyring(keyctl, keyring)
