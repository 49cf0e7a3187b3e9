"""Uploaded bot files and archives, read as data and never written to the server's disk.

An archive (``.zip``, ``.tar.gz`` or ``.tgz``) becomes a mapping of relative paths to
text; the sandbox writes those files into the bot's read-only code directory when a
game starts (``{code}`` in the command). Reading enforces, before anything is stored:

* names: relative, no ``..``, no backslash, no drive letter, no control characters,
  at most :attr:`UploadLimits.name_chars` characters and :attr:`UploadLimits.depth`
  directories deep; no two members with the same path;
* kinds: regular files and directories only (no symbolic or hard links, devices or
  FIFOs);
* sizes: the archive itself, each file and the total after unpacking, counted while
  decompressing (a zip's own size fields are not trusted), and the number of files;
* text: every file UTF-8 (the stored code is text, like a ``--python`` bot's).
"""

from __future__ import annotations

import io
import re
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from pydantic import ConfigDict

from arena.errors import ArenaError
from arena.settings import require_positive

READ_CHUNK = 65536
FILE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}")
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz")


class UploadError(ArenaError):
    """An upload that is too large, of the wrong kind, or unsafe to unpack."""

    def __init__(self, message: str, *, status: int = 422) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class UploadLimits:
    """Caps on what one submission may upload (bytes unless named otherwise)."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    python_bytes: int = 1_000_000
    archive_bytes: int = 2 * 1024 * 1024
    unpacked_bytes: int = 4 * 1024 * 1024
    files: int = 200
    depth: int = 8
    name_chars: int = 200

    def __post_init__(self) -> None:
        require_positive(self)


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


def check_member_name(name: str, limits: UploadLimits) -> str | None:
    """The member's normalised relative path; None for the archive's root itself.

    Raises:
        UploadError: an absolute path, ``..``, a backslash, control characters, too long
            or too deep.
    """
    shown = name[:80]
    if any(ord(char) < 32 or ord(char) == 127 for char in name) or "\\" in name:
        raise UploadError(f"field 'archive': unsafe member name {shown!r}")
    if name.startswith("/") or re.match(r"[A-Za-z]:", name):
        raise UploadError(f"field 'archive': member {shown!r} has an absolute path")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise UploadError(f"field 'archive': member {shown!r} points outside the archive ('..')")
    if len(name) > limits.name_chars:
        raise UploadError(
            f"field 'archive': member name {shown!r}… is longer than {limits.name_chars} characters"
        )
    if len(parts) > limits.depth:
        raise UploadError(
            f"field 'archive': member {shown!r} is deeper than {limits.depth} directories"
        )
    return "/".join(parts) or None


class _Budget:
    """Counts files and unpacked bytes across the archive."""

    def __init__(self, limits: UploadLimits) -> None:
        self.limits = limits
        self.files = 0
        self.bytes = 0

    def add_file(self) -> None:
        self.files += 1
        if self.files > self.limits.files:
            raise UploadError(f"field 'archive': more than {self.limits.files} files", status=413)

    def read(self, name: str, stream: IO[bytes]) -> bytes:
        """Read a member, stopping as soon as the total passes the cap."""
        chunks = []
        while chunk := stream.read(READ_CHUNK):
            self.bytes += len(chunk)
            if self.bytes > self.limits.unpacked_bytes:
                raise UploadError(
                    f"field 'archive': more than {self.limits.unpacked_bytes} bytes unpacked "
                    f"(at {name[:80]!r})",
                    status=413,
                )
            chunks.append(chunk)
        return b"".join(chunks)


def read_archive(filename: str, data: bytes, limits: UploadLimits) -> dict[str, str]:
    """The archive's files as ``{relative path: text}``.

    Raises:
        UploadError: see the module's docstring; also an archive that is corrupt, of an
            unknown kind or empty.
    """
    if len(data) > limits.archive_bytes:
        raise UploadError(
            f"field 'archive': the upload is larger than {limits.archive_bytes} bytes", status=413
        )
    budget = _Budget(limits)
    files: dict[str, str] = {}
    members = _zip_members if filename.endswith(".zip") else _tar_members
    try:
        for name, stream in members(data, limits):
            if name in files:
                raise UploadError(f"field 'archive': {name!r} appears twice")
            if any(name.startswith(existing + "/") for existing in files) or any(
                existing.startswith(name + "/") for existing in files
            ):
                raise UploadError(f"field 'archive': {name!r} is both a file and a directory")
            budget.add_file()
            files[name] = decode_text("archive", name, budget.read(name, stream))
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        raise UploadError(f"field 'archive': not a readable {filename!r} archive: {exc}") from None
    if not files:
        raise UploadError("field 'archive': the archive holds no files")
    return files


def _zip_members(data: bytes, limits: UploadLimits) -> Iterator[tuple[str, IO[bytes]]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            name = check_member_name(info.filename, limits)
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise UploadError(f"field 'archive': {info.filename[:80]!r} is a symbolic link")
            if info.is_dir() or name is None:
                continue
            if stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # 0: a zip made without modes
                raise UploadError(f"field 'archive': {info.filename[:80]!r} is not a regular file")
            with archive.open(info) as stream:
                yield name, stream


def _tar_members(data: bytes, limits: UploadLimits) -> Iterator[tuple[str, IO[bytes]]]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        seen = 0
        while (member := archive.next()) is not None:
            seen += 1
            if seen > 4 * limits.files:  # directories and headers count, within reason
                raise UploadError(f"field 'archive': more than {limits.files} files", status=413)
            name = check_member_name(member.name, limits)
            if member.issym() or member.islnk():
                raise UploadError(f"field 'archive': {member.name[:80]!r} is a link")
            if member.isdir() or name is None:
                continue
            if not member.isfile():
                raise UploadError(f"field 'archive': {member.name[:80]!r} is not a regular file")
            stream = archive.extractfile(member)
            assert stream is not None
            yield name, stream
