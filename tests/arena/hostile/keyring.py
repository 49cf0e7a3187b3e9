"""Tries to pass a message to a later or concurrent game through the kernel's keyrings.

write TEXT  adds a key holding TEXT to its session and user keyrings, prints one JSON
            line: each keyring's result (a key id, or the error's name)
read        prints one JSON line: its user id and the text of the key found in its
            session or user keyring (null: none)
Both then wait for their input to end.
"""

import ctypes
import errno
import json
import os
import platform
import sys

# add_key, request_key, keyctl: one number per architecture
NUMBERS = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}[platform.machine()]
ADD_KEY, REQUEST_KEY, KEYCTL = NUMBERS
KEYCTL_READ, KEYCTL_SEARCH = 11, 10
KEYRINGS = {"session": -3, "user": -4}
DESCRIPTION = b"arena-channel"

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def result(value):
    return value if value >= 0 else errno.errorcode[ctypes.get_errno()]


def write(text):
    data = text.encode()
    added = {
        name: result(libc.syscall(ADD_KEY, b"user", DESCRIPTION, data, len(data), ring))
        for name, ring in KEYRINGS.items()
    }
    print(json.dumps(added), flush=True)


def read():
    found = None
    for ring in KEYRINGS.values():
        key = libc.syscall(KEYCTL, KEYCTL_SEARCH, ring, b"user", DESCRIPTION, 0)
        if key >= 0:
            buffer = ctypes.create_string_buffer(4096)
            size = libc.syscall(KEYCTL, KEYCTL_READ, key, buffer, 4096)
            if size >= 0:
                found = buffer.raw[:size].decode()
    print(json.dumps({"uid": os.getuid(), "found": found}), flush=True)


if sys.argv[1] == "write":
    write(sys.argv[2])
else:
    read()
sys.stdin.read()
