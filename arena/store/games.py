"""Writing and reading tournament data. Only the driver calls the writers.

Each write is one transaction. Game inserts ignore a row whose (tournament, index)
is already stored, so a chunk that Ray retried, or a resumed run that overlaps an
earlier one, can never store a game twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, col, func, select

from arena.errors import NotFoundError
from arena.store.db import session_scope
from arena.store.models import (
    GameResult,
    GameSeat,
    Participant,
    ScheduledGame,
    Tournament,
    utcnow,
)
from arena.tournament.execution import PlayedGame
from arena.tournament.scheduling import FinishedGame, PlannedGame

GAME_TABLE = GameResult.__table__  # type: ignore[attr-defined]
SEAT_TABLE = GameSeat.__table__  # type: ignore[attr-defined]
SCHEDULE_TABLE = ScheduledGame.__table__  # type: ignore[attr-defined]
CANCELLED = "cancelled"


def _insert_ignoring_duplicates(
    connection: Connection, table: sa.Table, rows: list[dict[str, Any]]
) -> None:
    if not rows:
        return
    dialect = connection.dialect.name
    if dialect == "sqlite":
        connection.execute(sqlite.insert(table).on_conflict_do_nothing(), rows)
    elif dialect == "postgresql":
        connection.execute(postgresql.insert(table).on_conflict_do_nothing(), rows)
    else:  # other databases: insert one by one, skipping rows that already exist
        for row in rows:
            try:
                with connection.begin_nested():
                    connection.execute(table.insert(), row)
            except sa.exc.IntegrityError:
                pass


def store_games(engine: Engine, tournament_id: int, games: Sequence[PlayedGame]) -> None:
    """Store played games and their seats in one transaction (duplicates ignored).

    Raises:
        StorageError: the database failed; nothing of this batch is stored.
    """
    now = utcnow()
    game_rows = [
        {
            "tournament_id": tournament_id,
            "index": g.index,
            "seed": g.seed,
            "seats": list(g.seats),
            "status": g.status,
            "returns": list(g.returns),
            "ranking": list(g.ranking),
            "termination": g.termination,
            "offender": g.offender,
            "reason": g.reason,
            "record": g.record,
            "duration": g.duration,
            "worker": g.worker,
            "created": now,
        }
        for g in games
    ]
    seat_rows = [
        {
            "tournament_id": tournament_id,
            "game_index": g.index,
            "seat": seat,
            "bot_id": bot_id,
            "score": g.returns[seat],
            "place": g.ranking[seat],
            "forfeit": g.offender == seat,
        }
        for g in games
        if g.status != "error"
        for seat, bot_id in enumerate(g.seats)
    ]
    with session_scope(engine) as session:
        connection = session.connection()
        _insert_ignoring_duplicates(connection, GAME_TABLE, game_rows)
        _insert_ignoring_duplicates(connection, SEAT_TABLE, seat_rows)


def schedule_games(session: Session, tournament_id: int, games: Sequence[PlannedGame]) -> None:
    """Write planned games (inside the caller's transaction) and raise the tournament's
    scheduled count."""
    rows = [
        {
            "tournament_id": tournament_id,
            "index": g.index,
            "batch": g.batch,
            "seed": g.seed,
            "seats": list(g.seats),
        }
        for g in games
    ]
    connection = session.connection()
    _insert_ignoring_duplicates(connection, SCHEDULE_TABLE, rows)
    count = session.exec(
        select(func.count()).where(ScheduledGame.tournament_id == tournament_id)
    ).one()
    session.exec(
        sa.update(Tournament).where(col(Tournament.id) == tournament_id).values(scheduled=count)
    )


def drop_unplayed(session: Session, tournament_id: int) -> int:
    """Unschedule the scheduled games without a stored result (inside the caller's
    transaction), lowering the tournament's scheduled count: a decided SPRT plays no
    more. Returns how many were dropped."""
    s, g = SCHEDULE_TABLE, GAME_TABLE
    stored = sa.select(g.c.index).where(g.c.tournament_id == tournament_id)
    connection = session.connection()
    dropped = connection.execute(
        sa.delete(s).where(s.c.tournament_id == tournament_id, s.c.index.not_in(stored))
    ).rowcount
    count = session.exec(
        select(func.count()).where(ScheduledGame.tournament_id == tournament_id)
    ).one()
    session.exec(
        sa.update(Tournament).where(col(Tournament.id) == tournament_id).values(scheduled=count)
    )
    return int(dropped or 0)


def get_tournament(session: Session, tournament_id: int) -> Tournament:
    """Raises NotFoundError when there is no such tournament."""
    tournament = session.get(Tournament, tournament_id)
    if tournament is None:
        raise NotFoundError(f"no tournament {tournament_id} (see `arena tournament list`)")
    return tournament


def set_status(
    engine: Engine,
    tournament_id: int,
    status: str,
    *,
    message: str | None = None,
    started: datetime | None = None,
    finished: datetime | None = None,
) -> None:
    """Write the tournament's status. A cancelled tournament stays cancelled: no later
    write (a driver that stops, a worker that requeues or fails it) undoes a cancel."""
    values: dict[str, Any] = {"status": status, "message": message}
    if started is not None:
        values["started"] = started
    if finished is not None:
        values["finished"] = finished
    update = sa.update(Tournament).where(col(Tournament.id) == tournament_id)
    if status != CANCELLED:
        update = update.where(col(Tournament.status) != CANCELLED)
    with session_scope(engine) as session:
        session.exec(update.values(**values))


def read_status(engine: Engine, tournament_id: int) -> str:
    with Session(engine) as session:
        return get_tournament(session, tournament_id).status


def unplayed_games(engine: Engine, tournament_id: int) -> list[PlannedGame]:
    """Scheduled games with no stored result, in index order."""
    s, g = SCHEDULE_TABLE, GAME_TABLE
    query = (
        sa.select(s.c.index, s.c.seed, s.c.seats, s.c.batch)
        .select_from(
            s.outerjoin(g, sa.and_(g.c.tournament_id == s.c.tournament_id, g.c.index == s.c.index))
        )
        .where(s.c.tournament_id == tournament_id, g.c.id.is_(None))
        .order_by(s.c.index)
    )
    with engine.connect() as connection:
        return [
            PlannedGame(index, seed, tuple(seats), batch)
            for index, seed, seats, batch in connection.execute(query)
        ]


def finished_games(engine: Engine, tournament_id: int) -> list[FinishedGame]:
    """Every stored game that ended normally or by forfeit (not engine errors)."""
    g = GAME_TABLE
    query = (
        sa.select(g.c.index, g.c.seed, g.c.seats, g.c.ranking, g.c.returns)
        .where(g.c.tournament_id == tournament_id, g.c.status != "error")
        .order_by(g.c.index)
    )
    with engine.connect() as connection:
        return [
            FinishedGame(index, seed, tuple(seats), tuple(ranking), tuple(returns))
            for index, seed, seats, ranking, returns in connection.execute(query)
        ]


def schedule_state(engine: Engine, tournament_id: int) -> tuple[int, int, int]:
    """(scheduled games, next free index, next batch number)."""
    s = SCHEDULE_TABLE
    with engine.connect() as connection:
        count, last_index, last_batch = connection.execute(
            sa.select(sa.func.count(), sa.func.max(s.c.index), sa.func.max(s.c.batch)).where(
                s.c.tournament_id == tournament_id
            )
        ).one()
    return (
        int(count),
        0 if last_index is None else int(last_index) + 1,
        0 if last_batch is None else int(last_batch) + 1,
    )


def count_stored(engine: Engine, tournament_id: int) -> int:
    with engine.connect() as connection:
        return int(
            connection.execute(
                sa.select(sa.func.count()).where(GAME_TABLE.c.tournament_id == tournament_id)
            ).scalar_one()
        )


def participants(session: Session, tournament_id: int) -> list[Participant]:
    return list(
        session.exec(
            select(Participant)
            .where(Participant.tournament_id == tournament_id)
            .order_by(col(Participant.position))
        ).all()
    )


def fault_history(engine: Engine, tournament_id: int) -> list[PlayedGame]:
    """Stored games reduced to who sat where and who forfeited why (for suspensions)."""
    g = GAME_TABLE
    query = sa.select(g.c.seats, g.c.offender, g.c.reason, g.c.status).where(
        g.c.tournament_id == tournament_id
    )
    with engine.connect() as connection:
        return [
            PlayedGame(0, 0, tuple(seats), status, (), (), "", offender, reason, "", 0.0, "")
            for seats, offender, reason, status in connection.execute(query)
        ]


def scheduled_seeds(engine: Engine, tournament_id: int) -> list[int]:
    """The distinct deal seeds of the scheduled games, in the order of their first game."""
    s = SCHEDULE_TABLE
    first = sa.func.min(s.c.index)
    query = (
        sa.select(s.c.seed)
        .where(s.c.tournament_id == tournament_id)
        .group_by(s.c.seed)
        .order_by(first)
    )
    with engine.connect() as connection:
        return [int(seed) for (seed,) in connection.execute(query)]
