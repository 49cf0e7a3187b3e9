"""In headless Chromium against a live ``arena serve``: a running ladder's standings on
its game's page follow the games workers store, without reloading the page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.ladder.service import start_ladder
from arena.ladder.worker import LadderPlayer
from arena.store.bots import resolve_bot
from arena.store.db import open_database, session_scope
from tests.arena.web.conftest import live_server
from tests.arena.web.test_browser import CHROMIUM, CHROMIUM_ARGS, new_context
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
    errors: list[str] = []
    with live_server(db) as url, playwright.sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = new_context(chromium).new_page()
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
        finally:
            chromium.close()
            engine.dispose()
    assert errors == []
