"""``arena bench browser``: a person's move round trip in the browser, on loopback.

A live ``arena serve`` (a subprocess, a temporary SQLite database, one account) and
headless Chromium driven by playwright: the page signs in, starts games against a
bot from the game's page and plays the first legal action until enough moves are
timed. Each move is timed inside the page, from the click on the action's button to
the next frame after the bot's answer is drawn (the view in which the person is to
move again, or the game's end): the POST of the move, the game thread, the bot, the
server-sent event, the drawing.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bench.server import BenchError, live_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
READY = """() => {
  const root = document.getElementById('play');
  return root.dataset.over === 'true' ||
    document.querySelector('#actions button:not([disabled])') !== null;
}"""
CLICK_AND_WAIT = """() => new Promise((resolve) => {
  const root = document.getElementById('play');
  const seat = root.dataset.seat;
  const start = performance.now();
  const answered = () => root.dataset.over === 'true' ||
    (root.dataset.toMove === seat && document.querySelector('#actions button:not([disabled])'));
  const observer = new MutationObserver(() => {
    if (!answered()) return;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now() - start));
  });
  observer.observe(root, {attributes: true});
  document.querySelector('#actions button').click();
})"""


@dataclass(frozen=True)
class RoundTrips:
    game: str
    bot: str
    games: int
    seconds: list[float]
    """Click to the bot's answer drawn, one per move."""


def browser_round_trips(
    *, moves: int, game: str = "koenigsgarten", bot: str = "random", chromium: Path = CHROMIUM
) -> RoundTrips:
    """Time at least ``moves`` moves of games of ``game`` (2 seats) against ``bot``.

    Raises:
        BenchError: no Chromium or playwright, or the server does not start.
    """
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise BenchError("arena bench browser needs the playwright package") from None
    if not chromium.exists():
        raise BenchError(f"no Chromium at {str(chromium)!r}")
    with tempfile.TemporaryDirectory() as folder:
        # Starting a game counts against the account's write limit; the benchmark
        # starts one every few moves.
        settings = "[rate_limit]\nrequests = 100000\n"
        with live_server(Path(folder), settings=settings) as server, sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
            try:
                return _play(browser.new_page(), server.url, server.tokens[0], moves, game, bot)
            finally:
                browser.close()


def _play(page: Any, url: str, token: str, moves: int, game: str, bot: str) -> RoundTrips:
    page.goto(f"{url}/signin")
    page.fill("#signin-token", token)
    page.click("#signin-submit")
    page.wait_for_selector("#signed-in")
    seconds: list[float] = []
    games = 0
    while len(seconds) < moves:
        page.goto(f"{url}/games/{game}")
        page.select_option("#start-seats", "2")
        page.select_option("#start-opponent1", bot)
        page.click("#start-submit")
        page.wait_for_url("**/play/*")
        games += 1
        while True:
            page.wait_for_function(READY, timeout=120_000)
            if page.get_attribute("#play", "data-over") == "true":
                break
            seconds.append(float(page.evaluate(CLICK_AND_WAIT)) / 1000)
    return RoundTrips(game=game, bot=bot, games=games, seconds=seconds)
