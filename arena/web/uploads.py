"""Uploaded bot files and archives, read as data and never written to the server's disk.

This module says what an upload may be (:class:`UploadLimits`) and reads the plain
fields; an archive is read by :mod:`arena.web.archives`, in a child process with
limits of its own (:mod:`arena.web.unpacker`). Both import nothing heavy, so that child
starts in a few tens of milliseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import IO

from pydantic import ConfigDict

from arena.errors import ArenaError
from arena.settings import require_positive

FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}")
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz")
TAR_OVERHEAD_BYTES = 8 * 1024
"""Per file an archive may hold: a tar header, padding, and extended headers (a GNU long
name, a PAX header with times), for it and a folder or two."""


class UploadError(ArenaError):
    """An upload that is too large, of the wrong kind, or unsafe to unpack."""

    def __init__(self, message: str, *, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class UploadLimits:
    """Caps on what one submission may upload (bytes unless named otherwise)."""

    __pydantic_config__ = ConfigDict(extra="forbid", allow_inf_nan=False)

    python_bytes: int = 1_000_000
    archive_bytes: int = 2 * 1024 * 1024
    unpacked_bytes: int = 4 * 1024 * 1024
    files: int = 200
    depth: int = 8
    name_chars: int = 200
    unpack_memory_bytes: int = 256 * 1024 * 1024
    """The address space the archive reader's child may map beyond its interpreter's."""
    unpack_cpu_seconds: float = 5.0
    """The reader's CPU time (beyond its interpreter's start), …"""
    unpack_seconds: float = 30.0
    """… and its time on the clock, after which it is killed."""

    def __post_init__(self) -> None:
        require_positive(self)

    @property
    def tar_bytes(self) -> int:
        """The most a ``.tar.gz``'s tar stream may unpack to: the files, and for each
        file the archive may hold its headers and padding."""
        return self.unpacked_bytes + self.files * TAR_OVERHEAD_BYTES


def check_file_name(field: str, name: str, suffixes: tuple[str, ...]) -> str:
    """The uploaded file's base name, checked (it is only ever shown, never a path).

    Raises:
        UploadError: a name with a path, odd characters or the wrong suffix.
    """
    if not FILE_NAME.fullmatch(name) or not name.endswith(suffixes):
        raise UploadError(
            f"field {field!r}: bad file name {name!r}: letters, digits, '_', '.', '+', '-' "
            f"only, ending in {' or '.join(suffixes)}"
        )
    return name


def read_capped(field: str, stream: IO[bytes], limit: int) -> bytes:
    """Read at most ``limit`` bytes.

    Raises:
        UploadError: (413) the stream holds more.
    """
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise UploadError(f"field {field!r}: the upload is larger than {limit} bytes", status=413)
    return data


def decode_text(field: str, name: str, data: bytes) -> str:
    """Raises UploadError when ``data`` is not UTF-8 text."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UploadError(f"field {field!r}: {name!r} is not UTF-8 text") from None
    if "\x00" in text:
        raise UploadError(f"field {field!r}: {name!r} is not text (it holds NUL bytes)")
    return text
