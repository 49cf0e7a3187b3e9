"""Tries to signal a concurrent game through locks on a shared read-only runtime file
(the standard library's ``os.py``).

hold   takes a shared flock and a POSIX read lock on it, prints one JSON line: each
       lock's result (null: taken, else the error's name); then waits for its input
       to end
probe  prints one JSON line: whether it sees another's lock, by flock (an exclusive
       lock refused: "busy") and by F_GETLK (a write lock that would conflict), or the
       error's name
"""

import errno
import fcntl
import json
import os
import struct
import sys

# struct flock on 64-bit Linux: short type, short whence, off_t start, off_t len, pid_t pid
FLOCK = "hhqqi4x"


def attempt(call):
    try:
        return call()
    except OSError as exc:
        return errno.errorcode[exc.errno]


def hold(fd):
    def posix_read_lock():
        fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack(FLOCK, fcntl.F_RDLCK, 0, 0, 0, 0))

    print(
        json.dumps(
            {
                "flock": attempt(lambda: fcntl.flock(fd, fcntl.LOCK_SH)),
                "posix": attempt(posix_read_lock),
            }
        ),
        flush=True,
    )
    sys.stdin.read()


def probe(fd):
    def by_flock():
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return "busy"
        return "free"

    def by_getlk():
        asked = struct.pack(FLOCK, fcntl.F_WRLCK, 0, 0, 0, 0)
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, asked)
        return "free" if struct.unpack(FLOCK, answer)[0] == fcntl.F_UNLCK else "busy"

    print(json.dumps({"flock": attempt(by_flock), "posix": attempt(by_getlk)}), flush=True)


descriptor = os.open(os.__file__, os.O_RDONLY)
if sys.argv[1] == "hold":
    hold(descriptor)
else:
    probe(descriptor)
