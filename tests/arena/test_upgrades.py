"""Upgrades: a database an older release wrote migrates to the current schema with
every row intact, on SQLite and PostgreSQL, and a failed migration leaves it as it was.

The databases in ``tests/arena/old_databases`` were written by old releases (each
folder's ``make_*.py`` says which commit and how): ``v1.db`` by the first release with
migrations (schema 1, the oldest arena migrates: bots, tournaments, games) and
``v13.db`` by the oldest release with ladders and live browser games (schema 13: a
ladder and its ratings, accounts, an operator, a stored and an open browser game,
rating snapshots, driver states). On PostgreSQL the old schema is built by the same
released migrations and the old release's rows are copied into it.

Each table's rows are counted and hashed before and after (the columns the old schema
had, in a canonical form); the after must equal the before with exactly the changes
the migrations document applied to it, computed here from the before rows.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from typer.testing import CliRunner

from arena.cli import app
from arena.errors import StorageError
from arena.store import migrations
from arena.store.bots import reserved_kind
from arena.store.db import open_database
from arena.store.migrations import LATEST, current_version

OLD = Path(__file__).parent / "old_databases"
FIXTURES = {"v1.db": 1, "v13.db": 13}
Rows = dict[str, list[tuple[Any, ...]]]
"""Each table's rows (the columns of the old schema, canonical values), sorted."""


def canonical(value: Any) -> Any:
    """One form for a value whatever the driver returned (JSON text or objects, bytes)."""
    if isinstance(value, bytes | memoryview):
        return "0x" + bytes(value).hex()
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def read_rows(connection: Connection, columns: dict[str, list[str]]) -> Rows:
    rows: Rows = {}
    for table, names in columns.items():
        quoted = ", ".join(f'"{name}"' for name in names)
        result = connection.execute(sa.text(f'SELECT {quoted} FROM "{table}"'))
        rows[table] = sorted((tuple(canonical(value) for value in row) for row in result), key=repr)
    return rows


def schema_of(engine: Engine) -> dict[str, list[str]]:
    """Every table and its columns, in the database's order."""
    inspector = sa.inspect(engine)
    return {
        table: [column["name"] for column in inspector.get_columns(table)]
        for table in sorted(inspector.get_table_names())
    }


def fingerprint(rows: Rows) -> dict[str, tuple[int, str]]:
    """Each table's row count and the SHA-256 of its canonical rows."""
    return {
        table: (len(values), hashlib.sha256(repr(values).encode()).hexdigest())
        for table, values in rows.items()
    }


@contextmanager
def old_database(name: str, db_url: str) -> Iterator[str]:
    """The old release's database at ``db_url``: the file itself on SQLite, its schema
    by the released migrations and its rows copied on PostgreSQL."""
    if not db_url.startswith("postgresql"):
        shutil.copyfile(OLD / name, db_url)
        yield db_url
        return
    source = sa.create_engine(f"sqlite:///{OLD / name}")
    target = sa.create_engine(db_url)
    try:
        with target.begin() as connection:
            migrations.migrate(connection, upto=FIXTURES[name])
        copy_rows(source, target)
        yield db_url
    finally:
        source.dispose()
        target.dispose()


def copy_rows(source: Engine, target: Engine) -> None:
    """Every row of ``source`` into the same tables of ``target`` (parents first), and
    each id sequence moved past the copied ids."""
    old = sa.MetaData()
    old.reflect(source)
    new = sa.MetaData()
    new.reflect(target)
    with source.connect() as reader, target.begin() as writer:
        for table in new.sorted_tables:
            if table.name == migrations.VERSION_TABLE:
                continue
            rows = [dict(row._mapping) for row in reader.execute(old.tables[table.name].select())]
            if rows:
                writer.execute(table.insert(), rows)
            if "id" in table.c and isinstance(table.c.id.type, sa.Integer):
                writer.execute(
                    sa.text(
                        f"SELECT setval(pg_get_serial_sequence('\"{table.name}\"', 'id'), "
                        f'coalesce(max(id), 0) + 1, false) FROM "{table.name}"'
                    )
                )


def expected_after(before: Rows, columns: dict[str, list[str]], version: int) -> Rows:
    """``before`` with the data changes the migrations after ``version`` document."""
    after = {table: list(rows) for table, rows in before.items()}
    added = [(number,) for number in range(version + 1, LATEST + 1)]
    after[migrations.VERSION_TABLE] = sorted(after[migrations.VERSION_TABLE] + added, key=repr)
    if version < 5 and "bot" in after:  # v5: a submitted bot named like a built-in is renamed
        names = columns["bot"]
        name, kind, entry = (names.index(column) for column in ("name", "kind", "entry"))
        renamed = []
        for row in after["bot"]:
            reserved = reserved_kind(row[name])
            if reserved is not None and not (row[kind] == "builtin" and row[entry] == reserved):
                row = (*row[:name], f"{row[name]}.submitted", *row[name + 1 :])
            renamed.append(row)
        after["bot"] = sorted(renamed, key=repr)
    if version < 15 and "driver_state" in after:  # v15: pickled tournament states dropped
        ladder_column = columns["ladder"].index("tournament_id")
        ladders = {row[ladder_column] for row in after.get("ladder", [])}
        column = columns["driver_state"].index("tournament_id")
        after["driver_state"] = [row for row in after["driver_state"] if row[column] in ladders]
    return after


def snapshot(url: str) -> tuple[dict[str, list[str]], Rows, int]:
    engine = open_database(url, migrate_schema=False)
    try:
        columns = schema_of(engine)
        with engine.connect() as connection:
            return columns, read_rows(connection, columns), current_version(connection)
    finally:
        engine.dispose()


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_an_old_database_migrates_with_every_row_intact(name: str, db_url: str) -> None:
    with old_database(name, db_url) as url:
        columns, before, version = snapshot(url)
        assert version == FIXTURES[name]
        assert sum(len(rows) for rows in before.values()) > 100  # a real database
        open_database(url).dispose()  # the upgrade, as every command does it
        _, after_rows, new_version = snapshot(url)
        assert new_version == LATEST
        engine = open_database(url)
        try:
            with engine.connect() as connection:
                after = read_rows(connection, columns)
        finally:
            engine.dispose()
        expected = expected_after(before, columns, version)
        assert fingerprint(after) == fingerprint(expected)
        assert after == expected
        changed = {table for table in before if before[table] != after[table]}
        # What changed is only what the migrations say they change.
        assert changed <= {"bot", "driver_state", migrations.VERSION_TABLE}, changed
        if version < 5:
            assert "bot" in changed  # the fixture's submitted "greedy" was renamed
        assert set(after_rows) >= set(before)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_an_upgraded_database_serves_the_commands(name: str, db_url: str) -> None:
    """What the old release stored reads and grows with today's commands."""
    runner = CliRunner()
    with old_database(name, db_url) as url:
        stored = len(snapshot(url)[1]["game"])

        def arena(*args: str) -> str:
            result = runner.invoke(app, [*args, "--db", url], env={"COLUMNS": "200"})
            assert result.exit_code == 0, result.output
            return result.output

        listing = arena("tournament", "list")
        assert "koenigsgarten" in listing
        assert "games" in arena("report", "1")
        arena(
            "tournament",
            "run",
            "--game",
            "koenigsgarten",
            "--type",
            "round-robin",
            "-b",
            "random",
            "-b",
            "first-legal",
            "--games",
            "2",
            "--seed",
            "5",
            "--executor",
            "local",
        )
        engine = open_database(url)
        try:
            with engine.connect() as connection:
                games = connection.execute(sa.text("SELECT count(*) FROM game")).scalar()
        finally:
            engine.dispose()
        assert games == stored + 2
        if FIXTURES[name] >= 9:
            assert "koenigsgarten" in arena("ladder", "show", "koenigsgarten")
        if FIXTURES[name] >= 12:
            assert_live_games_continue(url)


def assert_live_games_continue(url: str) -> None:
    """Every open browser game plays on from where its person left it."""
    from sqlmodel import Session, select

    from arena.store.live_games import replay_live_game
    from arena.store.models import LiveGame

    engine = open_database(url)
    try:
        with Session(engine) as session:
            rows = session.exec(select(LiveGame)).all()
            assert rows
            for row in rows:
                position = replay_live_game(session, row)
                assert len(row.actions) == row.moves >= 1
                assert not position.state.is_terminal()
                assert position.state.legal_actions()
    finally:
        engine.dispose()


def failing_after(migration: Callable[[Any], None]) -> Callable[[Any], None]:
    """``migration`` run, then a failure: as a migration that breaks halfway."""

    def broken(op: Any) -> None:
        migration(op)
        raise RuntimeError("injected failure after the migration's changes")

    return broken


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_a_failed_migration_leaves_the_database_as_it_was(
    name: str, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last migration fails after its changes (and after every migration before it
    applied theirs): schema, rows and version are what the old release left."""
    broken = [*migrations.MIGRATIONS[:-1], failing_after(migrations.MIGRATIONS[-1])]
    monkeypatch.setattr(migrations, "MIGRATIONS", broken)
    with old_database(name, db_url) as url:
        columns, before, version = snapshot(url)
        with pytest.raises(StorageError, match="injected failure"):
            open_database(url)
        columns_after, after, version_after = snapshot(url)
        assert version_after == version
        assert columns_after == columns
        assert fingerprint(after) == fingerprint(before)
