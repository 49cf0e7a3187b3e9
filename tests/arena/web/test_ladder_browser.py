"""In headless Chromium against a live ``arena serve``: a running ladder's standings on
its game's page follow the games workers store, without reloading the page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from arena.ladder.service import start_ladder
from arena.ladder.worker import LadderPlayer
from arena.store.bots import resolve_bot
from arena.store.db import open_database, session_scope
from tests.arena.web.test_browser import CHROMIUM, CHROMIUM_ARGS, free_port
from tests.waiting import wait_until

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium (.ci/run installs it)"
    ),
    pytest.mark.xdist_group("browser"),
    pytest.mark.slow,  # a live server and a browser
]
GAME = "koenigsgarten"


def stored(heading: str) -> int:
    """The games a ladder's heading counts ("unlimited, 2 seats running · 1,234 games")."""
    found = re.search(r"([\d,]+) games", heading)
    assert found, heading
    return int(found.group(1).replace(",", ""))


def test_the_ladder_section_follows_stored_games(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    engine = open_database(db)
    with session_scope(engine) as session:
        for bot in ("random", "greedy", "first-legal"):
            resolve_bot(session, bot, GAME)
        ladder, _ = start_ladder(session, GAME, time_control="unlimited")
        assert ladder.id is not None
        ladder_id = ladder.id
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", str(port), "--no-worker", "--db", db],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        try:
            return httpx.get(f"{url}/api/games", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    errors: list[str] = []
    try:
        wait_until(up, what="arena serve did not start")
        with playwright.sync_playwright() as driver:
            chromium = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = chromium.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{url}/games/{GAME}")
            section = page.locator(f"#ladder-{ladder_id}")
            assert stored(section.locator("h3").inner_text()) == 0
            with LadderPlayer(engine, executor="local", tables=3, seed=1) as player:
                player.play_batch(ladder_id)

            def shows_games() -> bool:
                return stored(section.locator("h3").inner_text()) > 0

            wait_until(shows_games, what="the ladder section did not update")
            ratings = section.locator(".ladder-standings tbody tr").all_inner_texts()
            assert len(ratings) == 3 and all("[" in row for row in ratings)
            chromium.close()
    finally:
        server.terminate()
        server.wait(10)
        engine.dispose()
    assert errors == []
