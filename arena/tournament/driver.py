"""The tournament driver: create, run, resume and cancel tournaments.

The driver is the only writer. It schedules games (writing them before dispatch),
hands them to an executor, buffers the results and stores them in batches, one
transaction each. A killed driver leaves scheduled games without results; ``resume``
plays exactly those. Ctrl-C stores what has finished and marks the tournament
``interrupted``.
"""

from __future__ import annotations

import gc
import itertools
import operator
import secrets
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.errors import ArenaError, ConfigError
from arena.play.deals import DealOrder, deal_index
from arena.play.results import FinishedGame, PlannedGame
from arena.play.runner import TimeControl
from arena.play.time_control import config_time_controls
from arena.ratings import RatingError
from arena.store.bots import resolve_bot, spec_of
from arena.store.db import session_scope, with_retries
from arena.store.games import (
    GAME_ROW_COLUMNS,
    count_stored,
    drop_unplayed,
    get_tournament,
    holds_lease,
    participants,
    read_driver_state,
    read_status,
    schedule_games,
    schedule_state,
    scheduled_seeds,
    set_generated_schedule,
    set_status,
    store_rows,
    stored_indexes,
    unplayed_games,
    write_driver_state,
)
from arena.store.models import (
    BotVersion,
    Participant,
    RatingSnapshot,
    Tournament,
    TournamentStatus,
    utcnow,
)
from arena.store.sealing import draw_seal
from arena.store.tally import Standing, StoredGame, bot_names, games_page, load_games, standing
from arena.tournament.adaptive import PairedSprt, sprt_settings
from arena.tournament.config import TournamentConfig, validate_config
from arena.tournament.execution import (
    ChunkResult,
    GameKind,
    TournamentContext,
    forfeited_game,
    make_executor,
)
from arena.tournament.formats import Role, tournament_format
from arena.tournament.health import BotHealth
from arena.tournament.lease import DriverLease, TournamentBusyError
from arena.tournament.progress import (
    DEFAULT_RATING_INTERVAL,
    REFIT_SECONDS,
    LiveStatistics,
    ProgressDisplay,
    Standings,
)
from arena.tournament.scheduling import GeneratedSchedule, ScheduledRange, Scheduler
from arena.tournament.state import STATE_VERSION, DriverState, StoredStateError
from engines.outcome import ForfeitReason
from engines.registry import get_game

FLUSH_GAMES = 5_000
"""Games stored per transaction at most; a batch is stored after FLUSH_SECONDS anyway, so
fast games make large batches (fewer commits) and slow ones small."""
FLUSH_SECONDS = 1.0
DISPLAY_SECONDS = 0.25
"""The progress display is updated at most this often between batches (its refresh rate)."""
PAGE_GAMES = 10_000
"""Games read at a time: the unplayed ones to feed, the stored ones a resume counts."""
LEASE_LOST = "lease lost"


class TournamentStateError(ArenaError):
    """The tournament is in a state that does not allow the request."""


def create_tournament(
    session: Session,
    config: TournamentConfig,
    source: str = "config",
    *,
    status: TournamentStatus = TournamentStatus.PENDING,
    owner_id: int | None = None,
    sealed: bool = False,
) -> int:
    """Validate the bots, then write the tournament and its participants, in the
    caller's transaction; a fixed format's schedule is not written but generated from
    the configuration whenever it is needed (:class:`GeneratedSchedule`), an adaptive
    format's is written batch by batch as it runs. Returns the tournament's id. A
    tournament queued over the web is written ``queued`` with its owner, and
    ``sealed``: it plays a secret seed drawn here instead of the configuration's, and
    stores the commitment to it (arena.store.sealing).

    Raises:
        ConfigError: a bot that is unknown or plays another game (the caller's
            transaction then writes nothing).
    """
    game = get_game(config.game)
    options = game.options_to_dict(game.parse_options(config.options))
    roles = _resolve_participants(session, config, source)
    stored = config.model_dump(mode="json")
    seal = draw_seal(stored["deals"]) if sealed else None
    if seal is not None:
        config = config.model_copy(update={"seed": seal.seed})
        stored["seed"] = seal.seed
    tournament = Tournament(
        name=config.label,
        game=game.name,
        options=options,
        format=config.format,
        config=stored,
        seed=config.seed,
        seed_commitment=None if seal is None else seal.commitment,
        seed_nonce=None if seal is None else seal.nonce,
        status=status,
        owner_id=owner_id,
    )
    session.add(tournament)
    session.flush()
    assert tournament.id is not None
    for position, (bot, role) in enumerate(roles):
        assert bot.id is not None
        session.add(
            Participant(tournament_id=tournament.id, bot_id=bot.id, role=role, position=position)
        )
    fmt = tournament_format(config.format)
    bots = [(bot.id, role) for bot, role in roles if bot.id is not None]
    generated = fmt.generated_schedule(config, bots)
    if generated is None:
        schedule_games(session, tournament.id, fmt.first_schedule(config, bots))
    else:
        set_generated_schedule(session, tournament.id, len(generated))
    return tournament.id


def _resolve_participants(
    session: Session, config: TournamentConfig, source: str
) -> list[tuple[BotVersion, Role]]:
    groups = tournament_format(config.format).groups(config)
    field_names = {Role.CANDIDATE: "candidates", Role.OPPONENT: "opponents", Role.PLAYER: "bots"}
    resolved: list[tuple[BotVersion, Role]] = []
    seen: dict[int, str] = {}
    for role, references in groups:
        for reference in references:
            try:
                bot = resolve_bot(session, reference, config.game)
            except ArenaError as exc:
                raise ConfigError(f"{source}: field {field_names[role]!r}: {exc}") from None
            assert bot.id is not None
            if bot.id in seen:
                raise ConfigError(
                    f"{source}: field {field_names[role]!r}: {reference!r} is the same bot as "
                    f"{seen[bot.id]!r} ({bot.label})"
                )
            seen[bot.id] = reference
            resolved.append((bot, role))
    return resolved


@dataclass
class RunSummary:
    tournament_id: int
    status: TournamentStatus
    stored: int
    scheduled: int
    played_now: int
    seconds: float
    message: str | None = None
    executor: str | None = None
    """The executor that played, and why (``local (auto: …)``)."""

    @property
    def games_per_second(self) -> float:
        return self.played_now / self.seconds if self.seconds > 0 else 0.0


class _LeaseLostError(Exception):
    """Storing found the tournament's lease held by another driver."""

    def __init__(self, tournament_id: int) -> None:
        super().__init__(f"tournament {tournament_id} was taken over by another driver")


@dataclass
class _Buffer:
    """Finished games waiting to be stored, and everything that follows them live: the
    standings, the live statistics, the bots' health and (``sprt``) the test. Each batch
    is stored with that state as of its last game, in one transaction.

    The test and the bots' health take each chunk as it comes (they may end the run);
    the standings and live statistics take a whole batch when it is stored (or shown),
    so that their cost per game does not grow as chunks get small (with a test, each
    chunk: a refit shows the test as of the refit's games)."""

    engine: Engine
    tournament_id: int
    standings: Standings
    statistics: LiveStatistics
    health: BotHealth
    test: PairedSprt | None = None
    chunks: list[ChunkResult] = field(default_factory=list)
    waiting: int = 0
    """The games of ``chunks``."""
    counted: int = 0
    """Of ``chunks``, those the standings and live statistics hold."""
    stored_before: int = 0
    """Games stored before this run (the state counts them too)."""
    stored: int = 0
    played_now: int = 0
    last_flush: float = field(default_factory=time.monotonic)
    lease_token: str | None = None
    """The driver's lease: a batch is stored only while it holds it."""
    lease_lost: bool = False
    """A batch found the lease taken over: nothing more is stored by this driver."""

    def add(self, chunk: ChunkResult) -> None:
        self.chunks.append(chunk)
        self.waiting += len(chunk)
        self.played_now += len(chunk)
        if self.test is not None:
            self.test.add(chunk.games)
            self.count()  # each refit shows the test as of its own games

    def count(self) -> None:
        """Bring the standings and live statistics up to the games added: each kind of
        game counted once, the live statistics given each game's deal seed and kind."""
        chunks = self.chunks[self.counted :]
        if not chunks:
            return
        numbers: dict[GameKind, int] = {}
        kind_of: list[int] = []
        seeds: list[int] = []
        for chunk in chunks:
            kinds, of_game = chunk.kinds
            renumbered = [numbers.setdefault(kind, len(numbers)) for kind in kinds]
            kind_of += map(renumbered.__getitem__, of_game)
            seeds += map(_seed_of_row, chunk.rows.games)
        kinds = list(numbers)
        times = Counter(kind_of)
        how = self.standings.add_kinds(kinds, [times[number] for number in range(len(kinds))])
        self.statistics.add_kinds(
            seeds,
            kind_of,
            [(kind[0], kind[1], counted) for kind, counted in zip(kinds, how, strict=True)],
            tournament=self.tournament_id,
            games=lambda: [game for chunk in chunks for game in chunk.games],
        )
        self.counted = len(self.chunks)

    def due(self) -> bool:
        return self.waiting >= FLUSH_GAMES or time.monotonic() - self.last_flush >= FLUSH_SECONDS

    def flush(self) -> None:
        self.count()
        if self.chunks and not self.lease_lost:
            batch, games = self.chunks, self.waiting
            try:
                with_retries(lambda: self._store(batch, games))
            except _LeaseLostError:
                self.lease_lost = True  # the batch stays unstored: the new holder plays it
            else:
                self.stored += games
        self.chunks = []
        self.waiting = 0
        self.counted = 0
        self.last_flush = time.monotonic()

    def _store(self, chunks: list[ChunkResult], games: int) -> None:
        counted = self.stored_before + self.stored + games
        with session_scope(self.engine) as session:
            if self.lease_token is not None and not holds_lease(
                session, self.tournament_id, self.lease_token
            ):
                # Taken over (this driver was presumed dead): the new holder plays
                # these games and owns the state; storing them here could overwrite it.
                raise _LeaseLostError(self.tournament_id)
            store_rows(session, self.tournament_id, [chunk.rows for chunk in chunks])
            write_driver_state(session, self.tournament_id, counted, self.running_state())

    def running_state(self) -> bytes:
        """The state as of the games added so far, as JSON (:class:`DriverState`): no
        game records, only counts, the live Elo's sums and the test's open pairs."""
        return DriverState.model_construct(
            version=STATE_VERSION,
            standings=self.standings.tallies,
            games=self.health.games,
            crashes=self.health.crashes,
            statistics=self.statistics.running_state() if self.statistics.enabled else None,
            test=self.test.running_state() if self.test is not None else None,
        ).encode()

    def resume_from(self, saved: bytes) -> bool:
        """Take up a state :meth:`running_state` stored. False (nothing taken) when it
        was written without the live statistics or the test this run keeps, or rates
        other bots.

        Raises:
            StoredStateError: ``saved`` is not such a state (of another version,
                malformed or forged); nothing is taken.
        """
        state = DriverState.decode(saved, self.tournament_id)
        if (self.statistics.enabled and state.statistics is None) or (
            (self.test is None) != (state.test is None)
        ):
            return False
        try:  # checked before anything is taken: a state is taken whole or not at all
            if self.test is not None:
                assert state.test is not None
                self.test.check(state.test)
            if self.statistics.enabled:
                assert state.statistics is not None
                if not self.statistics.resume_from(state.statistics):
                    return False
        except RatingError as exc:
            raise StoredStateError(
                f"tournament {self.tournament_id}: its stored driver state is not one of "
                f"this tournament ({exc})"
            ) from None
        if self.test is not None:
            assert state.test is not None
            self.test.resume_from(state.test)
        self.standings.tallies = state.standings
        self.health.games, self.health.crashes = state.games, state.crashes
        return True


class TournamentRunner:
    """Runs (or resumes) one tournament to completion, interruption or cancellation.

    ``rating_interval``: show the live Elo (and a ``sprt``'s LLR) every so many rated
    games (the default interval at most every ``REFIT_SECONDS``); 0 turns the live
    statistics off. ``on_completed(engine, tournament_id)`` runs
    once the tournament is completed (the service records the final ratings with it:
    :func:`arena.report.build.record_final_ratings`, a layer above this one), unless
    the run's live Elo, which gives the same figures, recorded them already.
    ``verbose``: a progress line for every batch of games (``arena -v``).
    """

    def __init__(
        self,
        engine: Engine,
        tournament_id: int,
        *,
        console: Console | None = None,
        executor: str | None = None,
        workers: int | None = None,
        ray_address: str | None = None,
        on_flush: Callable[[int], None] | None = None,
        on_completed: Callable[[Engine, int], None] | None = None,
        rating_interval: int = DEFAULT_RATING_INTERVAL,
        verbose: bool = False,
    ):
        self.engine = engine
        self.verbose = verbose
        self.tournament_id = tournament_id
        self.console = console or Console(stderr=True)
        with Session(engine) as session:
            tournament = get_tournament(session, tournament_id)
            self.tournament = tournament
            self.config = validate_config(tournament.config, f"tournament {tournament_id}")
            self.format = tournament_format(self.config.format)
            if self.format.continuous:
                raise TournamentStateError(
                    f"tournament {tournament_id} is a ladder: its workers play it "
                    f"(`arena ladder run {tournament.game}`, `arena worker`)"
                )
            self.participants = participants(session, tournament_id)
            self.schedule = (
                self.format.generated_schedule(
                    self.config, [(p.bot_id, Role(p.role)) for p in self.participants]
                )
                if tournament.schedule_generated
                else None
            )
            """The generated schedule (fixed formats), or None: written ``scheduled_game``
            rows."""
            bots = {p.bot_id: session.get(BotVersion, p.bot_id) for p in self.participants}
            self.bots = {bot_id: bot for bot_id, bot in bots.items() if bot is not None}
            self.names = bot_names(session, set(self.bots))
        self.health = BotHealth(self.config.max_crash_rate, self.names.builtin)
        for participant in self.participants:
            if participant.suspended:
                self.health.suspended[participant.bot_id] = participant.suspended_reason or ""
        self.executor_kind = executor or self.config.executor
        self.workers = workers if workers is not None else self.config.workers
        self.ray_address = ray_address if ray_address is not None else self.config.ray_address
        self.on_flush = on_flush
        self.on_completed = on_completed
        self.rating_interval = rating_interval
        self.stop_message: str | None = None
        """Why a run ends early although completed (a ``sprt`` bot suspended)."""
        self.executor_choice: str | None = None
        self.run_key = secrets.token_hex(8)
        """This run's key in the workers' bot caches: every batch of the run plays the
        bots (a warm bot's zygote) its workers loaded for the first."""

    def context(self) -> TournamentContext:
        return TournamentContext(
            tournament_id=self.tournament_id,
            game=self.config.game,
            options=dict(self.tournament.options),
            seats=self.config.seat_count,
            bots={bot_id: spec_of(bot) for bot_id, bot in self.bots.items()},
            time_control=self.time_controls()[None],
            time_controls={
                bot_id: control
                for bot_id, control in self.time_controls().items()
                if bot_id is not None
            },
            deals=self._deals_by_seed(),
            run=self.run_key,
        )

    def time_controls(self) -> dict[int | None, TimeControl]:
        """Every bot's time control (under None) and each bot's own, by bot id."""
        controls = config_time_controls(self.config.model_dump())
        references = [
            reference for _, group in self.format.groups(self.config) for reference in group
        ]
        # Participants are stored in the order of the configuration's references.
        by_reference = {
            reference: participant.bot_id
            for reference, participant in zip(references, self.participants, strict=True)
        }
        return {
            (None if reference is None else by_reference[reference]): control
            for reference, control in controls.items()
        }

    def _deals_by_seed(self) -> dict[int, dict[str, Any]]:
        """With a deal file, the deal each scheduled deal seed plays: the k-th seed (in
        the order of the schedule) the deal :func:`~arena.play.deals.deal_index` picks."""
        deals = self.config.deals
        if not isinstance(deals, list):
            return {}
        order = DealOrder(self.config.deal_order)
        if self.schedule is not None:
            seeds = self.schedule.seeds()
        else:
            with Session(self.engine) as session:
                seeds = scheduled_seeds(session, self.tournament_id)
        return {
            seed: deals[deal_index(order, number, len(deals), self.config.seed)]
            for number, seed in enumerate(seeds)
        }

    def _sprt_test(self) -> PairedSprt | None:
        if not self.format.paired_test:
            return None
        candidate, baseline = (p.bot_id for p in self.participants)
        return PairedSprt(
            candidate,
            baseline,
            sprt_settings(self.config),
            self.names.builtin,
            labels=(self.names.label(candidate), self.names.label(baseline)),
        )

    def _buffer(self, test: PairedSprt | None) -> tuple[_Buffer, int]:
        """The live state and the bots' health, brought up to the games stored before
        this run: taken from the state stored with the last batch when it counts them
        all, else read from the games a page at a time; and how many games those were."""
        labels = {bot_id: bot.label for bot_id, bot in self.bots.items()}
        standings = Standings(labels, self.names.builtin)
        statistics = LiveStatistics(
            labels,
            seats=self.config.seat_count,
            interval=self.rating_interval,
            sprt=test,
            min_seconds=REFIT_SECONDS if self.rating_interval == DEFAULT_RATING_INTERVAL else 0.0,
        )
        buffer = _Buffer(self.engine, self.tournament_id, standings, statistics, self.health, test)
        with Session(self.engine) as session:
            stored = count_stored(session, self.tournament_id)
            saved = read_driver_state(session, self.tournament_id) if stored else None
        if saved is None or saved[0] != stored or not self._resume(buffer, saved[1]):
            self._count_stored(buffer)
        buffer.stored_before = stored
        return buffer, stored

    def _resume(self, buffer: _Buffer, saved: bytes) -> bool:
        """Take up the stored state ``saved`` into ``buffer``; a state this arena does
        not read (another version's, malformed, forged) is said and left: False, as for
        one without what this run keeps, and the stored games are counted instead."""
        try:
            return buffer.resume_from(saved)
        except StoredStateError as exc:
            self.console.print(
                f"{exc}: counting its stored games instead", highlight=False, markup=False
            )
            return False

    def _count_stored(self, buffer: _Buffer) -> None:
        """Count the games stored before this run into ``buffer``, a page at a time."""
        builtin = self.names.builtin
        after = -1
        while True:
            with Session(self.engine) as session:
                page = games_page(session, self.tournament_id, after=after, limit=PAGE_GAMES)
            if not page:
                break
            self.health.observe(page)
            buffer.standings.tallies.add_all(page, builtin)
            for game in page:
                counted = standing(game, builtin)
                buffer.statistics.add(game, counted, tournament=self.tournament_id, quiet=True)
            if buffer.test is not None:
                buffer.test.add(page)
            after = page[-1].index

    def _unplayed(self) -> Iterator[PlannedGame]:
        """The scheduled games without a result, read a page at a time, each page a
        short read of its own after the last index handed out (games stored meanwhile
        are never handed out again). A generated schedule's page is its games less the
        stored ones."""
        if self.schedule is not None:
            return _GeneratedUnplayed(self.engine, self.tournament_id, self.schedule)
        return self._unplayed_written()

    def _unplayed_written(self) -> Iterator[PlannedGame]:
        after = -1
        while True:
            with Session(self.engine) as session:
                page = unplayed_games(session, self.tournament_id, after=after, limit=PAGE_GAMES)
            yield from page
            if len(page) < PAGE_GAMES:
                return
            after = page[-1].index

    def _stored(self) -> list[StoredGame]:
        with Session(self.engine) as session:
            return load_games(session, tournament_ids=[self.tournament_id])

    def _rated(self) -> list[FinishedGame]:
        """The stored games the adaptive formats decide on: the rated ones."""
        return [
            FinishedGame(g.index, g.seed, g.seats, g.ranking, g.returns)
            for g in self._stored()
            if standing(g, self.names.builtin) is Standing.RATED
        ]

    def run(self) -> RunSummary:
        """Play every scheduled game without a result, then (adaptive formats) schedule
        and play further batches until the format stops; a ``sprt`` stops at the first
        pair of games that decides its test.

        The run holds the tournament's lease throughout: a second driver gets none.

        Raises:
            TournamentBusyError: another driver runs the tournament (or took it over).
            TournamentStateError: the tournament is completed or cancelled.
            StorageError, ExecutionError: the database or the executor failed.
        """
        with _ctrl_c_once(), DriverLease(self.engine, self.tournament_id) as lease, _heap_frozen():
            return self._run(lease)

    def _run(self, lease: DriverLease) -> RunSummary:
        with session_scope(self.engine) as session:
            status = read_status(session, self.tournament_id)
            if status.finished:
                raise TournamentStateError(f"tournament {self.tournament_id} is already {status}")
            set_status(session, self.tournament_id, TournamentStatus.RUNNING, started=utcnow())
        started = time.monotonic()
        test = self._sprt_test()
        scheduler = self.format.scheduler(self.config, list(self.bots), test)
        buffer, stored_before = self._buffer(test)
        buffer.lease_token = lease.token
        executor = make_executor(
            self.executor_kind,
            workers=self.workers,
            address=self.ray_address,
            announce=self._announce_executor,
        )
        stop_reason: str | None = None
        display = ProgressDisplay(
            self.console,
            f"tournament {self.tournament_id}",
            solitaire=self.format.solitaire,
            verbose=self.verbose,
        )
        previous_sigterm = signal.getsignal(signal.SIGTERM)
        if previous_sigterm is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _raise_keyboard_interrupt)
        try:
            with display:
                while stop_reason is None and not self._ends_early(test):
                    with Session(self.engine) as session:
                        scheduled, next_index, batch = schedule_state(session, self.tournament_id)
                        # Every stored game is a scheduled one: the rest are to play.
                        done = count_stored(session, self.tournament_id)
                    display.start(done, scheduled)
                    if done < scheduled:
                        stop_reason = self._play(
                            executor, self._unplayed(), buffer, display, (done, scheduled), lease
                        )
                        if stop_reason is not None or self._ends_early(test):
                            break
                    # Only the elo format decides on the stored games (sprt follows its
                    # test, fixed formats are scheduled already).
                    finished = self._rated() if self.format.decides_on_stored else []
                    batch_games = scheduler.next_batch(finished, next_index=next_index, batch=batch)
                    if not batch_games:
                        break
                    with session_scope(self.engine) as session:
                        schedule_games(session, self.tournament_id, batch_games)
        except KeyboardInterrupt:
            stop_reason = TournamentStatus.INTERRUPTED
        except BaseException as exc:
            buffer.flush()
            with session_scope(self.engine) as session:
                set_status(
                    session,
                    self.tournament_id,
                    TournamentStatus.FAILED,
                    message=f"{exc} (resume with `arena tournament resume {self.tournament_id}`)",
                )
            raise
        finally:
            signal.signal(signal.SIGTERM, previous_sigterm)
            try:
                buffer.flush()
            finally:
                executor.close()
        display.final(buffer.statistics)
        if stop_reason == LEASE_LOST or buffer.lease_lost:  # the new holder writes the status
            raise TournamentBusyError(
                f"tournament {self.tournament_id} was taken over by {lease.holder()}; "
                f"this driver stopped after storing {buffer.stored} games"
            )
        return self._finish(stop_reason, scheduler, buffer, started, stored_before)

    def _announce_executor(self, line: str) -> None:
        self.executor_choice = line.removeprefix("executor: ")
        self.console.print(line, markup=False, highlight=False, soft_wrap=True)  # a log line

    def _ends_early(self, test: PairedSprt | None) -> bool:
        """The run is over before its schedule: the SPRT decided, or one of its bots
        was suspended. Unplayed scheduled games are dropped."""
        if test is not None and test.decided:
            self.stop_message = test.describe()
        if self.stop_message is None:
            return False
        with session_scope(self.engine) as session:
            drop_unplayed(session, self.tournament_id)
        return True

    def _play(
        self,
        executor: Any,
        pending: Iterable[PlannedGame],
        buffer: _Buffer,
        display: ProgressDisplay,
        progress: tuple[int, int],
        lease: DriverLease,
    ) -> str | None:
        done_before, scheduled = progress
        outcome: dict[str, str | None] = {"stop": None}

        context = self.context()

        def over() -> bool:
            return self.stop_message is not None or (
                buffer.test is not None and buffer.test.decided
            )

        def forfeited(planned: PlannedGame) -> bool:
            # Games of a bot suspended meanwhile are forfeited without being played.
            offender = self.health.suspended_seat(planned.seats)
            if offender is None:
                return False
            bot_id = planned.seats[offender]
            game = forfeited_game(
                context,
                planned,
                offender,
                ForfeitReason.SUSPENDED,
                f"{self.bots[bot_id].label} is suspended: {self.health.why(bot_id)}",
            )
            buffer.add(ChunkResult([game], 0.0))
            return True

        feed = _Feed(iter(pending), self.health, forfeited, over)

        shown = [time.monotonic()]

        def handle(result: ChunkResult) -> bool:
            buffer.add(result)
            kinds, of_game = result.kinds
            times = Counter(of_game)
            observed = [(StoredGame(0, 0, 0, *kind), times[n]) for n, kind in enumerate(kinds)]
            for bot_id, why in self.health.observe_kinds(observed):
                self._suspend(bot_id, why)
                if self.format.paired_test:
                    self.stop_message = (
                        f"{self.bots[bot_id].label} was suspended ({why}): the SPRT cannot "
                        f"continue; {buffer.test.describe() if buffer.test else ''}"
                    )
            flushed = buffer.due()
            if flushed:
                buffer.flush()
                if self.on_flush is not None:
                    self.on_flush(buffer.stored)
                if self._status() == TournamentStatus.CANCELLED:
                    outcome["stop"] = TournamentStatus.CANCELLED
                    return False
                if lease.lost or buffer.lease_lost:
                    outcome["stop"] = LEASE_LOST
                    return False
            # The display refreshes a few times a second: updating it for every chunk
            # of fast games cost the driver microseconds a game for nothing shown.
            now = time.monotonic()
            if flushed or self.verbose or now - shown[0] >= DISPLAY_SECONDS:
                shown[0] = now
                buffer.count()
                display.update(
                    done_before + buffer.played_now, scheduled, buffer.standings, buffer.statistics
                )
            return not over()

        buffer.played_now = 0
        executor.run(context, feed, handle, expected=scheduled - done_before)
        buffer.flush()
        if self.on_flush is not None:
            self.on_flush(buffer.stored)
        display.update(
            done_before + buffer.played_now, scheduled, buffer.standings, buffer.statistics
        )
        return outcome["stop"]

    def _status(self) -> TournamentStatus:
        with Session(self.engine) as session:
            return read_status(session, self.tournament_id)

    def _suspend(self, bot_id: int, why: str) -> None:
        label = self.bots[bot_id].label
        with session_scope(self.engine) as session:
            for participant in session.exec(
                select(Participant).where(
                    Participant.tournament_id == self.tournament_id,
                    Participant.bot_id == bot_id,
                )
            ):
                participant.suspended = True
                participant.suspended_reason = why
                session.add(participant)
        self.console.print(f"[bold red]suspended[/] {label}: {why}")

    def _finish(
        self,
        stop_reason: str | None,
        scheduler: Scheduler,
        buffer: _Buffer,
        started: float,
        stored_before: int,
    ) -> RunSummary:
        with session_scope(self.engine) as session:
            stored = count_stored(session, self.tournament_id)
            scheduled, _, _ = schedule_state(session, self.tournament_id)
            if read_status(session, self.tournament_id) == TournamentStatus.CANCELLED:
                stop_reason = TournamentStatus.CANCELLED  # however the run ended, a cancel stands
            message: str | None
            status: TournamentStatus
            if stop_reason == TournamentStatus.INTERRUPTED:
                status = TournamentStatus.INTERRUPTED
                message = f"interrupted after {stored} of {scheduled} games"
            elif stop_reason == TournamentStatus.CANCELLED:
                status = TournamentStatus.CANCELLED
                message = f"cancelled after {stored} of {scheduled} games"
            else:
                status = TournamentStatus.COMPLETED
                message = self.stop_message or scheduler.stop_reason()
            set_status(session, self.tournament_id, status, message=message, finished=utcnow())
        if (
            status == TournamentStatus.COMPLETED
            and self.on_completed is not None
            and not self._live_snapshot(buffer)
        ):
            self.on_completed(self.engine, self.tournament_id)
        return RunSummary(
            tournament_id=self.tournament_id,
            status=status,
            stored=stored,
            scheduled=scheduled,
            played_now=stored - stored_before,
            seconds=time.monotonic() - started,
            message=message,
            executor=self.executor_choice,
        )

    def _live_snapshot(self, buffer: _Buffer) -> bool:
        """Record the final ratings from the run's live Elo, which holds every stored
        game when the run kept it (a resumed run read the earlier ones): the fit costs
        the bots' matrices, not a second pass over a million games, and gives the
        report's figures (:class:`arena.ratings.live.LiveElo`). False when the run kept
        no live Elo, or it cannot rate: ``on_completed`` (the report) decides then."""
        statistics, tallies = buffer.statistics, buffer.standings.tallies
        if not statistics.enabled or statistics.elo is None or not statistics.elo.games:
            return False
        try:
            ratings, _ = statistics.elo.fit()
        except RatingError:
            return False
        method = "duplicate-elo" if self.format.solitaire else "elo"
        rows = []
        for bot_id, tally in tallies.bots.items():
            i = ratings.index(self.bots[bot_id].label)
            rows.append(
                RatingSnapshot(
                    tournament_id=self.tournament_id,
                    game=self.tournament.game,
                    bot_id=bot_id,
                    method=method,
                    rating=float(ratings.elo[i]),
                    lower=float(ratings.lower[i]),
                    upper=float(ratings.upper[i]),
                    games=tally.games,
                )
            )
        with session_scope(self.engine) as session:
            session.add_all(rows)
        return True


_seed_of_row = operator.itemgetter(GAME_ROW_COLUMNS.index("seed"))


class _GeneratedUnplayed(Iterator[PlannedGame]):
    """A generated schedule's games without a stored result, a page at a time: a page's
    stored games are read when it is reached (a page played whole is passed over), so
    that games stored meanwhile are never handed out again. Handed out a game at a time,
    or (:meth:`take`) as ranges a worker derives the games of."""

    def __init__(self, engine: Engine, tournament_id: int, schedule: GeneratedSchedule):
        self.engine = engine
        self.tournament_id = tournament_id
        self.schedule = schedule
        self.next = 0
        """The index of the next game to hand out, unless stored."""
        self.page_stop = 0
        self.stored: set[int] = set()
        """Of the page ``next`` is in, the stored games."""
        self._games: Iterator[PlannedGame] | None = None

    def _page(self) -> bool:
        """Enter the page of ``next`` once it leaves the last one; False when no games
        are left."""
        while self.next < len(self.schedule):
            if self.next < self.page_stop:
                return True
            first = self.next - self.next % PAGE_GAMES
            self.page_stop = first + PAGE_GAMES
            with Session(self.engine) as session:
                self.stored = stored_indexes(
                    session, self.tournament_id, first=first, stop=self.page_stop
                )
            if len(self.stored) == PAGE_GAMES:
                self.next = self.page_stop
        return False

    def __next__(self) -> PlannedGame:
        while self._page():
            if self._games is None:
                self._games = self.schedule.games(self.next, self.page_stop)
            for planned in self._games:
                self.next = planned.index + 1
                if planned.index not in self.stored:
                    return planned
            self._games = None
        raise StopIteration

    def take(self, size: int) -> ScheduledRange | None:
        """The next unplayed games, ``size`` at most (the rest of a page at its end), as
        a range; None when no games are left."""
        self._games = None
        while self._page():
            stop = min(self.next + size, self.page_stop, len(self.schedule))
            chunk = self.schedule.range(self.next, stop, self.stored)
            self.next = stop
            if len(chunk):
                return chunk
        return None


@dataclass
class _Feed(Iterator[PlannedGame]):
    """The games to play as the executor draws them, a game at a time or (:meth:`take`)
    a chunk at a time: none once the run is ``over``, and none of a bot suspended
    meanwhile (``forfeited`` forfeits them, true when it did)."""

    pending: Iterator[PlannedGame]
    health: BotHealth
    forfeited: Callable[[PlannedGame], bool]
    over: Callable[[], bool]
    ended: bool = False

    def __next__(self) -> PlannedGame:
        if not self.ended:
            for planned in self.pending:
                if self.over():
                    break
                if not self.health.suspended or not self.forfeited(planned):
                    return planned
        self.ended = True
        raise StopIteration

    def take(self, size: int) -> Sequence[PlannedGame] | None:
        """Up to ``size`` games to play, None when there are no more. A generated
        schedule's come as a range while no bot is suspended: the driver builds no game
        (the chunk is drawn between results, so the run cannot end halfway through it)."""
        if self.ended or not isinstance(self.pending, _GeneratedUnplayed) or self.health.suspended:
            return list(itertools.islice(self, size)) or None
        chunk = None if self.over() else self.pending.take(size)
        self.ended = chunk is None
        return chunk


@contextmanager
def _heap_frozen() -> Iterator[None]:
    """Keep the objects alive before the run (the modules: numpy, SciPy, SQLAlchemy,
    the engines) out of the garbage collector's full passes during it, and hand them
    back after. A full pass over them took 0.1–0.3 s, once or twice in a 10,000-game
    run; the run's own objects are collected as before."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _raise_keyboard_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextmanager
def _ctrl_c_once() -> Iterator[None]:
    """Ctrl-C as :func:`_interrupt_once` for the run, including its last writes (the
    stored games, the status, the lease given back); the disposition before it after.
    Only the main thread's default disposition is replaced (a host that set its own,
    or a run in another thread, keeps it)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    signal.signal(signal.SIGINT, _interrupt_once)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _interrupt_once(signum: int, frame: object) -> None:
    """The first Ctrl-C stops the run (stores what was played, marks it interrupted);
    it hands Ctrl-C back to the system first, so that a second one ends the process at
    once even while the first one's path waits on the database inside SQLite's C
    code, where no Python signal handler can run (the reported hang: a second Ctrl-C
    queued behind a 60 s busy wait, retried). Nothing is lost or duplicated by that
    end: a game is stored in one transaction with its row, which the killed process's
    open transaction never commits, the system releases its SQLite locks, and
    ``resume`` plays exactly the scheduled games without a stored row and takes over
    the lease of a dead process."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    raise KeyboardInterrupt


def cancel_tournament(session: Session, tournament_id: int) -> Tournament:
    """Mark a tournament cancelled (in the caller's transaction); a running driver
    stops at its next write.

    Raises:
        NotFoundError: no such tournament.
        TournamentStateError: it is already completed or cancelled.
    """
    tournament = get_tournament(session, tournament_id)
    if TournamentStatus(tournament.status).finished:
        raise TournamentStateError(f"tournament {tournament_id} is already {tournament.status}")
    tournament.status = TournamentStatus.CANCELLED
    tournament.message = "cancelled by the user"
    tournament.finished = utcnow()
    session.add(tournament)
    return tournament
