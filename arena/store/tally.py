"""Which stored games count, and every count made from them, in one place.

Reports, leaderboards, ``arena tournament show``, the live display and the web all
count through :class:`Tally`, so a bot's games, results and forfeits are the same
number wherever they appear. The rules (``docs/ratings.md``, "What counts"):

* a game that was played counts (is *rated*): its result, and a forfeit for the bot's
  own fault (a crash, an illegal action, a sandboxed bot's timeout …) as a loss;
* a game stored as a ``suspended`` forfeit was never played: it is *unplayed* and
  counts for no bot at its table, neither as a loss nor as a win;
* a *host fault* is a game the host spoiled: its play raised on the host (stored with
  status ``error``), or a built-in bot (trusted code running inside the host process,
  sharing its CPU) ran out of the time control. It counts for no bot at its table.
"""

from __future__ import annotations

import contextlib
import gc
import json
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

import sqlalchemy as sa
from sqlmodel import Session, col, select

from arena.play.results import GameStatus
from arena.players.loader import BUILTIN
from arena.store.models import BotVersion, GameResult, Participant, Tournament
from engines.outcome import ForfeitReason, Termination, ranking_points

FORFEIT_REASONS = (
    ForfeitReason.CRASH,
    ForfeitReason.TIMEOUT,
    ForfeitReason.ILLEGAL_ACTION,
    ForfeitReason.MALFORMED_OUTPUT,
    ForfeitReason.PROTOCOL_VIOLATION,
)
"""The reasons a bot forfeits by its own fault, each a column of the CSV report; any
other reason is counted as ``other``."""
OTHER_REASON = "other"
HUMAN_FORMAT = "human"
"""The format of the tournaments that hold the games people played in the browser
(arena/web/humans.py): they count on the humans' leaderboard, never on the bots'."""


class Standing(StrEnum):
    """How a stored game counts."""

    RATED = "rated"
    UNPLAYED = "unplayed"
    HOST_FAULT = "host_fault"


class SeatFaults(Protocol):
    """Who sat where in a game, and who forfeited why (what suspensions need)."""

    @property
    def seats(self) -> tuple[int, ...]: ...
    @property
    def offender(self) -> int | None: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def status(self) -> str: ...


class CountedGame(SeatFaults, Protocol):
    """What counting needs of a game: a stored row or a game just played."""

    @property
    def ranking(self) -> tuple[int, ...]: ...
    @property
    def returns(self) -> tuple[float, ...]: ...
    @property
    def termination(self) -> str: ...


class IndexedGame(CountedGame, Protocol):
    """A game with its place in the schedule and its deal."""

    @property
    def index(self) -> int: ...
    @property
    def seed(self) -> int: ...


@dataclass(slots=True)
class StoredGame:
    """A stored game as the reports read it (the record left out). Not frozen: a report
    builds a hundred thousand of them, and a frozen dataclass is slow to build."""

    tournament_id: int
    index: int
    seed: int
    seats: tuple[int, ...]
    ranking: tuple[int, ...]
    returns: tuple[float, ...]
    termination: str
    offender: int | None
    reason: str | None
    status: str


def standing(game: SeatFaults, builtin: Collection[int]) -> Standing:
    """How ``game`` counts; ``builtin`` holds the ids of the built-in bots."""
    if game.status == GameStatus.ERROR:
        return Standing.HOST_FAULT
    if game.reason == ForfeitReason.SUSPENDED:
        return Standing.UNPLAYED
    if (
        game.offender is not None
        and game.reason == ForfeitReason.TIMEOUT
        and game.seats[game.offender] in builtin
    ):
        return Standing.HOST_FAULT
    return Standing.RATED


def rotation(tournament_id: int, game: IndexedGame) -> tuple[int, int, tuple[int, ...]]:
    """The rotation ``game`` belongs to: one deal at one table of one tournament (as
    the report groups games, by tournament, seed and the sorted seats)."""
    return (tournament_id, game.seed, tuple(sorted(game.seats)))


@dataclass
class Tally:
    """One bot's counts.

    ``games`` are its rated games; ``wins``, ``draws`` and ``losses`` its results
    against each other seat of them (one per game with two seats; in a one-seat game a
    win is a won deal, a loss any other end); ``forfeits`` its own forfeits among them
    by reason; ``unplayed`` and ``host_faults`` the games at its tables that count for
    nobody.
    """

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    place_sum: float = 0.0
    score_sum: float = 0.0
    forfeits: Counter[str] = field(default_factory=Counter)
    unplayed: int = 0
    host_faults: int = 0

    def add(self, game: CountedGame, seat: int, counted: Standing, times: int = 1) -> None:
        """Count ``game`` (``times`` such games), in which this bot held ``seat``."""
        if counted is Standing.UNPLAYED:
            self.unplayed += times
            return
        if counted is Standing.HOST_FAULT:
            self.host_faults += times
            return
        self.games += times
        self.points += times * ranking_points(game.ranking)[seat]
        self.place_sum += times * game.ranking[seat]
        self.score_sum += times * game.returns[seat]
        if game.offender == seat:
            reason = game.reason if game.reason in FORFEIT_REASONS else OTHER_REASON
            self.forfeits[reason] += times
        if len(game.seats) == 1:
            won = game.termination == Termination.WON
            self.wins += times * won
            self.losses += times * (not won)
            return
        mine = game.ranking[seat]
        for other, place in enumerate(game.ranking):
            if other != seat:
                self.wins += times * (mine < place)
                self.draws += times * (mine == place)
                self.losses += times * (mine > place)

    @property
    def score_percent(self) -> float:
        """Points per rated game, in percent (a draw half a point; for k seats the
        share of the other seats finished ahead of)."""
        return 100.0 * self.points / self.games if self.games else 0.0

    @property
    def mean_place(self) -> float:
        return self.place_sum / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        """The mean of the game's returns for this bot (for a patience, its score)."""
        return self.score_sum / self.games if self.games else 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def forfeit_total(self) -> int:
        return sum(self.forfeits.values())


@dataclass
class Tallies:
    """Every bot's :class:`Tally` and the games counted, by how they count."""

    bots: dict[int, Tally] = field(default_factory=dict)
    games: Counter[Standing] = field(default_factory=Counter)

    def add(self, game: CountedGame, builtin: Collection[int], times: int = 1) -> Standing:
        """Count ``game`` (``times`` such games); returns how it counted."""
        counted = standing(game, builtin)
        self.games[counted] += times
        for seat, bot in enumerate(game.seats):
            self.bots.setdefault(bot, Tally()).add(game, seat, counted, times)
        return counted

    def add_all(self, games: Iterable[StoredGame], builtin: Collection[int]) -> None:
        """Count ``games``, those alike in everything counted (seats, places, returns,
        how they ended) at once."""
        alike = Counter(
            (g.seats, g.ranking, g.returns, g.termination, g.offender, g.reason, g.status)
            for g in games
        )
        for fields, times in alike.items():
            self.add(StoredGame(0, 0, 0, *fields), builtin, times)


def leaderboard_tournaments(
    session: Session, game: str, *, humans: bool = False
) -> list[Tournament]:
    """The tournaments of ``game`` whose games a leaderboard counts: the bots' (every
    tournament but those of human games), or with ``humans`` only those of human games.
    A game people played never moves a bot's rating on the bots' leaderboard."""
    query = select(Tournament).where(Tournament.game == game)
    if humans:
        query = query.where(Tournament.format == HUMAN_FORMAT)
    else:
        query = query.where(Tournament.format != HUMAN_FORMAT)
    return list(session.exec(query.order_by(col(Tournament.id))).all())


def tally_games(games: Iterable[StoredGame], builtin: Collection[int]) -> Tallies:
    """Count ``games``; ``builtin`` holds the ids of the built-in bots. Games alike in
    everything counted (seats, places, returns, how they ended) are counted at once."""
    tallies = Tallies()
    tallies.add_all(games, builtin)
    return tallies


GAME_TABLE = GameResult.__table__  # type: ignore[attr-defined]


def load_games(
    session: Session,
    *,
    tournament_ids: Sequence[int],
    bot_ids: Collection[int] | None = None,
) -> list[StoredGame]:
    """The stored games of the tournaments in (tournament, index) order, of every
    status; with ``bot_ids``, only the games one of those bots sat in."""
    query = _games_query().where(GAME_TABLE.c.tournament_id.in_(list(tournament_ids)))
    with without_cycle_collection():
        rows = session.connection().execute(query).all()
    if not rows:
        return []
    with without_cycle_collection():
        return _stored_games(rows, bot_ids)


def games_page(session: Session, tournament_id: int, *, after: int, limit: int) -> list[StoredGame]:
    """Up to ``limit`` stored games of the tournament with an index above ``after``,
    in index order: :func:`load_games` a page at a time (keyset pages), so that a
    resumed million-game tournament is read in the memory of a page."""
    query = (
        _games_query()
        .where(GAME_TABLE.c.tournament_id == tournament_id, GAME_TABLE.c.index > after)
        .limit(limit)
    )
    with without_cycle_collection():
        rows = session.connection().execute(query).all()
        return _stored_games(rows, None) if rows else []


def _games_query() -> sa.Select[Any]:
    g = GAME_TABLE
    lists = [sa.cast(g.c[name], sa.Text) for name in ("seats", "ranking", "returns")]
    return sa.select(
        g.c.tournament_id,
        g.c.index,
        g.c.seed,
        *lists,
        g.c.termination,
        g.c.offender,
        g.c.reason,
        g.c.status,
    ).order_by(g.c.tournament_id, g.c.index)


@contextlib.contextmanager
def without_cycle_collection() -> Iterator[None]:
    """Build many small acyclic values (games, rows, tuples) without the cyclic garbage
    collector, which would otherwise walk all of them again and again as they pile up:
    half the time of loading 100,000 games."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _stored_games(rows: Sequence[Any], bot_ids: Collection[int] | None) -> list[StoredGame]:
    columns = list(zip(*rows, strict=True))
    # Each of the three JSON lists of every row parsed in one call, not one per cell.
    seats, ranking, returns = (json.loads("[" + ",".join(cells) + "]") for cells in columns[3:6])
    games = [
        StoredGame(t, index, seed, tuple(s), tuple(r), tuple(v), end, who, why, status)
        for t, index, seed, s, r, v, end, who, why, status in zip(
            columns[0],
            columns[1],
            columns[2],
            seats,
            ranking,
            returns,
            *columns[6:],
            strict=True,
        )
    ]
    if bot_ids is None:
        return games
    wanted = set(bot_ids)
    return [game for game in games if wanted.intersection(game.seats)]


@dataclass(frozen=True)
class BotNames:
    """Labels of bot versions by id, and which of them are built in."""

    labels: Mapping[int, str]
    builtin: frozenset[int]

    def label(self, bot_id: int) -> str:
        label = self.labels.get(bot_id)
        return str(bot_id) if label is None else label


def bot_names(session: Session, bot_ids: Collection[int]) -> BotNames:
    """The labels and kinds of the bot versions ``bot_ids``."""
    bots = session.exec(select(BotVersion).where(col(BotVersion.id).in_(set(bot_ids)))).all()
    return BotNames(
        {bot.id: bot.label for bot in bots if bot.id is not None},
        frozenset(bot.id for bot in bots if bot.id is not None and bot.kind == BUILTIN),
    )


def bot_tallies(session: Session, bot_ids: Collection[int]) -> dict[tuple[int, int], Tally]:
    """The :class:`Tally` of each of ``bot_ids`` in each tournament it played in, by
    (bot id, tournament id)."""
    tournament_ids = sorted(
        set(
            session.exec(
                select(Participant.tournament_id).where(col(Participant.bot_id).in_(set(bot_ids)))
            ).all()
        )
    )
    games = load_games(session, tournament_ids=tournament_ids, bot_ids=bot_ids)
    names = bot_names(session, {bot for game in games for bot in game.seats})
    tallies: dict[tuple[int, int], Tally] = {}
    wanted = set(bot_ids)
    for game in games:
        counted = standing(game, names.builtin)
        for seat, bot in enumerate(game.seats):
            if bot in wanted:
                tallies.setdefault((bot, game.tournament_id), Tally()).add(game, seat, counted)
    return tallies
