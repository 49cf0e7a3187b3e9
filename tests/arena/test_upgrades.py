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

from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from arena.cli import app
from arena.errors import StorageError
from arena.store import migrations
from arena.store.bots import reserved_kind
from arena.store.db import open_database
from arena.store.migrations import LATEST, current_version
from tests.arena.database_rows import (
    FIXTURES,
    SMALL_TOURNAMENT,
    Rows,
    fingerprint,
    old_database,
    read_rows,
    schema_of,
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
    if version < 17 and "ladder_rating" in after:  # v17: games, not pair results
        ladders = columns["ladder"]
        seats_of = {
            row[ladders.index("id")]: row[ladders.index("seats")] for row in after["ladder"]
        }
        names = columns["ladder_rating"]
        ladder_id, games = names.index("ladder_id"), names.index("games")
        after["ladder_rating"] = sorted(
            (
                (
                    *row[:games],
                    row[games] // max(1, seats_of[row[ladder_id]] - 1),
                    *row[games + 1 :],
                )
                for row in after["ladder_rating"]
            ),
            key=repr,
        )
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
        assert changed <= {"bot", "driver_state", "ladder_rating", migrations.VERSION_TABLE}
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
            result = runner.invoke(app, [*args, "--db", url])
            assert result.exit_code == 0, result.output
            return result.output

        arena("tournament", "list")
        assert "koenigsgarten" in arena("report", "1").splitlines()[0]
        arena(*SMALL_TOURNAMENT, "2")
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
