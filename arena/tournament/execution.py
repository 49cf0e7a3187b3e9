"""Playing planned games on workers: the chunk task and the executors that run it.

:func:`play_chunk` is a pure task from (context, games) to results: it never touches
the database. The ``local`` executor calls it in this process; the ``processes``
executor in worker processes of this machine, forked in milliseconds; the ``ray``
executor runs it as Ray tasks. The last two keep a bounded number of chunks in flight
(backpressure) and play again the chunks of a worker that died. Chunks are sized from
the measured game time so that per-task overhead stays small. The ``auto`` executor
(the default) plays locally until the games played tell what the rest would cost, and
hands the rest to worker processes when they pay for their start; to Ray when a cluster
is named or Ray already runs in this process.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import multiprocessing
import os
import secrets
import signal
import socket
import statistics
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from types import MappingProxyType
from typing import Any

from arena.errors import ArenaError
from arena.optional import require
from arena.play.bot_text import bot_data, bot_text
from arena.play.records import RecordWriter, new_record
from arena.play.results import GameStatus, PlannedGame, PlayedGame
from arena.play.runner import FORFEIT_MESSAGE_CHARS, TimeControl, play_outcome
from arena.players.live_bots import LiveBots, close_all
from arena.players.loader import BotLoadError, BotSpec, instantiate
from arena.players.subprocess_bot import SubprocessBot
from arena.store.games import GameRows, converted_kind, game_rows, played_games
from arena.tournament.cluster import live_address, live_cluster
from bots.base import Bot
from engines.core import State
from engines.outcome import ForfeitReason, Outcome
from engines.registry import get_game

TARGET_CHUNK_SECONDS = 0.5
FIRST_CHUNK_GAMES = 4
MAX_CHUNK_GAMES = 2_000
LOCAL_MAX_CHUNK_GAMES = 64
PROCESS_CHUNK_SECONDS = 0.1
"""A worker process's chunk: long enough that sending it and its results back costs
little, short enough that the driver stores, checks for cancellation and suspends bots
often."""
PROCESS_MAX_CHUNK_GAMES = 1_000
"""Small enough that a chunk waiting in a worker's pipe never fills it (a worker that
sends results while the driver sends it a chunk must not block both)."""
MAX_CHUNK_ATTEMPTS = 5
"""How often a chunk is played again after its worker process died (Ray's retries)."""
EXECUTORS = ("auto", "processes", "ray", "local")

PROCESSES_START_SECONDS = 0.2
"""What starting the worker processes costs a run before their first game: a fork each
(milliseconds) and each worker's first load of its bots."""

PROBE_SECONDS = 0.5
PROBE_GAMES = 3
PROBE_FLOOR_SECONDS = 0.1
"""The auto executor plays this long, and this many games at least, locally and one
game at a time before it decides; it decides at once when the probe has cost as much as
the parallel executor's start (or the floor, when that start costs less)."""
PROBE_CLEAR_MARGIN = 10.0
"""Or as soon as :data:`PROBE_GAMES` games are measured, when the parallel executor
would pay for a start this many times its own: an estimate ten times off still pays, so
a long tournament loses no time to the probe (at 100,000 fast games the full probe
played 0.2 s on one core of two, 3% of the run)."""


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
    run: str = field(default_factory=lambda: secrets.token_hex(8))
    """This run of the tournament: the key of the bots a worker keeps between chunks, so
    that a process never plays a bot loaded for another run (tournament ids repeat across
    databases, and a resumed run may hold other bot versions)."""

    def control_of(self, bot_id: int) -> TimeControl:
        return self.time_controls.get(bot_id, self.time_control)

    def initial_state(self, planned: PlannedGame, options: Any = None) -> State:
        """The start of a planned game: its deal from the deal file, or shuffled from
        its seed; the seed seeds the bots either way. ``options``: the context's
        options parsed already (``game.parse_options``), when the caller has them."""
        game = get_game(self.game)
        parsed = game.parse_options(self.options) if options is None else options
        deal = self.deals.get(planned.seed)
        if deal is None:
            return game.new_initial_state(
                seed=planned.seed, seats=len(planned.seats), options=parsed
            )
        state = game.state_from_deal(deal, seats=len(planned.seats), options=parsed)
        state.seed = planned.seed
        return state


GameKind = tuple[Any, ...]
"""What counting a game needs of it (:meth:`ChunkResult.kinds`): its seats, places,
returns, termination, offender, forfeit reason and status."""


def game_kind(game: PlayedGame) -> GameKind:
    """``game``'s :data:`GameKind`."""
    g = game
    return (g.seats, g.ranking, g.returns, g.termination, g.offender, g.reason, g.status)


class ChunkResult:
    """A chunk's games, played in ``seconds``: as values (``games``) where they were
    played; sent to the driver, as what it does with them: the rows it stores
    (``rows``) and the kinds of game the standings, the live statistics and the bots'
    health count (``kinds``). A chunk of random games holds a few kinds, so the driver
    counts each kind once, not each game, and stores the games without converting
    them: the worker did. Each form is made from the other when first asked for."""

    def __init__(self, games: list[PlayedGame], seconds: float) -> None:
        self._games: list[PlayedGame] | None = games
        self.seconds = seconds
        self._rows: GameRows | None = None
        self._kinds: tuple[list[GameKind], list[int]] | None = None

    @classmethod
    def received(
        cls, rows: GameRows, kinds: tuple[list[GameKind], list[int]], seconds: float
    ) -> ChunkResult:
        result = cls.__new__(cls)
        result._games, result.seconds, result._rows, result._kinds = None, seconds, rows, kinds
        return result

    def __len__(self) -> int:
        return len(self._games) if self._games is not None else len(self.rows)

    @property
    def games(self) -> list[PlayedGame]:
        if self._games is None:
            self._games = played_games(self.rows)
        return self._games

    @property
    def rows(self) -> GameRows:
        """The games' rows as the store writes them (:func:`~arena.store.games.game_rows`)."""
        if self._rows is None:
            self._rows = game_rows(self.games)
        return self._rows

    @property
    def kinds(self) -> tuple[list[GameKind], list[int]]:
        """The distinct kinds of game (:data:`GameKind`), in the order of their first
        game, and each game's kind by its number there."""
        if self._kinds is None:
            numbers: dict[GameKind, int] = {}
            of_game = [numbers.setdefault(game_kind(g), len(numbers)) for g in self.games]
            self._kinds = list(numbers), of_game
        return self._kinds

    def __reduce__(self) -> tuple[Callable[..., ChunkResult], tuple[Any, ...]]:
        # A chunk goes from worker to driver with up to a thousand games: as the rows
        # the driver stores and the kinds it counts, so that it neither builds an object
        # per game nor converts a game's values for the database.
        rows = self.rows
        return _chunk_result, (rows.games, rows.seats, self.kinds, self.seconds)


def _chunk_result(
    games: list[tuple[Any, ...]],
    seats: list[tuple[Any, ...]],
    kinds: tuple[list[GameKind], list[int]],
    seconds: float,
) -> ChunkResult:
    return ChunkResult.received(GameRows(games, seats), kinds, seconds)


_bot_cache: dict[tuple[str, int, int], Bot] = {}
_live_bots: LiveBots[tuple[str, int, int]] = LiveBots()
"""The warm ones of ``_bot_cache``: a zygote each, the least recently used closed
beyond :data:`~arena.players.live_bots.MAX_LIVE_BOTS` (it starts again when it plays)."""


def _bot_for(context: TournamentContext, bot_id: int, seat: int) -> Bot:
    # One instance per seat: a bot playing itself must not share its memory. A warm
    # submitted bot's zygote serves every game of its seat in this process.
    key = (context.run, bot_id, seat)
    bot = _bot_cache.get(key)
    if bot is None:
        bot = instantiate(context.bots[bot_id], time_control=context.control_of(bot_id))
        _bot_cache[key] = bot
    if isinstance(bot, SubprocessBot) and bot.warm:
        close_all(_live_bots.keep(key, bot))
    return bot


def _close_bots() -> None:
    """Close every bot this process keeps (a sandbox dies with its bot)."""
    for bot in _bot_cache.values():
        bot.close()  # a process bot's sandbox dies with it (an interrupted game's too)
    _bot_cache.clear()
    _live_bots.clear()


def worker_name() -> str:
    """Who played a game, as stored with it: ``host:pid``, and on a Ray worker the node
    too, ``host:pid@node-ip/node-id``: several nodes may share a host name (containers,
    pods, two nodes on one machine), never a node id."""
    name = f"{socket.gethostname()}:{os.getpid()}"
    ray = sys.modules.get("ray")  # never imported here just to find there is no node
    if ray is None or not ray.is_initialized():
        return name
    return f"{name}@{_ray_node()}"


def _ray_node() -> str:
    import ray

    node_ip = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]
    return f"{node_ip}/{ray.get_runtime_context().get_node_id()}"


def play_planned_game(context: TournamentContext, planned: PlannedGame) -> PlayedGame:
    """Play one planned game; bot failures become forfeits, engine failures ``error``."""
    return _ChunkPlayer(context).play(planned)


class _ChunkPlayer:
    """Plays a chunk's games: what every game of the context shares is derived once
    (the options parsed and as JSON, the record's common parts, each pairing's bots,
    labels and time controls, the worker's name), not per game."""

    def __init__(self, context: TournamentContext) -> None:
        self.context = context
        game = get_game(context.game)
        self.options = game.parse_options(context.options)
        options = game.options_to_dict(self.options)
        self.bot_options = MappingProxyType(options)  # every game's bots share it
        self.records = RecordWriter(game, options)
        self.worker = worker_name()
        self.seatings: dict[tuple[int, ...], tuple[list[Bot], tuple[str, ...], list[TimeControl]]]
        self.seatings = {}

    def play(self, planned: PlannedGame) -> PlayedGame:
        """Play ``planned``; its result as a value."""
        played = self._play(planned)
        if isinstance(played, PlayedGame):
            return played
        state, labels, deal, outcome, duration, started = played
        try:
            outcome, record, _ = self._encoded(state, labels, deal, outcome, duration)
        except Exception as exc:  # an engine's bad outcome or deal
            return self._host_error(planned, labels, exc, started)
        return PlayedGame.from_outcome(
            planned, outcome, record=record, duration=round(duration, 6), worker=self.worker
        )

    def play_into(self, planned: PlannedGame, rows: _ChunkRows) -> None:
        """Play ``planned`` into ``rows``: what :meth:`play` gives, as the rows the
        driver stores, with no value built for the game."""
        played = self._play(planned)
        if isinstance(played, PlayedGame):
            rows.add_game(played)
            return
        state, labels, deal, outcome, duration, started = played
        try:
            _, record, kind = self._encoded(
                state, labels, deal, outcome, duration, (rows, planned.seats)
            )
        except Exception as exc:  # an engine's bad outcome or deal
            rows.add_game(self._host_error(planned, labels, exc, started))
            return
        assert kind is not None
        rows.add(planned, kind, record, round(duration, 6), self.worker)

    def _encoded(
        self,
        state: State,
        labels: tuple[str, ...],
        deal: Mapping[str, Any],
        outcome: Outcome,
        duration: float,
        kind_in: tuple[_ChunkRows, tuple[int, ...]] | None = None,
        *,
        again: bool = True,
    ) -> tuple[Outcome, str, _Kind | None]:
        """The game's outcome as its record holds it, the record as JSON text and, with
        ``kind_in`` (the chunk's rows and the game's seats), its kind
        (:meth:`_ChunkRows.kind_of`). A bot's forfeit whose record does not encode is
        encoded ``again`` with every text of its outcome's details made storable
        (:func:`~arena.play.bot_text.bot_data`): whatever the bot sent, its loss is its
        own, never the host's error.

        Raises:
            Exception: the engine's outcome or deal does not encode (a host error).
        """
        try:
            kind = None if kind_in is None else kind_in[0].kind_of(kind_in[1], outcome)
            record = self.records.encode(
                state,
                players=labels,
                deal=deal,
                outcome=outcome,
                duration=duration,
                outcome_json=None if kind is None else kind[3],
            )
        except Exception:
            if not again or outcome.offender is None:
                raise
            storable = dataclasses.replace(outcome, details=bot_data(dict(outcome.details)))
            return self._encoded(state, labels, deal, storable, duration, kind_in, again=False)
        return outcome, record, kind

    def _play(
        self, planned: PlannedGame
    ) -> PlayedGame | tuple[State, tuple[str, ...], Mapping[str, Any], Outcome, float, float]:
        """Play ``planned`` to its outcome: the state played, the players' labels, the
        deal, the outcome, the seconds it took and when it started; or the game's result
        when its bots could not load or the host failed."""
        started = time.perf_counter()
        context = self.context
        state = context.initial_state(planned, self.options)
        seating = self.seatings.get(planned.seats)
        if seating is None:
            bots: list[Bot] = []
            for seat, bot_id in enumerate(planned.seats):
                try:
                    bots.append(_bot_for(context, bot_id, seat))
                except BotLoadError as exc:
                    return forfeited_game(context, planned, seat, ForfeitReason.CRASH, str(exc))
            labels = tuple(context.bots[bot_id].label for bot_id in planned.seats)
            controls = [context.control_of(bot_id) for bot_id in planned.seats]
            seating = self.seatings[planned.seats] = (bots, labels, controls)
        bots, labels, controls = seating
        deal = state.deal()
        try:
            outcome, duration = play_outcome(
                state, bots, options=self.bot_options, time_control=controls
            )
        except Exception as exc:  # an engine bug must not take the tournament down
            return self._host_error(planned, labels, exc, started)
        return state, labels, deal, outcome, duration, started

    def _host_error(
        self, planned: PlannedGame, labels: tuple[str, ...], exc: Exception, started: float
    ) -> PlayedGame:
        return PlayedGame.host_error(
            planned,
            game=self.context.game,
            players=list(labels),
            message=repr(exc),
            duration=time.perf_counter() - started,
            worker=self.worker,
        )


class _ChunkRows:
    """A chunk's games, as they are played, straight into what the driver receives
    (:class:`ChunkResult`): the rows it stores and the kinds it counts, no value built
    per game. A kind of game is converted once, its outcome's JSON too (when it has no
    details): the conversion's key holds the returns' and places' types, as
    :func:`~arena.store.games.game_rows`'s does (1 == 1.0, but they are stored apart)."""

    def __init__(self) -> None:
        self.rows = GameRows([], [])
        self.kinds: dict[GameKind, int] = {}
        self.of_game: list[int] = []
        self._converted: dict[tuple[Any, ...], _Kind] = {}

    def kind_of(self, seats: tuple[int, ...], outcome: Outcome) -> _Kind:
        """What the games of ``seats`` ending in ``outcome`` share: their kind, its
        converted values, its seats' rows (but the game's index), the outcome's JSON
        (None when it has details, which are each game's own) and the kind's number
        once a game of it is added (-1 before: a game whose record then fails to encode
        is an error, and adds no kind that no game has)."""
        returns, ranking = outcome.returns, outcome.ranking
        key = (seats, returns, ranking, outcome.termination, outcome.offender, outcome.reason)
        typed = (key, *map(type, returns), *map(type, ranking))
        known = self._converted.get(typed)
        if known is None or outcome.details:
            status = GameStatus.OK if outcome.offender is None else GameStatus.FORFEIT
            kind: GameKind = (seats, ranking, returns, outcome.termination, outcome.offender)
            kind += (outcome.reason, status)
            shared, seated = converted_kind(
                seats,
                returns,
                ranking,
                status,
                outcome.termination,
                outcome.offender,
                outcome.reason,
            )
            text = None if outcome.details else RecordWriter.outcome_json(outcome)
            known = [kind, shared, seated, text, -1]
            if not outcome.details:
                self._converted[typed] = known
        return known

    def add(
        self, planned: PlannedGame, kind: _Kind, record: str, duration: float, worker: str
    ) -> None:
        """A game of ``kind`` (:meth:`kind_of`), its record encoded."""
        shared, seated, number = kind[1], kind[2], kind[4]
        if number < 0:
            number = kind[4] = self.kinds.setdefault(kind[0], len(self.kinds))
        index = planned.index
        self.rows.games.append((index, planned.seed, *shared, record, duration, worker))
        if seated:
            self.rows.seats.extend([(index, *seat) for seat in seated])
        self.of_game.append(number)

    def add_game(self, game: PlayedGame) -> None:
        """A game played otherwise (a host error, a forfeit before its first move)."""
        rows = game_rows([game])
        self.rows.games.extend(rows.games)
        self.rows.seats.extend(rows.seats)
        self.of_game.append(self.kinds.setdefault(game_kind(game), len(self.kinds)))

    def result(self, seconds: float) -> ChunkResult:
        return ChunkResult.received(self.rows, (list(self.kinds), self.of_game), seconds)


_Kind = list[Any]
"""A kind of game as :meth:`_ChunkRows.kind_of` holds it: the kind, its converted values,
its seats' rows, its outcome's JSON and its number."""


def forfeited_game(
    context: TournamentContext,
    planned: PlannedGame,
    seat: int,
    reason: ForfeitReason,
    message: str,
) -> PlayedGame:
    """A game ``seat`` forfeits before its first move (its bot failed to load, or was
    suspended); the record holds the deal and no actions."""
    started = time.perf_counter()
    game = get_game(context.game)
    state = context.initial_state(planned)
    outcome = game.forfeit_outcome(state, seat, reason)
    record = new_record(
        state,
        players=[context.bots[bot_id].label for bot_id in planned.seats],
        deal=state.deal(),
        outcome=dataclasses.replace(
            outcome, details={"message": bot_text(message, FORFEIT_MESSAGE_CHARS)}
        ),
        duration=time.perf_counter() - started,
    )
    return PlayedGame.from_record(planned, record, worker=worker_name())


def play_chunk(context: TournamentContext, games: Sequence[PlannedGame]) -> ChunkResult:
    """Play ``games`` in order; the task every executor runs."""
    started = time.perf_counter()
    player = _ChunkPlayer(context)
    rows = _ChunkRows()
    for planned in games:
        player.play_into(planned, rows)
    return rows.result(time.perf_counter() - started)


@dataclass
class ChunkSizer:
    """Sizes chunks from the measured time per game, aiming at TARGET_CHUNK_SECONDS."""

    target_seconds: float = TARGET_CHUNK_SECONDS
    max_games: int = MAX_CHUNK_GAMES
    games: int = 0
    seconds: float = 0.0

    def observe(self, result: ChunkResult) -> None:
        self.games += len(result)
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
        self,
        context: TournamentContext,
        games: Iterable[PlannedGame],
        handle: ResultHandler,
        *,
        expected: int | None = None,
    ) -> None:
        """Play ``games``, calling ``handle`` with each finished chunk until it returns
        False. ``expected``: how many games ``games`` holds at most (the auto executor
        decides on it; the others need not know)."""
        for chunk in _chunks(games, self.sizer):
            result = play_chunk(context, chunk)
            self.sizer.observe(result)
            if not handle(result):
                return

    def close(self) -> None:
        _close_bots()


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
            MissingExtraError: Ray (the extra ``ray``) is not installed.
        """
        if self.address:
            _use_cluster_token()  # read by Ray when it is imported
        require("ray", extra="ray")
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
        self,
        context: TournamentContext,
        games: Iterable[PlannedGame],
        handle: ResultHandler,
        *,
        expected: int | None = None,
    ) -> None:
        """As :meth:`LocalExecutor.run`, on Ray's workers."""
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
        if not self._started_ray:
            return  # Ray was never started here, or is not even installed
        import ray

        if ray.is_initialized():
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


@dataclass
class _Chunk:
    games: Sequence[PlannedGame]
    attempts: int = 0


@dataclass
class _Worker:
    process: BaseProcess
    connection: Connection
    in_flight: deque[_Chunk] = field(default_factory=deque)


@dataclass
class ProcessExecutor:
    """Runs chunks in worker processes on this machine, at most ``in_flight`` at a time
    per worker; the driver alone stores what they return.

    The workers are forked (where the platform can) when a run needs them, so they
    start in milliseconds with the engines and bots already imported, and live until
    :meth:`close`: a tournament's later batches find them warm, with their bots. A
    worker that dies mid-chunk is replaced and its chunks are played again (a chunk
    whose workers died :data:`MAX_CHUNK_ATTEMPTS` times fails the run); what a worker
    sent before it died is handled once, so no game is lost or handled twice."""

    workers: int | None = None
    sizer: ChunkSizer = field(
        default_factory=lambda: ChunkSizer(PROCESS_CHUNK_SECONDS, PROCESS_MAX_CHUNK_GAMES)
    )
    in_flight_per_worker: int = 2
    _pool: list[_Worker] = field(default_factory=list)

    def run(
        self,
        context: TournamentContext,
        games: Iterable[PlannedGame],
        handle: ResultHandler,
        *,
        expected: int | None = None,
    ) -> None:
        """As :meth:`LocalExecutor.run`, in the worker processes.

        Raises:
            ExecutionError: a worker process failed to play a chunk, or one chunk's
                workers died :data:`MAX_CHUNK_ATTEMPTS` times.
        """
        for worker in [worker for worker in self._pool if not worker.process.is_alive()]:
            worker.connection.close()  # died between runs
            self._pool.remove(worker)
        count = self.workers or os.cpu_count() or 1
        while len(self._pool) < count:
            self._pool.append(self._start_worker())
        for worker in self._pool:
            _send(worker, ("context", context))
        chunks = _drawn_chunks(games, self.sizer)
        again: deque[_Chunk] = deque()
        finished = False
        try:
            while True:
                for worker in self._pool:
                    while len(worker.in_flight) < self.in_flight_per_worker:
                        chunk = again.popleft() if again else _next_chunk(chunks)
                        if chunk is None:
                            break
                        worker.in_flight.append(chunk)
                        _send(worker, ("play", chunk.games))
                busy = [worker for worker in self._pool if worker.in_flight]
                if not busy:
                    finished = True
                    return
                for result in self._results(busy, again, context):
                    self.sizer.observe(result)
                    if not handle(result):
                        return
        finally:
            if not finished:
                self._stop_busy()

    def _results(
        self, busy: list[_Worker], again: deque[_Chunk], context: TournamentContext
    ) -> list[ChunkResult]:
        """The chunks finished next, waiting for at least one; a dead worker's chunks
        go to ``again`` and a fresh worker takes its place."""
        waited: list[Any] = [worker.connection for worker in busy]
        waited += [worker.process.sentinel for worker in busy]
        ready = set(wait(waited))
        results: list[ChunkResult] = []
        for worker in busy:
            died = worker.process.sentinel in ready
            while worker.in_flight and (died or worker.connection in ready):
                # A dead worker's last results may still wait in its pipe.
                if died and not worker.connection.poll():
                    break
                try:
                    kind, payload = worker.connection.recv()
                except (EOFError, OSError):
                    died = True
                    break
                chunk = worker.in_flight.popleft()
                if kind == "error":
                    raise ExecutionError(
                        f"a worker process failed on games {_span(chunk.games)}: {payload}"
                    )
                results.append(payload)
                ready.discard(worker.connection)
            if died:
                self._replace(worker, again, context)
        return results

    def _replace(self, worker: _Worker, again: deque[_Chunk], context: TournamentContext) -> None:
        worker.process.join()
        worker.connection.close()
        self._pool.remove(worker)
        playing = worker.in_flight[0]  # the others waited in its pipe
        playing.attempts += 1
        if playing.attempts >= MAX_CHUNK_ATTEMPTS:
            raise ExecutionError(
                f"worker processes died {playing.attempts} times playing games "
                f"{_span(playing.games)} (exit code {worker.process.exitcode})"
            )
        again.extendleft(reversed(worker.in_flight))
        fresh = self._start_worker()
        _send(fresh, ("context", context))
        self._pool.append(fresh)

    def _start_worker(self) -> _Worker:
        methods = multiprocessing.get_all_start_methods()
        # Fork: the engines and bots are imported already. Elsewhere a fresh interpreter.
        method = "fork" if sys.platform == "linux" and "fork" in methods else "spawn"
        mp = multiprocessing.get_context(method)
        here, there = mp.Pipe()
        # A forked worker holds copies of the driver's ends of every pipe: it closes them.
        inherited = [worker.connection for worker in self._pool] + [here]
        process = mp.Process(  # type: ignore[attr-defined]
            target=_serve,
            args=(there, inherited if method == "fork" else [], os.getpid()),
            name="arena-worker",
            daemon=True,
        )
        process.start()
        there.close()
        return _Worker(process, here)

    def _stop_busy(self) -> None:
        """Stop the workers still playing chunks nobody waits for (an interrupted or
        stopped run): the next run forks fresh ones."""
        for worker in [worker for worker in self._pool if worker.in_flight]:
            _stop(worker.process)
            worker.connection.close()
            self._pool.remove(worker)

    def close(self) -> None:
        for worker in self._pool:
            if not worker.in_flight:
                with contextlib.suppress(OSError):
                    worker.connection.send(None)  # closes its bots and exits
        for worker in self._pool:
            worker.process.join(timeout=5.0)
            _stop(worker.process)
            worker.connection.close()
        self._pool.clear()


def _send(worker: _Worker, message: tuple[str, Any]) -> None:
    # A worker that died cannot be written to: its sentinel tells, and its chunks are
    # played again then.
    with contextlib.suppress(OSError):
        worker.connection.send(message)


def _drawn_chunks(
    games: Iterable[PlannedGame], sizer: ChunkSizer
) -> Iterator[Sequence[PlannedGame]]:
    """:func:`_chunks`, but from games that hand out chunks themselves (``take(size)``,
    None at the end: the driver's, whose generated schedule's chunks are ranges a
    worker derives its games from), those."""
    take: Callable[[int], Sequence[PlannedGame] | None] | None = getattr(games, "take", None)
    if take is None:
        yield from _chunks(games, sizer)
        return
    while (chunk := take(sizer.size())) is not None:
        yield chunk


def _next_chunk(chunks: Iterator[Sequence[PlannedGame]]) -> _Chunk | None:
    games = next(chunks, None)
    return None if games is None else _Chunk(games)


def _span(games: Sequence[PlannedGame]) -> str:
    first, last = games[0].index, games[-1].index
    return str(first) if first == last else f"{first}–{last}"


def _stop(process: BaseProcess) -> None:
    if process.is_alive():
        process.terminate()
        process.join(timeout=5.0)
    if process.is_alive():
        process.kill()
        process.join()


_inherited_bots: list[Bot] = []


class _ResultSender:
    """Sends a worker's messages to the driver from a thread of their own, in order:
    a chunk's results (hundreds of kilobytes) fill the pipe, and while the driver stores
    a batch it does not read, so a worker sending them itself would wait instead of
    playing its next chunk (1 s of a 5.6 s run for each of two workers, measured with
    60,000 fast games). The message is pickled here, as ``Connection.send`` does; the
    thread only writes, outside the GIL. What waits is bounded by the chunks in flight."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._pending: deque[memoryview | None] = deque()
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="arena-sender", daemon=True)
        self._thread.start()

    def send(self, message: tuple[str, Any]) -> None:
        data = ForkingPickler.dumps(message)
        with self._ready:
            self._pending.append(data)
            self._ready.notify()

    def close(self, timeout: float = 30.0) -> None:
        """Send what waits (the driver that stopped reading is gone: then it is lost
        with the process, and its chunks are played again) and stop the thread."""
        with self._ready:
            self._pending.append(None)
            self._ready.notify()
        self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._pending:
                    self._ready.wait()
                data = self._pending.popleft()
            if data is None:
                return
            try:
                self._connection.send_bytes(data)
            except OSError:  # the driver went away: nothing more reaches it
                return


def _serve(connection: Connection, inherited: list[Connection], driver: int) -> None:
    """A worker process: play the chunks the driver sends, with the context it sent
    last, until it sends None or goes away."""
    global _bot_cache, _live_bots
    # Ctrl-C reaches the whole process group: the driver stops its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for other in inherited:
        other.close()  # else a dead driver's pipes would stay open and the worker wait
    if sys.platform == "linux":
        from arena.players.sandbox import kernel

        kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)  # a killed driver's too
        if os.getppid() != driver:  # it died before that took effect
            return
    # A forked worker inherits the driver's bots (and the sandboxes they talk to):
    # kept, never used nor closed, for closing them would end the driver's sandboxes.
    _inherited_bots.extend(_bot_cache.values())
    _bot_cache = {}
    _live_bots = LiveBots()
    context: TournamentContext | None = None
    sender = _ResultSender(connection)
    try:
        while True:
            try:
                message = connection.recv()
            except (EOFError, OSError):
                return
            if message is None:
                return
            kind, payload = message
            if kind == "context":
                context = payload
                continue
            assert context is not None, "the driver sends the context first"
            try:
                sender.send(("result", play_chunk(context, payload)))
            except Exception as exc:  # a bug of the host: the driver fails the run
                sender.send(("error", repr(exc)))
    finally:
        sender.close()
        _close_bots()


def parallel_pays(seconds: float, cores: int, start_seconds: float) -> bool:
    """Whether ``seconds`` of play on one core end sooner on ``cores`` workers once
    their start (``start_seconds``) is paid."""
    return cores > 1 and seconds * (1 - 1 / cores) > start_seconds


def estimated_seconds(game_seconds: Sequence[float], games: int) -> float:
    """What ``games`` more games take on one core, judged by the median of the games
    measured: the first game of a run also loads its bots and is no guide."""
    return games * statistics.median(game_seconds) if game_seconds else 0.0


def _ray_running() -> bool:
    ray = sys.modules.get("ray")
    return ray is not None and bool(ray.is_initialized())


@dataclass
class AutoExecutor:
    """Chooses per run between playing here, worker processes and Ray, by what pays.

    With a cluster address it is Ray; with one worker, local. Otherwise it plays
    locally, one game at a time, for :data:`PROBE_SECONDS`, then estimates the rest
    from the time per game measured so far: the parallel executor takes over when it
    would end sooner despite its start, else the games go on here. The parallel
    executor is Ray when Ray already runs in this process (a warm instance, or a
    cluster joined), else worker processes, which start in milliseconds. Either way
    the driver stores every game the same way. ``announce`` receives one line saying
    what was chosen and why, each time the choice is made or changes."""

    workers: int | None = None
    address: str | None = None
    announce: Callable[[str], None] = lambda line: None
    local: LocalExecutor = field(default_factory=LocalExecutor)
    parallel: RayExecutor | ProcessExecutor | None = None
    game_seconds: list[float] = field(default_factory=list)
    seconds: float = 0.0
    chosen: str | None = None

    def run(
        self,
        context: TournamentContext,
        games: Iterable[PlannedGame],
        handle: ResultHandler,
        *,
        expected: int | None = None,
    ) -> None:
        """As :meth:`LocalExecutor.run`; ``expected`` (how many games ``games`` holds
        at most) is what the choice weighs."""
        source = iter(games)
        if self.address:
            self._choose("ray", f"joining the Ray cluster at {self.address}")
        elif self.workers == 1:
            self._choose("local", "one worker")
        elif self.parallel is None:
            probed = self._probe(context, source, handle, expected or 0)
            if probed is None:
                return
            self._decide(probed, max(0, (expected or 0) - probed))
        if self.parallel is not None:
            self.parallel.run(context, source, handle)
        else:
            self.local.run(context, source, _observed(handle, self._observe))

    def _start(self) -> tuple[str, float, str]:
        """The parallel executor to hand over to, what its start costs and its name
        for the announcement."""
        if _ray_running():
            return "ray", 0.0, "the running Ray"
        return "processes", PROCESSES_START_SECONDS, "worker processes"

    def _probe(
        self,
        context: TournamentContext,
        games: Iterator[PlannedGame],
        handle: ResultHandler,
        expected: int,
    ) -> int | None:
        """Play games here one at a time until :data:`PROBE_SECONDS` of play and
        :data:`PROBE_GAMES` games are measured over this and earlier runs (or the probe
        has cost the parallel executor's start, or the games measured tell that the rest
        of the ``expected`` games pay for it by :data:`PROBE_CLEAR_MARGIN`); the games
        played, None when ``handle`` asked to stop."""
        _, start, _ = self._start()
        cores = self._cores()
        played = 0
        while self.seconds < max(start, PROBE_FLOOR_SECONDS) and (
            len(self.game_seconds) < PROBE_GAMES or self.seconds < PROBE_SECONDS
        ):
            if len(self.game_seconds) >= PROBE_GAMES and parallel_pays(
                estimated_seconds(self.game_seconds, expected - played),
                cores,
                max(start, PROBE_FLOOR_SECONDS) * PROBE_CLEAR_MARGIN,
            ):
                break
            planned = next(games, None)
            if planned is None:
                break
            result = play_chunk(context, [planned])
            played += 1
            self.local.sizer.observe(result)
            self._observe(result)
            if not handle(result):
                return None
        return played

    def _observe(self, result: ChunkResult) -> None:
        if result.games:
            self.game_seconds += [result.seconds / len(result.games)] * len(result.games)
        self.seconds += result.seconds

    def _decide(self, probed: int, left: int) -> None:
        if left == 0:
            self._choose("local", f"auto: all {probed} games played here in {self.seconds:.1f} s")
            return
        cores = self._cores()
        kind, start, name = self._start()
        estimate = estimated_seconds(self.game_seconds, left)
        work = f"{left} more games ≈ {estimate:.1f} s of play here"
        pays = parallel_pays(estimate, cores, start)
        cost = f"{name} (start ~{start:g} s)" if start else name
        verdict = "pay" if pays else "would not pay"
        self._choose(kind if pays else "local", f"auto: {work}; {cost} {verdict} on {cores} cores")

    def _cores(self) -> int:
        return min(self.workers or os.cpu_count() or 1, os.cpu_count() or 1)

    def _choose(self, kind: str, why: str) -> None:
        if kind != "local" and self.parallel is None:
            self.local.close()  # its bots (and their sandboxes) are not needed any more
            if kind == "ray":
                self.parallel = RayExecutor(workers=self.workers, address=self.address)
            else:
                self.parallel = ProcessExecutor(workers=self.workers)
            # The first chunks are sized from the games played here.
            self.parallel.sizer.games = len(self.game_seconds)
            self.parallel.sizer.seconds = self.seconds
        if kind != self.chosen:
            self.announce(f"executor: {kind} ({why})")
        self.chosen = kind

    def close(self) -> None:
        self.local.close()
        if self.parallel is not None:
            self.parallel.close()


def _observed(handle: ResultHandler, observe: Callable[[ChunkResult], None]) -> ResultHandler:
    def observed(result: ChunkResult) -> bool:
        observe(result)
        return handle(result)

    return observed


Executor = LocalExecutor | ProcessExecutor | RayExecutor | AutoExecutor


def make_executor(
    kind: str,
    *,
    workers: int | None,
    address: str | None,
    announce: Callable[[str], None] = lambda line: None,
) -> Executor:
    """The executor ``kind`` (one of :data:`EXECUTORS`); ``announce`` receives one line
    naming the executor that plays and why. ``ray`` without an ``address`` joins the warm
    local cluster (``arena cluster start``) when it runs, else starts Ray here.

    Raises:
        ExecutionError: an unknown kind.
    """
    if kind == "auto":
        return AutoExecutor(workers=workers, address=address, announce=announce)
    if kind not in EXECUTORS:
        raise ExecutionError(f"unknown executor {kind!r} (executors: {', '.join(EXECUTORS)})")
    warm = live_cluster() if kind == "ray" and not address else None
    if warm is not None and warm.address == live_address():
        announce(f"executor: ray (the warm local cluster at {warm.address})")
        return RayExecutor(workers=workers, address=warm.address)
    if warm is not None:
        announce(
            f"executor: ray (as asked; not the warm local cluster at {warm.address}: it runs "
            f"{warm.python or 'another Python'}, this is {sys.executable})"
        )
        return RayExecutor(workers=workers)
    announce(f"executor: {kind} (as asked)")
    if kind == "local":
        return LocalExecutor()
    if kind == "processes":
        return ProcessExecutor(workers=workers)
    return RayExecutor(workers=workers, address=address)
