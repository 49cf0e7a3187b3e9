"""``arena bench web``: the leaderboard API's latency over a large database.

:func:`fill_games` bulk-inserts finished games straight into the tables (no engine
runs for each row): a few tournaments among several bots of one game, each row with
a real record of that game and results drawn from a Bradley–Terry model of the bots'
strengths, so the Elo fit has something to separate. :func:`leaderboard_latency` then
asks the web app for the leaderboard over and over (in process, through FastAPI's test
client: routing, the cache check, the database query and the response, without a
socket) and reports the first (cold) request and the distribution of the others.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.play.records import new_record
from arena.play.results import GameStatus
from arena.store.bots import add_bot, builtin_source
from arena.store.db import open_database, session_scope
from arena.store.models import BotVersion, GameResult, GameSeat, Participant, Tournament, utcnow
from engines.core import play_random
from engines.outcome import ForfeitReason, Termination
from engines.registry import get_game

INSERT_CHUNK = 5_000
RECORDS_PER_RESULT = 16
"""Distinct real records kept per kind of result (seat 0 wins, seat 1 wins, draw)."""
FORFEIT_SHARE = 0.01


@dataclass(frozen=True)
class FillSummary:
    games: int
    bots: int
    tournaments: int
    seconds: float


@dataclass(frozen=True)
class LatencySummary:
    games: int
    requests: int
    cold_seconds: float
    """The first request: loading every game, the Elo fit, the JSON."""
    seconds: list[float]
    """Every later request, in order."""
    fill: FillSummary
    database: str

    @property
    def p50(self) -> float:
        return statistics.median(self.seconds)

    @property
    def p90(self) -> float:
        return quantile(self.seconds, 0.9)

    @property
    def p99(self) -> float:
        return quantile(self.seconds, 0.99)


def quantile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank quantile of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def record_pool(game_name: str, seed: int) -> dict[tuple[int, ...], list[dict[str, Any]]]:
    """Real records of random two-seat playouts, grouped by their ranking."""
    game = get_game(game_name)
    rng = random.Random(seed)
    pool: dict[tuple[int, ...], list[dict[str, Any]]] = {(1, 2): [], (2, 1): [], (1, 1): []}
    for deal_seed in range(100_000):
        if all(len(records) >= RECORDS_PER_RESULT for records in pool.values()):
            break
        state = play_random(game.new_initial_state(seed=deal_seed, seats=2), rng)
        outcome = state.outcome()
        assert outcome is not None
        records = pool.setdefault(outcome.ranking, [])
        if len(records) < RECORDS_PER_RESULT:
            record = new_record(state, players=[], deal=state.deal(), outcome=outcome, duration=0.0)
            records.append(record.model_dump(mode="json"))
    return pool


def bench_bots(session: Session, game: str, count: int, prefix: str) -> list[BotVersion]:
    """Register ``count`` built-in random bots ``PREFIX-0`` … (flushed, with ids)."""
    rows = [
        add_bot(
            session,
            name=f"{prefix}-{number}",
            game=game,
            source=builtin_source("random", game, {"seed": number}),
        )[0]
        for number in range(count)
    ]
    session.flush()
    return rows


@dataclass
class GameWriter:
    """Finished two-seat games written straight into the game and seat tables,
    :data:`INSERT_CHUNK` at a time (a win scores 1, a loss -1, a draw 0)."""

    engine: Engine
    game_rows: list[dict[str, Any]] = field(default_factory=list)
    seat_rows: list[dict[str, Any]] = field(default_factory=list)
    now: datetime = field(default_factory=utcnow)

    def add(
        self,
        *,
        tournament_id: int,
        index: int,
        seed: int,
        seats: tuple[int, int],
        ranking: tuple[int, ...],
        record: dict[str, Any],
        offender: int | None,
        reason: str | None,
    ) -> None:
        draw = ranking == (1, 1)
        returns = [0.0 if draw else 1.0 if place == 1 else -1.0 for place in ranking]
        self.game_rows.append(
            {
                "tournament_id": tournament_id,
                "index": index,
                "seed": seed,
                "seats": list(seats),
                "status": GameStatus.OK if offender is None else GameStatus.FORFEIT,
                "returns": returns,
                "ranking": list(ranking),
                "termination": record["outcome"]["termination"],
                "offender": offender,
                "reason": reason,
                "record": json.dumps(record),
                "duration": 0.001,
                "worker": "bench",
                "created": self.now,
            }
        )
        self.seat_rows.extend(
            {
                "tournament_id": tournament_id,
                "game_index": index,
                "seat": seat,
                "bot_id": bot_id,
                "score": returns[seat],
                "place": ranking[seat],
                "forfeit": offender == seat,
            }
            for seat, bot_id in enumerate(seats)
        )
        if len(self.game_rows) >= INSERT_CHUNK:
            self.flush()

    def flush(self) -> None:
        if not self.game_rows:
            return
        with session_scope(self.engine) as session:
            connection = session.connection()
            connection.execute(sa.insert(GameResult.__table__), self.game_rows)  # type: ignore[attr-defined]
            connection.execute(sa.insert(GameSeat.__table__), self.seat_rows)  # type: ignore[attr-defined]
        self.game_rows, self.seat_rows = [], []


def fill_games(
    engine: Engine,
    *,
    games: int,
    bots: int = 8,
    tournaments: int = 10,
    game: str = "koenigsgarten",
    seed: int = 0,
) -> FillSummary:
    """Insert ``games`` finished two-seat games of ``game`` among ``bots`` bot versions,
    spread over ``tournaments`` completed round robins.

    Raises:
        ValueError: fewer than 2 bots, no tournament or no game.
    """
    if bots < 2 or tournaments < 1 or games < 1:
        raise ValueError(f"need 2+ bots, 1+ tournament and 1+ game, got {bots}, {tournaments}")
    started = time.perf_counter()
    rng = random.Random(seed)
    engine_game = get_game(game)
    pool = record_pool(engine_game.name, seed)
    strengths = [rng.uniform(-300.0, 300.0) for _ in range(bots)]
    with session_scope(engine) as session:
        bot_rows = bench_bots(session, engine_game.name, bots, "bench")
        bot_ids = [bot.id for bot in bot_rows if bot.id is not None]
        labels = {bot.id: bot.label for bot in bot_rows}
        tournament_ids = []
        for number in range(tournaments):
            tournament = Tournament(
                name=f"bench {number}",
                game=engine_game.name,
                options=engine_game.options_to_dict(engine_game.parse_options(None)),
                format="round-robin",
                config={"game": engine_game.name, "bots": [labels[i] for i in bot_ids]},
                seed=number,
                status="completed",
                started=utcnow(),
                finished=utcnow(),
            )
            session.add(tournament)
            session.flush()
            assert tournament.id is not None
            tournament_ids.append(tournament.id)
            for position, bot_id in enumerate(bot_ids):
                session.add(
                    Participant(tournament_id=tournament.id, bot_id=bot_id, position=position)
                )
    pairs = [(a, b) for a in range(bots) for b in range(bots) if a != b]
    per_tournament = -(-games // tournaments)
    writer = GameWriter(engine)
    for number in range(games):
        tournament_id = tournament_ids[number // per_tournament]
        index = number % per_tournament
        first, second = pairs[number % len(pairs)]
        expected = 1.0 / (1.0 + 10 ** ((strengths[second] - strengths[first]) / 400.0))
        roll = rng.random()
        ranking = (1, 1) if roll < 0.1 else (1, 2) if roll < 0.1 + 0.9 * expected else (2, 1)
        record = dict(rng.choice(pool[ranking]))
        record["players"] = [labels[bot_ids[first]], labels[bot_ids[second]]]
        offender = None
        reason: ForfeitReason | None = None
        if ranking != (1, 1) and rng.random() < FORFEIT_SHARE:
            offender = ranking.index(2)
            reason = ForfeitReason.TIMEOUT
            record["actions"] = record["actions"][:2]
            record["outcome"] = {
                **record["outcome"],
                "termination": Termination.FORFEIT,
                "offender": offender,
                "reason": reason,
            }
        writer.add(
            tournament_id=tournament_id,
            index=index,
            seed=record["seed"],
            seats=(bot_ids[first], bot_ids[second]),
            ranking=ranking,
            record=record,
            offender=offender,
            reason=reason,
        )
    writer.flush()
    games_table = GameResult.__table__  # type: ignore[attr-defined]
    tournaments_table = Tournament.__table__  # type: ignore[attr-defined]
    with session_scope(engine) as session:
        for tournament_id in tournament_ids:
            count = session.connection().execute(
                sa.select(sa.func.count()).where(games_table.c.tournament_id == tournament_id)
            )
            session.connection().execute(
                sa.update(tournaments_table)
                .where(tournaments_table.c.id == tournament_id)
                .values(scheduled=count.scalar_one())
            )
    # What autovacuum does on PostgreSQL a little after a bulk load: the planner needs
    # the tables' sizes, and the visibility map makes index-only scans cheap.
    maintenance = "VACUUM ANALYZE" if engine.dialect.name == "postgresql" else "ANALYZE"
    with engine.connect() as connection:
        connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(maintenance)
    return FillSummary(games, bots, tournaments, time.perf_counter() - started)


def leaderboard_latency(
    *,
    games: int = 100_000,
    requests: int = 200,
    bots: int = 8,
    url: str | None = None,
    folder: Path | None = None,
) -> LatencySummary:
    """Fill a fresh database (a temporary SQLite file unless ``url`` names an empty
    database) and time ``requests`` leaderboard requests after a cold one."""
    with warnings.catch_warnings():
        # Starlette would rather have the httpx2 package for its test client; httpx works.
        warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
        from fastapi.testclient import TestClient

    from arena.web.app import create_app

    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        engine = open_database(url or str(Path(tmp) / "bench.db"))
        try:
            fill = fill_games(engine, games=games, bots=bots)
            path = "/api/leaderboards/koenigsgarten"
            with TestClient(create_app(engine)) as client:
                started = time.perf_counter()
                response = client.get(path)
                cold = time.perf_counter() - started
                response.raise_for_status()
                seconds = []
                for _ in range(requests):
                    started = time.perf_counter()
                    response = client.get(path)
                    seconds.append(time.perf_counter() - started)
                    response.raise_for_status()
            database = engine.dialect.name
        finally:
            engine.dispose()
    return LatencySummary(games, requests, cold, seconds, fill, database)
