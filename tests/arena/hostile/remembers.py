"""Leaves everything it can behind in each game and reports, when the next game
starts, what it finds of the last one (a line ``FOUND {json}`` on stderr, then
``PLANTED {json}``: what it managed to leave).

Left behind: a module global, a class attribute, an environment variable, files in
/tmp, /dev/shm and its working directory, a thread and a child process that keep
running, an abstract socket, SysV shared memory, message queue and semaphore set, a
POSIX message queue and a key in its keyring. Also reported: its own PID, the inode
of a new file in /tmp and the context switches of process 1 (a game must not count
another's processes, files or moves).
"""

import ctypes
import ctypes.util
import json
import os
import socket
import subprocess
import sys
import threading
import time

KEY = 0x52454D45  # "REME"
QUEUE = b"/remembered"
IPC_CREAT, IPC_NOWAIT = 0o1000, 0o4000
FILES = ("/tmp/remembered", "/dev/shm/remembered", "remembered")
SOCKET = b"\0remembered"
CHILD = "remember-child"
libc = ctypes.CDLL(None, use_errno=True)
librt = ctypes.CDLL(ctypes.util.find_library("rt"), use_errno=True)
REMEMBERED = None


def _children():
    found = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    found += CHILD.encode() in cmdline.read()
            except OSError:
                pass
    return found


def _socket_answers():
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(SOCKET)
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _find():
    return {
        "global": REMEMBERED,
        "class": Remembers.remembered,
        "env": os.environ.get("ARENA_REMEMBERED") or os.getenv("ARENA_REMEMBERED"),
        "files": [path for path in FILES if os.path.exists(path)],
        "threads": [t.name for t in threading.enumerate() if t.name == "remember-thread"],
        "tasks": len(os.listdir("/proc/self/task")),
        "children": _children(),
        "socket": _socket_answers(),
        "shm": libc.shmget(KEY, 0, 0) >= 0,
        "msg": libc.msgget(KEY, 0) >= 0,
        "sem": libc.semget(KEY, 0, 0) >= 0,
        "mq": librt.mq_open(QUEUE, os.O_RDONLY | os.O_NONBLOCK) >= 0,
        "pid": os.getpid(),
        "process 1": _switches(1),
    }


def _switches(pid):
    """Process ``pid``'s context switches; None when this process cannot see it (the
    sandbox's /proc shows a game none of its zygote's processes)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return [line.split()[1] for line in status if "ctxt_switches" in line]
    except OSError:
        return None


def _plant():
    global REMEMBERED
    REMEMBERED = "game"
    Remembers.remembered = "game"
    os.environ["ARENA_REMEMBERED"] = "game"
    planted = {}
    for path in FILES:
        with open(path, "w") as file:
            file.write("game")
    planted["files"] = all(os.path.exists(path) for path in FILES)
    threading.Thread(target=time.sleep, args=(1000,), name="remember-thread", daemon=True).start()
    subprocess.Popen(
        [sys.executable, "-S", "-c", "import time; time.sleep(1000)", CHILD],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 20  # until it has executed
    while not _children() and time.monotonic() < deadline:
        time.sleep(0.01)
    planted["children"] = _children()
    try:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(SOCKET)
        listener.listen()
        Remembers.listener = listener
        planted["socket"] = True
    except OSError:
        planted["socket"] = False
    planted["shm"] = libc.shmget(KEY, 4096, IPC_CREAT | 0o666) >= 0
    planted["msg"] = libc.msgget(KEY, IPC_CREAT | 0o666) >= 0
    planted["sem"] = libc.semget(KEY, 1, IPC_CREAT | 0o666) >= 0
    planted["mq"] = librt.mq_open(QUEUE, os.O_CREAT | os.O_WRONLY, 0o666, None) >= 0
    key = libc.syscall(248, b"user", b"remembered", b"game", 4, -3)  # add_key, session keyring
    planted["key"] = key >= 0
    return planted


class Remembers:
    remembered = None

    def new_game(self, info):
        with open("/tmp/inode-probe", "w"):
            pass
        found = _find()
        found["inode"] = os.stat("/tmp/inode-probe").st_ino
        os.unlink("/tmp/inode-probe")
        print("FOUND " + json.dumps(found), file=sys.stderr, flush=True)
        print("PLANTED " + json.dumps(_plant()), file=sys.stderr, flush=True)

    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
