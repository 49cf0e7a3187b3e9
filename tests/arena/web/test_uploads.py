"""Unpacking uploaded archives: only plain text files, inside the archive, within caps."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.web.uploads import UploadError, UploadLimits, check_member_name, read_archive

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
    assert read_archive("bot.zip", as_zip, LIMITS) == files
    assert read_archive("bot.tar.gz", as_tar, LIMITS) == files


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
        read_archive("bot.zip", zip_bytes([(name, b"x")]), LIMITS)
    with pytest.raises(UploadError, match=words):
        read_archive("bot.tgz", tar_bytes([(tar_member(name), b"x")]), LIMITS)


def test_links_devices_and_binary_files_are_refused() -> None:
    link = zipfile.ZipInfo("link.py")
    link.external_attr = 0o120777 << 16
    with pytest.raises(UploadError, match="symbolic link"):
        read_archive("bot.zip", zip_bytes([(link, b"/etc/passwd")]), LIMITS)
    for member in (
        tar_member("link.py", tarfile.SYMTYPE, "/etc/passwd"),
        tar_member("hard.py", tarfile.LNKTYPE, "main.py"),
    ):
        with pytest.raises(UploadError, match="is a link"):
            read_archive("bot.tgz", tar_bytes([(member, b"")]), LIMITS)
    with pytest.raises(UploadError, match="not a regular file"):
        read_archive("bot.tgz", tar_bytes([(tar_member("fifo", tarfile.FIFOTYPE), b"")]), LIMITS)
    with pytest.raises(UploadError, match="not UTF-8 text"):
        read_archive("bot.zip", zip_bytes([("blob.bin", b"\xff\xfe\x00")]), LIMITS)


def test_sizes_are_counted_while_unpacking() -> None:
    bomb = zip_bytes([("zeros.py", b"0" * (LIMITS.unpacked_bytes + 1))])
    assert len(bomb) < 100_000  # small packed, too large unpacked
    with pytest.raises(UploadError, match="bytes unpacked") as caught:
        read_archive("bot.zip", bomb, LIMITS)
    assert caught.value.status == 413
    many = zip_bytes([(f"f{i}.py", b"") for i in range(LIMITS.files + 1)])
    with pytest.raises(UploadError, match=f"more than {LIMITS.files} files"):
        read_archive("bot.zip", many, LIMITS)
    with pytest.raises(UploadError, match="larger than"):
        read_archive("bot.zip", b"\0" * (LIMITS.archive_bytes + 1), LIMITS)
    with pytest.raises(UploadError, match="not a readable"):
        read_archive("bot.zip", b"not a zip at all", LIMITS)
    with pytest.raises(UploadError, match="holds no files"):
        read_archive("bot.zip", zip_bytes([("empty/", b"")]), LIMITS)
    with pytest.raises(UploadError, match="appears twice"):
        read_archive("bot.zip", zip_bytes([("a.py", b"1"), ("./a.py", b"2")]), LIMITS)


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
