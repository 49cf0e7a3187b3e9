"""People play bots end to end in headless Chromium against a live ``arena serve``:
sign in through the form, start a game from the game's page, play it to the end by
clicking (or with the keyboard), then replay the stored game. One full game of each
of the four games; the person always picks the first legal action (in Blumengarten,
whose first-legal games run to the move limit, a few moves and then "resign"). And a
game that goes on in the open page after its server is killed and started again."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.store.db import open_database
from tests.arena.web.conftest import free_port, live_server, make_account, server_process
from tests.arena.web.test_browser import (  # the same browser, one context per test
    BROWSER_WAIT_MS,
    CHROMIUM,
    browser,
    new_context,
    page,
)

__all__ = ["browser", "page"]
pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium (.ci/run installs it)"
    ),
    pytest.mark.xdist_group("browser"),
    pytest.mark.slow,  # a live server and a browser
]
WAIT_MS = BROWSER_WAIT_MS
READY = """() => {
  const root = document.getElementById('play');
  return root.dataset.over === 'true' ||
    document.querySelector('#actions button:not([disabled])') !== null;
}"""


@dataclass
class Site:
    url: str
    tokens: dict[str, str]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    db = str(tmp_path_factory.mktemp("play") / "arena.db")
    engine = open_database(db)
    tokens = {name: make_account(engine, name) for name in ("player", "other")}
    engine.dispose()
    with live_server(db) as url:
        yield Site(url, tokens)


def sign_in(page: Any, site: Site, name: str = "player") -> None:
    page.goto(f"{site.url}/signin")
    page.fill("#signin-token", site.tokens[name])
    page.click("#signin-submit")
    page.wait_for_selector("#signed-in")
    assert page.inner_text("#signed-in") == name


def start_game(
    page: Any, site: Site, game: str, seats: int, opponents: list[str], clock: str = "none"
) -> str:
    page.goto(f"{site.url}/games/{game}")
    page.select_option("#start-seats", str(seats))
    page.select_option("#start-clock", clock)
    for index, bot in enumerate(opponents, 1):
        page.select_option(f"#start-opponent{index}", bot)
    page.click("#start-submit")
    page.wait_for_url("**/play/*")
    page.wait_for_function("() => document.getElementById('play').dataset.version !== '-1'")
    return str(page.url).rsplit("/", 1)[1]


MOVED = "(before) => document.getElementById('play').dataset.version !== before"


def moved(page: Any, act: Any) -> None:
    """Do ``act`` (one move) and wait until the page shows the state after it: its buttons
    may still be enabled for a moment after the click, and must not be taken for the next
    turn's."""
    before = page.get_attribute("#play", "data-version")
    act()
    page.wait_for_function(MOVED, arg=before, timeout=WAIT_MS)


def play_to_the_end(page: Any, how: str = "click", resign_after: int | None = None) -> int:
    """Play the first legal action until the game is over; returns the moves made."""
    made = 0
    while True:
        page.wait_for_function(READY, timeout=WAIT_MS)
        if page.get_attribute("#play", "data-over") == "true":
            return made
        assert page.locator("#board .card").count() > 0  # the table drawn with chips
        resign = resign_after is not None and made >= resign_after
        moved(page, functools.partial(_act, page, how, resign))
        made += 1


def _act(page: Any, how: str, resign: bool) -> None:
    if resign:
        page.click("#actions button[data-action='resign']")
    elif how == "keys":
        page.keyboard.press("1")
    elif how == "enter":
        first = page.locator("#actions button").first
        first.focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowLeft")
        assert page.evaluate("document.activeElement.dataset.action") == first.get_attribute(
            "data-action"
        )
        page.keyboard.press("Enter")
    else:
        page.locator("#actions button").first.click()


def check_replay(page: Any, site: Site, players: int) -> None:
    result = page.inner_text("#result")
    assert result
    page.click("#replay-link")
    page.wait_for_url("**/records/*")
    page.wait_for_selector("#replay[data-loaded-seat='0']")
    assert page.locator("#seat option").count() == players + 1
    page.click("#last")
    assert "game over" in page.inner_text("#legal")


def no_overflow(page: Any) -> bool:
    return bool(
        page.evaluate(
            """() => document.documentElement.scrollWidth <= window.innerWidth &&
                 document.getElementById('board').scrollWidth <=
                 document.getElementById('board').clientWidth"""
        )
    )


def test_a_game_of_koenigsgarten_played_with_number_keys(site: Site, page: Any) -> None:
    sign_in(page, site)
    start_game(page, site, "koenigsgarten", 2, ["random"], clock="5+3")
    page.wait_for_function(READY, timeout=WAIT_MS)
    assert re.fullmatch(r"your clock: [45]:\d\d.*", page.inner_text("#clock"))
    assert play_to_the_end(page, how="keys") > 0
    check_replay(page, site, 2)


def test_a_game_of_kings_corner_played_with_arrows_and_enter(site: Site, page: Any) -> None:
    sign_in(page, site)
    start_game(page, site, "kings_corner", 3, ["random", "greedy"])
    made = 0
    while True:  # until the bots have answered: their moves named beside the table
        page.wait_for_function(READY, timeout=WAIT_MS)
        if page.get_attribute("#play", "data-over") == "true" or page.inner_text("#recent"):
            break
        moved(page, functools.partial(_act, page, "enter", False))
        made += 1
    recent = page.inner_text("#recent")
    assert "seat 1: random@1" in recent or page.get_attribute("#play", "data-over") == "true"
    assert page.locator("#start-opponent3").count() == 0  # left the form page
    # The deal is drawn at random: a bot may end the game in its first turns, so the
    # moves made before count too (every one of them by arrows and Enter).
    assert made + play_to_the_end(page, how="enter") > 0
    check_replay(page, site, 3)


def test_a_game_of_blumengarten_played_by_clicking(site: Site, page: Any) -> None:
    sign_in(page, site)
    start_game(page, site, "blumengarten", 1, [])
    assert play_to_the_end(page, resign_after=5) == 6
    assert "resign" in page.inner_text("#moves")
    check_replay(page, site, 1)


@pytest.mark.parametrize("width", [1280, 390])
def test_a_game_of_kardinal_on_a_desktop_and_a_phone(site: Site, page: Any, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, site)
    start_game(page, site, "kardinal", 3, ["random", "random"])
    page.wait_for_selector("#board .card.country")
    assert no_overflow(page)  # the rows wrap: nothing cut off
    assert play_to_the_end(page) > 0
    assert no_overflow(page)
    check_replay(page, site, 3)
    page.click("#first")
    assert page.locator("#board .card.country").count() > 0  # chips in the viewer too
    assert no_overflow(page)


def test_only_the_owner_sees_a_live_game_and_forged_moves_fail(
    site: Site, browser: Any, page: Any
) -> None:
    sign_in(page, site)
    game_id = start_game(page, site, "koenigsgarten", 2, ["random"])
    page.wait_for_function(READY, timeout=WAIT_MS)
    version = int(page.get_attribute("#play", "data-version") or "-1")
    forged = page.evaluate(
        """async ([id, version]) => {
          const action = document.querySelector('#actions button').dataset.action;
          const body = JSON.stringify({version: version, action: action});
          const bare = await fetch(`/play/${id}/move`, {method: 'POST', body: body,
            headers: {'Content-Type': 'application/json'}});
          const wrong = await fetch(`/play/${id}/move`, {method: 'POST', body: body,
            headers: {'Content-Type': 'application/json', 'X-CSRF-Token': 'forged'}});
          return [bare.status, wrong.status];
        }""",
        [game_id, version],
    )
    assert forged == [403, 403]
    assert page.get_attribute("#play", "data-version") == str(version)  # nothing moved
    other = new_context(browser)
    try:
        intruder = other.new_page()
        sign_in(intruder, site, "other")
        answer = intruder.goto(f"{site.url}/play/{game_id}")
        assert answer.status == 404
        events = intruder.evaluate(
            "async (id) => (await fetch(`/play/${id}/events`)).status", game_id
        )
        assert events == 404
    finally:
        other.close()
    play_to_the_end(page)


def test_a_form_on_another_site_cannot_start_a_game(site: Site, page: Any) -> None:
    sign_in(page, site)
    forged = (
        f'<form method="post" action="{site.url}/games/blumengarten/play">'
        '<input name="seats" value="1"><input name="seat" value="0">'
        '<button id="go">go</button></form>'
    )
    page.goto(f"data:text/html,{forged}")
    with page.expect_navigation():
        page.click("#go")
    refused = page.inner_text("#error-message")
    assert "another site" in refused or "anti-CSRF" in refused  # 403 either way
    page.goto(f"{site.url}/games/blumengarten")  # still signed in, no game started for it
    assert page.inner_text("#signed-in") == "player"


def test_a_game_goes_on_after_the_server_is_killed(tmp_path: Path, page: Any) -> None:
    db = str(tmp_path / "arena.db")
    engine = open_database(db)
    site = Site("", {"player": make_account(engine, "player")})
    engine.dispose()
    port = free_port()
    site.url = f"http://127.0.0.1:{port}"
    with server_process(db, port) as server:
        sign_in(page, site)
        start_game(page, site, "koenigsgarten", 2, ["random"], clock="5+3")
        for _ in range(2):
            page.wait_for_function(READY, timeout=WAIT_MS)
            moved(page, lambda: page.locator("#actions button").first.click())
        page.wait_for_function(READY, timeout=WAIT_MS)
        board = page.inner_text("#board")
        before = page.get_attribute("#play", "data-version")
        server.kill()  # no chance to save anything on the way out
        server.wait(10)
    with server_process(db, port):  # a new server over the same database and port
        # The open page's events reconnect (the cookie still good): the same table.
        page.wait_for_function(MOVED, arg=before, timeout=WAIT_MS)
        page.wait_for_function(READY, timeout=WAIT_MS)
        assert page.inner_text("#board") == board
        assert play_to_the_end(page) > 0
        check_replay(page, site, 2)


def test_resigning_ends_the_game_as_a_loss_stored_like_any_end(site: Site, page: Any) -> None:
    sign_in(page, site)
    start_game(page, site, "koenigsgarten", 2, ["random"])
    page.wait_for_function(READY, timeout=WAIT_MS)
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    page.wait_for_function(
        "() => document.getElementById('play').dataset.over === 'true'", timeout=WAIT_MS
    )
    assert page.locator("#resign").is_hidden()
    record_id = page.get_attribute("#replay-link", "href").rsplit("/", 1)[1]
    record = httpx.get(f"{site.url}/api/records/{record_id}").json()["record"]
    assert "resigned" in json.dumps(record["outcome"])
    assert "player" in page.inner_text("#result")


def test_my_games_links_an_open_game_to_continue_it(site: Site, page: Any) -> None:
    sign_in(page, site)
    game_id = start_game(page, site, "koenigsgarten", 2, ["random"])
    page.wait_for_function(READY, timeout=WAIT_MS)
    page.click("#my-games-link")
    page.wait_for_url("**/my/games")
    page.click(f"#open-games a[href='/play/{game_id}']")
    page.wait_for_url(f"**/play/{game_id}")
    page.wait_for_function(READY, timeout=WAIT_MS)
    play_to_the_end(page)
    page.goto(f"{site.url}/my/games")
    assert page.locator(f"#open-games a[href='/play/{game_id}']").count() == 0
    record = page.get_attribute("#finished-games a[href^='/records/']", "href")
    assert record is not None
    page.click(f"#finished-games a[href='{record}']")
    page.wait_for_selector("#replay[data-loaded-seat='0']")


def test_the_two_seats_markers_differ_in_shape_and_colour(site: Site, page: Any) -> None:
    sign_in(page, site)
    start_game(page, site, "koenigsgarten", 2, ["random"])
    play_to_the_end(page)
    shapes: dict[str, set[str]] = {}
    colours: dict[str, set[str]] = {}
    for seat in ("m0", "m1"):
        markers = page.locator(f"#board .marker.{seat}")
        assert markers.count() > 0, seat  # each seat took cards
        shapes[seat] = {text[0] for text in markers.all_inner_texts()}
        colours[seat] = {
            markers.nth(i).evaluate("e => getComputedStyle(e).backgroundColor")
            for i in range(markers.count())
        }
    assert len(shapes["m0"]) == len(shapes["m1"]) == 1 and shapes["m0"] != shapes["m1"]
    assert colours["m0"].isdisjoint(colours["m1"])
