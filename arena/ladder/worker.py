"""Playing a ladder: a worker takes a small batch of tables, plays and stores it.

One batch:

1. reads the ladder (its bots, their latest ratings, the running regression tests);
2. chooses tables: each running regression test's pair first (its priority is
   :data:`TEST_SHARE` of the batch), the rest from matchmaking;
3. takes the batch's game indices from the ladder's counter by compare-and-set, in a
   transaction of its own (two workers never take the same index);
4. plays every table as one full rotation on one deal (every bot in every seat of
   that deal, as tournaments do) with the usual executors;
5. stores the games, the rating state, the bots' health and the tests in one
   transaction, the ladder's row locked.

A worker killed anywhere loses only the games of its batch not stored yet: the indices
it took stay unused, a game is never stored twice (the (tournament, index) key), and
the rating state counts exactly the stored games because it is written with them.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.errors import ArenaError
from arena.ladder.current import games_of_pair_results
from arena.ladder.errors import LadderError
from arena.ladder.matchmaking import LadderBot, LadderView, next_pairings
from arena.ladder.rating import IncrementalElo
from arena.ladder.regression import VersionTest
from arena.ladder.service import end_test, ladder_time_control
from arena.play.results import PlannedGame, PlayedGame
from arena.ratings.pairs import PAIR_CATEGORIES, Pentanomial, game_score
from arena.store.bots import spec_of
from arena.store.db import session_scope, with_retries
from arena.store.games import read_driver_state, store_games, write_driver_state
from arena.store.ladders import (
    add_ratings,
    add_test_games,
    allocate_indices,
    ladder_members,
    latest_ratings,
    lock_ladder,
    owner_games_since,
    regression_tests,
    running_ladders,
    sync_participants,
)
from arena.store.models import (
    BotVersion,
    Ladder,
    Participant,
    RegressionStatus,
    RegressionTest,
    Tournament,
    TournamentStatus,
    utcnow,
)
from arena.store.tally import IndexedGame, Standing, StoredGame, games_page, standing
from arena.tournament.execution import ChunkResult, Executor, TournamentContext, make_executor
from arena.tournament.health import BotHealth
from arena.tournament.scheduling import rotations, seating_orders
from arena.tournament.state import LadderHealthState, StoredStateError
from engines.seeding import derive_seed

TABLES_PER_BATCH = 8
TEST_SHARE = 0.5
"""Of a batch's tables, at most this share goes to the running regression tests."""
PLACEMENT_GAMES = 20
"""A bot with fewer rated ladder games is still being placed (matchmaking spreads its
opponents over the ladder)."""
OWNER_BUDGET_HOURS = 1
"""An owner's budget counts the games of this many past hours."""
OPERATOR = "operator"
REBUILD_PAGE = 10_000
HISTORY_MOVE = 5.0
"""A bot's rating history gets a row when a refit moves its rating or an end of its
interval by this much (Elo), or after :data:`HISTORY_GAMES` more games."""
HISTORY_GAMES = 200
MAX_CRASH_RATE = 0.25
"""Above this share of games lost to its crashes (after health.MIN_GAMES), a bot is
suspended from the ladder (as tournaments do by default)."""

log = logging.getLogger(__name__)


@dataclass
class _Table:
    bots: tuple[int, ...]
    test: RegressionTest | None = None
    games: list[PlannedGame] = field(default_factory=list)


@dataclass
class BatchSummary:
    ladder_id: int
    stored: int
    tables: int


class LadderPlayer:
    """Plays batches of one ladder, or of whichever started ladder is next, keeping its
    executor (and the bots its processes loaded) between batches."""

    def __init__(
        self,
        engine: Engine,
        *,
        executor: str = "auto",
        workers: int | None = None,
        ray_address: str | None = None,
        tables: int = TABLES_PER_BATCH,
        seed: int | None = None,
        announce: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.engine = engine
        self.executor_kind = executor
        self.workers = workers
        self.ray_address = ray_address
        self.tables = tables
        self.rng = np.random.default_rng(seed)
        self.announce = announce
        self.run_key = f"ladder-{secrets.token_hex(6)}"
        self._executor: Executor | None = None
        self._turn = 0

    def close(self) -> None:
        if self._executor is not None:
            self._executor.close()
            self._executor = None

    def __enter__(self) -> LadderPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = make_executor(
                self.executor_kind,
                workers=self.workers,
                address=self.ray_address,
                announce=self.announce,
            )
        return self._executor

    def play_any(self) -> BatchSummary | None:
        """A batch of the next started ladder that has tables to play, in turn; None
        when none has."""
        with Session(self.engine) as session:
            ladders = [ladder.id for ladder in running_ladders(session)]
        for offset in range(len(ladders)):
            ladder_id = ladders[(self._turn + offset) % len(ladders)]
            assert ladder_id is not None
            summary = self.play_batch(ladder_id)
            if summary is not None:
                self._turn = (self._turn + offset + 1) % len(ladders)
                return summary
        return None

    def play_batch(self, ladder_id: int) -> BatchSummary | None:
        """Choose, play and store one batch; None when the ladder is not running or has
        nothing to play (fewer bots than seats, budgets spent).

        A KeyboardInterrupt while playing stores the games finished, then goes on up."""
        plan = with_retries(lambda: self._plan(ladder_id))
        if plan is None:
            return None
        ladder, tables, context = plan
        played: list[PlayedGame] = []

        def handle(result: ChunkResult) -> bool:
            played.extend(result.games)
            return True

        games = [game for table in tables for game in table.games]
        try:
            self.executor().run(context, games, handle, expected=len(games))
        finally:
            if played:
                with_retries(lambda: self._store(ladder, tables, played))
        return BatchSummary(ladder_id, len(played), len(tables))

    def _plan(self, ladder_id: int) -> tuple[Ladder, list[_Table], TournamentContext] | None:
        with session_scope(self.engine) as session:
            ladder = session.get(Ladder, ladder_id)
            tournament = None if ladder is None else session.get(Tournament, ladder.tournament_id)
            if (
                ladder is None
                or tournament is None
                or tournament.status != TournamentStatus.RUNNING
            ):
                return None
            if ladder.game_budget is not None and ladder.next_index >= ladder.game_budget:
                return None
            sync_participants(session, ladder)
            members = ladder_members(session, ladder)
            playing = {bot.id: bot for p, bot in members if not bot.retired and not p.suspended}
            tables = self._test_tables(session, ladder, playing)
            tables += self._matched_tables(session, ladder, playing, self.tables - len(tables))
            if ladder.game_budget is not None:  # the tests' tables too stay in the budget
                tables = tables[: (ladder.game_budget - ladder.next_index) // ladder.seats]
            if not tables:
                return None
            count = sum(len(rotations(table.bots)) for table in tables)
            first = allocate_indices(session, ladder_id, count)
            index = first
            for table in tables:
                orders = seating_orders(table.bots)
                order = orders[int(self.rng.integers(len(orders)))]
                seed = derive_seed(tournament.seed, "ladder", index)
                for seats in rotations(order):
                    table.games.append(PlannedGame(index, seed, seats))
                    index += 1
            involved = {bot for table in tables for bot in table.bots}
            context = TournamentContext(
                tournament_id=tournament.id or 0,
                game=ladder.game,
                options=dict(tournament.options),
                seats=ladder.seats,
                bots={bot: spec_of(playing[bot]) for bot in involved},
                time_control=ladder_time_control(ladder),
                run=self.run_key,
            )
            session.expunge(ladder)
            return ladder, tables, context

    def _test_tables(
        self, session: Session, ladder: Ladder, playing: dict[int | None, BotVersion]
    ) -> list[_Table]:
        """A table for each running test (up to the tests' share), filled with the
        candidate's nearest rivals at more than two seats; a test whose bots no longer
        play is stopped."""
        assert ladder.id is not None
        tables: list[_Table] = []
        share = max(1, int(self.tables * TEST_SHARE))
        tests = regression_tests(session, ladder_id=ladder.id, running=True)
        for test in reversed(tests):  # oldest first
            gone = [bot for bot in (test.candidate_id, test.baseline_id) if bot not in playing]
            if gone:
                labels = ", ".join(
                    b.label
                    for b in session.exec(select(BotVersion).where(BotVersion.id.in_(gone)))  # type: ignore[union-attr]
                )
                end_test(session, test, RegressionStatus.STOPPED, f"{labels} no longer plays")
                continue
            if len(tables) >= share:
                break
            others = [bot for bot in playing if bot not in (test.candidate_id, test.baseline_id)]
            if len(others) < ladder.seats - 2:
                continue
            chosen = self.rng.permutation(len(others))[: ladder.seats - 2]
            fill = tuple(int(others[i] or 0) for i in chosen)
            session.expunge(test)
            tables.append(_Table((test.candidate_id, test.baseline_id, *fill), test))
        return tables

    def _matched_tables(
        self,
        session: Session,
        ladder: Ladder,
        playing: dict[int | None, BotVersion],
        count: int,
    ) -> list[_Table]:
        assert ladder.id is not None
        if count <= 0 or len(playing) < ladder.seats:
            return []
        ratings = latest_ratings(session, ladder.id)
        bots = []
        for bot_id, bot in playing.items():
            assert bot_id is not None
            rating = ratings.get(bot_id)
            bots.append(
                LadderBot(
                    id=bot_id,
                    owner=_owner(bot.owner_id),
                    rating=None if rating is None else rating.rating,
                    lower=None if rating is None else rating.lower,
                    upper=None if rating is None else rating.upper,
                    games=0 if rating is None else rating.games,
                    created=bot_id,
                )
            )
        owners = sorted({bot.owner_id for bot in playing.values() if bot.owner_id is not None})
        used: dict[str, int] = {}
        if ladder.owner_budget is not None and owners:
            since = utcnow() - timedelta(hours=OWNER_BUDGET_HOURS)
            for owner, games in owner_games_since(session, ladder, owners, since).items():
                used[_owner(owner)] = games
        view = LadderView(
            bots=tuple(bots),
            owner_games=used,
            owner_budget=ladder.owner_budget,
            ladder_games=ladder.next_index,
            ladder_budget=ladder.game_budget,
            placement_games=PLACEMENT_GAMES,
            games_per_pairing=ladder.seats,
        )
        pairings = next_pairings(view, count, self.rng, seats=ladder.seats)
        return [_Table(tuple(t)) for t in pairings]

    def _store(self, ladder: Ladder, tables: list[_Table], played: Sequence[PlayedGame]) -> None:
        assert ladder.id is not None
        with session_scope(self.engine) as session:
            locked = lock_ladder(session, ladder.id)
            store_games(session, ladder.tournament_id, played)
            # A ladder schedules what it plays: its tournament's count follows the games.
            session.exec(
                sa.update(Tournament)
                .where(col(Tournament.id) == ladder.tournament_id)
                .values(scheduled=col(Tournament.scheduled) + len(played))
            )
            builtin = {
                bot_id
                for bot_id in session.exec(
                    select(col(BotVersion.id)).where(
                        BotVersion.kind == "builtin",
                        col(BotVersion.id).in_({b for g in played for b in g.seats}),
                    )
                )
                if bot_id is not None
            }
            rated = [g for g in played if standing(g, builtin) is Standing.RATED]
            self._rate(session, locked, rated)
            self._observe_health(session, locked, played, builtin)
            self._score_tests(session, ladder.tournament_id, tables, rated)

    def _rate(self, session: Session, ladder: Ladder, rated: Sequence[PlayedGame]) -> None:
        """Add the games to the rating state and write the history rows a refit moved.
        A state that does not load (written by another version) is rebuilt from the
        stored games, this batch's included."""
        assert ladder.id is not None
        elo: IncrementalElo | None = IncrementalElo()
        if ladder.rating_state is not None:
            try:
                elo = IncrementalElo.from_bytes(ladder.rating_state)
            except LadderError as exc:
                log.warning("ladder %s: %s; rebuilding it from the games", ladder.id, exc)
                elo = None
        if elo is None:  # the stored games hold this batch's already
            elo, ladder.rated_games = _rebuilt(session, ladder)
        else:
            _add_rated(elo, rated)
            ladder.rated_games += len(rated)
        ladder.rating_state = elo.to_bytes()
        session.add(ladder)
        fitted = elo.refit()
        before = latest_ratings(session, ladder.id)
        moved = []
        for bot, fit in fitted.items():
            rating, lower, upper = fit.elo, fit.lower, fit.upper
            games = games_of_pair_results(fit.games, ladder.seats)
            last = before.get(bot)
            if (
                last is None
                or abs(last.rating - rating) >= HISTORY_MOVE
                or abs(last.lower - lower) >= HISTORY_MOVE
                or abs(last.upper - upper) >= HISTORY_MOVE
                or games - last.games >= HISTORY_GAMES
            ):
                moved.append((bot, rating, lower, upper, games))
        add_ratings(session, ladder.id, moved, utcnow())

    def _observe_health(
        self,
        session: Session,
        ladder: Ladder,
        played: Sequence[PlayedGame],
        builtin: Collection[int],
    ) -> None:
        """Count the games into the bots' health (kept as the ladder tournament's driver
        state) and suspend from the ladder a bot that crashes too often; host faults
        (``builtin``'s timeouts among them) count for no bot."""
        health = BotHealth(MAX_CRASH_RATE, builtin)
        saved = read_driver_state(session, ladder.tournament_id)
        if saved is not None:
            try:
                state = LadderHealthState.decode(saved[1], ladder.tournament_id)
            except StoredStateError as exc:
                # The counts start again: a bot's suspension waits for new crashes.
                log.warning("%s: its bots' health is counted anew", exc)
            else:
                health.games.update(state.games)
                health.crashes.update(state.crashes)
        members = session.exec(
            select(Participant).where(Participant.tournament_id == ladder.tournament_id)
        ).all()
        health.suspended = {p.bot_id: p.suspended_reason or "" for p in members if p.suspended}
        newly = health.observe(played)
        by_bot = {p.bot_id: p for p in members}
        for bot_id, why in newly:
            participant = by_bot[bot_id]
            participant.suspended = True
            participant.suspended_reason = why
            session.add(participant)
        counted = LadderHealthState(games=health.games, crashes=health.crashes).encode()
        stored = (saved[0] if saved is not None else 0) + len(played)
        write_driver_state(session, ladder.tournament_id, stored, counted)

    def _score_tests(
        self,
        session: Session,
        tournament_id: int,
        tables: list[_Table],
        rated: Sequence[PlayedGame],
    ) -> None:
        """Each test's pairs: the two games of its table's rotation on one deal (at more
        seats, consecutive games of the rotation), the candidate's score against the
        baseline in each. The games of the pairs it counted are recorded as its games."""
        by_index = {g.index: g for g in rated}
        for table in tables:
            if table.test is None:
                continue
            test = session.get(RegressionTest, table.test.id)
            if test is None or test.status != RegressionStatus.RUNNING:
                continue
            sprt = VersionTest(
                test.elo0,
                test.elo1,
                test.alpha,
                test.beta,
                Pentanomial(**dict(zip(PAIR_CATEGORIES, test.counts, strict=True))),
            )
            games = [by_index.get(planned.index) for planned in table.games]
            pairs = [
                (first, second)
                for first, second in zip(games[0::2], games[1::2], strict=False)
                if first is not None and second is not None
            ]
            counted = sprt.add_pairs(
                (
                    _score(first, test.candidate_id, test.baseline_id),
                    _score(second, test.candidate_id, test.baseline_id),
                )
                for first, second in pairs
            )
            assert test.id is not None
            add_test_games(
                session,
                test.id,
                tournament_id,
                [game.index for pair in pairs[:counted] for game in pair],
            )
            test.games += 2 * counted
            test.counts = [getattr(sprt.pentanomial, name) for name in PAIR_CATEGORIES]
            test.llr = sprt.llr
            if sprt.status != "running":
                test.status = (
                    RegressionStatus.ACCEPTED_H1
                    if sprt.status == "H1"
                    else RegressionStatus.ACCEPTED_H0
                )
                test.finished = utcnow()
                bound = sprt.upper if sprt.status == "H1" else sprt.lower
                test.message = f"LLR {sprt.llr:.2f} crossed {bound:.2f}"
            session.add(test)


def _add_rated(elo: IncrementalElo, games: Sequence[IndexedGame]) -> None:
    """Every pair of seats of each game, a table's games one rotation (its deal)."""
    triples, rotations = [], []
    for g in games:
        for i in range(len(g.seats)):
            for j in range(i + 1, len(g.seats)):
                triples.append((g.seats[i], g.seats[j], game_score(g.ranking[i], g.ranking[j])))
                rotations.append(g.seed)
    elo.add_games(triples, rotations)


def _rebuilt(session: Session, ladder: Ladder) -> tuple[IncrementalElo, int]:
    """The rating state of every rated game stored, read a page at a time, and how
    many games it counts. A table's games (consecutive indices, one seed) are added in
    one call, as when they were played: a page's last table waits for the next page."""
    elo, counted, after = IncrementalElo(), 0, -1
    builtin = {
        bot_id
        for bot_id in session.exec(select(col(BotVersion.id)).where(BotVersion.kind == "builtin"))
        if bot_id is not None
    }
    held: list[StoredGame] = []
    while page := games_page(session, ladder.tournament_id, after=after, limit=REBUILD_PAGE):
        after = page[-1].index
        games = held + page
        cut = len(games)
        while cut > 0 and games[cut - 1].seed == games[-1].seed:
            cut -= 1
        held = games[cut:]
        rated = [g for g in games[:cut] if standing(g, builtin) is Standing.RATED]
        _add_rated(elo, rated)
        counted += len(rated)
    rated = [g for g in held if standing(g, builtin) is Standing.RATED]
    _add_rated(elo, rated)
    return elo, counted + len(rated)


def _owner(owner_id: int | None) -> str:
    """Matchmaking's owner of a bot: its account, or the operator's share for the bots
    registered on the command line (the built-ins among them)."""
    return OPERATOR if owner_id is None else f"account {owner_id}"


def _score(game: PlayedGame, candidate: int, baseline: int) -> float:
    seat_of = {bot: seat for seat, bot in enumerate(game.seats)}
    return game_score(game.ranking[seat_of[candidate]], game.ranking[seat_of[baseline]])


def run_ladder(
    engine: Engine,
    ladder_id: int,
    *,
    player: LadderPlayer,
    stop: threading.Event,
    idle_seconds: float = 2.0,
    max_games: int | None = None,
    on_batch: Callable[[BatchSummary], None] = lambda summary: None,
) -> int:
    """Play batches of one ladder until ``stop`` is set (or ``max_games`` are stored);
    a ladder with nothing to play is looked at again every ``idle_seconds``. Returns
    the games stored."""
    stored = 0
    while not stop.is_set() and (max_games is None or stored < max_games):
        try:
            summary = player.play_batch(ladder_id)
        except ArenaError as exc:  # the database is away: try again later
            log.warning("ladder %s: %s", ladder_id, exc)
            stop.wait(idle_seconds)
            continue
        if summary is None:
            stop.wait(idle_seconds)
            continue
        stored += summary.stored
        on_batch(summary)
    return stored
