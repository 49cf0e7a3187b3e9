"""End to end in headless Chromium against a live ``arena serve``: a leaderboard, a
replay stepped through with the seat selector, a bot submitted through the form."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.store.db import open_database
from tests.arena.web.conftest import FIRST_LEGAL, live_server, make_account, play_tournament

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

playwright = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium (.ci/run installs it)"
    ),
    pytest.mark.xdist_group("browser"),
    pytest.mark.slow,  # a live server and a browser
]


@dataclass
class Site:
    url: str
    token: str
    kings_corner_game: int


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    db = str(tmp_path_factory.mktemp("site") / "arena.db")
    engine = open_database(db)
    play_tournament(engine, game="koenigsgarten", bots=["random", "first-legal", "greedy"])
    kings = play_tournament(
        engine, game="kings_corner", bots=["random:seed=3", "greedy:seed=3"], seats=2
    )
    token = make_account(engine, "browser")
    with engine.connect() as connection:
        game_id = connection.exec_driver_sql(
            f"SELECT min(id) FROM game WHERE tournament_id = {kings}"
        ).scalar_one()
    engine.dispose()
    with live_server(db) as url:
        yield Site(url, token, int(game_id))


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with playwright.sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


BROWSER_WAIT_MS = 120_000
"""How long any step of a browser test may wait (navigation, a selector): generous, so
that a machine loaded with other work slows the tests down without failing them."""


def new_context(browser: object) -> Any:
    """A browser context whose every wait is bounded by :data:`BROWSER_WAIT_MS`."""
    context = browser.new_context()  # type: ignore[attr-defined]
    context.set_default_timeout(BROWSER_WAIT_MS)
    context.set_default_navigation_timeout(BROWSER_WAIT_MS)
    return context


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = new_context(browser)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == []  # no script failed


def test_the_leaderboard_shows_every_bot_and_the_plot(site: Site, page: object) -> None:
    page.goto(f"{site.url}/")  # type: ignore[attr-defined]
    with page.expect_response(lambda r: "plot.png" in r.url) as plot:  # type: ignore[attr-defined]
        page.click("text=Königsgarten")  # type: ignore[attr-defined]
    assert plot.value.status == 200 and plot.value.headers["content-type"] == "image/png"
    rows = page.locator("#leaderboard tbody tr")  # type: ignore[attr-defined]
    assert rows.count() == 3
    names = [rows.nth(i).locator("td").nth(1).inner_text() for i in range(3)]
    assert sorted(names) == ["first-legal@1", "greedy@1", "random@1"]
    elo = rows.nth(0).locator("td").nth(2).inner_text()
    assert "±" in elo or "[" in elo
    image = page.locator("#ratings-plot")  # type: ignore[attr-defined]
    image.wait_for()
    box = image.bounding_box()
    assert box is not None and box["height"] > 100  # drawn, not a broken-image icon


def test_the_replay_steps_and_each_seat_sees_only_its_hand(site: Site, page: object) -> None:
    record = httpx.get(f"{site.url}/api/records/{site.kings_corner_game}").json()["record"]
    steps = len(record["actions"])
    page.goto(f"{site.url}/records/{site.kings_corner_game}")  # type: ignore[attr-defined]
    page.wait_for_selector("#replay[data-loaded-seat='0']")  # type: ignore[attr-defined]
    board = page.locator("#board")  # type: ignore[attr-defined]
    position = page.locator("#position")  # type: ignore[attr-defined]
    assert position.inner_text() == f"step 0 / {steps}"
    start = board.inner_text()
    assert "seat 1: 7 cards" in start  # seat 0 does not see seat 1's hand
    assert (
        page.locator("#board .card.red").count()
        + page.locator(  # type: ignore[attr-defined]
            "#board .card.black"
        ).count()
        >= 7
    )
    page.click("#next")  # type: ignore[attr-defined]
    assert position.inner_text() == f"step 1 / {steps}"
    assert board.inner_text() != start
    assert page.locator("#moves li.current").count() == 1  # type: ignore[attr-defined]
    page.keyboard.press("ArrowRight")  # type: ignore[attr-defined]
    assert position.inner_text() == f"step 2 / {steps}"
    page.click("#prev")  # type: ignore[attr-defined]
    page.click("#prev")  # type: ignore[attr-defined]
    assert board.inner_text() == start
    page.click("#last")  # type: ignore[attr-defined]
    assert "game over" in page.locator("#legal").inner_text()  # type: ignore[attr-defined]
    page.click("#first")  # type: ignore[attr-defined]
    page.select_option("#seat", "")  # type: ignore[attr-defined]
    page.wait_for_selector("#replay[data-loaded-seat='']")  # type: ignore[attr-defined]
    spectator = board.inner_text()
    assert "seat 1: 7 cards" not in spectator and "seat 0: 7 cards" not in spectator
    page.select_option("#seat", "1")  # type: ignore[attr-defined]
    page.wait_for_selector("#replay[data-loaded-seat='1']")  # type: ignore[attr-defined]
    assert "seat 0: 7 cards" in board.inner_text()


def test_a_bot_is_submitted_through_the_form(site: Site, page: object, tmp_path: Path) -> None:
    bot_file = tmp_path / "picker.py"
    bot_file.write_text(FIRST_LEGAL)
    page.goto(f"{site.url}/submit")  # type: ignore[attr-defined]
    page.fill("#token", "arena_wrong")  # type: ignore[attr-defined]
    page.fill("#bot-name", "formbot")  # type: ignore[attr-defined]
    page.select_option("#bot-game", "koenigsgarten")  # type: ignore[attr-defined]
    page.set_input_files("#bot-file", str(bot_file))  # type: ignore[attr-defined]
    page.click("#bot-submit")  # type: ignore[attr-defined]
    result = page.locator("#bot-result")  # type: ignore[attr-defined]
    result.locator("text=unknown token").wait_for()
    page.fill("#token", site.token)  # type: ignore[attr-defined]
    page.click("#bot-submit")  # type: ignore[attr-defined]
    result.locator("text=registered formbot@1").wait_for(timeout=30_000)
    assert "speaks protocol 1" in result.inner_text()
    bot = httpx.get(f"{site.url}/api/bots/formbot").json()
    assert bot["owner"] == "browser" and bot["versions"][0]["entry"] == "FirstLegal"
    result.locator("a").click()
    page.wait_for_url("**/bots/formbot%401")  # type: ignore[attr-defined]
    assert "submitted by browser" in page.inner_text("h1")  # type: ignore[attr-defined]


def site_pages(site: Site) -> list[str]:
    """Every page a visitor reaches without signing in, with the site's real data."""
    return [
        "/",
        "/games/koenigsgarten",
        "/games/kings_corner",
        "/games/koenigsgarten/ladders",
        "/games/koenigsgarten/humans",
        "/tournaments",
        "/tournaments/1",
        "/tournaments/1/standings",
        f"/records/{site.kings_corner_game}",
        "/bots",
        "/bots/greedy@1",
        "/submit",
        "/signin",
    ]


@pytest.mark.parametrize("width", [390, 1280])
def test_every_page_fits_the_width_without_scrolling_sideways(
    site: Site, browser: object, width: int
) -> None:
    context = new_context(browser)
    context.set_default_timeout(BROWSER_WAIT_MS)
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": 800})
    too_wide: dict[str, int] = {}
    try:
        for path in [*site_pages(site), "signed in", "/my/games"]:
            if path == "signed in":
                page.goto(f"{site.url}/signin")
                page.fill("#signin-token", site.token)
                page.click("#signin-submit")
                page.wait_for_selector("#signed-in")
                assert page.locator("#my-games-link").is_visible()
                continue
            response = page.goto(f"{site.url}{path}", wait_until="load")
            assert response is not None and response.status == 200, path
            page.wait_for_load_state("networkidle")
            scroll_width = page.evaluate("document.documentElement.scrollWidth")
            if scroll_width > page.evaluate("window.innerWidth"):
                too_wide[path] = scroll_width
            # the menu stays reachable: every link in it is inside the viewport
            for link in page.locator("nav a").all():
                box = link.bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (
                    path,
                    link.inner_text(),
                )
            for image in page.locator("figure img").all():
                box = image.bounding_box()
                assert box is not None, path
                # a plot uses the width it has, never a thumbnail
                assert box["width"] >= min(width - 40, 300) * 0.9 or box["width"] >= 600, (
                    path,
                    box,
                )
    finally:
        context.close()
    assert too_wide == {}
