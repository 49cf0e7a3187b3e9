"""Issue 18's leaderboard figure: how long reading a ladder's standings takes with a
million ladder games stored (``arena bench ladder-board``).

The database is filled directly (games, seats, rating history as a ladder's workers
would have written them), then the standings ``arena ladder show`` and the web print
are read repeatedly; the figure is the median.
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
            insert_rows(connection, GAME_TABLE, game_rows)
            insert_rows(connection, SEAT_TABLE, seat_rows)
            if rating_rows:
                insert_rows(connection, RATING_TABLE, rating_rows)
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
