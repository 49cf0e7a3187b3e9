"""Makes each system call a bot should be refused, prints one JSON line mapping each
to its outcome ("ok" or the error's name); then checks that what bots do need still
works (threads, fork, a subprocess: clone3 falls back to clone, an in-memory SQLite
database, SQLite in /tmp without locks)."""

import ctypes
import errno
import json
import mmap
import os
import platform
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading

NUMBERS = {
    # bpf, perf_event_open, setns, clone3, io_uring_setup, keyctl, pidfd_getfd, clone
    "x86_64": (321, 298, 308, 435, 425, 250, 438, 56),
    "aarch64": (280, 241, 268, 435, 425, 219, 438, 220),
}[platform.machine()]
BPF, PERF_EVENT_OPEN, SETNS, CLONE3, IO_URING_SETUP, KEYCTL, PIDFD_GETFD, CLONE = NUMBERS
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
ADDR_NO_RANDOMIZE = 0x0040000
MADV_PAGEOUT = 21
PROCESS_MADVISE = 440  # the same number on x86_64 and aarch64

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.personality.argtypes = [ctypes.c_ulong]


def outcome(value):
    return "ok" if value >= 0 else errno.errorcode[ctypes.get_errno()]


def in_child(call):
    """Run call in a forked child (a success may change the process)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, json.dumps(call()).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read) as answer:
        return json.JSONDecoder().raw_decode(answer.read())[0]  # the first answer


def mincore():
    page = mmap.mmap(-1, mmap.PAGESIZE)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    vector = ctypes.create_string_buffer(1)
    return outcome(libc.mincore(ctypes.c_void_p(address), mmap.PAGESIZE, vector))


def page_out():
    page = mmap.mmap(-1, mmap.PAGESIZE)
    page[0] = 1
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    return outcome(libc.madvise(ctypes.c_void_p(address), mmap.PAGESIZE, MADV_PAGEOUT))


def read_nowait():
    """A read that fails rather than wait for the disk (it tells what is cached)."""
    fd = os.open(sys.executable, os.O_RDONLY)
    try:
        os.preadv(fd, [bytearray(16)], 0, os.RWF_NOWAIT)
        return "ok"
    except OSError as exc:
        return errno.errorcode[exc.errno]
    finally:
        os.close(fd)


def inotify():
    fd = libc.inotify_init1(0)
    if fd >= 0:
        os.close(fd)
    return outcome(fd)


calls = {
    "unshare(CLONE_NEWUSER)": lambda: in_child(lambda: outcome(libc.unshare(CLONE_NEWUSER))),
    "unshare(CLONE_NEWNET)": lambda: in_child(lambda: outcome(libc.unshare(CLONE_NEWNET))),
    # a raw clone that succeeds runs on in both processes: in a child, which exits after it
    # (the clone's child may answer too)
    "clone(CLONE_NEWUSER)": lambda: in_child(
        lambda: outcome(libc.syscall(CLONE, CLONE_NEWUSER | signal.SIGCHLD, 0, 0, 0, 0))
    ),
    "ptrace(PTRACE_TRACEME)": lambda: in_child(lambda: outcome(libc.ptrace(0, 0, None, None))),
    "mount": lambda: outcome(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)),
    "bpf": lambda: outcome(libc.syscall(BPF, 0, None, 0)),
    "perf_event_open": lambda: outcome(libc.syscall(PERF_EVENT_OPEN, None, 0, -1, -1, 0)),
    "setns": lambda: outcome(libc.syscall(SETNS, -1, 0)),
    "clone3": lambda: outcome(libc.syscall(CLONE3, None, 0)),
    "io_uring_setup": lambda: outcome(libc.syscall(IO_URING_SETUP, 1, None)),
    "keyctl": lambda: outcome(libc.syscall(KEYCTL, 0, -3, 0)),
    "pidfd_getfd": lambda: outcome(libc.syscall(PIDFD_GETFD, -1, 0, 0)),
    "inotify_init1": inotify,
    "mincore": mincore,
    "madvise(MADV_PAGEOUT)": page_out,
    "preadv2(RWF_NOWAIT)": read_nowait,
    "process_madvise": lambda: outcome(libc.syscall(PROCESS_MADVISE, -1, None, 0, 0, 0)),
    "personality(ADDR_NO_RANDOMIZE)": lambda: in_child(
        lambda: outcome(libc.personality(ADDR_NO_RANDOMIZE))
    ),
    "personality(query)": lambda: outcome(libc.personality(0xFFFFFFFF)),
}
results = {name: call() for name, call in calls.items()}

thread = threading.Thread(target=lambda: None)
thread.start()
thread.join()
results["fork"] = in_child(lambda: "ok")
results["thread"] = "ok"
status = subprocess.run([sys.executable, "-c", ""]).returncode
results["subprocess"] = "ok" if status == 0 else f"status {status}"
memory = sqlite3.connect(":memory:")
memory.execute("create table t (x)")
results["sqlite in memory"] = "ok"
path = os.path.join(tempfile.gettempdir(), "bot.db")
unlocked = sqlite3.connect(f"file:{path}?vfs=unix-none", uri=True)
unlocked.execute("create table t (x)")
unlocked.commit()
results["sqlite unix-none"] = "ok"
print(json.dumps(results), flush=True)
