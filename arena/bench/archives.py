"""``arena bench archives``: the web process's memory while archive bombs are uploaded.

:data:`BOMBS` builds hostile archives, each within the upload cap (2 MiB packed) and
each announcing or unpacking to about ``size`` bytes: tar headers that make a reader
load a huge name, link or PAX record, a sparse map, a member declaring a huge size, a
gzip stream that goes on for gigabytes and never ends properly, many members, archives
nested in archives, and a zip of a high compression ratio.

:func:`upload_memory` starts a real ``arena serve`` (a subprocess over a new SQLite
database, one account per upload), sends ``uploads`` archives at once to ``POST
/api/bots`` from as many threads, and reads the server process's peak resident memory
(``VmHWM`` in ``/proc/PID/status``) before and after. Each round starts a fresh server,
so its peak is its own: the same number of honest archives of the largest allowed
size (whose command the server refuses, so that no check runs) is the yardstick.
"""

from __future__ import annotations

import functools
import io
import tarfile
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx

from arena.bench.server import live_server

MIB = 1024**2
BOMB_BYTES = 1900 * MIB
"""What a bomb unpacks to by default: about 1.9 MB packed, as in issue 30."""
CHUNK = b"a" * MIB
SETTINGS = "allow_weak_sandbox = true\n"
"""No archive here reaches the sandbox: the uploads are refused before any check."""
REFUSED_COMMAND = "cat {code}/main.py"
"""Not an interpreter: the server refuses it after reading the archive."""


@dataclass(frozen=True)
class Bomb:
    name: str
    filename: str
    what: str
    build: Callable[[int], bytes]
    """The archive, for about this many bytes announced or unpacked."""


def filler(size: int, chunk: bytes = CHUNK) -> Iterator[bytes]:
    while size > 0:
        yield chunk[:size]
        size -= len(chunk)


def gzip_stream(parts: Iterable[bytes], *, finish: bool = True) -> bytes:
    """The gzip stream of ``parts`` (cut before its end when not ``finish``)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    packed = [compressor.compress(part) for part in parts]
    packed.append(compressor.flush() if finish else compressor.flush(zlib.Z_SYNC_FLUSH))
    return b"".join(packed)


def tar_header(name: str, kind: bytes = tarfile.REGTYPE, size: int = 0) -> bytes:
    info = tarfile.TarInfo(name)
    info.type, info.size = kind, size
    return info.tobuf(tarfile.GNU_FORMAT)


def padding(size: int) -> bytes:
    return b"\0" * (-size % tarfile.BLOCKSIZE)


END = b"\0" * (2 * tarfile.BLOCKSIZE)
AFTER = tar_header("main.py") + END
"""An ordinary (empty) member and the end of the archive."""


def _extended(kind: bytes, size: int) -> bytes:
    """A tar whose first header is an extended one (a long name or link) of ``size``."""
    return gzip_stream(
        [tar_header("././@LongLink", kind, size), *filler(size), padding(size), AFTER]
    )


def _pax_head(keyword: str, value_size: int) -> bytes:
    """The start of a PAX record ``LENGTH KEYWORD=`` for a value of ``value_size``
    bytes (LENGTH counts itself, the value and the newline)."""
    rest = len(f" {keyword}=\n") + value_size
    length = rest + len(str(rest))
    length = rest + len(str(length))
    return f"{length} {keyword}=".encode()


def pax_records(records: dict[str, str]) -> bytes:
    return b"".join(
        _pax_head(keyword, len(value.encode())) + value.encode() + b"\n"
        for keyword, value in records.items()
    )


def _pax(kind: bytes, size: int) -> bytes:
    head = _pax_head("comment", size)
    total = len(head) + size + 1
    return gzip_stream(
        [tar_header("pax", kind, total), head, *filler(size), b"\n", padding(total), AFTER]
    )


def _pax_sparse(size: int) -> bytes:
    """GNU sparse 1.0: a PAX header sends the reader to a map in the member's data, a
    count and then that many numbers."""
    records = pax_records(
        {"GNU.sparse.major": "1", "GNU.sparse.minor": "0", "GNU.sparse.realsize": "1"}
    )
    data = [b"9999999999\n", *filler(size, b"1\n" * (MIB // 2))]
    return gzip_stream(
        [
            tar_header("pax", tarfile.XHDTYPE, len(records)),
            records,
            padding(len(records)),
            tar_header("main.py", tarfile.REGTYPE, size + 11),
            *data,
            padding(size + 11),
            END,
        ]
    )


def _declared(size: int) -> bytes:
    """A member declaring a terabyte, and ``size`` bytes of it."""
    return gzip_stream([tar_header("main.py", tarfile.REGTYPE, 1 << 40), *filler(size)])


def _endless(size: int) -> bytes:
    """A gzip stream of ``size`` bytes that stops without its end: the archive's root
    declaring a terabyte, so that a reader skipping the root decompresses all of it."""
    return gzip_stream([tar_header("./", tarfile.REGTYPE, 1 << 40), *filler(size)], finish=False)


def _tar_members(size: int) -> bytes:
    """As many empty members as headers of ``size`` bytes would hold, up to 20,000."""
    count = min(size // tarfile.BLOCKSIZE, 20_000)
    return gzip_stream([*(tar_header(f"{index:08d}.py") for index in range(count)), END])


def zip_archive(entries: Iterable[tuple[str, Iterable[bytes]]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for name, chunks in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            with out.open(info, "w", force_zip64=True) as member:
                for chunk in chunks:
                    member.write(chunk)
    return buffer.getvalue()


def _zip_bomb(size: int) -> bytes:
    return zip_archive([("main.py", filler(size))])


def _zip_members(size: int) -> bytes:
    """``size`` // 4096 empty members, at most the 16,000 that fit in the upload cap."""
    count = min(size // 4096, 16_000)
    return zip_archive((f"{index:06d}.py", ()) for index in range(count))


def _nested(size: int) -> bytes:
    """A zip bomb inside a zip, twenty times over."""
    archive = _zip_bomb(size)
    for depth in range(20):
        archive = zip_archive([(f"level{depth}.zip", [archive])])
    return archive


BOMBS = {
    bomb.name: bomb
    for bomb in (
        Bomb(
            "gnu-long-name",
            "bomb.tar.gz",
            "a tar's first header a GNU long name of SIZE",
            functools.partial(_extended, tarfile.GNUTYPE_LONGNAME),
        ),
        Bomb(
            "gnu-long-link",
            "bomb.tar.gz",
            "a GNU long link name of SIZE",
            functools.partial(_extended, tarfile.GNUTYPE_LONGLINK),
        ),
        Bomb(
            "pax-record",
            "bomb.tgz",
            "a PAX header with one record of SIZE",
            functools.partial(_pax, tarfile.XHDTYPE),
        ),
        Bomb(
            "pax-global",
            "bomb.tgz",
            "a global PAX header with one record of SIZE",
            functools.partial(_pax, tarfile.XGLTYPE),
        ),
        Bomb("pax-sparse", "bomb.tgz", "a GNU sparse map of SIZE after a PAX header", _pax_sparse),
        Bomb("declared-size", "bomb.tar.gz", "a member declaring 1 TiB, SIZE of it", _declared),
        Bomb(
            "endless-gzip", "bomb.tar.gz", "SIZE of gzip stream that stops without an end", _endless
        ),
        Bomb("tar-members", "bomb.tar.gz", "empty members, SIZE of headers", _tar_members),
        Bomb("zip-bomb", "bomb.zip", "one member of SIZE, deflated", _zip_bomb),
        Bomb("zip-members", "bomb.zip", "as many empty members as fit", _zip_members),
        Bomb("nested", "bomb.zip", "a zip bomb of SIZE in a zip, 20 deep", _nested),
    )
}


@functools.cache
def bomb_bytes(name: str, size: int = BOMB_BYTES) -> bytes:
    """The bomb ``name`` of :data:`BOMBS` for ``size`` (built once per process)."""
    return BOMBS[name].build(size)


def honest_archive(size: int = 4 * MIB, files: int = 200) -> bytes:
    """A .tar.gz of ``files`` text files of ``size`` bytes in all: the largest upload
    the default limits take."""
    line = b"# a line of an honest bot's source, forty\n"
    text = line * (size // files // len(line))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for index in range(files):
            info = tarfile.TarInfo("main.py" if index == 0 else f"lib/part{index}.py")
            info.size = len(text)
            archive.addfile(info, io.BytesIO(text))
    return buffer.getvalue()


@dataclass(frozen=True)
class Answer:
    status: int
    detail: str
    seconds: float


@dataclass(frozen=True)
class UploadMemory:
    """One round: the server's memory before and at its peak, and what it answered."""

    uploads: int
    kinds: tuple[str, ...]
    resident_before: int
    peak_before: int
    peak_after: int
    answers: tuple[Answer, ...]

    @property
    def growth(self) -> int:
        return self.peak_after - self.peak_before


def upload_memory(archives: list[tuple[str, str, bytes]]) -> UploadMemory:
    """Upload ``archives`` (kind, file name, bytes) at once to a fresh ``arena serve``,
    one account each, after one honest upload to warm the server up.

    Raises:
        BenchError: the server does not start.
    """
    names = [f"user{index}" for index in range(len(archives) + 1)]
    with (
        tempfile.TemporaryDirectory() as folder,
        live_server(Path(folder), accounts=names, settings=SETTINGS) as server,
    ):
        _upload(server.url, server.tokens[-1], "honest.tar.gz", honest_archive())
        resident, peak = _memory(server.pid)
        with ThreadPoolExecutor(max_workers=len(archives)) as pool:
            answers = list(
                pool.map(
                    lambda token, archive: _upload(server.url, token, archive[1], archive[2]),
                    server.tokens,
                    archives,
                )
            )
        _, peak_after = _memory(server.pid)
    return UploadMemory(
        uploads=len(archives),
        kinds=tuple(sorted({kind for kind, _, _ in archives})),
        resident_before=resident,
        peak_before=peak,
        peak_after=peak_after,
        answers=tuple(answers),
    )


def _upload(url: str, token: str, filename: str, data: bytes) -> Answer:
    start = time.perf_counter()
    response = httpx.post(
        f"{url}/api/bots",
        headers={"Authorization": f"Bearer {token}"},
        data={"name": "bomb", "game": "koenigsgarten", "command": REFUSED_COMMAND},
        files={"archive": (filename, data, "application/octet-stream")},
        timeout=600,
    )
    detail = response.json().get("detail", "") if response.content else ""
    return Answer(response.status_code, str(detail), time.perf_counter() - start)


def _memory(pid: int) -> tuple[int, int]:
    """The process's resident memory now and at its peak, in bytes."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return _kib(fields["VmRSS"]), _kib(fields["VmHWM"])


def _kib(text: str) -> int:
    return int(text.split()[0]) * 1024
