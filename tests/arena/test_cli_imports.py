"""The command line starts at once: ``arena --help``, ``arena games`` and ``arena bots
list`` load neither Ray, SciPy, NumPy nor (but for the bot list) the database layer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import typer
from sqlalchemy.exc import OperationalError
from typer.testing import CliRunner

from arena.cli import ArenaGroup
from arena.cli import report as report_cli
from arena.cli import tournament as tournament_cli
from arena.report.format import FORMATS as REPORT_FORMATS
from arena.store.db import open_database
from arena.tournament.config import FORMATS as TOURNAMENT_FORMATS
from arena.tournament.progress import DEFAULT_RATING_INTERVAL

ALWAYS_HEAVY = ("ray", "scipy", "numpy", "matplotlib", "alembic", "fastapi", "uvicorn")
DATABASE = ("sqlalchemy", "sqlmodel")

# Imports the command line, then runs commands one after the other in this interpreter;
# prints the heavy modules loaded after the import, then after all the commands (modules
# only accumulate, so none loaded at the end means none loaded by any command).
PROBE = """
import sys

def loaded():
    return " ".join(sorted(name for name in {heavy!r} if name in sys.modules))

from arena.cli import main
print(loaded())
for command in {commands!r}:
    sys.argv = ["arena", *command]
    try:
        main()
    except SystemExit as exc:
        assert not exc.code, (command, exc.code)
print(loaded())
"""


def loaded_modules(
    *commands: tuple[str, ...], heavy: tuple[str, ...], cwd: Path
) -> tuple[list[str], list[str]]:
    """The heavy modules loaded by importing arena.cli, and then by the commands."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=heavy, commands=commands)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    return lines[0].split(), lines[-1].split()


def test_importing_the_command_line_help_and_games_load_nothing_heavy(tmp_path: Path) -> None:
    commands = [("--help",), ("games",), ("tournament", "run", "--help"), ("bench", "--help")]
    imported, ran = loaded_modules(*commands, heavy=ALWAYS_HEAVY + DATABASE, cwd=tmp_path)
    assert imported == ran == []


def test_listing_bots_loads_the_database_but_not_alembic_ray_or_scipy(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    open_database(db).dispose()  # migrated: opening it again needs no Alembic
    _, ran = loaded_modules(
        ("bots", "list", "--db", db), heavy=ALWAYS_HEAVY + DATABASE, cwd=tmp_path
    )
    assert ran == sorted(DATABASE)


def test_the_names_the_command_line_keeps_for_its_help_match_their_sources() -> None:
    assert tournament_cli.TOURNAMENT_TYPES == TOURNAMENT_FORMATS
    assert tournament_cli.DEFAULT_RATING_INTERVAL == DEFAULT_RATING_INTERVAL
    assert report_cli.FORMATS == REPORT_FORMATS


def test_a_database_error_is_one_line_with_exit_code_2() -> None:
    app = typer.Typer(cls=ArenaGroup)

    @app.command("fail")
    def fail() -> None:
        raise OperationalError("SELECT 1", {}, Exception("disk I/O error\nmore detail"))

    @app.command("other")
    def other() -> None:
        pass

    result = CliRunner().invoke(app, ["fail"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: database error: disk I/O error"
