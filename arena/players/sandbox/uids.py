"""Leasing sandbox user ids: no two bots on a machine ever share one.

When the arena runs as root each bot gets a user id of its own, ``UID_BASE + slot``,
held as a lock on a file for as long as the bot runs: the process limit is counted
per user id, and one bot must not be able to signal, trace or read another.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import stat
import tempfile
from pathlib import Path

from arena.players.sandbox.errors import SandboxError

UID_BASE = 1_900_000_000
"""Sandbox user ids are UID_BASE + slot: far above any real or subordinate user."""
UID_SLOTS = 4096

_lease_counter = itertools.count()


class UidLease:
    """An exclusive claim on one sandbox user id, held as a lock on a file.

    Raises:
        SandboxError: the lock directory is not private to this user, or every id is taken.
    """

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
