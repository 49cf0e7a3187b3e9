"""A command that creates a new database says so on stderr, once."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app
from arena.store.db import open_database


def test_a_new_sqlite_database_is_announced_once(tmp_path: Path) -> None:
    file = tmp_path / "fresh.db"
    said: list[str] = []
    open_database(str(file), announce=said.append).dispose()
    assert said == [f"created a new database at {file.resolve()}"]
    open_database(str(file), announce=said.append).dispose()
    assert len(said) == 1


def test_bots_list_on_a_new_file_says_on_stderr_that_it_created_it(tmp_path: Path) -> None:
    file = tmp_path / "elsewhere" / "arena.db"
    file.parent.mkdir()
    result = CliRunner().invoke(app, ["bots", "list", "--db", str(file)])
    assert result.exit_code == 0, result.output
    assert f"created a new database at {file.resolve()}" in result.stderr
    assert "created a new database" not in result.stdout
    again = CliRunner().invoke(app, ["bots", "list", "--db", str(file)])
    assert "created a new database" not in again.stderr
