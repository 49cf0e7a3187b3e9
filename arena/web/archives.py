"""Reading an uploaded archive (``.zip``, ``.tar.gz`` or ``.tgz``) as ``{relative path:
text}``, holding little whatever it holds.

The server runs :func:`unpack` in a child process with limits of its own
(:mod:`arena.web.unpacker`); the reader itself refuses what would make it hold much
before it holds it:

* a ``.tar.gz`` is decompressed to at most :attr:`UploadLimits.tar_bytes` (a gzip
  stream that goes on is cut there and refused), and the tar is read from that;
* a tar header is judged before anything after it is read: an extended header (a GNU
  long name or long link, a PAX header) of more than :data:`EXTENDED_HEADER_BYTES`, more
  than :data:`EXTENDED_HEADERS_IN_A_ROW` of them in a row, a PAX header of more than
  :data:`PAX_RECORDS` records (global ones counted together), a sparse file (GNU or
  PAX), a member declaring more than ``unpacked_bytes``, and more than four headers of
  members per file the archive may hold are refused;
* a zip's directory is judged before any member is read: more than four entries per
  file, a member declaring more than ``unpacked_bytes``, or all of them together;
* every member is decompressed in chunks counted against ``unpacked_bytes`` (the sizes
  an archive declares are trusted only to refuse it), and the number of files is
  counted.

Besides, every member's name is checked (relative, no ``..``, no backslash, no drive
letter, no control characters, at most :attr:`UploadLimits.name_chars` characters and
:attr:`UploadLimits.depth` directories deep, no two members with the same path), only
regular files and directories are taken (no links, devices or FIFOs), and every file
must be UTF-8 text (the stored code is text, like a ``--python`` bot's).
"""

from __future__ import annotations

import gzip
import io
import re
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO, Any

from arena.web.uploads import UploadError, UploadLimits, decode_text

READ_CHUNK = 65536
EXTENDED_HEADER_BYTES = 64 * 1024
"""The largest extended header read: far more than a name of
:attr:`UploadLimits.name_chars` characters and a PAX header's times need."""
EXTENDED_HEADERS_IN_A_ROW = 4
"""Extended headers before one member (each is read by a nested call of the reader)."""
PAX_RECORDS = 64
"""Records of a PAX header, and of all global ones together (every member copies those)."""
LONG_TYPES = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)
PAX_TYPES = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
PAX_SPARSE = re.compile(rb"(?:^|\n)\d+ GNU\.sparse\.")
UNREADABLE = (
    zipfile.BadZipFile,
    tarfile.TarError,
    zlib.error,
    EOFError,
    OSError,
    NotImplementedError,  # a zip's compression method or version that zipfile lacks
    RuntimeError,  # an encrypted zip member
)
"""What the readers raise for an archive that is not what it says it is."""


def check_member_name(name: str, limits: UploadLimits) -> str | None:
    """The member's normalised relative path; None for the archive's root itself.

    Raises:
        UploadError: an absolute path, ``..``, a backslash, control characters, bytes
            that are not UTF-8, too long or too deep.
    """
    shown = name[:80]
    if any(ord(char) < 32 or ord(char) == 127 for char in name) or "\\" in name:
        raise UploadError(f"field 'archive': unsafe member name {shown!r}")
    if not name.isascii() and not _is_utf8(name):
        raise UploadError(f"field 'archive': member name {shown!r} is not UTF-8")
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


def _is_utf8(name: str) -> bool:
    """Whether ``name`` holds no lone surrogate (tarfile keeps bytes that are not UTF-8
    as such)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unpack(filename: str, data: bytes, limits: UploadLimits) -> dict[str, str]:
    """The archive's files as ``{relative path: text}``; ``filename`` says its kind.

    Raises:
        UploadError: see the module's docstring (413 for what is too large, else 422);
            also an archive that is corrupt, of an unknown kind or empty.
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
    except UNREADABLE as exc:
        raise UploadError(f"field 'archive': not a readable {filename!r} archive: {exc}") from None
    if not files:
        raise UploadError("field 'archive': the archive holds no files")
    return files


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
                raise _too_much(self.limits, f"at {name[:80]!r}")
            chunks.append(chunk)
        return b"".join(chunks)


def _too_much(limits: UploadLimits, where: str) -> UploadError:
    return UploadError(
        f"field 'archive': more than {limits.unpacked_bytes} bytes unpacked ({where})",
        status=413,
    )


def _zip_members(data: bytes, limits: UploadLimits) -> Iterator[tuple[str, IO[bytes]]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        if len(infos) > 4 * limits.files:  # directories count, within reason
            raise UploadError(
                f"field 'archive': {len(infos)} entries, more than {limits.files} files",
                status=413,
            )
        declared = sum(info.file_size for info in infos)
        if declared > limits.unpacked_bytes:
            raise _too_much(limits, f"its directory declares {declared} bytes")
        for info in infos:
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
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        tar = stream.read(limits.tar_bytes + 1)
    if len(tar) > limits.tar_bytes:
        raise UploadError(
            f"field 'archive': its tar is larger than {limits.tar_bytes} bytes "
            f"({limits.unpacked_bytes} bytes of files and {limits.files} files' headers)",
            status=413,
        )
    header = _bounded_header(_TarBounds(limits))
    with tarfile.open(fileobj=io.BytesIO(tar), mode="r:", tarinfo=header) as archive:
        while (member := archive.next()) is not None:
            name = check_member_name(member.name, limits)
            if member.issym() or member.islnk():
                raise UploadError(f"field 'archive': {member.name[:80]!r} is a link")
            if member.sparse is not None:
                raise _sparse(member.name)
            if member.size > limits.unpacked_bytes:  # a PAX header may say it
                raise _too_much(limits, f"{member.name[:80]!r} declares {member.size} bytes")
            if member.isdir() or name is None:
                continue
            if not member.isfile():
                raise UploadError(f"field 'archive': {member.name[:80]!r} is not a regular file")
            file = archive.extractfile(member)
            assert file is not None
            yield name, file


class _TarBounds:
    """Judges each header of one tar as tarfile reads it, before tarfile reads what the
    header announces."""

    def __init__(self, limits: UploadLimits) -> None:
        self.limits = limits
        self.members = 0
        self.extended_in_a_row = 0
        self.global_records = 0

    def judge(self, header: tarfile.TarInfo, archive: tarfile.TarFile) -> None:
        """Raises UploadError for a header the module's docstring refuses."""
        if header.type == tarfile.GNUTYPE_SPARSE:
            raise _sparse(header.name)
        if header.type not in LONG_TYPES and header.type not in PAX_TYPES:
            self.extended_in_a_row = 0
            self.members += 1
            if self.members > 4 * self.limits.files:  # directories count, within reason
                raise UploadError(
                    f"field 'archive': more than {self.limits.files} files", status=413
                )
            if header.size > self.limits.unpacked_bytes:
                raise _too_much(self.limits, f"{header.name[:80]!r} declares {header.size} bytes")
            return
        self.extended_in_a_row += 1
        if header.size > EXTENDED_HEADER_BYTES:
            raise UploadError(
                f"field 'archive': an extended header (a long name or a PAX header) of "
                f"{header.size} bytes, more than {EXTENDED_HEADER_BYTES}",
                status=413,
            )
        if self.extended_in_a_row > EXTENDED_HEADERS_IN_A_ROW:
            raise UploadError(
                f"field 'archive': more than {EXTENDED_HEADERS_IN_A_ROW} extended headers "
                "before one member"
            )
        if header.type in PAX_TYPES:
            self._judge_pax(header, _peek(archive, header.size))

    def _judge_pax(self, header: tarfile.TarInfo, records: bytes) -> None:
        # Every member gets its own copy of the global records: they must stay few.
        count = records.count(b"\n")
        if header.type == tarfile.XGLTYPE:
            self.global_records += count
            count = self.global_records
        if count > PAX_RECORDS:
            raise UploadError(
                f"field 'archive': a PAX header of more than {PAX_RECORDS} records", status=413
            )
        if PAX_SPARSE.search(records):
            raise _sparse(header.name)


def _bounded_header(bounds: _TarBounds) -> type[tarfile.TarInfo]:
    """A tar header class that has ``bounds`` judge each header as it is read."""

    class BoundedHeader(tarfile.TarInfo):
        # tarfile calls _proc_member on each header once its 512 bytes are parsed, and
        # names it the place for a subclass to step in ("can be overridden").
        def _proc_member(self, archive: tarfile.TarFile) -> tarfile.TarInfo:
            bounds.judge(self, archive)
            processed: tarfile.TarInfo = tarfile.TarInfo._proc_member(  # type: ignore[attr-defined]
                self, archive
            )
            return processed

    return BoundedHeader


def _peek(archive: tarfile.TarFile, size: int) -> bytes:
    """The ``size`` bytes after the header just read, leaving the archive where it was
    (the tar lies in memory: this copies at most an extended header)."""
    stream: Any = archive.fileobj
    start = stream.tell()
    announced = bytes(stream.read(size))
    stream.seek(start)
    return announced


def _sparse(name: str) -> UploadError:
    return UploadError(f"field 'archive': {name[:80]!r} is a sparse file (not taken)")
