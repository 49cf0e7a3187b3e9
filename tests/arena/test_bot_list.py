"""`arena bots list` reads with one SQL query, through the standard library's sqlite3 or
SQLAlchemy: the same bots, counts and order as the table models give."""

from __future__ import annotations

from contextlib import closing
from dataclasses import fields
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import Session, SQLModel, func, select

from arena.store.bot_list import BOT_COLUMNS, ListedBot, listed_bots
from arena.store.bots import add_bot, builtin_source, remove_bot
from arena.store.db import open_database, session_scope
from arena.store.migrations import LATEST
from arena.store.models import BotVersion, GameSeat
from arena.store.quick import SCHEMA_VERSION, open_current_sqlite


def test_the_listed_columns_are_the_models() -> None:
    model = SQLModel.metadata.tables["bot"]
    assert set(BOT_COLUMNS) <= set(model.c.keys())
    assert [field.name for field in fields(ListedBot)] == [*BOT_COLUMNS, "games"]
    assert "bot_id" in SQLModel.metadata.tables["game_seat"].c


def test_the_quick_reader_knows_the_schema_version() -> None:
    assert SCHEMA_VERSION == LATEST


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
                **bot.model_dump(include=set(BOT_COLUMNS)),
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
    quick = open_current_sqlite(f"sqlite:///{tmp_path / 'arena.db'}")
    assert quick is not None
    with closing(quick):
        assert listed_bots(quick, include_retired=True) == expected
        assert listed_bots(quick) == [bot for bot in expected if not bot.retired]
        assert listed_bots(quick, game="koenigsgarten") == expected[:2]


def test_the_quick_reader_leaves_other_databases_to_the_full_way(tmp_path: Path) -> None:
    assert open_current_sqlite(f"sqlite:///{tmp_path / 'missing.db'}") is None
    assert open_current_sqlite("sqlite://") is None
    assert open_current_sqlite("postgresql+psycopg://user@host/db") is None
    older = tmp_path / "older.db"
    engine = open_database(str(older))
    with engine.begin() as connection:
        connection.exec_driver_sql(f"DELETE FROM arena_schema_version WHERE version = {LATEST}")
    engine.dispose()
    assert open_current_sqlite(f"sqlite:///{older}") is None  # needs migrating first
    (tmp_path / "other.db").write_bytes(b"")
    assert open_current_sqlite(f"sqlite:///{tmp_path / 'other.db'}") is None
