"""Tries to pass a message to another game through SysV IPC and POSIX message queues.

write TEXT  puts TEXT in a shared memory segment and a message queue, creates a
            semaphore set and a POSIX message queue holding TEXT, prints "written"
read        prints, as one JSON line, what it finds of them (null: nothing)
Both then wait for their input to end.
"""

import ctypes
import ctypes.util
import json
import os
import sys

KEY = 0x4152454E  # "AREN"
QUEUE = b"/arena-channel"
IPC_CREAT, IPC_NOWAIT = 0o1000, 0o4000
SIZE = 4096

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
librt = ctypes.CDLL(ctypes.util.find_library("rt"), use_errno=True)


class Message(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * SIZE)]


def write(text):
    data = text.encode()
    segment = libc.shmget(KEY, SIZE, IPC_CREAT | 0o666)
    address = libc.shmat(segment, None, 0)
    ctypes.memmove(address, data, len(data))
    queue = libc.msgget(KEY, IPC_CREAT | 0o666)
    message = Message(1, data)
    libc.msgsnd(queue, ctypes.byref(message), len(data), IPC_NOWAIT)
    libc.semget(KEY, 1, IPC_CREAT | 0o666)
    posix = librt.mq_open(QUEUE, os.O_CREAT | os.O_WRONLY, 0o666, None)
    librt.mq_send(posix, data, len(data), 0)
    print(json.dumps("written"), flush=True)


def read():
    found = {"shm": None, "msg": None, "sem": None, "mq": None}
    segment = libc.shmget(KEY, 0, 0)
    if segment >= 0:
        address = libc.shmat(segment, None, 0)
        found["shm"] = ctypes.string_at(address, SIZE).rstrip(b"\0").decode()
    queue = libc.msgget(KEY, 0)
    if queue >= 0:
        message = Message()
        size = libc.msgrcv(queue, ctypes.byref(message), SIZE, 0, IPC_NOWAIT)
        found["msg"] = message.mtext[: max(size, 0)].decode()
    found["sem"] = libc.semget(KEY, 0, 0) >= 0 or None
    posix = librt.mq_open(QUEUE, os.O_RDONLY | os.O_NONBLOCK)
    if posix >= 0:
        buffer = ctypes.create_string_buffer(8192)
        size = librt.mq_receive(posix, buffer, 8192, None)
        found["mq"] = buffer.raw[: max(size, 0)].decode()
    print(json.dumps(found), flush=True)


if sys.argv[1] == "write":
    write(sys.argv[2])
else:
    read()
sys.stdin.read()
