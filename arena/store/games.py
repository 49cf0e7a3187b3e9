"""Writing and reading tournament data. Only the driver (and the web's queue and
cancel) call the writers.

Every function takes a session and works inside its transaction: the caller owns the
transaction (``with session_scope(engine) as session: ...``), so writes that belong
together commit together. Game inserts ignore a row whose (tournament, index) is
already stored, so a chunk that Ray retried, or a resumed run that overlaps an earlier
one, can never store a game twice.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlmodel import Session, col, func, select

from arena.errors import NotFoundError
from arena.play.results import FinishedGame, GameStatus, PlannedGame, PlayedGame
from arena.store.models import (
    DriverState,
    GameResult,
    GameSeat,
    Participant,
    ScheduledGame,
    Tournament,
    TournamentStatus,
    utcnow,
)
from engines.outcome import ForfeitReason, Termination

GAME_TABLE = GameResult.__table__  # type: ignore[attr-defined]
SEAT_TABLE = GameSeat.__table__  # type: ignore[attr-defined]
SCHEDULE_TABLE = ScheduledGame.__table__  # type: ignore[attr-defined]
TOURNAMENT_TABLE = Tournament.__table__  # type: ignore[attr-defined]
DRIVER_STATE_TABLE = DriverState.__table__  # type: ignore[attr-defined]
PAGE_ROWS = 10_000
"""Schedule rows written or read at a time: the driver's memory holds one page, not
the tournament."""


GAME_COLUMNS = (
    "tournament_id",
    "index",
    "seed",
    "seats",
    "status",
    "returns",
    "ranking",
    "termination",
    "offender",
    "reason",
    "record",
    "duration",
    "worker",
    "created",
)
SEAT_COLUMNS = ("tournament_id", "game_index", "seat", "bot_id", "score", "place", "forfeit")
SCHEDULE_COLUMNS = ("tournament_id", "index", "batch", "seed", "seats")
GAME_ROW_COLUMNS = GAME_COLUMNS[1:-1]
"""Of :data:`GAME_COLUMNS`, those a game's own row values give: the tournament and the
stored time are the batch's."""
SEAT_ROW_COLUMNS = SEAT_COLUMNS[1:]
"""Of :data:`SEAT_COLUMNS`, those a seat's own row values give: the tournament is the
batch's."""


@dataclass(frozen=True)
class GameRows:
    """Played games as the database stores them: each game's row and its seats' rows
    (:data:`GAME_ROW_COLUMNS`, :data:`SEAT_ROW_COLUMNS`), the values converted as the
    columns' types convert them (JSON as its text, a status as its word, a forfeit as a
    flag). A worker builds them with its games, so that the driver, which stores every
    game, only hands them to the database (:func:`store_rows`)."""

    games: list[tuple[Any, ...]]
    seats: list[tuple[Any, ...]]

    def __len__(self) -> int:
        return len(self.games)


def game_rows(games: Iterable[PlayedGame]) -> GameRows:
    """The rows :func:`store_games` stores for ``games``, with the same values."""
    # Games alike in all but their index, seed, record, time and worker (a chunk of
    # random games holds a few such kinds) share their other converted values and their
    # seats' rows but the game's index: each kind converted once. The key holds the
    # items' types: (1, 0) == (1.0, 0.0), but they are stored differently.
    made: dict[tuple[Any, ...], tuple[tuple[Any, ...], list[tuple[Any, ...]]]] = {}
    rows: list[tuple[Any, ...]] = []
    seat_rows: list[tuple[Any, ...]] = []
    for g in games:
        seats, returns, ranking = g.seats, g.returns, g.ranking
        key = (
            (seats, returns, ranking, g.status, g.termination, g.offender, g.reason),
            *map(type, seats),
            *map(type, returns),
            *map(type, ranking),
        )
        kind = made.get(key)
        if kind is None:
            kind = made[key] = converted_kind(
                seats, returns, ranking, g.status, g.termination, g.offender, g.reason
            )
        shared, seated = kind
        index = g.index
        rows.append((index, g.seed, *shared, g.record, g.duration, g.worker))
        if seated:
            seat_rows += [(index, *seat) for seat in seated]
    return GameRows(rows, seat_rows)


def converted_kind(
    seats: tuple[int, ...],
    returns: tuple[float, ...],
    ranking: tuple[int, ...],
    status: GameStatus,
    termination: Termination,
    offender: int | None,
    reason: ForfeitReason | None,
) -> tuple[tuple[Any, ...], list[tuple[Any, ...]]]:
    """Of a game's row, the values from its seats to its forfeit reason, converted;
    and its seats' rows but the game's index (none for a host error)."""
    word = str(status)
    shared = (
        json.dumps(seats),
        word,
        json.dumps(returns),
        json.dumps(ranking),
        str(termination),
        offender,
        None if reason is None else str(reason),
    )
    if word == GameStatus.ERROR:
        return shared, []
    seated = [
        (seat, bot_id, returns[seat], ranking[seat], offender == seat)
        for seat, bot_id in enumerate(seats)
    ]
    return shared, seated


def played_games(rows: GameRows) -> list[PlayedGame]:
    """The games :func:`game_rows` made ``rows`` of, as they were."""
    return [
        PlayedGame.from_values(
            (
                index,
                seed,
                tuple(json.loads(seats)),
                GameStatus(status),
                tuple(json.loads(returns)),
                tuple(json.loads(ranking)),
                Termination(termination),
                offender,
                None if reason is None else ForfeitReason(reason),
                record,
                duration,
                worker,
            )
        )
        for (
            index,
            seed,
            seats,
            status,
            returns,
            ranking,
            termination,
            offender,
            reason,
            record,
            duration,
            worker,
        ) in rows.games
    ]


def _insert_ignoring_duplicates(
    connection: Connection,
    table: sa.Table,
    names: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    converted: Collection[str] = (),
) -> None:
    """Insert ``rows`` (each a value per column of ``names``, in that order), skipping
    those already stored; the values of the columns in ``converted`` are converted
    already (:func:`game_rows`).

    SQLite and PostgreSQL get one statement executed for every row at once by the
    database driver, the values converted by the columns' own types: SQLAlchemy's
    executemany costs several times the database's own work per row (the driver
    stores every game this way). Rows are tuples, not dicts: building a dict per row
    and reading it back cost the driver a third of storing a game."""
    if not rows:
        return
    dialect = connection.dialect
    if dialect.name == "sqlite":
        statement: sa.Insert = sqlite.insert(table).on_conflict_do_nothing()
    elif dialect.name == "postgresql":
        statement = postgresql.insert(table).on_conflict_do_nothing()
    else:  # other databases: insert one by one, skipping rows that already exist
        statement = table.insert()
    # inline(): no RETURNING of the new ids, which an executemany cannot return.
    compiled = statement.inline().compile(dialect=dialect, column_keys=list(names))
    order = compiled.positiontup if dialect.positional else list(compiled.params)
    assert order is not None
    position_of = {name: position for position, name in enumerate(names)}
    take = [position_of[name] for name in order]
    converters = [
        (position, convert)
        for position, name in enumerate(order)
        if name not in converted
        and (convert := table.c[name].type.dialect_impl(dialect).bind_processor(dialect))
    ]
    # Converted column by column (a list comprehension per column, not a loop over
    # every value of every row): a column's converted values are reused, the batch's
    # one stored time converted once and each small tuple's JSON (a game's seats,
    # returns and places repeat across the batch; ``json.dumps`` costs microseconds)
    # once per distinct tuple.
    columns: list[Sequence[Any]] = list(zip(*rows, strict=True))
    ordered = [columns[index] for index in take]
    for position, convert in converters:
        ordered[position] = _converted(ordered[position], convert)
    parameters: list[Any] = (
        list(zip(*ordered, strict=True))
        if dialect.positional
        else [dict(zip(order, values, strict=True)) for values in zip(*ordered, strict=True)]
    )
    if dialect.name in ("sqlite", "postgresql"):
        connection.exec_driver_sql(str(compiled), parameters)
        return
    for parameter in parameters:
        try:
            with connection.begin_nested():
                connection.exec_driver_sql(str(compiled), parameter)
        except sa.exc.IntegrityError:
            pass


def _converted(values: Sequence[Any], convert: Callable[[Any], Any]) -> list[Any]:
    """``values`` converted by ``convert``, each distinct value once."""
    first = values[0]
    if len(set(map(id, values))) == 1:  # one object throughout: a batch's stored time
        return [convert(first)] * len(values)
    # A key holds the value's type, and a tuple's its items' types: True == 1 and
    # (1, 0) == (1.0, 0.0), but they are stored differently.
    done: dict[tuple[Any, ...], Any] = {}
    try:
        if type(first) is tuple:
            keys = [(value, *map(type, value)) for value in values]
        else:
            keys = [(value, type(value)) for value in values]
        return [
            done[key] if key in done else done.setdefault(key, convert(value))
            for key, value in zip(keys, values, strict=True)
        ]
    except TypeError:  # an unhashable value or item: convert each
        return [convert(value) for value in values]


def store_games(session: Session, tournament_id: int, games: Sequence[PlayedGame]) -> None:
    """Store played games and their seats (duplicates ignored)."""
    store_rows(session, tournament_id, [game_rows(games)])


def store_rows(session: Session, tournament_id: int, batches: Sequence[GameRows]) -> None:
    """Store the games of ``batches`` (:func:`game_rows`) and their seats as played in
    the tournament now (duplicates ignored)."""
    games = [row for rows in batches for row in rows.games]
    seats = [row for rows in batches for row in rows.seats]
    constants = {"tournament_id": tournament_id, "created": utcnow()}
    connection = session.connection()
    _insert_converted(connection, GAME_TABLE, GAME_ROW_COLUMNS, games, constants)
    _insert_converted(connection, SEAT_TABLE, SEAT_ROW_COLUMNS, seats, constants)


def _insert_converted(
    connection: Connection,
    table: sa.Table,
    names: Sequence[str],
    rows: Sequence[tuple[Any, ...]],
    constants: dict[str, Any],
) -> None:
    """Insert ``rows`` (each the converted values of the columns ``names``, in the
    table's order) with the table's columns among ``constants`` set to their value
    there, skipping the rows already stored: :func:`_insert_ignoring_duplicates`
    without its conversion and with no tuple built per row. SQLite gets the constants as
    literals of the statement (their text as the columns' types convert them)."""
    if not rows:
        return
    dialect = connection.dialect
    batch = {name: value for name, value in constants.items() if name in table.c}
    if dialect.name == "sqlite":
        literals: dict[str, Any] = {}
        for name, value in batch.items():
            convert = table.c[name].type.dialect_impl(dialect).bind_processor(dialect)
            literals[name] = sa.literal_column(
                _sqlite_literal(convert(value) if convert else value)
            )
        statement = sqlite.insert(table).values(literals).on_conflict_do_nothing()
        # inline(): no RETURNING of the new ids, which an executemany cannot return.
        compiled = statement.inline().compile(dialect=dialect, column_keys=list(names))
        assert compiled.positiontup == list(names), compiled.positiontup
        connection.exec_driver_sql(str(compiled), rows)
        return
    every = [*batch, *names]
    parameters = [(*batch.values(), *row) for row in rows]
    _insert_ignoring_duplicates(connection, table, every, parameters, converted=names)


def _sqlite_literal(value: Any) -> str:
    """``value`` (an int or a text without quotes: an id, a stored time) as an SQLite
    literal.

    Raises:
        TypeError: any other value.
    """
    if type(value) is int:
        return str(value)
    if type(value) is str and "'" not in value:
        return f"'{value}'"
    raise TypeError(f"not a literal the store writes: {value!r}")


def schedule_games(session: Session, tournament_id: int, games: Iterable[PlannedGame]) -> None:
    """Write planned games, a page at a time (a generated schedule of a million games
    is never a list), and raise the tournament's scheduled count."""
    connection = session.connection()
    source = iter(games)
    while page := list(itertools.islice(source, PAGE_ROWS)):
        rows = [(tournament_id, g.index, g.batch, g.seed, g.seats) for g in page]
        _insert_ignoring_duplicates(connection, SCHEDULE_TABLE, SCHEDULE_COLUMNS, rows)
    count = session.exec(
        select(func.count()).where(ScheduledGame.tournament_id == tournament_id)
    ).one()
    session.exec(
        sa.update(Tournament).where(col(Tournament.id) == tournament_id).values(scheduled=count)
    )


def set_generated_schedule(session: Session, tournament_id: int, games: int) -> None:
    """Say that the tournament's schedule is generated, not written, and how many games
    it holds (in the caller's transaction)."""
    session.exec(
        sa.update(Tournament)
        .where(col(Tournament.id) == tournament_id)
        .values(scheduled=games, schedule_generated=True)
    )


def schedule_is_generated(session: Session, tournament_id: int) -> bool:
    """Whether the tournament's schedule is generated (:func:`set_generated_schedule`)
    rather than written as ``scheduled_game`` rows."""
    t = TOURNAMENT_TABLE
    query = sa.select(t.c.schedule_generated).where(t.c.id == tournament_id)
    return bool(session.connection().execute(query).scalar())


def stored_indexes(session: Session, tournament_id: int, *, first: int, stop: int) -> set[int]:
    """The indexes of the stored games from ``first`` up to (not including) ``stop``:
    what a generated schedule's page has played. A page played whole (most of them, on
    a resume) is told by its count alone."""
    g = GAME_TABLE
    window = (g.c.tournament_id == tournament_id, g.c.index >= first, g.c.index < stop)
    connection = session.connection()
    count = connection.execute(sa.select(sa.func.count()).where(*window)).scalar_one()
    if count == 0:
        return set()
    if count == stop - first:
        return set(range(first, stop))
    return set(connection.execute(sa.select(g.c.index).where(*window)).scalars())


def drop_unplayed(session: Session, tournament_id: int) -> int:
    """Unschedule the scheduled games without a stored result, lowering the
    tournament's scheduled count: a decided SPRT plays no more. Returns how many were
    dropped."""
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
    session: Session,
    tournament_id: int,
    status: TournamentStatus,
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
    if status != TournamentStatus.CANCELLED:
        update = update.where(col(Tournament.status) != TournamentStatus.CANCELLED)
    session.exec(update.values(**values))


def read_status(session: Session, tournament_id: int) -> TournamentStatus:
    """The tournament's status as stored now (not as a loaded row may remember it).

    Raises:
        NotFoundError: no such tournament.
    """
    t = TOURNAMENT_TABLE
    query = sa.select(t.c.status).where(t.c.id == tournament_id)
    status = session.connection().execute(query).scalar()
    if status is None:
        raise NotFoundError(f"no tournament {tournament_id} (see `arena tournament list`)")
    return TournamentStatus(status)


def unplayed_games(
    session: Session, tournament_id: int, *, after: int = -1, limit: int | None = None
) -> list[PlannedGame]:
    """Scheduled games with no stored result, in index order; with ``after`` and
    ``limit``, a page of them (keyset pages: the driver reads a million-game schedule
    a page at a time, each in a short transaction of its own)."""
    s, g = SCHEDULE_TABLE, GAME_TABLE
    query = (
        sa.select(s.c.index, s.c.seed, s.c.seats, s.c.batch)
        .select_from(
            s.outerjoin(g, sa.and_(g.c.tournament_id == s.c.tournament_id, g.c.index == s.c.index))
        )
        .where(s.c.tournament_id == tournament_id, s.c.index > after, g.c.id.is_(None))
        .order_by(s.c.index)
        .limit(limit)
    )
    return [
        PlannedGame(index, seed, tuple(seats), batch)
        for index, seed, seats, batch in session.connection().execute(query)
    ]


def finished_games(session: Session, tournament_id: int) -> list[FinishedGame]:
    """Every stored game that ended normally or by forfeit (not engine errors)."""
    g = GAME_TABLE
    query = (
        sa.select(g.c.index, g.c.seed, g.c.seats, g.c.ranking, g.c.returns)
        .where(g.c.tournament_id == tournament_id, g.c.status != GameStatus.ERROR)
        .order_by(g.c.index)
    )
    return [
        FinishedGame(index, seed, tuple(seats), tuple(ranking), tuple(returns))
        for index, seed, seats, ranking, returns in session.connection().execute(query)
    ]


def schedule_state(session: Session, tournament_id: int) -> tuple[int, int, int]:
    """(scheduled games, next free index, next batch number). A generated schedule is
    one batch of its games."""
    t = TOURNAMENT_TABLE
    generated, scheduled = (
        session.connection()
        .execute(sa.select(t.c.schedule_generated, t.c.scheduled).where(t.c.id == tournament_id))
        .one()
    )
    if generated:
        return int(scheduled), int(scheduled), 1
    s = SCHEDULE_TABLE
    count, last_index, last_batch = (
        session.connection()
        .execute(
            sa.select(sa.func.count(), sa.func.max(s.c.index), sa.func.max(s.c.batch)).where(
                s.c.tournament_id == tournament_id
            )
        )
        .one()
    )
    return (
        int(count),
        0 if last_index is None else int(last_index) + 1,
        0 if last_batch is None else int(last_batch) + 1,
    )


def count_stored(session: Session, tournament_id: int) -> int:
    return int(
        session.connection()
        .execute(sa.select(sa.func.count()).where(GAME_TABLE.c.tournament_id == tournament_id))
        .scalar_one()
    )


def holds_lease(session: Session, tournament_id: int, token: str) -> bool:
    """Whether the driver with lease ``token`` still holds the tournament, read in the
    caller's write transaction (the row locked on PostgreSQL; SQLite's write transaction
    already excludes every other writer), so that what it stores next cannot follow a
    takeover."""
    table = TOURNAMENT_TABLE
    held = session.connection().execute(
        sa.select(table.c.lease_token).where(table.c.id == tournament_id).with_for_update()
    )
    return held.scalar() == token


def write_driver_state(session: Session, tournament_id: int, stored: int, state: bytes) -> None:
    """Replace the tournament's driver state (in the caller's transaction: the one
    storing the games it counts)."""
    # Two core statements, not the ORM's merge: written with every batch of games.
    table = DRIVER_STATE_TABLE
    connection = session.connection()
    updated = connection.execute(
        sa.update(table)
        .where(table.c.tournament_id == tournament_id)
        .values(stored=stored, state=state)
    )
    if updated.rowcount == 0:
        connection.execute(
            sa.insert(table).values(tournament_id=tournament_id, stored=stored, state=state)
        )


def read_driver_state(session: Session, tournament_id: int) -> tuple[int, bytes] | None:
    """The driver state last written for the tournament and the games it counts."""
    row = session.get(DriverState, tournament_id)
    return None if row is None else (row.stored, row.state)


def participants(session: Session, tournament_id: int) -> list[Participant]:
    return list(
        session.exec(
            select(Participant)
            .where(Participant.tournament_id == tournament_id)
            .order_by(col(Participant.position))
        ).all()
    )


def scheduled_seeds(session: Session, tournament_id: int) -> list[int]:
    """The distinct deal seeds of the scheduled games, in the order of their first game."""
    s = SCHEDULE_TABLE
    first = sa.func.min(s.c.index)
    query = (
        sa.select(s.c.seed)
        .where(s.c.tournament_id == tournament_id)
        .group_by(s.c.seed)
        .order_by(first)
    )
    return [int(seed) for (seed,) in session.connection().execute(query)]
