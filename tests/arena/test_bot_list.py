"""`arena bots list` reads with SQLAlchemy Core: the same bots, counts and order as the
table models give."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session, SQLModel, func, select

from arena.store.bot_list import BOT, GAME_SEAT, ListedBot, listed_bots
from arena.store.bots import add_bot, builtin_source, remove_bot
from arena.store.db import open_database, session_scope
from arena.store.models import BotVersion, GameSeat


def _base_type(column: sa.ColumnElement[object]) -> type[object]:
    kind = column.type
    return type(kind.impl_instance if isinstance(kind, sa.types.TypeDecorator) else kind)


def test_the_core_columns_match_the_models() -> None:
    for core, name in ((BOT, "bot"), (GAME_SEAT, "game_seat")):
        model = SQLModel.metadata.tables[name]
        for column in core.c:
            assert _base_type(column) is _base_type(model.c[column.name]), column.name


def test_the_listed_bots_are_the_stored_ones_with_their_game_counts(tmp_path: Path) -> None:
    engine = open_database(str(tmp_path / "arena.db"))
    with session_scope(engine) as session:
        for name, game, params in (
            ("b", "koenigsgarten", {}),
            ("a", "koenigsgarten", {}),
            ("a", "koenigsgarten", {"seed": "3"}),
            ("c", "blumengarten", {}),
        ):
            add_bot(session, name=name, game=game, source=builtin_source("random", game, params))
    with session_scope(engine) as session:
        remove_bot(session, "b", game="koenigsgarten")
        ids = {bot.label: bot.id for bot in session.exec(select(BotVersion)).all()}
    # Seats of games that were never stored: the count reads game_seat alone.
    plain = sa.create_engine(engine.url)  # no PRAGMA foreign_keys
    with plain.begin() as connection:
        for index, label in enumerate(["a@2", "a@2", "b@1", "a@2", "c@1"]):
            seat = {"tournament_id": 1, "game_index": index, "seat": 0, "bot_id": ids[label]}
            connection.execute(
                sa.insert(GameSeat).values(**seat, score=1.0, place=1, forfeit=False)
            )
    plain.dispose()

    with Session(engine) as session:
        expected = [
            ListedBot(
                **bot.model_dump(include=set(BOT.c.keys())),
                games=session.exec(select(func.count()).where(GameSeat.bot_id == bot.id)).one(),
            )
            for bot in session.exec(
                select(BotVersion).order_by(BotVersion.name, BotVersion.version)  # type: ignore[arg-type]
            ).all()
        ]
    assert [(bot.label, bot.games, bot.retired) for bot in expected] == [
        ("a@1", 0, False),
        ("a@2", 3, False),
        ("b@1", 1, True),
        ("c@1", 1, False),
    ]
    with engine.connect() as connection:
        assert listed_bots(connection, include_retired=True) == expected
        assert listed_bots(connection) == [bot for bot in expected if not bot.retired]
        assert listed_bots(connection, game="koenigsgarten") == expected[:2]
    engine.dispose()
