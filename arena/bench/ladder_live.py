"""Issue 18's figures measured on a real ladder (database, workers), not simulated:

* ``arena bench ladder-board``: how long reading a ladder's standings takes with a
  million ladder games stored. The database is filled directly (games, seats, rating
  history as a ladder's workers would have written them), then the standings ``arena
  ladder show`` and the web print are read repeatedly; the figure is the median.
* ``arena bench ladder-live``: with N bots on a ladder played by W ``arena ladder run``
  workers, the time from a new version's registration to its ±50 Elo interval.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session

from arena.ladder.service import LadderSettings, standings, start_ladder
from arena.store.bots import add_bot, builtin_source
from arena.store.db import open_database, session_scope
from arena.store.games import GAME_TABLE, SEAT_TABLE
from arena.store.games import _insert_ignoring_duplicates as insert_rows
from arena.store.ladders import RATING_TABLE
from arena.store.models import Ladder, utcnow

GAME = "koenigsgarten"
PAGE = 20_000


@dataclass(frozen=True)
class BoardTiming:
    games: int
    bots: int
    history_rows: int
    fill_seconds: float
    reads: list[float]

    @property
    def p50(self) -> float:
        return statistics.median(self.reads)

    @property
    def p95(self) -> float:
        return sorted(self.reads)[int(0.95 * (len(self.reads) - 1))]


def fill(path: Path, *, games: int, bots: int, history_every: int) -> tuple[int, int]:
    """A ladder of ``bots`` bots with ``games`` stored games and a history row per bot
    every ``history_every`` of its games; returns (ladder id, history rows)."""
    engine = open_database(str(path))
    with session_scope(engine) as session:
        ids = []
        for number in range(bots):
            source = builtin_source("random", GAME, {"seed": number})
            version, _ = add_bot(session, name=f"bench{number}", game=GAME, source=source)
            assert version.id is not None
            ids.append(version.id)
        ladder, _ = start_ladder(session, GAME, time_control="unlimited", settings=LadderSettings())
        assert ladder.id is not None
        ladder_id, tournament_id = ladder.id, ladder.tournament_id
    rng = random.Random(1)
    now = utcnow()
    played = dict.fromkeys(ids, 0)
    history = 0
    with engine.begin() as connection:
        for first in range(0, games, PAGE):
            game_rows, seat_rows, rating_rows = [], [], []
            for index in range(first, min(games, first + PAGE)):
                a, b = rng.sample(ids, 2)
                win = rng.random() < 0.5
                game_rows.append(
                    {
                        "tournament_id": tournament_id,
                        "index": index,
                        "seed": index // 2,
                        "seats": [a, b],
                        "status": "ok",
                        "returns": [1.0, 0.0] if win else [0.0, 1.0],
                        "ranking": [1, 2] if win else [2, 1],
                        "termination": "normal",
                        "record": "{}",
                        "duration": 0.001,
                        "worker": "bench",
                        "created": now,
                    }
                )
                for seat, bot in enumerate((a, b)):
                    seat_rows.append(
                        {
                            "tournament_id": tournament_id,
                            "game_index": index,
                            "seat": seat,
                            "bot_id": bot,
                            "score": 1.0 if (seat == 0) == win else 0.0,
                            "place": 1 if (seat == 0) == win else 2,
                            "forfeit": False,
                        }
                    )
                    played[bot] += 1
                    if played[bot] % history_every == 0:
                        rating = rng.gauss(0, 100)
                        rating_rows.append(
                            {
                                "ladder_id": ladder_id,
                                "bot_id": bot,
                                "rating": rating,
                                "lower": rating - 20,
                                "upper": rating + 20,
                                "games": played[bot],
                                "at": now,
                            }
                        )
            for table, rows in (
                (GAME_TABLE, game_rows),
                (SEAT_TABLE, seat_rows),
                (RATING_TABLE, rating_rows),
            ):
                if rows:
                    names = list(rows[0])
                    insert_rows(connection, table, names, [[r[n] for n in names] for r in rows])
            history += len(rating_rows)
        connection.execute(
            sa.update(Ladder.__table__)  # type: ignore[attr-defined]
            .where(sa.text(f"id = {ladder_id}"))
            .values(next_index=games, rated_games=games)
        )
    engine.dispose()
    return ladder_id, history


def leaderboard_timing(
    path: Path, *, games: int, bots: int, reads: int, history_every: int = 200
) -> BoardTiming:
    """Fill ``path`` (unless it holds the ladder already) and time ``reads`` reads of
    the standings, each in a session of its own as a request would."""
    started = time.perf_counter()
    ladder_id, history = fill(path, games=games, bots=bots, history_every=history_every)
    filled = time.perf_counter() - started
    engine = open_database(str(path))
    seconds = []
    for _ in range(reads):
        begin = time.perf_counter()
        with Session(engine) as session:
            ladder = session.get(Ladder, ladder_id)
            assert ladder is not None
            lines = standings(session, ladder)
        seconds.append(time.perf_counter() - begin)
        assert len(lines) == bots
    engine.dispose()
    return BoardTiming(games, bots, history, filled, seconds)


@dataclass(frozen=True)
class PlacementTiming:
    seconds: float
    """From the new version's registration to its interval's half-width at the target."""
    own_games: int
    ladder_games: int
    """Games the ladder stored meanwhile."""
    half_width: float
    test: str
    """The regression test against the previous version, as it stood then."""


def placement_time(
    path: Path,
    *,
    bots: int,
    workers: int,
    warmup: int,
    target: float,
    timeout: float = 1800.0,
) -> PlacementTiming:
    """Fill ``path`` with ``bots`` built-in bots of Königsgarten (``mine@1`` among them),
    start ``workers`` ``arena ladder run`` processes, and once ``warmup`` games are
    stored register ``mine@2``; time until its interval is ±``target`` Elo.

    Raises:
        ArenaError: the workers failed or the target was not reached in ``timeout``.
    """
    import signal
    import subprocess
    import sys

    from arena.errors import ArenaError
    from arena.store.ladders import latest_ratings, regression_tests

    engine = open_database(str(path))
    kinds = ("random", "first-legal", "greedy")
    with session_scope(engine) as session:
        for number in range(bots - 1):
            kind = kinds[number % len(kinds)]
            source = builtin_source(kind, GAME, {"seed": number})
            add_bot(session, name=f"{kind}{number}", game=GAME, source=source)
        add_bot(session, name="mine", game=GAME, source=builtin_source("random", GAME, {"seed": 1}))
        ladder, _ = start_ladder(session, GAME, time_control="unlimited", settings=LadderSettings())
        ladder_id = ladder.id
    assert ladder_id is not None
    command = [sys.executable, "-m", "arena", "ladder", "run", GAME, "--time-control"]
    command += ["unlimited", "--executor", "local", "--db", str(path)]
    processes = [
        subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for _ in range(workers)
    ]

    def stored() -> int:
        with Session(engine) as session:
            found = session.get(Ladder, ladder_id)
            assert found is not None
            return found.rated_games

    try:
        deadline = time.monotonic() + timeout
        while stored() < warmup:
            if time.monotonic() > deadline or any(p.poll() is not None for p in processes):
                raise ArenaError("the ladder's workers stopped or stalled before the warm-up")
            time.sleep(0.2)
        with session_scope(engine) as session:
            source = builtin_source("greedy", GAME, {"seed": 2})
            new, _ = add_bot(session, name="mine", game=GAME, source=source)
            new_id = new.id
        registered, before = time.monotonic(), stored()
        while True:
            with Session(engine) as session:
                rating = latest_ratings(session, ladder_id).get(new_id or 0)
                tests = regression_tests(session, ladder_id=ladder_id)
            if rating is not None and (rating.upper - rating.lower) / 2 <= target:
                break
            if time.monotonic() > deadline:
                raise ArenaError(f"mine@2 not at ±{target:g} Elo in {timeout:g} s")
            time.sleep(0.1)
        seconds = time.monotonic() - registered
        test = tests[0] if tests else None
        return PlacementTiming(
            seconds=seconds,
            own_games=rating.games,
            ladder_games=stored() - before,
            half_width=(rating.upper - rating.lower) / 2,
            test="none"
            if test is None
            else f"{test.status}, LLR {test.llr:.2f} after {test.games} games",
        )
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            process.wait(timeout=300)
        engine.dispose()
