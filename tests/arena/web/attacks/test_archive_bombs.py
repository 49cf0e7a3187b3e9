"""Archive bombs: whatever an uploaded archive holds or declares, the server reads it
in a child process with limits (arena/web/unpacker.py), holds little itself, and
answers 413 (or 422) naming the archive's fault."""

from __future__ import annotations

import io
import tracemalloc
import zipfile

import pytest

from arena.bench.archives import BOMBS, MIB, bomb_bytes, upload_memory
from tests.arena.web.conftest import Web

BOMB_BYTES = 16 * MIB
"""What each bomb here announces or unpacks to: enough to show a reader that holds it."""
WEB_PEAK_BYTES = 12 * MIB
"""What the web process may allocate for one upload (the body, its copies, the answer)."""
NOT_TEXT = {"nested"}
"""Bombs whose first member is refused as binary (archives are not unpacked further)."""


def upload(web: Web, filename: str, archive: bytes, headers: dict[str, str]) -> object:
    return web.client.post(
        "/api/bots",
        headers=headers,
        data={"name": "bomb", "game": "koenigsgarten", "command": "python3 {code}/main.py"},
        files={"archive": (filename, archive, "application/octet-stream")},
    )


def patched_zip(fields: dict[int, int]) -> bytes:
    """A zip of main.py whose local and central headers get ``fields`` (offset in the
    local header: value; the central header's field lies two bytes further)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("main.py", "x = 1\n" * 1000)
    data = bytearray(buffer.getvalue())
    for offset, value in fields.items():
        data[data.index(b"PK\x03\x04") + offset] |= value
        data[data.index(b"PK\x01\x02") + offset + 2] |= value
    return bytes(data)


@pytest.mark.parametrize(
    ("archive", "words"),
    [
        pytest.param(patched_zip({6: 0x1}), "is encrypted", id="encrypted"),
        pytest.param(patched_zip({8: 0x60}), "compression method is not supported", id="method"),
        pytest.param(
            patched_zip({})[:40] + b"\xff" * 20 + patched_zip({})[60:], "Error -3", id="deflate"
        ),
    ],
)
def test_a_broken_zip_is_a_422_never_a_5xx(web: Web, archive: bytes, words: str) -> None:
    response = upload(web, "bot.zip", archive, web.auth())
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert (
        detail.startswith("field 'archive': not a readable 'bot.zip' archive") and words in detail
    )


@pytest.mark.parametrize("bomb", list(BOMBS))
def test_an_archive_bomb_is_refused_and_the_web_process_holds_little(web: Web, bomb: str) -> None:
    archive = bomb_bytes(bomb, BOMB_BYTES)
    headers = web.auth()
    tracemalloc.start()
    try:
        response = upload(web, BOMBS[bomb].filename, archive, headers)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.status_code == (422 if bomb in NOT_TEXT else 413), response.text
    assert response.json()["detail"].startswith("field 'archive': ")
    assert peak < WEB_PEAK_BYTES, f"{peak / MIB:.0f} MiB"


@pytest.mark.slow
def test_ten_bombs_at_once_leave_the_server_within_its_normal_memory() -> None:
    bombs = [("gnu-long-name", "bomb.tar.gz", bomb_bytes("gnu-long-name", 64 * MIB))] * 10
    memory = upload_memory(bombs)  # a real `arena serve`, ten accounts, ten threads
    assert [answer.status for answer in memory.answers] == [413] * 10
    assert memory.growth < 100 * MIB, f"{memory.growth / MIB:.0f} MiB"
