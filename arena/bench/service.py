"""End-to-end tournament benchmarks: scheduling, playing and storing every record."""

from __future__ import annotations

import io
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.players.loader import BotSource
from arena.report.build import record_final_ratings
from arena.store.bots import add_bot
from arena.store.db import open_database, session_scope
from arena.store.games import count_stored
from arena.tournament.config import validate_config
from arena.tournament.driver import TournamentRunner, create_tournament
from arena.tournament.progress import DEFAULT_RATING_INTERVAL


@dataclass(frozen=True)
class TournamentSpeed:
    games: int
    stored: int
    executor: str
    workers: int
    setup_seconds: float
    """Creating the tournament and writing its schedule."""
    run_seconds: float
    """Starting the executor, playing and storing every game."""
    executor_start_seconds: float

    @property
    def games_per_second(self) -> float:
        """Games per second from scheduling to the last stored record, executor start-up
        (Ray's cluster start) excluded."""
        return self.games / (self.setup_seconds + self.run_seconds - self.executor_start_seconds)

    @property
    def games_per_second_with_startup(self) -> float:
        return self.games / (self.setup_seconds + self.run_seconds)


def create_round_robin(
    engine: Engine,
    *,
    game: str,
    bots: list[str],
    games: int,
    seed: int,
    executor: str,
    workers: int,
    name: str,
    seats: int | None = None,
) -> int:
    """Create a round robin of ``games`` games per pairing (or table of ``seats``, the
    game's default when None) to measure; its id."""
    config = validate_config(
        {
            "game": game,
            "bots": bots,
            "games": games,
            "seed": seed,
            "executor": executor,
            "workers": workers,
            "name": name,
            "seats": seats,
        },
        "bench",
    )
    with session_scope(engine) as session:
        return create_tournament(session, config)


def tournament_speed(
    *,
    game: str,
    bots: list[str],
    games: int,
    executor: str,
    workers: int,
    seed: int = 1,
    folder: Path | None = None,
    rating_interval: int = DEFAULT_RATING_INTERVAL,
    seats: int | None = None,
    register: Mapping[str, BotSource] | None = None,
) -> TournamentSpeed:
    """Run one round robin of ``games`` games per pairing (or table of ``seats``) into
    a fresh SQLite database, the live statistics refitted every ``rating_interval``
    games (0: never). ``register``: submitted bots, by name, stored in that database
    before the clock starts (checked already: ``bots`` may name them)."""
    from engines.registry import get_game

    # The game is loaded (its engine module imported) before the clock starts, as the
    # hand-written loop loads it before its own: a module's import is the process's
    # start, not the tournament's.
    get_game(game)
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        engine = open_database(str(Path(tmp) / "bench.db"))
        with session_scope(engine) as session:
            for name, source in (register or {}).items():
                add_bot(session, name=name, game=game, source=source)
        started = time.perf_counter()
        tournament_id = create_round_robin(
            engine,
            game=game,
            bots=bots,
            games=games,
            seed=seed,
            executor=executor,
            workers=workers,
            name="bench",
            seats=seats,
        )
        scheduled = time.perf_counter()
        runner = TournamentRunner(
            engine,
            tournament_id,
            console=Console(file=io.StringIO()),
            rating_interval=rating_interval,
            on_completed=record_final_ratings,
        )
        executor_start = 0.0
        if executor == "ray":
            from arena.tournament.cluster import live_address
            from arena.tournament.execution import RayExecutor

            probe = time.perf_counter()
            # Joins the warm local cluster when it runs, as the runner would; the runner
            # then reuses this connection.
            RayExecutor(workers=workers, address=live_address()).start()
            executor_start = time.perf_counter() - probe
        summary = runner.run()
        finished = time.perf_counter()
        with Session(engine) as session:
            stored = count_stored(session, tournament_id)
        engine.dispose()
    return TournamentSpeed(
        games=summary.scheduled,
        stored=stored,
        executor=executor,
        workers=workers,
        setup_seconds=scheduled - started,
        run_seconds=finished - scheduled,
        executor_start_seconds=executor_start,
    )


@dataclass(frozen=True)
class TaskOverhead:
    tasks: int
    median_seconds: float
    chunk_seconds: float
    """What the executor aims a chunk of games at (TARGET_CHUNK_SECONDS)."""

    @property
    def share(self) -> float:
        """Overhead as a share of a chunk's work."""
        return self.median_seconds / self.chunk_seconds


def ray_task_overhead(tasks: int = 200) -> TaskOverhead:
    """The round trip of a Ray task that plays an empty chunk: scheduling, shipping the
    arguments and the result, on a running local Ray instance (the warm local cluster
    when it runs, else started if needed)."""
    import statistics

    import ray

    from arena.tournament.cluster import live_address
    from arena.tournament.execution import (
        TARGET_CHUNK_SECONDS,
        RayExecutor,
        TournamentContext,
        play_chunk,
    )

    RayExecutor(address=live_address()).start()
    task = ray.remote(num_cpus=1)(play_chunk)
    context = ray.put(TournamentContext(0, "koenigsgarten", {}, 2, {}))
    ray.get(task.remote(context, []))  # warm a worker up
    times = []
    for _ in range(tasks):
        started = time.perf_counter()
        ray.get(task.remote(context, []))
        times.append(time.perf_counter() - started)
    return TaskOverhead(tasks, statistics.median(times), TARGET_CHUNK_SECONDS)


@dataclass(frozen=True)
class LoopSpeed:
    games: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


def hand_written_loop(
    *, game: str, games: int, seed: int = 1, folder: Path | None = None
) -> LoopSpeed:
    """What a tournament is measured against: a plain serial loop over the engine that
    plays random legal actions (unchecked, as search does), builds each game's record
    and adds it as a row with SQLModel, committing once at the end, into a fresh SQLite
    database. Timed from the first deal to the commit."""
    import random

    from arena.play.records import new_record
    from arena.store.models import GameResult, Tournament
    from engines.registry import get_game
    from engines.seeding import derive_seed

    rules = get_game(game)
    options = rules.parse_options(None)
    seats = min(rules.seat_counts)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        engine = open_database(str(Path(tmp) / "loop.db"))
        with Session(engine) as session:
            tournament = Tournament(name="loop", game=rules.name, format="round-robin", seed=seed)
            session.add(tournament)
            session.commit()
            assert tournament.id is not None
            started = time.perf_counter()
            for index in range(games):
                state = rules.new_initial_state(
                    seed=derive_seed(seed, index), seats=seats, options=options
                )
                deal = state.deal()
                begun = time.perf_counter()
                while not state.is_terminal():
                    legal = state.legal_actions()
                    state.apply_unchecked(legal[rng.randrange(len(legal))])
                outcome = state.outcome()
                assert outcome is not None, "a finished game has an outcome"
                record = new_record(
                    state,
                    players=[f"random@{seat}" for seat in range(seats)],
                    deal=deal,
                    outcome=outcome,
                    duration=time.perf_counter() - begun,
                )
                session.add(
                    GameResult(
                        tournament_id=tournament.id,
                        index=index,
                        seed=state.seed or 0,
                        seats=list(range(seats)),
                        status="ok",
                        returns=list(outcome.returns),
                        ranking=list(outcome.ranking),
                        termination=outcome.termination,
                        record=record.model_dump_json(),
                        duration=record.duration or 0.0,
                    )
                )
            session.commit()
            seconds = time.perf_counter() - started
        engine.dispose()
    return LoopSpeed(games, seconds)


def _playouts_per_second(game: str, seconds: float, seed: int) -> float:
    from arena.bench.engines import random_playouts
    from engines.registry import get_game

    rules = get_game(game)
    return random_playouts(rules, min(rules.seat_counts), seconds, seed=seed).games_per_second


def raw_playout_rate(*, game: str, cores: int = 2, seconds: float = 3.0) -> float:
    """The engine's random-playout rate on ``cores`` cores at once (games per second,
    summed over one process per core): no bots, no records, no storage."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(cores) as pool:
        rates = pool.map(_playouts_per_second, [game] * cores, [seconds] * cores, range(cores))
        return sum(rates)
