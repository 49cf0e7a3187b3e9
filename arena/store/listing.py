"""Reading stored games for people: a tournament's games with filters, every record
as JSON lines, and a bot's forfeits.

Everything here reads in pages of :data:`PAGE_GAMES` games, by game index (keyset
paging: each page starts after the last index of the one before), so memory stays
flat however large the tournament.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from arena.errors import ArenaError
from arena.play.bot_text import bot_text
from arena.play.results import GameStatus
from arena.players.subprocess_bot import STDERR_MARKER
from arena.store.models import GameResult, GameSeat, Ladder, RegressionTest, RegressionTestGame

PAGE_GAMES = 500
GAME_TABLE = GameResult.__table__  # type: ignore[attr-defined]
SEAT_TABLE = GameSeat.__table__  # type: ignore[attr-defined]
TEST_GAME_TABLE = RegressionTestGame.__table__  # type: ignore[attr-defined]


class GameFilterError(ArenaError):
    """A filter that does not apply (a win or a loss of nobody in particular)."""


class SeatResult(StrEnum):
    """How a game ended for one seat."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"
    FORFEIT = "forfeit"


@dataclass(frozen=True)
class ListedGame:
    """One stored game as listings show it."""

    index: int
    seed: int
    seats: tuple[int, ...]
    status: str
    returns: tuple[float, ...]
    ranking: tuple[int, ...]
    termination: str
    offender: int | None
    reason: str | None
    duration: float


def seat_result(game: ListedGame, seat: int) -> SeatResult:
    """``forfeit`` when the seat forfeited; ``win`` when it alone is first; ``draw``
    when it shares first place; ``loss`` otherwise."""
    if game.offender == seat:
        return SeatResult.FORFEIT
    if game.ranking[seat] != 1:
        return SeatResult.LOSS
    return SeatResult.WIN if game.ranking.count(1) == 1 else SeatResult.DRAW


def iter_games(
    session: Session,
    tournament_id: int,
    *,
    bot_id: int | None = None,
    result: SeatResult | None = None,
    reason: str | None = None,
    page: int = PAGE_GAMES,
    also: Sequence[int] = (),
    indices: tuple[int | None, int | None] = (None, None),
    test: RegressionTest | None = None,
) -> Iterator[ListedGame]:
    """The tournament's stored games in index order: those ``bot_id`` played (and every
    bot of ``also`` with it, at one table), those that ended in ``result`` (for
    ``bot_id``; without one, only ``forfeit`` and ``draw``, a game with a forfeit or a
    shared first place), those forfeited for ``reason``, those whose index is within
    ``indices`` (first, last; None: no bound), those of the regression ``test`` (see
    :func:`version_test_conditions`).

    Raises:
        GameFilterError: ``win`` or ``loss`` without a bot.
    """
    if result in (SeatResult.WIN, SeatResult.LOSS) and bot_id is None:
        raise GameFilterError(f"--result {result} needs --bot: whose {result}?")
    g = GAME_TABLE
    query = sa.select(
        g.c.index,
        g.c.seed,
        g.c.seats,
        g.c.status,
        g.c.returns,
        g.c.ranking,
        g.c.termination,
        g.c.offender,
        g.c.reason,
        g.c.duration,
    ).where(g.c.tournament_id == tournament_id)
    query = query.where(*_played_together(tournament_id, [] if bot_id is None else [bot_id, *also]))
    first, last = indices
    if first is not None:
        query = query.where(g.c.index >= first)
    if last is not None:
        query = query.where(g.c.index <= last)
    if reason is not None:
        query = query.where(g.c.reason == reason)
    if test is not None:
        query = query.where(*version_test_conditions(session, test))
    if result == SeatResult.FORFEIT and bot_id is None:
        query = query.where(g.c.offender.is_not(None))
    for row in _pages(session, query, g.c.index, page):
        game = ListedGame(
            row[0],
            row.seed,
            tuple(row.seats),
            row.status,
            tuple(row.returns),
            tuple(row.ranking),
            row.termination,
            row.offender,
            row.reason,
            row.duration,
        )
        if _matches(game, bot_id, result):
            yield game


def _played_together(tournament_id: int, bots: Sequence[int]) -> list[sa.ColumnElement[bool]]:
    """Conditions on the game table: every one of ``bots`` sat at the game."""
    s = SEAT_TABLE
    return [
        GAME_TABLE.c.index.in_(
            sa.select(s.c.game_index).where(s.c.tournament_id == tournament_id, s.c.bot_id == bot)
        )
        for bot in bots
    ]


def version_test_bounds(session: Session, test: RegressionTest) -> tuple[int, int] | None:
    """The first and last index of a regression test's games; None before its first."""
    g = GAME_TABLE
    query = sa.select(sa.func.min(g.c.index), sa.func.max(g.c.index)).where(
        *version_test_conditions(session, test)
    )
    first, last = session.connection().execute(query).one()
    return None if first is None else (int(first), int(last))


def version_test_conditions(session: Session, test: RegressionTest) -> list[sa.ColumnElement[bool]]:
    """Conditions on the game table that keep a regression test's games: those recorded
    as the pairs it counted. Games stored before the records were kept (schema 11) have
    none; below the test's first recorded game the rule before them applies: the ladder
    tournament's games in which the candidate and its baseline both sat, stored from
    the test's start to its end (its matchmaking games of the two too)."""
    ladder = session.get(Ladder, test.ladder_id)
    assert ladder is not None
    g, r = GAME_TABLE, TEST_GAME_TABLE
    recorded = sa.select(r.c.game_index).where(r.c.test_id == test.id)
    unrecorded = [
        g.c.created >= test.created,
        ~sa.exists().where(r.c.test_id == test.id, r.c.game_index <= g.c.index),
        *_played_together(ladder.tournament_id, [test.candidate_id, test.baseline_id]),
    ]
    if test.finished is not None:
        unrecorded.append(g.c.created <= test.finished)
    return [
        g.c.tournament_id == ladder.tournament_id,
        sa.or_(g.c.index.in_(recorded), sa.and_(*unrecorded)),
    ]


def _pages(
    session: Session, query: sa.Select[Any], index: sa.ColumnElement[int], page: int
) -> Iterator[sa.Row[Any]]:
    """The rows of ``query`` (whose first column is ``index``) in index order, read
    ``page`` rows at a time, each page after the last index of the one before."""
    last = -1
    connection = session.connection()
    while True:
        rows = connection.execute(query.where(index > last).order_by(index).limit(page)).all()
        yield from rows
        if len(rows) < page:
            return
        last = rows[-1][0]


def _matches(game: ListedGame, bot_id: int | None, result: SeatResult | None) -> bool:
    if result is None or game.status == GameStatus.ERROR:
        return result is None
    if bot_id is None:
        return result == SeatResult.FORFEIT or (game.offender is None and game.ranking.count(1) > 1)
    return any(
        seat_result(game, seat) == result for seat, bot in enumerate(game.seats) if bot == bot_id
    )


def iter_records(session: Session, tournament_id: int, *, page: int = PAGE_GAMES) -> Iterator[str]:
    """Every stored record of the tournament (JSON text, one game each, as stored), in
    index order, a page at a time."""
    g = GAME_TABLE
    query = sa.select(g.c.index, g.c.record).where(g.c.tournament_id == tournament_id)
    for row in _pages(session, query, g.c.index, page):
        yield row.record


@dataclass(frozen=True)
class Forfeit:
    """One forfeit of a bot: where, why, and what the bot left on stderr."""

    tournament_id: int
    index: int
    reason: str
    message: str
    stderr: str | None


@dataclass(frozen=True)
class ForfeitSummary:
    """A bot's forfeits: how many for each reason, and the latest ones."""

    by_reason: dict[str, int]
    latest: list[Forfeit]


def bot_forfeits(session: Session, bot_id: int, *, latest: int = 3) -> ForfeitSummary:
    """Counts of the bot's forfeits by reason, and its ``latest`` forfeits (newest
    first) with their messages; the stderr tail is the part of a message after
    :data:`~arena.players.subprocess_bot.STDERR_MARKER` (what the arena stores of a
    sandboxed bot's stderr)."""
    g, s = GAME_TABLE, SEAT_TABLE
    joined = s.join(g, sa.and_(g.c.tournament_id == s.c.tournament_id, g.c.index == s.c.game_index))
    mine = sa.and_(s.c.bot_id == bot_id, s.c.forfeit.is_(True))
    connection = session.connection()
    counts = Counter(
        {
            str(reason): int(count)
            for reason, count in connection.execute(
                sa.select(g.c.reason, sa.func.count())
                .select_from(joined)
                .where(mine)
                .group_by(g.c.reason)
            )
        }
    )
    rows = connection.execute(
        sa.select(g.c.tournament_id, g.c.index, g.c.reason, g.c.record)
        .select_from(joined)
        .where(mine)
        .order_by(g.c.id.desc())
        .limit(latest)
    ).all()
    forfeits = []
    for row in rows:
        message = _message(row.record)
        text, marker, stderr = message.partition(STDERR_MARKER)
        forfeits.append(
            Forfeit(row.tournament_id, row[1], str(row.reason), text, stderr if marker else None)
        )
    return ForfeitSummary(dict(counts.most_common()), forfeits)


def _message(record: str) -> str:
    try:
        data = json.loads(record)
    except ValueError:
        return ""
    details = data.get("outcome", {}).get("details", {}) if isinstance(data, dict) else {}
    message = details.get("message", "") if isinstance(details, dict) else ""
    return bot_text(message) if isinstance(message, str) else ""  # an old row's may not be
