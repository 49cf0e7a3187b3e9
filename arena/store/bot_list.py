"""The list of registered bots, as ``arena bots list`` shows it.

One SQL query serves both ways of reading it: through the standard library's
``sqlite3`` when the database is an SQLite file already at this program's schema (the
default case; it loads neither SQLAlchemy nor the table models, which cost most of the
command's start, docs/benchmarks.md), and through SQLAlchemy for any other database or
one that needs migrating. ``tests/arena/test_bot_list.py`` keeps the columns equal to
:class:`arena.store.models.BotVersion`'s and both lists equal to the ORM's.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

BOT_COLUMNS = ("id", "name", "version", "game", "kind", "entry", "code_hash", "created", "retired")
"""The columns of table ``bot`` the list shows."""


@dataclass(frozen=True)
class ListedBot:
    """One bot version as ``arena bots list`` shows it."""

    id: int
    name: str
    version: int
    game: str
    kind: str
    entry: str
    code_hash: str
    created: datetime
    retired: bool
    games: int
    """How many games it played (its seats)."""

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"


def bot_query(*, game: str | None, include_retired: bool) -> tuple[str, dict[str, Any]]:
    """The list's SQL with ``:name`` parameters (which both ``sqlite3`` and SQLAlchemy's
    ``text()`` take) and their values; ``game`` is a game's registered name."""
    columns = ", ".join(f"bot.{column}" for column in BOT_COLUMNS)
    conditions: list[str] = []
    parameters: dict[str, Any] = {}
    if game is not None:
        conditions.append("bot.game = :game")
        parameters["game"] = game
    if not include_retired:
        conditions.append("NOT bot.retired")
    where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
    sql = (
        f"SELECT {columns}, (SELECT count(*) FROM game_seat WHERE game_seat.bot_id = bot.id)"
        f" AS games FROM bot{where} ORDER BY bot.name, bot.version"
    )
    return sql, parameters


def listed_bots(
    connection: Connection | sqlite3.Connection,
    *,
    game: str | None = None,
    include_retired: bool = False,
) -> list[ListedBot]:
    """The bot versions (of ``game``, when given), by name and version, with their game
    counts; retired ones only with ``include_retired``. ``connection`` is SQLAlchemy's
    or, for an SQLite file at the current schema, the standard library's.

    Raises:
        UnknownGameError: ``game`` is no known game.
    """
    if game is not None:
        from engines.registry import get_game

        game = get_game(game).name
    sql, parameters = bot_query(game=game, include_retired=include_retired)
    if isinstance(connection, sqlite3.Connection):
        rows: list[Any] = connection.execute(sql, parameters).fetchall()
    else:
        import sqlalchemy as sa

        rows = [tuple(row) for row in connection.execute(sa.text(sql), parameters)]
    return [_listed(row) for row in rows]


def _listed(row: Any) -> ListedBot:
    values = dict(zip((*BOT_COLUMNS, "games"), row, strict=True))
    created = values["created"]
    if isinstance(created, str):  # SQLite keeps the text SQLAlchemy wrote
        created = datetime.fromisoformat(created)
    values["created"] = _in_utc(created)
    values["retired"] = bool(values["retired"])
    return ListedBot(**values)


def _in_utc(moment: datetime) -> datetime:
    # As the models' type reads it: SQLite keeps UTC without an offset.
    return moment.replace(tzinfo=UTC) if moment.utcoffset() is None else moment.astimezone(UTC)
