"""The database layer: migrations, URL handling, duplicate-free game storage."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import Session, SQLModel

import arena.store.models  # noqa: F401  (registers the tables on SQLModel.metadata)
from arena.errors import StorageError
from arena.play.results import GameStatus, PlayedGame
from arena.store.db import open_database, resolve_url, session_scope, writer
from arena.store.games import count_stored, store_games
from arena.store.migrations import LATEST, VERSION_TABLE, current_version, migrate
from arena.store.models import TournamentStatus
from engines.outcome import Termination


def test_migrated_schema_equals_the_models(db_url: str) -> None:
    engine = open_database(db_url)
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "compare_server_default": False}
        )
        differences = [
            d
            for d in compare_metadata(context, SQLModel.metadata)
            if not (d[0] == "remove_table" and d[1].name == VERSION_TABLE)
        ]
    assert differences == []


def test_migrations_run_once_and_are_recorded(db_url: str) -> None:
    url = db_url
    open_database(url)
    engine = open_database(url)
    with writer(engine).begin() as connection:
        assert current_version(connection) == LATEST
        assert migrate(connection) == []
        rows = connection.execute(sa.text(f"SELECT version FROM {VERSION_TABLE}")).all()
    assert [r[0] for r in rows] == list(range(1, LATEST + 1))


def test_a_database_newer_than_the_program_is_refused(db_url: str) -> None:
    url = db_url
    engine = open_database(url)
    with writer(engine).begin() as connection:
        connection.execute(sa.text(f"INSERT INTO {VERSION_TABLE} VALUES ({LATEST + 1})"))
    with pytest.raises(StorageError, match="newer than this arena"):
        open_database(url)


def test_sqlite_uses_wal(tmp_path: Path) -> None:
    engine = open_database(str(tmp_path / "a.db"))
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_urls_resolve_from_flag_environment_and_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("ARENA_DB", raising=False)
    assert resolve_url(None) == "sqlite:///arena.db"
    monkeypatch.setenv("ARENA_DB", "postgresql+psycopg://u@h/db")
    assert resolve_url(None) == "postgresql+psycopg://u@h/db"
    assert resolve_url(str(tmp_path / "x.db")) == f"sqlite:///{tmp_path / 'x.db'}"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql+psycopg://arena:secret@127.0.0.1:1/arena", "cannot reach database"),
        ("nosuchdb://x/y", "bad database URL"),
        ("sqlite:////nonexistent/folder/a.db", "does not exist"),
    ],
)
def test_unusable_databases_give_clear_errors(url: str, message: str) -> None:
    with pytest.raises(StorageError, match=message) as excinfo:
        open_database(url)
    assert "secret" not in str(excinfo.value)


def _played(index: int) -> PlayedGame:
    return PlayedGame(
        index=index,
        seed=index,
        seats=(1, 2),
        status=GameStatus.OK,
        returns=(1.0, -1.0),
        ranking=(1, 2),
        termination=Termination.FOUR_IN_A_PATTERN,
        offender=None,
        reason=None,
        record="{}",
        duration=0.0,
        worker="w",
    )


def two_bots_playing(engine: sa.Engine, tournaments: int = 1) -> None:
    """Bots 1 and 2 and ``tournaments`` running tournaments (ids from 1) of theirs."""
    with writer(engine).begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO bot (id, name, version, game, kind, entry, params, code_hash, "
                "created, retired) VALUES "
                "(1, 'a', 1, 'koenigsgarten', 'builtin', 'random', '{}', 'h', '2026-01-01', "
                "false), "
                "(2, 'b', 1, 'koenigsgarten', 'builtin', 'random', '{}', 'h2', '2026-01-01', false)"
            )
        )
        for tournament_id in range(1, tournaments + 1):
            connection.execute(
                sa.text(
                    "INSERT INTO tournament (id, name, game, options, format, config, seed, "
                    f"status, scheduled, created) VALUES ({tournament_id}, 't', "
                    "'koenigsgarten', '{}', 'round-robin', '{}', 1, 'running', 3, '2026-01-01')"
                )
            )


def test_storing_a_game_twice_keeps_one_copy(db_url: str) -> None:
    engine = open_database(db_url)
    two_bots_playing(engine)
    with session_scope(engine) as session:
        store_games(session, 1, [_played(0), _played(1)])
    with session_scope(engine) as session:
        store_games(session, 1, [_played(1), _played(2)])
    with Session(engine) as session:
        assert count_stored(session, 1) == 3
    with engine.connect() as connection:
        seats = connection.execute(sa.text("SELECT count(*) FROM game_seat")).scalar()
    assert seats == 6
    # A batch's equal lists share their converted JSON, but equal is not the same:
    # (1, -1) == (1.0, -1.0), and each must be stored as it was given.
    whole = dataclasses.replace(_played(3), returns=(1, -1))  # type: ignore[arg-type]
    turned = dataclasses.replace(_played(4), seats=(2, 1), ranking=(2, 1))
    with session_scope(engine) as session:
        store_games(session, 1, [_played(5), whole, turned, _played(6)])
    with engine.connect() as connection:
        rows = connection.execute(
            sa.text('SELECT "index", seats, returns, ranking FROM game WHERE "index" >= 3')
        ).all()
    stored = {index: (seats, returns, ranking) for index, seats, returns, ranking in rows}
    decoded = {
        index: tuple(json.loads(text) if isinstance(text, str) else text for text in columns)
        for index, columns in stored.items()
    }
    assert decoded[3] == ([1, 2], [1, -1], [1, 2])
    assert decoded[4] == ([2, 1], [1.0, -1.0], [2, 1])
    assert decoded[5] == decoded[6] == ([1, 2], [1.0, -1.0], [1, 2])
    assert all(type(value) is int for value in decoded[3][1])
    assert all(type(value) is float for value in decoded[5][1])


def test_upgrading_an_old_database_keeps_its_data(db_url: str) -> None:
    from alembic.operations import Operations

    from arena.store.migrations import MIGRATIONS

    engine = open_database(db_url, migrate_schema=False)
    with writer(engine).begin() as connection:
        connection.execute(sa.text(f"CREATE TABLE {VERSION_TABLE} (version INTEGER)"))
        op = Operations(MigrationContext.configure(connection))
        for number, step in enumerate(MIGRATIONS[:3], start=1):
            step(op)
            connection.execute(sa.text(f"INSERT INTO {VERSION_TABLE} VALUES ({number})"))
        connection.execute(
            sa.text(
                "INSERT INTO bot (id, name, version, game, kind, entry, params, code_hash, "
                "created, retired) VALUES (1, 'rnd', 1, 'koenigsgarten', 'builtin', 'random', "
                "'{}', 'h', '2026-01-01', false)"
            )
        )
        connection.execute(
            sa.text(
                "INSERT INTO tournament (id, name, game, options, format, config, seed, "
                "status, scheduled, created) VALUES (1, 't', 'koenigsgarten', '{}', "
                "'round-robin', '{}', 1, 'completed', 1, '2026-01-01')"
            )
        )
        connection.execute(
            sa.text(
                "INSERT INTO game_seat (tournament_id, game_index, seat, bot_id, score, place, "
                "forfeit) VALUES (1, 0, 0, 1, 1.0, 1, false)"
            )
        )
    upgraded = open_database(db_url)
    with writer(upgraded).begin() as connection:
        assert current_version(connection) == LATEST
        assert connection.execute(sa.text("SELECT name, game FROM bot")).all() == [
            ("rnd", "koenigsgarten")
        ]
        assert connection.execute(sa.text("SELECT bot_id FROM game_seat")).all() == [(1,)]
        # Since version 4 a name may be taken once per game.
        connection.execute(
            sa.text(
                "INSERT INTO bot (id, name, version, game, kind, entry, params, code_hash, "
                "created, retired) VALUES (2, 'rnd', 1, 'blumengarten', 'builtin', 'random', "
                "'{}', 'h', '2026-01-01', false)"
            )
        )


def test_the_upgrade_tells_a_claimed_tournament_from_a_pending_one(db_url: str) -> None:
    engine = open_database(db_url, migrate_schema=False)
    with writer(engine).begin() as connection:
        migrate(connection, upto=5)  # "pending" meant created, or claimed by a worker
        connection.execute(
            sa.text(
                "INSERT INTO account (id, name, token_hash, created) "
                "VALUES (1, 'alice', 'h', '2026-01-01')"
            )
        )
        for id_, status, owner in [
            (1, "pending", None),  # created on the command line
            (2, "pending", 1),  # queued over the web, then claimed by a worker
            (3, "queued", 1),
            (4, "completed", 1),
        ]:
            connection.execute(
                sa.text(
                    "INSERT INTO tournament (id, name, game, options, format, config, seed, "
                    "status, scheduled, created, owner_id) VALUES (:id, 't', 'koenigsgarten', "
                    "'{}', 'round-robin', '{}', 1, :status, 0, '2026-01-01', :owner)"
                ),
                {"id": id_, "status": status, "owner": owner},
            )
    upgraded = open_database(db_url)
    with upgraded.connect() as connection:
        rows = connection.execute(sa.text("SELECT id, status FROM tournament ORDER BY id")).all()
    assert [tuple(row) for row in rows] == [
        (1, TournamentStatus.PENDING),
        (2, TournamentStatus.CLAIMED),
        (3, TournamentStatus.QUEUED),
        (4, TournamentStatus.COMPLETED),
    ]
