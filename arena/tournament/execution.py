"""Playing planned games on workers: the chunk task and the executors that run it.

:func:`play_chunk` is a pure task from (context, games) to results: it never touches
the database. The ``local`` executor calls it in this process; the ``ray`` executor
runs it as Ray tasks with backpressure (``ray.wait``) and retries when a worker dies.
Chunks are sized from the measured game time so that per-task overhead stays small.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.play.runner import CRASH, TimeControl, play_game
from arena.players.loader import BotLoadError, BotSpec, instantiate
from arena.tournament.scheduling import PlannedGame
from bots.base import Bot
from engines.core import State
from engines.registry import get_game

TARGET_CHUNK_SECONDS = 0.5
FIRST_CHUNK_GAMES = 4
MAX_CHUNK_GAMES = 2_000
LOCAL_MAX_CHUNK_GAMES = 64


class ExecutionError(ArenaError):
    """The executor failed (Ray could not start, a task failed after its retries)."""


@dataclass(frozen=True)
class TournamentContext:
    """Everything a worker needs besides the games: shipped once per tournament."""

    tournament_id: int
    game: str
    options: dict[str, Any]
    seats: int
    bots: dict[int, BotSpec]
    time_control: TimeControl = field(default_factory=TimeControl)
    """Every bot's, but those in ``time_controls``."""
    time_controls: dict[int, TimeControl] = field(default_factory=dict)
    """A bot's own time control, by bot id."""
    deals: dict[int, dict[str, Any]] = field(default_factory=dict)
    """With a deal file: the deal each deal seed plays (else the seed shuffles it)."""

    def control_of(self, bot_id: int) -> TimeControl:
        return self.time_controls.get(bot_id, self.time_control)

    def initial_state(self, planned: PlannedGame) -> State:
        """The start of a planned game: its deal from the deal file, or shuffled from
        its seed; the seed seeds the bots either way."""
        game = get_game(self.game)
        deal = self.deals.get(planned.seed)
        if deal is None:
            return game.new_initial_state(
                seed=planned.seed, seats=len(planned.seats), options=self.options
            )
        state = game.state_from_deal(
            deal, seats=len(planned.seats), options=game.parse_options(self.options)
        )
        state.seed = planned.seed
        return state


@dataclass(frozen=True)
class PlayedGame:
    """A finished game as a worker reports it."""

    index: int
    seed: int
    seats: tuple[int, ...]
    status: str  # ok | forfeit | error
    returns: tuple[float, ...]
    ranking: tuple[int, ...]
    termination: str
    offender: int | None
    reason: str | None
    record: str
    duration: float
    worker: str


@dataclass
class ChunkResult:
    games: list[PlayedGame]
    seconds: float


_bot_cache: dict[tuple[int, int, int], Bot] = {}


def _bot_for(context: TournamentContext, bot_id: int, seat: int) -> Bot:
    # One instance per seat: a bot playing itself must not share its memory.
    key = (context.tournament_id, bot_id, seat)
    bot = _bot_cache.get(key)
    if bot is None:
        bot = instantiate(context.bots[bot_id], time_control=context.control_of(bot_id))
        _bot_cache[key] = bot
    return bot


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def play_planned_game(context: TournamentContext, planned: PlannedGame) -> PlayedGame:
    """Play one planned game; bot failures become forfeits, engine failures ``error``."""
    started = time.perf_counter()
    labels = [context.bots[bot_id].label for bot_id in planned.seats]
    state = context.initial_state(planned)
    bots: list[Bot] = []
    for seat, bot_id in enumerate(planned.seats):
        try:
            bots.append(_bot_for(context, bot_id, seat))
        except BotLoadError as exc:
            return forfeited_game(context, planned, seat, CRASH, str(exc))
    try:
        controls = [context.control_of(bot_id) for bot_id in planned.seats]
        record = play_game(state, bots, players=labels, time_control=controls)
    except Exception as exc:  # an engine bug must not take the tournament down
        return _error_game(context, planned, labels, repr(exc), started)
    outcome = record.outcome
    forfeit = outcome.get("offender") is not None
    return PlayedGame(
        index=planned.index,
        seed=planned.seed,
        seats=planned.seats,
        status="forfeit" if forfeit else "ok",
        returns=tuple(outcome["returns"]),
        ranking=tuple(outcome["ranking"]),
        termination=outcome["termination"],
        offender=outcome.get("offender"),
        reason=outcome.get("reason"),
        record=record.model_dump_json(),
        duration=record.duration or 0.0,
        worker=worker_name(),
    )


def forfeited_game(
    context: TournamentContext, planned: PlannedGame, seat: int, reason: str, message: str
) -> PlayedGame:
    """A game ``seat`` forfeits before its first move (its bot failed to load, or was
    suspended); the record holds the deal and no actions."""
    started = time.perf_counter()
    game = get_game(context.game)
    state = context.initial_state(planned)
    outcome = game.forfeit_outcome(state, seat, reason)
    record = {
        "format": "arena-record/1",
        "game": game.name,
        "options": game.options_to_dict(state.options),
        "seats": len(planned.seats),
        "seed": planned.seed,
        "players": [context.bots[bot_id].label for bot_id in planned.seats],
        "deal": dict(state.deal()),
        "actions": [],
        "outcome": {**outcome.to_dict(), "details": {"message": message[:500]}},
        "duration": time.perf_counter() - started,
    }
    return PlayedGame(
        planned.index,
        planned.seed,
        planned.seats,
        "forfeit",
        outcome.returns,
        outcome.ranking,
        outcome.termination,
        seat,
        reason,
        json.dumps(record),
        time.perf_counter() - started,
        worker_name(),
    )


def _error_game(
    context: TournamentContext,
    planned: PlannedGame,
    labels: list[str],
    message: str,
    started: float,
) -> PlayedGame:
    seats = len(planned.seats)
    record = {
        "error": message[:2000],
        "game": context.game,
        "seed": planned.seed,
        "players": labels,
    }
    return PlayedGame(
        planned.index,
        planned.seed,
        planned.seats,
        "error",
        (0.0,) * seats,
        (1,) * seats,
        "error",
        None,
        None,
        json.dumps(record),
        time.perf_counter() - started,
        worker_name(),
    )


def play_chunk(context: TournamentContext, games: Sequence[PlannedGame]) -> ChunkResult:
    """Play ``games`` in order; the task every executor runs."""
    started = time.perf_counter()
    results = [play_planned_game(context, planned) for planned in games]
    return ChunkResult(results, time.perf_counter() - started)


@dataclass
class ChunkSizer:
    """Sizes chunks from the measured time per game, aiming at TARGET_CHUNK_SECONDS."""

    target_seconds: float = TARGET_CHUNK_SECONDS
    max_games: int = MAX_CHUNK_GAMES
    games: int = 0
    seconds: float = 0.0

    def observe(self, result: ChunkResult) -> None:
        self.games += len(result.games)
        self.seconds += result.seconds

    def size(self) -> int:
        if self.games == 0 or self.seconds <= 0:
            return FIRST_CHUNK_GAMES
        per_game = self.seconds / self.games
        return max(1, min(self.max_games, round(self.target_seconds / per_game)))


ResultHandler = Callable[[ChunkResult], bool]
"""Called with each finished chunk; returns False to stop submitting more work."""


@dataclass
class LocalExecutor:
    """Plays every chunk in this process: the same code path as Ray, for debugging.

    Chunks cost nothing here, so they stay small: the driver then stores, checks for
    cancellation and suspends bots often."""

    sizer: ChunkSizer = field(default_factory=lambda: ChunkSizer(0.05, LOCAL_MAX_CHUNK_GAMES))

    def run(
        self, context: TournamentContext, games: Iterable[PlannedGame], handle: ResultHandler
    ) -> None:
        for chunk in _chunks(games, self.sizer):
            result = play_chunk(context, chunk)
            self.sizer.observe(result)
            if not handle(result):
                return

    def close(self) -> None:
        for bot in _bot_cache.values():
            bot.close()  # a process bot's sandbox dies with it (an interrupted game's too)
        _bot_cache.clear()


def _chunks(games: Iterable[PlannedGame], sizer: ChunkSizer) -> Iterator[list[PlannedGame]]:
    # Games are drawn lazily, so the driver can drop games of a bot suspended meanwhile.
    source = iter(games)
    while chunk := list(itertools.islice(source, sizer.size())):
        yield chunk


@dataclass
class RayExecutor:
    """Runs chunks as Ray tasks, at most ``in_flight`` at a time per worker."""

    workers: int | None = None
    address: str | None = None
    sizer: ChunkSizer = field(default_factory=ChunkSizer)
    in_flight_per_worker: int = 2
    _started_ray: bool = False

    def start(self) -> int:
        """Start (or join) Ray; returns the number of CPUs available to tasks.

        Raises:
            ExecutionError: Ray cannot start or the cluster cannot be reached.
        """
        if self.address:
            _use_cluster_token()  # read by Ray when it is imported
        import ray

        if ray.is_initialized():
            return int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
        kwargs: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,
            "configure_logging": True,
            "logging_level": "ERROR",
        }
        if self.address:
            kwargs["address"] = self.address
        else:
            # "local": always a fresh instance, never a cluster some `ray start` left behind.
            kwargs["address"] = "local"
            kwargs["num_cpus"] = self.workers or os.cpu_count() or 1
        handler = signal.getsignal(signal.SIGTERM)
        try:
            ray.init(**kwargs)
        except Exception as exc:
            where = (
                f"the Ray cluster at {self.address!r}" if self.address else "a local Ray instance"
            )
            raise ExecutionError(f"cannot start {where}: {exc}") from None
        finally:
            # Ray's own handler exits the process at once: the driver's (the runner's
            # or the worker's) stores what finished and requeues the tournament.
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGTERM, handler)
        self._started_ray = True
        return int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]

    def run(
        self, context: TournamentContext, games: Iterable[PlannedGame], handle: ResultHandler
    ) -> None:
        cpus = self.start()
        import ray

        workers = min(self.workers or cpus, cpus)
        task = ray.remote(num_cpus=1, max_retries=5)(play_chunk)
        context_ref = ray.put(context)
        chunks = _chunks(games, self.sizer)
        pending: list[Any] = []
        limit = max(1, workers * self.in_flight_per_worker)
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < limit:
                    chunk = next(chunks, None)
                    if chunk is None:
                        exhausted = True
                        break
                    pending.append(task.remote(context_ref, chunk))
                if not pending:
                    return
                done, pending = ray.wait(pending, num_returns=1)
                try:
                    result: ChunkResult = ray.get(done[0])
                except Exception as exc:
                    raise ExecutionError(f"a game task failed after its retries: {exc}") from None
                self.sizer.observe(result)
                if not handle(result):
                    return
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def close(self) -> None:
        import ray

        if self._started_ray and ray.is_initialized():
            ray.shutdown()
        self._started_ray = False


def _use_cluster_token() -> None:
    """Send the cluster's token when joining one: Ray (2.59+) makes its local clusters
    (``ray start --head``) demand it, but a driver only sends it in token mode, which
    must be set before Ray is first imported."""
    if os.environ.get("RAY_AUTH_MODE"):
        return
    token_file = Path(os.environ.get("RAY_AUTH_TOKEN_PATH") or Path.home() / ".ray" / "auth_token")
    if os.environ.get("RAY_AUTH_TOKEN") or token_file.is_file():
        os.environ["RAY_AUTH_MODE"] = "token"


Executor = LocalExecutor | RayExecutor


def make_executor(kind: str, *, workers: int | None, address: str | None) -> Executor:
    if kind == "local":
        return LocalExecutor()
    if kind == "ray":
        return RayExecutor(workers=workers, address=address)
    raise ExecutionError(f"unknown executor {kind!r} (executors: ray, local)")
