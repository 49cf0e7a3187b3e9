"""Backups (arena.store.backup): a backup restores into an empty database, on SQLite
and PostgreSQL and across them, equal to its source row for row; one taken while a
tournament writes is consistent; bad files and non-empty targets are refused."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from arena.store.backup import BackupError, backup_database, restore_database
from arena.store.db import open_database
from arena.store.migrations import LATEST, VERSION_TABLE
from tests.arena.database_rows import OLD, SMALL_TOURNAMENT, fingerprint, typed_rows
from tests.waiting import wait_until


def upgraded_copy(folder: Path) -> str:
    """The schema-13 release's database (ladders, live games, accounts …), upgraded."""
    path = folder / "source.db"
    shutil.copyfile(OLD / "v13.db", path)
    open_database(str(path)).dispose()
    return str(path)


def rows_of(url: str) -> dict[str, list[tuple[object, ...]]]:
    engine = open_database(url, migrate_schema=False)
    try:
        return typed_rows(engine)
    finally:
        engine.dispose()


def test_a_backup_restores_equal_to_its_source(db_url: str, tmp_path: Path) -> None:
    """SQLite → backup → the target (SQLite or PostgreSQL) → backup → SQLite: every
    table's count and checksum equal at each step."""
    source = upgraded_copy(tmp_path)
    expected = rows_of(source)
    assert sum(len(rows) for rows in expected.values()) > 300
    first = tmp_path / "first.backup"
    summary = backup_database(source, first)
    assert summary.version == LATEST
    assert summary.rows["game"] == len(expected["game"])
    restored = restore_database(first, db_url)
    assert restored == summary
    assert fingerprint(rows_of(db_url)) == fingerprint(expected)
    # and back out of the target (PostgreSQL's snapshot path when it is one)
    second = tmp_path / "second.backup"
    assert backup_database(db_url, second) == summary
    again = tmp_path / "again.db"
    restore_database(second, str(again))
    assert fingerprint(rows_of(str(again))) == fingerprint(expected)


def test_a_restored_database_takes_new_games(db_url: str, tmp_path: Path) -> None:
    """Id sequences continue past the restored rows."""
    backup = tmp_path / "b.backup"
    backup_database(upgraded_copy(tmp_path), backup)
    restore_database(backup, db_url)
    before = len(rows_of(db_url)["game"])
    run_tournament(db_url, games=2)
    assert len(rows_of(db_url)["game"]) == before + 2


def run_tournament(url: str, *, games: int) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "arena", *SMALL_TOURNAMENT, str(games), "--db", url]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return result


def test_a_backup_taken_while_a_tournament_writes_is_consistent(
    db_url: str, tmp_path: Path
) -> None:
    """Backups taken while games are being stored each hold whole games: every game
    with all its seats, every reference resolving."""
    engine = open_database(db_url)
    writer = threading.Thread(target=run_tournament, args=(db_url,), kwargs={"games": 20000})
    writer.start()
    counts = []
    try:
        wait_until(lambda: stored_games(engine) > 0, what="the first stored games")
        for number in range(3):
            backup = tmp_path / f"during{number}.backup"
            summary = backup_database(db_url, backup)
            counts.append(summary.rows["game"])
            with sqlite3.connect(backup) as connection:
                assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
                seats = connection.execute("SELECT count(*) FROM game_seat").fetchone()[0]
                assert seats == 2 * summary.rows["game"]
    finally:
        writer.join(timeout=900)
    assert not writer.is_alive()
    # taken while games were being stored: the first saw some, not all
    assert 0 < counts[0] < stored_games(engine) == 20000
    engine.dispose()


def stored_games(engine: sa.Engine) -> int:
    with engine.connect() as connection:
        return int(connection.execute(sa.text("SELECT count(*) FROM game")).scalar_one())


def test_restore_refuses_a_database_that_has_tables(db_url: str, tmp_path: Path) -> None:
    backup = tmp_path / "b.backup"
    backup_database(upgraded_copy(tmp_path), backup)
    open_database(db_url).dispose()  # an empty arena database still has its tables
    before = rows_of(db_url)
    with pytest.raises(BackupError, match=r"is not empty .* restore into a new database"):
        restore_database(backup, db_url)
    assert rows_of(db_url) == before


def test_backup_refuses_to_overwrite_and_to_invent(tmp_path: Path) -> None:
    source = upgraded_copy(tmp_path)
    target = tmp_path / "b.backup"
    target.write_text("keep me")
    with pytest.raises(BackupError, match="exists: choose a new name or pass --force"):
        backup_database(source, target)
    assert target.read_text() == "keep me"
    backup_database(source, target, overwrite=True)
    missing = tmp_path / "nowhere.db"
    with pytest.raises(BackupError, match="does not exist: nothing to back up"):
        backup_database(str(missing), tmp_path / "c.backup")
    assert not missing.exists()
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith(".")) == []


def test_restore_refuses_what_is_not_an_arena_backup(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    with pytest.raises(BackupError, match="is not an arena backup"):
        restore_database(text, str(tmp_path / "a.db"))
    plain = tmp_path / "plain.db"
    with sqlite3.connect(plain) as connection:
        connection.execute("CREATE TABLE t (x)")
    with pytest.raises(BackupError, match="no schema version"):
        restore_database(plain, str(tmp_path / "b.db"))
    with pytest.raises(BackupError, match="does not exist"):
        restore_database(tmp_path / "missing.backup", str(tmp_path / "c.db"))


def test_restore_refuses_a_backup_newer_than_this_arena(tmp_path: Path) -> None:
    backup = tmp_path / "b.backup"
    backup_database(upgraded_copy(tmp_path), backup)
    with sqlite3.connect(backup) as connection:
        connection.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES ({LATEST + 1})")
    target = tmp_path / "t.db"
    with pytest.raises(BackupError, match="newer than this arena"):
        restore_database(backup, str(target))
    engine = open_database(str(target), migrate_schema=False)
    try:
        assert sa.inspect(engine).get_table_names() == []
    finally:
        engine.dispose()


def test_the_commands_back_up_and_restore(tmp_path: Path) -> None:
    """`arena db backup` and `arena db restore` say what they did; a second backup to
    the same file and a restore into the restored database are refused (exit 2)."""
    from typer.testing import CliRunner

    from arena.cli import app

    runner = CliRunner()
    source = upgraded_copy(tmp_path)
    backup = tmp_path / "nightly.backup"
    target = tmp_path / "restored.db"
    done = runner.invoke(app, ["db", "backup", str(backup), "--db", source])
    assert done.exit_code == 0, done.output
    games = len(rows_of(source)["game"])
    assert f"schema version {LATEST}" in done.output and f"({games} games)" in done.output
    again = runner.invoke(app, ["db", "backup", str(backup), "--db", source])
    assert again.exit_code == 2 and "pass --force" in again.output
    restored = runner.invoke(app, ["db", "restore", str(backup), "--db", str(target)])
    assert restored.exit_code == 0, restored.output
    assert fingerprint(rows_of(str(target))) == fingerprint(rows_of(source))
    twice = runner.invoke(app, ["db", "restore", str(backup), "--db", str(target)])
    assert twice.exit_code == 2 and "is not empty" in twice.output


def test_db_info_names_the_database_its_schema_and_rows_without_changing_it(
    tmp_path: Path,
) -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    runner = CliRunner()
    old = tmp_path / "old.db"
    shutil.copyfile(OLD / "v13.db", old)
    before = old.read_bytes()
    shown = runner.invoke(app, ["db", "info", "--db", str(old)])
    assert shown.exit_code == 0, shown.output
    pending = ", ".join(str(number) for number in range(14, LATEST + 1))
    assert f"schema version 13 of {LATEST}; migrations pending: {pending}" in shown.output
    assert str(old.resolve()) in shown.output
    with sqlite3.connect(old) as connection:
        games = connection.execute("SELECT count(*) FROM game").fetchone()[0]
    assert any(line.split() == ["game", f"{games:,}"] for line in shown.output.splitlines())
    assert old.read_bytes() == before  # neither migrated nor written
    missing = runner.invoke(app, ["db", "info", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    assert not (tmp_path / "none.db").exists()
