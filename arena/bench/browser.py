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

import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from arena.errors import ArenaError

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


class BenchError(ArenaError):
    """The benchmark cannot run here (no Chromium, no playwright, a server that fails)."""


def free_port() -> int:
    """A TCP port of loopback free now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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
        db, token = database_with_account(Path(folder))
        # Starting a game counts against the account's write limit; the benchmark
        # starts one every few moves.
        settings = Path(folder) / "web.toml"
        settings.write_text("[rate_limit]\nrequests = 100000\n")
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        command = ["serve", "--port", str(port), "--no-worker", "--db", db]
        command += ["--settings", str(settings)]
        server = subprocess.Popen(
            [sys.executable, "-m", "arena", *command],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            wait_up(server, url)
            with sync_playwright() as driver:
                browser = driver.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
                try:
                    return _play(browser.new_page(), url, token, moves, game, bot)
                finally:
                    browser.close()
        finally:
            server.terminate()
            server.wait(10)


def database_with_account(folder: Path) -> tuple[str, str]:
    """A new SQLite database in ``folder`` with one account, ``bench``: its path and
    the account's token."""
    from arena.store.db import open_database, session_scope
    from arena.web.accounts import create_account

    db = str(folder / "arena.db")
    engine = open_database(db)
    with session_scope(engine) as session:
        _, token = create_account(session, "bench")
    engine.dispose()
    return db, token


def wait_up(server: subprocess.Popen[bytes], url: str) -> None:
    """Wait until the ``arena serve`` process ``server`` answers at ``url``.

    Raises:
        BenchError: it exited, or did not answer within 120 s.
    """
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise BenchError(f"arena serve exited with status {server.returncode}")
        try:
            if httpx.get(f"{url}/api/games", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise BenchError("arena serve did not answer within 120 s")


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
