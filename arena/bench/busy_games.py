"""``arena bench busy-games``: the site's latency while browser games keep bots busy.

A live ``arena serve`` (a subprocess, a temporary SQLite database, one account allowed
that many games) answers ``GET /api/games`` over and over on loopback: first idle,
then while ``games`` browser games run against a searching bot. Each game is played by
a thread of this process as a person would (signed in over HTTP, the bot to move
first, the first legal action sent as soon as it is the person's turn, a new game when
one ends), so the bots search nearly all the time. The figure is the latency of the
busy phase against the idle one, measured in the same run.

``checkout`` runs the server from another checkout of arena (its directory goes first
on ``PYTHONPATH``, the server runs in a temporary directory): the same measurement of
another version, for a before/after. ``server_cpu_seconds`` says where the bots'
work is done: in the web process, or elsewhere.
"""

from __future__ import annotations

import os
import re
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from arena.bench.server import BenchError, live_server

CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
POLL_SECONDS = 0.2
"""How often a player looks whether it is its turn."""


@dataclass(frozen=True)
class Latencies:
    """Seconds per ``GET /api/games``, in order."""

    seconds: list[float]

    @property
    def p50(self) -> float:
        return statistics.median(self.seconds)

    @property
    def p90(self) -> float:
        ordered = sorted(self.seconds)
        return ordered[int(0.9 * (len(ordered) - 1))]


@dataclass(frozen=True)
class BusyGames:
    idle: Latencies
    busy: Latencies
    games: int
    game: str
    bot: str
    bot_moves: int
    """Moves the bots made, from the start of the games to the end of the busy phase."""
    load_before: float
    load_after: float
    """The 1-minute load average before the idle phase and after the busy one."""
    busy_seconds: float
    """How long the busy phase took."""
    server_cpu_seconds: float
    """CPU time of the web process (all its threads, not its children) meanwhile."""


class _Player:
    """A person playing browser games in a thread: the first legal action each turn."""

    def __init__(self, url: str, token: str, game: str, bot: str) -> None:
        self.client = httpx.Client(base_url=url, timeout=60)
        self.game = game
        self.bot = bot
        self.bot_moves = 0
        self.stop = threading.Event()
        self.error: Exception | None = None
        self.csrf = self._sign_in(token)
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _sign_in(self, token: str) -> str:
        page = self.client.get("/signin")
        found = CSRF.search(page.text)
        if found is None:
            raise BenchError("the sign-in page has no anti-CSRF token")
        self.client.post("/signin", data={"token": token, "csrf": found[1]})
        found = CSRF.search(self.client.get(f"/games/{self.game}").text)
        if found is None:
            raise BenchError("the game's page has no anti-CSRF token")
        return found[1]

    def start_game(self) -> str:
        form = {"csrf": self.csrf, "seats": "2", "seat": "1", "opponent1": self.bot}
        answer = self.client.post(f"/games/{self.game}/play", data=form, follow_redirects=False)
        if answer.status_code != 303:
            raise BenchError(f"starting a game: {answer.status_code} {answer.text[:200]}")
        return str(answer.headers["location"]).removeprefix("/play/")

    def _run(self) -> None:
        try:
            game_id = self.start_game()
            played = -1
            while not self.stop.wait(POLL_SECONDS):
                view = self.client.get(f"/play/{game_id}/state").json()
                if view.get("over"):
                    game_id = self.start_game()
                elif view.get("legal") and view["version"] != played:
                    answer = self.client.post(
                        f"/play/{game_id}/move",
                        json={"version": view["version"], "action": view["legal"][0]},
                        headers={"X-CSRF-Token": self.csrf},
                    )
                    if answer.status_code != 202:
                        raise BenchError(f"a move: {answer.status_code} {answer.text[:200]}")
                    played = view["version"]
                    self.bot_moves += 1  # the bot's move came before this turn
        except Exception as exc:  # reported by busy_games, which stops the run
            self.error = exc


def _latencies(url: str, requests: int, pause: float) -> Latencies:
    seconds = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for _ in range(requests):
            started = time.perf_counter()
            answer = client.get("/api/games")
            seconds.append(time.perf_counter() - started)
            if answer.status_code != 200:
                raise BenchError(f"GET /api/games answered {answer.status_code}")
            time.sleep(pause)
    return Latencies(seconds)


def busy_games(
    *,
    games: int = 4,
    game: str = "kardinal",
    bot: str = "ismcts:iterations=100000",
    requests: int = 200,
    pause: float = 0.05,
    warmup: float = 10.0,
    checkout: Path | None = None,
) -> BusyGames:
    """Time ``requests`` requests of ``GET /api/games`` (``pause`` s apart) idle, then
    ``warmup`` s after ``games`` games against ``bot`` started, while they go on.

    Raises:
        BenchError: the server does not start, or a game cannot be played.
    """
    settings = (
        f"human_games_per_account = {games}\nhuman_games = {max(games, 16)}\n"
        "[rate_limit]\nrequests = 100000\n"
    )
    with (
        tempfile.TemporaryDirectory() as folder,
        live_server(Path(folder), settings=settings, checkout=checkout) as server,
    ):
        players: list[_Player] = []
        try:
            load_before = os.getloadavg()[0]
            idle = _latencies(server.url, requests, pause)
            players = [_Player(server.url, server.tokens[0], game, bot) for _ in range(games)]
            for player in players:
                player.thread.start()
            time.sleep(warmup)
            cpu_before, started = _cpu_seconds(server.pid), time.monotonic()
            busy = _latencies(server.url, requests, pause)
            cpu_after, busy_seconds = _cpu_seconds(server.pid), time.monotonic() - started
            load_after = os.getloadavg()[0]
            failed = [player.error for player in players if player.error is not None]
            if failed:
                raise BenchError(f"a browser game failed: {failed[0]!r}")
            moves = sum(player.bot_moves for player in players)
        finally:
            for player in players:
                player.stop.set()
            for player in players:
                player.thread.join(60)
                player.client.close()
    return BusyGames(
        idle,
        busy,
        games,
        game,
        bot,
        moves,
        load_before,
        load_after,
        busy_seconds,
        cpu_after - cpu_before,
    )


def _cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process ``pid`` has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
