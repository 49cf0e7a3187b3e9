"""The list of registered bots, read with SQLAlchemy Core alone so that ``arena bots
list`` loads neither the ORM, SQLModel nor the table models (about half of its start;
docs/benchmarks.md). ``tests/arena/test_bot_list.py`` keeps the columns equal to
:class:`arena.store.models.BotVersion`'s and the list equal to the ORM's."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

BOT = sa.table(
    "bot",
    sa.column("id", sa.Integer),
    sa.column("name", sa.String),
    sa.column("version", sa.Integer),
    sa.column("game", sa.String),
    sa.column("kind", sa.String),
    sa.column("entry", sa.String),
    sa.column("code_hash", sa.String),
    sa.column("created", sa.DateTime(timezone=True)),
    sa.column("retired", sa.Boolean),
)
GAME_SEAT = sa.table("game_seat", sa.column("bot_id", sa.Integer))


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


def listed_bots(
    connection: Connection, *, game: str | None = None, include_retired: bool = False
) -> list[ListedBot]:
    """The bot versions (of ``game``, when given), by name and version, with their game
    counts; retired ones only with ``include_retired``.

    Raises:
        UnknownGameError: ``game`` is no known game.
    """
    games = (
        sa.select(sa.func.count())
        .select_from(GAME_SEAT)
        .where(GAME_SEAT.c.bot_id == BOT.c.id)
        .scalar_subquery()
    )
    query = sa.select(*BOT.c, games.label("games"))
    if game is not None:
        from engines.registry import get_game

        query = query.where(BOT.c.game == get_game(game).name)
    if not include_retired:
        query = query.where(BOT.c.retired.is_(False))
    rows = connection.execute(query.order_by(BOT.c.name, BOT.c.version))
    return [ListedBot(**{**row._mapping, "created": _in_utc(row.created)}) for row in rows]


def _in_utc(moment: datetime) -> datetime:
    # As the models' type reads it: SQLite keeps UTC without an offset.
    return moment.replace(tzinfo=UTC) if moment.utcoffset() is None else moment.astimezone(UTC)
