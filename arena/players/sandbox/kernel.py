"""The kernel calls the sandbox needs and Python 3.11 lacks (through ctypes).

Every function raises :class:`OSError` with the call's name when the kernel refuses.
The mount API calls (``open_tree``, ``move_mount``, ``mount_setattr``) have the same
number on every architecture (system calls added since Linux 5.1 share one table).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import struct

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MNT_DETACH = 0x2

MOUNT_ATTR_RDONLY = 0x1
MOUNT_ATTR_NOSUID = 0x2
MOUNT_ATTR_NODEV = 0x4

PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_KEYCTL_JOIN_SESSION_KEYRING = 1
_KEYCTL_CLEAR = 7
KEY_SPEC_USER_KEYRING = -4
KEY_SPEC_USER_SESSION_KEYRING = -5

_PIDFD_INFO_EXIT = 1 << 3
_PIDFD_INFO_SIZE = 64
"""The first version of ``struct pidfd_info``: mask, cgroup id, eleven ids, exit code."""
_PIDFD_GET_INFO = (3 << 30) | (_PIDFD_INFO_SIZE << 16) | (0xFF << 8) | 11  # _IOWR(0xFF, 11, …)
_PIDFD_EXIT_CODE_AT = 60

_SYS_OPEN_TREE = 428
_SYS_MOVE_MOUNT = 429
_SYS_MOUNT_SETATTR = 442
_AT_FDCWD = -100
_AT_EMPTY_PATH = 0x1000
_AT_RECURSIVE = 0x8000
_OPEN_TREE_CLONE = 1
_MOVE_MOUNT_F_EMPTY_PATH = 0x4


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong]
_libc.mount.argtypes += [ctypes.c_char_p]
_libc.syscall.restype = ctypes.c_long


def _check(result: int, what: str) -> int:
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")
    return result


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str) -> None:
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


def setns(fd: int, kind: int) -> None:
    """Join the namespace open at ``fd`` (of type ``kind``, a ``CLONE_NEW*`` flag)."""
    _check(_libc.setns(fd, kind), "setns")


def detach(target: str) -> None:
    """Unmount ``target`` lazily (it goes when nothing uses it any more)."""
    _check(_libc.umount2(target.encode(), MNT_DETACH), f"umount {target}")


def clone_tree(path: str) -> int:
    """A detached copy of the mount tree at ``path`` (submounts too), as a file
    descriptor for :func:`attach_tree`."""
    flags = _OPEN_TREE_CLONE | os.O_CLOEXEC | _AT_RECURSIVE
    return _check(
        _libc.syscall(_SYS_OPEN_TREE, _AT_FDCWD, path.encode(), flags), f"open_tree {path}"
    )


def set_tree_attributes(tree: int, attributes: int) -> None:
    """Set mount ``attributes`` (``MOUNT_ATTR_*``) on a cloned tree and every submount."""
    attr = _MountAttr(attr_set=attributes)
    _check(
        _libc.syscall(
            _SYS_MOUNT_SETATTR,
            tree,
            b"",
            _AT_EMPTY_PATH | _AT_RECURSIVE,
            ctypes.byref(attr),
            ctypes.sizeof(attr),
        ),
        "mount_setattr",
    )


def attach_tree(tree: int, target: str) -> None:
    _check(
        _libc.syscall(
            _SYS_MOVE_MOUNT, tree, b"", _AT_FDCWD, target.encode(), _MOVE_MOUNT_F_EMPTY_PATH
        ),
        f"move_mount {target}",
    )


def pivot_root(new_root: str, put_old: str) -> None:
    _check(_libc.pivot_root(new_root.encode(), put_old.encode()), "pivot_root")


def sethostname(name: str) -> None:
    data = name.encode()
    _check(_libc.sethostname(data, len(data)), "sethostname")


def prctl(option: int, value: int) -> None:
    _check(_libc.prctl(option, value, 0, 0, 0), "prctl")


def join_session_keyring(keyctl: int) -> None:
    """Join a new anonymous session keyring (``keyctl`` is the call's number here)."""
    _check(_libc.syscall(keyctl, _KEYCTL_JOIN_SESSION_KEYRING, None), "keyctl join session keyring")


def clear_keyring(keyctl: int, keyring: int) -> None:
    """Unlink every key of ``keyring`` (a ``KEY_SPEC_*``)."""
    _check(_libc.syscall(keyctl, _KEYCTL_CLEAR, keyring), "keyctl clear")


def load_syscall_filter(program: bytes) -> None:
    """Load a seccomp filter, a BPF ``program`` (8 bytes per instruction)."""
    code = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))
    _check(
        _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0),
        "prctl PR_SET_SECCOMP",
    )


def pidfd_exit_code(pidfd: int) -> int | None:
    """How the process of ``pidfd`` ended, as :attr:`subprocess.Popen.returncode` puts
    it (negative: the signal that killed it), even when another process reaped it
    (``PIDFD_GET_INFO``, Linux 6.15 and later); None while the kernel knows no end.

    Raises:
        OSError: this kernel does not tell (older than 6.15), or ``pidfd`` is no pidfd.
    """
    info = bytearray(struct.pack("=Q", _PIDFD_INFO_EXIT) + bytes(_PIDFD_INFO_SIZE - 8))
    try:
        fcntl.ioctl(pidfd, _PIDFD_GET_INFO, info)
    except OSError as exc:
        if exc.errno == errno.ESRCH:  # reaped before this kernel kept its end
            return None
        raise OSError(exc.errno, f"ioctl PIDFD_GET_INFO: {exc.strerror}") from None
    (mask,) = struct.unpack_from("=Q", info)
    if not mask & _PIDFD_INFO_EXIT:
        return None
    (status,) = struct.unpack_from("=i", info, _PIDFD_EXIT_CODE_AT)
    try:
        return os.waitstatus_to_exitcode(status)
    except ValueError:  # not an end (a stop): no kernel reports one here
        return None
