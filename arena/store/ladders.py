"""Ladders in the database: their bots, game indices, rating history and version
regression tests (the service that plays them is :mod:`arena.ladder`).

A ladder's games are the games of its tournament (format ``ladder``), stored with
:func:`arena.store.games.store_games` like any other; its bots are that tournament's
participants. Every function works in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, select

from arena.errors import NotFoundError
from arena.players.loader import HUMAN
from arena.store.games import _insert_ignoring_duplicates as insert_ignoring_duplicates
from arena.store.models import (
    BotVersion,
    GameResult,
    GameSeat,
    Ladder,
    LadderRating,
    Participant,
    RegressionStatus,
    RegressionTest,
    RegressionTestGame,
    Tournament,
    TournamentStatus,
)

LADDER_TABLE = Ladder.__table__  # type: ignore[attr-defined]
RATING_TABLE = LadderRating.__table__  # type: ignore[attr-defined]
PARTICIPANT_TABLE = Participant.__table__  # type: ignore[attr-defined]
TEST_GAME_TABLE = RegressionTestGame.__table__  # type: ignore[attr-defined]


def running_ladders(session: Session, game: str | None = None) -> list[Ladder]:
    """The started ladders (of ``game``), oldest first."""
    query = (
        select(Ladder)
        .join(Tournament, col(Tournament.id) == col(Ladder.tournament_id))
        .where(Tournament.status == TournamentStatus.RUNNING)
        .order_by(col(Ladder.id))
    )
    if game is not None:
        query = query.where(Ladder.game == game)
    return list(session.exec(query).all())


def all_ladders(session: Session) -> list[tuple[Ladder, Tournament]]:
    query = (
        select(Ladder, Tournament)
        .join(Tournament, col(Tournament.id) == col(Ladder.tournament_id))
        .order_by(col(Ladder.game), col(Ladder.seats), col(Ladder.id))
    )
    return [(ladder, tournament) for ladder, tournament in session.exec(query).all()]


def find_ladder(session: Session, game: str, seats: int, time_class: str) -> Ladder:
    """Raises NotFoundError when no such ladder was ever started."""
    ladder = session.exec(
        select(Ladder).where(
            Ladder.game == game, Ladder.seats == seats, Ladder.time_class == time_class
        )
    ).first()
    if ladder is None:
        raise NotFoundError(
            f"no {time_class} ladder of {game} at {seats} seats (see `arena ladder list`)"
        )
    return ladder


def lock_ladder(session: Session, ladder_id: int) -> Ladder:
    """The ladder's row, locked until the transaction ends (on SQLite every write
    transaction holds the database's lock anyway): its rating state changes with the
    games a transaction stores, one transaction at a time."""
    ladder = session.exec(
        select(Ladder).where(Ladder.id == ladder_id).with_for_update()
    ).one_or_none()
    if ladder is None:
        raise NotFoundError(f"no ladder {ladder_id}")
    return ladder


def join_ladders(session: Session, bot: BotVersion) -> list[RegressionTest]:
    """A bot version just registered joins every started ladder of its game, and a
    test against the version before it starts on each ladder where that version plays
    (not retired, not suspended). Returns the tests started."""
    started = []
    for ladder in running_ladders(session, bot.game):
        assert ladder.id is not None
        sync_participants(session, ladder)
        baseline = _baseline(session, ladder, bot)
        if baseline is not None:
            started.append(start_regression_test(session, ladder, bot, baseline))
    return started


def _baseline(session: Session, ladder: Ladder, bot: BotVersion) -> BotVersion | None:
    playing = (
        select(Participant.bot_id)
        .where(Participant.tournament_id == ladder.tournament_id)
        .where(col(Participant.suspended).is_(False))
    )
    return session.exec(
        select(BotVersion)
        .where(
            BotVersion.game == bot.game,
            BotVersion.name == bot.name,
            col(BotVersion.version) < bot.version,
            col(BotVersion.retired).is_(False),
            col(BotVersion.id).in_(playing),
        )
        .order_by(col(BotVersion.version).desc())
    ).first()


def start_regression_test(
    session: Session, ladder: Ladder, candidate: BotVersion, baseline: BotVersion
) -> RegressionTest:
    """A running test of ``candidate`` against ``baseline`` on ``ladder``, with the
    ladder's bounds (the one already started, if any)."""
    assert ladder.id is not None and candidate.id is not None and baseline.id is not None
    existing = session.exec(
        select(RegressionTest).where(
            RegressionTest.ladder_id == ladder.id, RegressionTest.candidate_id == candidate.id
        )
    ).first()
    if existing is not None:
        return existing
    test = RegressionTest(
        ladder_id=ladder.id,
        candidate_id=candidate.id,
        baseline_id=baseline.id,
        elo0=ladder.elo0,
        elo1=ladder.elo1,
        alpha=ladder.alpha,
        beta=ladder.beta,
    )
    session.add(test)
    session.flush()
    return test


def sync_participants(session: Session, ladder: Ladder) -> None:
    """Every active (not retired) bot version of the ladder's game is a participant.
    Only bots play ladders: a browser player (kind ``human``) never joins one."""
    present = select(Participant.bot_id).where(Participant.tournament_id == ladder.tournament_id)
    missing = session.exec(
        select(BotVersion.id).where(
            BotVersion.game == ladder.game,
            col(BotVersion.retired).is_(False),
            BotVersion.kind != HUMAN,
            col(BotVersion.id).not_in(present),
        )
    ).all()
    # Two programs may add the same bot at once (a worker's sync, a registration):
    # a row already there is skipped, not an error.
    names = ("tournament_id", "bot_id", "role", "position", "suspended", "suspended_reason")
    rows = [(ladder.tournament_id, bot_id, "player", bot_id, False, None) for bot_id in missing]
    session.flush()
    insert_ignoring_duplicates(session.connection(), PARTICIPANT_TABLE, names, rows)


def ladder_members(session: Session, ladder: Ladder) -> list[tuple[Participant, BotVersion]]:
    """Every bot that ever joined the ladder (retired and suspended ones too). A
    browser player stored in a ladder (before they were kept out) is none: never
    scheduled, never shown."""
    query = (
        select(Participant, BotVersion)
        .join(BotVersion, col(BotVersion.id) == col(Participant.bot_id))
        .where(Participant.tournament_id == ladder.tournament_id, BotVersion.kind != HUMAN)
        .order_by(col(BotVersion.name), col(BotVersion.version))
    )
    return [(p, b) for p, b in session.exec(query).all()]


def allocate_indices(session: Session, ladder_id: int, count: int) -> int:
    """Take ``count`` consecutive game indices of the ladder (compare-and-set on its
    counter, so two workers never take the same); returns the first. Commit at once:
    indices taken and never stored (a killed worker) are gaps, never duplicates."""
    connection = session.connection()
    while True:
        current = connection.execute(
            sa.select(LADDER_TABLE.c.next_index).where(LADDER_TABLE.c.id == ladder_id)
        ).scalar()
        if current is None:
            raise NotFoundError(f"no ladder {ladder_id}")
        taken = connection.execute(
            sa.update(LADDER_TABLE)
            .where(LADDER_TABLE.c.id == ladder_id, LADDER_TABLE.c.next_index == current)
            .values(next_index=current + count)
        )
        if taken.rowcount == 1:
            return int(current)


def latest_ratings(session: Session, ladder_id: int) -> dict[int, LadderRating]:
    """Each bot's newest rating on the ladder, by bot id (one index probe per bot)."""
    newest = (
        sa.select(sa.func.max(RATING_TABLE.c.id))
        .where(RATING_TABLE.c.ladder_id == ladder_id)
        .group_by(RATING_TABLE.c.bot_id)
    )
    rows = session.exec(select(LadderRating).where(col(LadderRating.id).in_(newest))).all()
    return {row.bot_id: row for row in rows}


def rating_history(session: Session, bot_id: int) -> list[tuple[Ladder, list[LadderRating]]]:
    """The bot's rating history on every ladder it played, oldest first."""
    rows = session.exec(
        select(LadderRating).where(LadderRating.bot_id == bot_id).order_by(col(LadderRating.id))
    ).all()
    by_ladder: dict[int, list[LadderRating]] = {}
    for row in rows:
        by_ladder.setdefault(row.ladder_id, []).append(row)
    ladders = {
        ladder.id: ladder
        for ladder in session.exec(select(Ladder).where(col(Ladder.id).in_(list(by_ladder))))
    }
    return [(ladders[ladder_id], history) for ladder_id, history in by_ladder.items()]


def add_test_games(
    session: Session, test_id: int, tournament_id: int, indices: Sequence[int]
) -> None:
    """Record the games (indices of the ladder tournament's) that the test counted."""
    rows = [
        {"test_id": test_id, "tournament_id": tournament_id, "game_index": index}
        for index in indices
    ]
    if rows:
        session.connection().execute(sa.insert(TEST_GAME_TABLE), rows)


def add_ratings(
    session: Session,
    ladder_id: int,
    ratings: Iterable[tuple[int, float, float, float, int]],
    at: datetime,
) -> None:
    """History rows (bot, rating, lower, upper, games), all at ``at``."""
    rows = [
        {
            "ladder_id": ladder_id,
            "bot_id": bot,
            "rating": rating,
            "lower": lower,
            "upper": upper,
            "games": games,
            "at": at,
        }
        for bot, rating, lower, upper, games in ratings
    ]
    if rows:
        session.connection().execute(sa.insert(RATING_TABLE), rows)


def ladder_test(session: Session, tournament_id: int, test_id: int) -> RegressionTest:
    """The regression test ``test_id`` of the ladder whose tournament is ``tournament_id``.

    Raises:
        NotFoundError: no such test on that ladder.
    """
    test = session.get(RegressionTest, test_id)
    ladder = None if test is None else session.get(Ladder, test.ladder_id)
    if test is None or ladder is None or ladder.tournament_id != tournament_id:
        raise NotFoundError(
            f"no regression test {test_id} on the ladder of tournament {tournament_id} "
            "(see `arena ladder show`)"
        )
    return test


def regression_tests(
    session: Session,
    *,
    ladder_id: int | None = None,
    bot_id: int | None = None,
    running: bool = False,
) -> list[RegressionTest]:
    """Tests of a ladder, or whose candidate or baseline is ``bot_id``, newest first."""
    query = select(RegressionTest).order_by(col(RegressionTest.id).desc())
    if ladder_id is not None:
        query = query.where(RegressionTest.ladder_id == ladder_id)
    if bot_id is not None:
        query = query.where(
            sa.or_(
                col(RegressionTest.candidate_id) == bot_id,
                col(RegressionTest.baseline_id) == bot_id,
            )
        )
    if running:
        query = query.where(RegressionTest.status == RegressionStatus.RUNNING)
    return list(session.exec(query).all())


def owner_games_since(
    session: Session, ladder: Ladder, owners: Sequence[int], since: datetime
) -> dict[int, int]:
    """Ladder games stored since ``since`` with a bot of each owner (a game with two of
    an owner's bots counts once per seat: both used the owner's share)."""
    if not owners:
        return {}
    g, s, b = (
        GameResult.__table__,  # type: ignore[attr-defined]
        GameSeat.__table__,  # type: ignore[attr-defined]
        BotVersion.__table__,  # type: ignore[attr-defined]
    )
    query = (
        sa.select(b.c.owner_id, sa.func.count())
        .select_from(
            s.join(b, b.c.id == s.c.bot_id).join(
                g, sa.and_(g.c.tournament_id == s.c.tournament_id, g.c.index == s.c.game_index)
            )
        )
        .where(
            s.c.tournament_id == ladder.tournament_id,
            b.c.owner_id.in_(list(owners)),
            g.c.created >= since,
        )
        .group_by(b.c.owner_id)
    )
    return {int(owner): int(n) for owner, n in session.connection().execute(query)}
