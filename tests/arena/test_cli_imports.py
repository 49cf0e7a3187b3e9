"""The command line starts at once: ``arena --help``, ``arena games`` and ``arena bots
list`` load neither Ray, SciPy, NumPy nor (but for the bot list) the database layer;
``arena --help`` loads no engine, no bot, no pydantic and no command module,
``arena bots list`` reads an SQLite file at the current schema with the standard library
(no SQLAlchemy), any other database with SQLAlchemy Core (no ORM, SQLModel or table
models), and loads no engine, no bot and no bot loader, and a command imports no other
command's module."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from sqlalchemy.exc import OperationalError
from typer.testing import CliRunner

import engines
import engines.cards
from arena.cli import COMMANDS, ArenaGroup, app, build_command, root_options
from arena.cli import bots as bots_cli
from arena.cli import report as report_cli
from arena.cli import tournament as tournament_cli
from arena.play.time_control import TimeClass
from arena.players.sandbox import DEFAULT_LIMITS
from arena.report.format import FORMATS as REPORT_FORMATS
from arena.store.db import open_database
from arena.tournament.config import FORMATS as TOURNAMENT_FORMATS
from arena.tournament.progress import DEFAULT_RATING_INTERVAL

ALWAYS_HEAVY = ("ray", "scipy", "numpy", "matplotlib", "alembic", "fastapi", "uvicorn")
DATABASE = ("sqlalchemy", "sqlmodel")
COMMAND_MODULES = tuple(sorted({f"arena.cli.{entry.module}" for entry in COMMANDS.values()}))
ENGINES_AND_BOTS = ("engines.core", "engines.kardinal", "bots.registry", "arena.players.loader")

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
    commands = [
        ("--help",),
        ("--version",),
        ("games",),
        ("tournament", "run", "--help"),
        ("bench", "--help"),
        ("ladder", "--help"),
    ]
    imported, ran = loaded_modules(*commands, heavy=ALWAYS_HEAVY + DATABASE, cwd=tmp_path)
    assert imported == ran == []


def test_the_top_level_help_loads_no_engine_bot_or_pydantic(tmp_path: Path) -> None:
    imported, ran = loaded_modules(
        ("--help",), heavy=(*ENGINES_AND_BOTS, "pydantic", "typer._adapters"), cwd=tmp_path
    )
    assert imported == ran == []


def test_the_top_level_help_imports_no_command_module(tmp_path: Path) -> None:
    imported, ran = loaded_modules(("--help",), heavy=COMMAND_MODULES, cwd=tmp_path)
    assert imported == ran == []


def test_a_command_imports_its_own_module_only(tmp_path: Path) -> None:
    _, ran = loaded_modules(("games",), heavy=COMMAND_MODULES, cwd=tmp_path)
    assert ran == ["arena.cli.play"]
    _, ran = loaded_modules(("bots", "--help"), heavy=COMMAND_MODULES, cwd=tmp_path)
    assert ran == ["arena.cli.bots"]


def eager_app() -> typer.Typer:
    """The root as it was built before it built its commands lazily: every command
    registered up front, so Typer builds all of them on every start."""
    eager = typer.Typer(
        cls=ArenaGroup,
        name="arena",
        help=app.info.help,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=True,
    )
    eager.callback()(root_options)
    for name, entry in COMMANDS.items():
        target = getattr(importlib.import_module(f"arena.cli.{entry.module}"), entry.attribute)
        if isinstance(target, typer.Typer):
            eager.add_typer(target, name=name)
        else:
            eager.command(name)(target)
    return eager


def test_the_summaries_of_the_lazy_commands_are_their_help() -> None:
    for name, entry in COMMANDS.items():
        command = build_command(name)
        assert command.name == name
        shown = inspect.cleandoc(command.short_help or command.help or "").split("\n\n")[0]
        assert entry.summary == shown, name
        assert not command.hidden and not command.deprecated


def test_the_lazy_root_shows_and_runs_as_the_eager_one() -> None:
    runner = CliRunner()
    eager = eager_app()
    commands = [
        (),
        ("--help",),
        ("gmes",),
        ("--nope",),
        *((name, "--help") for name in COMMANDS),
        ("bots", "list", "--help"),
        ("tournament", "run", "--help"),
    ]
    for command in commands:
        lazy_result = runner.invoke(app, list(command), env={"COLUMNS": "100"})
        eager_result = runner.invoke(eager, list(command), env={"COLUMNS": "100"})
        assert lazy_result.exit_code == eager_result.exit_code, command
        assert lazy_result.output == eager_result.output, command


def test_help_games_and_the_bot_list_load_no_pydantic(tmp_path: Path) -> None:
    # Typer would build a pydantic adapter for every flag and text option on first use.
    db = str(tmp_path / "arena.db")
    open_database(db).dispose()
    commands = [("--help",), ("games",), ("bots", "list", "--db", db), ("games", "-q")]
    _, ran = loaded_modules(*commands, heavy=("pydantic",), cwd=tmp_path)
    assert ran == []


def test_listing_bots_of_a_current_sqlite_file_loads_no_sqlalchemy(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    open_database(db).dispose()  # migrated: the standard library reads it
    heavy = (*ALWAYS_HEAVY, *DATABASE, "arena.store.models")
    _, ran = loaded_modules(("bots", "list", "--db", db), heavy=heavy, cwd=tmp_path)
    assert ran == []


def test_listing_bots_of_another_database_loads_sqlalchemy_core_only(tmp_path: Path) -> None:
    open_database(str(tmp_path / "arena.db")).dispose()  # migrated: no Alembic
    db = f"sqlite+pysqlite:///{tmp_path / 'arena.db'}"  # a URL the quick reader leaves
    heavy = (*DATABASE, "sqlalchemy.orm", "arena.store.models")
    _, ran = loaded_modules(("bots", "list", "--db", db), heavy=heavy, cwd=tmp_path)
    assert ran == ["sqlalchemy"]


@pytest.mark.slow
def test_listing_bots_loads_no_engine_bot_or_bot_loader(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    open_database(db).dispose()
    _, ran = loaded_modules(("bots", "list", "--db", db), heavy=ENGINES_AND_BOTS, cwd=tmp_path)
    assert ran == []


def test_the_engines_errors_load_without_the_engines() -> None:
    probe = "import sys, engines.errors; print('engines.core' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300
    )
    assert result.stdout.strip() == "False", result.stderr


def test_every_name_of_the_engines_package_is_importable_from_it() -> None:
    for name in engines.__all__:
        getattr(engines, name)  # raises AttributeError for a name it cannot load
    assert engines.Card is engines.cards.Card
    assert set(engines.__all__) <= set(dir(engines))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        getattr(engines, "nope")  # noqa: B009


def test_the_names_the_command_line_keeps_for_its_help_match_their_sources() -> None:
    assert tournament_cli.TOURNAMENT_TYPES == TOURNAMENT_FORMATS
    assert tournament_cli.DEFAULT_RATING_INTERVAL == DEFAULT_RATING_INTERVAL
    assert report_cli.FORMATS == REPORT_FORMATS
    assert tuple(TimeClass) == report_cli.TIME_CLASSES
    assert DEFAULT_LIMITS.move_seconds == bots_cli.CHECK_SECONDS


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
