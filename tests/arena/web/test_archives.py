"""Reading uploaded archives: only plain text files, inside the archive, within caps, and
nothing large held on the way."""

from __future__ import annotations

import io
import re
import tarfile
import zipfile
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.bench.archives import (
    AFTER,
    BOMBS,
    END,
    MIB,
    gzip_stream,
    padding,
    pax_records,
    tar_header,
)
from arena.web.archives import check_member_name, unpack
from arena.web.uploads import UploadError, UploadLimits

LIMITS = UploadLimits()


def zip_bytes(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            archive.writestr(info, data)
    return buffer.getvalue()


def tar_bytes(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info, data in members:
            info.size = len(data) if info.isfile() else 0
            archive.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buffer.getvalue()


def tar_member(name: str, kind: bytes = tarfile.REGTYPE, target: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def test_zip_and_tar_give_the_same_files() -> None:
    files = {"main.py": "print('hi')\n", "lib/util.py": "X = 1\n"}
    as_zip = zip_bytes([("main.py", b"print('hi')\n"), ("lib/", b""), ("lib/util.py", b"X = 1\n")])
    as_tar = tar_bytes(
        [
            (tar_member("./main.py"), b"print('hi')\n"),
            (tar_member("lib", tarfile.DIRTYPE), b""),
            (tar_member("lib/util.py"), b"X = 1\n"),
        ]
    )
    assert unpack("bot.zip", as_zip, LIMITS) == files
    assert unpack("bot.tar.gz", as_tar, LIMITS) == files


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("../escape.py", "outside the archive"),
        ("lib/../../escape.py", "outside the archive"),
        ("/etc/passwd", "absolute path"),
        ("C:/windows.py", "absolute path"),
        ("lib\\evil.py", "unsafe member name"),
        ("bad\nname.py", "unsafe member name"),
        ("/".join(["d"] * 10) + "/x.py", "deeper than 8"),
    ],
)
def test_unsafe_names_are_refused_in_both_formats(name: str, words: str) -> None:
    with pytest.raises(UploadError, match=words):
        unpack("bot.zip", zip_bytes([(name, b"x")]), LIMITS)
    with pytest.raises(UploadError, match=words):
        unpack("bot.tgz", tar_bytes([(tar_member(name), b"x")]), LIMITS)


def test_links_devices_and_binary_files_are_refused() -> None:
    link = zipfile.ZipInfo("link.py")
    link.external_attr = 0o120777 << 16
    with pytest.raises(UploadError, match="symbolic link"):
        unpack("bot.zip", zip_bytes([(link, b"/etc/passwd")]), LIMITS)
    for member in (
        tar_member("link.py", tarfile.SYMTYPE, "/etc/passwd"),
        tar_member("hard.py", tarfile.LNKTYPE, "main.py"),
    ):
        with pytest.raises(UploadError, match="is a link"):
            unpack("bot.tgz", tar_bytes([(member, b"")]), LIMITS)
    with pytest.raises(UploadError, match="not a regular file"):
        unpack("bot.tgz", tar_bytes([(tar_member("fifo", tarfile.FIFOTYPE), b"")]), LIMITS)
    with pytest.raises(UploadError, match="not UTF-8 text"):
        unpack("bot.zip", zip_bytes([("blob.bin", b"\xff\xfe\x00")]), LIMITS)


def test_sizes_are_counted_while_unpacking() -> None:
    bomb = zip_bytes([("zeros.py", b"0" * (LIMITS.unpacked_bytes + 1))])
    assert len(bomb) < 100_000  # small packed, too large unpacked
    with pytest.raises(UploadError, match="bytes unpacked") as caught:
        unpack("bot.zip", bomb, LIMITS)
    assert caught.value.status == 413
    many = zip_bytes([(f"f{i}.py", b"") for i in range(LIMITS.files + 1)])
    with pytest.raises(UploadError, match=f"more than {LIMITS.files} files"):
        unpack("bot.zip", many, LIMITS)
    with pytest.raises(UploadError, match="larger than"):
        unpack("bot.zip", b"\0" * (LIMITS.archive_bytes + 1), LIMITS)
    with pytest.raises(UploadError, match="not a readable"):
        unpack("bot.zip", b"not a zip at all", LIMITS)
    with pytest.raises(UploadError, match="holds no files"):
        unpack("bot.zip", zip_bytes([("empty/", b"")]), LIMITS)
    with pytest.raises(UploadError, match="appears twice"):
        unpack("bot.zip", zip_bytes([("a.py", b"1"), ("./a.py", b"2")]), LIMITS)


@given(st.lists(st.sampled_from(["a", "b", "..", ".", "", "c.py"]), min_size=1, max_size=6))
def test_accepted_names_never_leave_the_archive(parts: list[str]) -> None:
    name = "/".join(parts)
    try:
        normalised = check_member_name(name, LIMITS)
    except UploadError:
        assert ".." in parts or name.startswith("/")
        return
    assert ".." not in parts and not name.startswith("/")
    if normalised is not None:
        assert not normalised.startswith("/") and ".." not in normalised.split("/")
        assert "" not in normalised.split("/") and "." not in normalised.split("/")


def pax_tar(records: dict[str, str], kind: bytes = tarfile.XHDTYPE) -> bytes:
    """A .tar.gz whose member main.py has a PAX header of ``records`` before it."""
    body = pax_records(records)
    parts = [tar_header("pax", kind, len(body)), body, padding(len(body)), AFTER]
    return gzip_stream(parts)


@pytest.mark.parametrize(
    ("archive", "words"),
    [
        pytest.param(
            BOMBS["gnu-long-name"].build(MIB),
            "an extended header (a long name or a PAX header) of 1048576 bytes, more than 65536",
            id="gnu-long-name",
        ),
        pytest.param(BOMBS["gnu-long-link"].build(MIB), "of 1048576 bytes", id="gnu-long-link"),
        pytest.param(BOMBS["pax-record"].build(MIB), "an extended header", id="pax-record"),
        pytest.param(BOMBS["pax-global"].build(MIB), "an extended header", id="pax-global"),
        pytest.param(BOMBS["pax-sparse"].build(1000), "'pax' is a sparse file", id="pax-sparse"),
        pytest.param(
            gzip_stream([tar_header("main.py", tarfile.GNUTYPE_SPARSE), END]),
            "'main.py' is a sparse file",
            id="gnu-sparse",
        ),
        pytest.param(
            BOMBS["declared-size"].build(1000),
            "'main.py' declares 1099511627776 bytes",
            id="declared-size",
        ),
        pytest.param(
            pax_tar({"size": str(1 << 40)}),
            "'main.py' declares 1099511627776 bytes",
            id="pax-declared-size",
        ),
        pytest.param(
            pax_tar({f"k{index}": "v" for index in range(65)}),
            "a PAX header of more than 64 records",
            id="pax-records",
        ),
        pytest.param(
            pax_tar({f"k{index}": "v" for index in range(65)}, tarfile.XGLTYPE),
            "a PAX header of more than 64 records",
            id="pax-global-records",
        ),
        pytest.param(
            gzip_stream([tar_header("././@LongLink", tarfile.GNUTYPE_LONGNAME, 0)] * 5),
            "more than 4 extended headers before one member",
            id="chained-headers",
        ),
        pytest.param(
            BOMBS["tar-members"].build(MIB), f"more than {LIMITS.files} files", id="tar-members"
        ),
        pytest.param(
            BOMBS["endless-gzip"].build(1000),
            "Compressed file ended before the end-of-stream marker",
            id="gzip-without-end",
        ),
        pytest.param(
            BOMBS["endless-gzip"].build(8 * MIB),
            f"its tar is larger than {LIMITS.tar_bytes} bytes",
            id="gzip-going-on",
        ),
    ],
)
def test_a_tar_is_judged_by_its_headers_before_what_they_announce_is_read(
    archive: bytes, words: str
) -> None:
    with pytest.raises(UploadError, match=re.escape(words)):
        unpack("bot.tar.gz", archive, LIMITS)


def test_a_zip_is_judged_by_its_directory_before_a_member_is_read() -> None:
    with pytest.raises(UploadError, match="its directory declares 2097152 bytes") as caught:
        unpack("bot.zip", BOMBS["zip-bomb"].build(2 * MIB), replace(LIMITS, unpacked_bytes=MIB))
    assert caught.value.status == 413
    with pytest.raises(UploadError, match=f"more than {LIMITS.files} files"):
        unpack("bot.zip", BOMBS["zip-members"].build(64 * MIB), LIMITS)
    corrupt = bytearray(zip_bytes([("main.py", b"x = 1\n" * 1000)]))
    corrupt[40:60] = b"\xff" * 20  # inside the deflated data
    with pytest.raises(UploadError, match=re.escape("not a readable 'bot.zip' archive: Error -3")):
        unpack("bot.zip", bytes(corrupt), LIMITS)


def test_ordinary_extended_headers_are_read() -> None:
    """Long names (GNU), PAX headers for each member and git archive's global comment."""
    long_name = "lib/" + "x" * 150 + ".py"
    files = {"main.py": "print('hi')\n", long_name: "X = 1\n"}
    for tar_format in (tarfile.GNU_FORMAT, tarfile.PAX_FORMAT):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz", format=tar_format) as archive:
            archive.pax_headers = {"comment": "0123456789abcdef0123456789abcdef01234567"}
            for name, text in files.items():
                info = tarfile.TarInfo(name)
                info.size, info.mtime = len(text), 1.5  # a fraction: PAX writes its own header
                archive.addfile(info, io.BytesIO(text.encode()))
        assert unpack("bot.tgz", buffer.getvalue(), LIMITS) == files


def test_a_member_name_that_is_not_utf8_is_refused() -> None:
    member = tar_member("caf\udce9.py")  # tarfile's way of keeping the byte 0xE9
    with pytest.raises(UploadError, match="is not UTF-8"):
        unpack("bot.tgz", tar_bytes([(member, b"x")]), LIMITS)
