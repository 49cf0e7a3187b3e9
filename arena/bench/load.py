"""``arena bench load``: locust's users (readers of pages and the API, people playing
browser games move by move) against a live ``arena serve`` on loopback for a bounded
time, and the same generator against a bare FastAPI app for reference; latency per
route, the load average and the web process's resident memory."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from arena.bench.server import BenchError, _wait_up, free_port, live_server

LOCUSTFILE = Path(__file__).with_name("locustfile.py")
SERVER_ERROR = re.compile(r"\b5\d\d\b")
RSS_PERIOD = 1.0
"""Seconds between two samples of the web process's resident memory."""


def check_installed() -> None:
    """Locust is there (looked up, not imported: locust patches the standard library
    with gevent's when imported).

    Raises:
        MissingExtraError: it is missing, with the extra that installs it.
    """
    from importlib.util import find_spec

    from arena.optional import MissingExtraError

    if find_spec("locust") is None:
        raise MissingExtraError("locust is not installed: pip install 'arena[load]'")


@dataclass(frozen=True)
class Route:
    name: str
    requests: int
    rate: float
    p50_ms: float
    p99_ms: float
    failures: int
    server_errors: int


@dataclass(frozen=True)
class LoadRun:
    users: int
    seconds: float
    routes: tuple[Route, ...]
    counts: dict[str, int]
    """What the generator had accepted: moves, games started."""
    load_before: float
    load_after: float
    rss_mb: tuple[tuple[float, float], ...] = ()
    """(seconds since the start, resident MB) of the web process."""

    @property
    def total(self) -> Route | None:
        return next((r for r in self.routes if r.name == "Aggregated"), None)

    def rss_settled_and_end(self, settle: float = 60.0) -> tuple[float, float] | None:
        """The RSS at ``settle`` seconds (or the run's middle when shorter) and at the end."""
        if not self.rss_mb:
            return None
        at = min(settle, self.rss_mb[-1][0] / 2)
        settled = next(mb for t, mb in self.rss_mb if t >= at)
        return settled, self.rss_mb[-1][1]


@dataclass
class _RssSampler:
    pid: int
    samples: list[tuple[float, float]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        started = time.monotonic()
        status = Path(f"/proc/{self.pid}/status")
        while not self.stop.wait(RSS_PERIOD):
            try:
                line = next(x for x in status.read_text().splitlines() if x.startswith("VmRSS:"))
            except (OSError, StopIteration):  # the process has ended
                return
            self.samples.append((time.monotonic() - started, int(line.split()[1]) / 1e3))


def run_locust(
    url: str, *, users: int, seconds: float, env: dict[str, str], folder: Path
) -> tuple[tuple[Route, ...], dict[str, int]]:
    """Locust headless in its own process against ``url``; the routes' figures.

    Raises:
        BenchError: locust is missing or writes no statistics.
    """
    prefix = folder / "locust"
    counts_file = folder / "counts.json"
    command = [
        sys.executable,
        "-m",
        "locust",
        "-f",
        str(LOCUSTFILE),
        "--headless",
        "--host",
        url,
        "--users",
        str(users),
        "--spawn-rate",
        str(max(1, users)),
        "--run-time",
        f"{max(1, round(seconds))}s",
        "--csv",
        str(prefix),
        "--only-summary",
        "--loglevel",
        "ERROR",
        "--stop-timeout",
        "5",
    ]
    full_env = {**os.environ, **env, "ARENA_LOAD_COUNTS": str(counts_file)}
    done = subprocess.run(command, env=full_env, capture_output=True, text=True, check=False)
    stats = Path(f"{prefix}_stats.csv")
    if not stats.exists():
        raise BenchError(
            f"locust wrote no statistics (status {done.returncode}): {done.stderr[-500:]}"
        )
    errors: dict[str, int] = {}
    with open(f"{prefix}_failures.csv") as failures:
        for row in csv.DictReader(failures):
            if SERVER_ERROR.search(row["Error"]):
                errors[row["Name"]] = errors.get(row["Name"], 0) + int(row["Occurrences"])
    routes = []
    with open(stats) as table:
        for row in csv.DictReader(table):
            name = row["Name"]
            routes.append(
                Route(
                    name=name,
                    requests=int(row["Request Count"]),
                    rate=float(row["Requests/s"]),
                    p50_ms=float(row["50%"] if row["50%"] != "N/A" else 0),
                    p99_ms=float(row["99%"] if row["99%"] != "N/A" else 0),
                    failures=int(row["Failure Count"]),
                    server_errors=sum(errors.values())
                    if name == "Aggregated"
                    else errors.get(name, 0),
                )
            )
    counts = json.loads(counts_file.read_text()) if counts_file.exists() else {}
    return tuple(routes), counts


def service_load(
    *, users: int, seconds: float, game: str, bot: str, seed_games: int = 20
) -> LoadRun:
    """``users`` locust users (3 readers to 1 player) for ``seconds`` against a live
    ``arena serve`` over a new SQLite database holding a played round robin of
    ``seed_games`` games per pairing (so that leaderboards, tournament pages and
    replays have something to show), sampling the web process's resident memory.

    Raises:
        BenchError: the server does not start or locust fails.
    """
    # One account per player (a quarter of the users, rounded up): the per-account
    # limits on sign-ins, starts and moves are not what is measured.
    accounts = [f"player{index}" for index in range(users // 4 + 1)]
    with tempfile.TemporaryDirectory(prefix="arena-load-") as tmp:
        folder = Path(tmp)
        _seed(folder / "arena.db", game=game, games=seed_games)
        with live_server(folder, accounts=accounts) as server:
            sampler = _RssSampler(server.pid)
            thread = threading.Thread(target=sampler.run, daemon=True)
            load_before = os.getloadavg()[0]
            thread.start()
            env = {
                "ARENA_LOAD_TOKENS": ",".join(server.tokens),
                "ARENA_LOAD_GAME": game,
                "ARENA_LOAD_BOT": bot,
            }
            try:
                routes, counts = run_locust(
                    server.url, users=users, seconds=seconds, env=env, folder=folder
                )
            finally:
                sampler.stop.set()
                thread.join()
            load_after = os.getloadavg()[0]
    return LoadRun(users, seconds, routes, counts, load_before, load_after, tuple(sampler.samples))


def bare_load(*, users: int, seconds: float) -> LoadRun:
    """The same generator against the bare FastAPI app (``arena.bench.bare_app``).

    Raises:
        BenchError: the app does not start or locust fails.
    """
    with tempfile.TemporaryDirectory(prefix="arena-bare-") as tmp, _bare_app() as url:
        load_before = os.getloadavg()[0]
        routes, counts = run_locust(
            url, users=users, seconds=seconds, env={"ARENA_LOAD_BARE": "1"}, folder=Path(tmp)
        )
        return LoadRun(users, seconds, routes, counts, load_before, os.getloadavg()[0])


@contextlib.contextmanager
def _bare_app() -> Iterator[str]:
    port = free_port()
    app = subprocess.Popen(
        [sys.executable, "-m", "arena.bench.bare_app", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_up(app, url)
        yield url
    finally:
        app.terminate()
        app.wait()


def _seed(db: Path, *, game: str, games: int) -> None:
    """A round robin of random and greedy, played and rated, in the database at ``db``."""
    import io

    from rich.console import Console

    from arena.bench.service import create_round_robin
    from arena.report.build import record_final_ratings
    from arena.store.db import open_database
    from arena.tournament.driver import TournamentRunner

    engine = open_database(str(db))
    try:
        tournament = create_round_robin(
            engine,
            game=game,
            bots=["random", "greedy"],
            games=games,
            seed=1,
            executor="local",
            workers=1,
            name="load",
            seats=2,
        )
        TournamentRunner(
            engine,
            tournament,
            console=Console(file=io.StringIO()),
            on_completed=record_final_ratings,
        ).run()
    finally:
        engine.dispose()
