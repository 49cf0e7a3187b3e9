"""The ``arena`` command line: one Typer app per noun, composed on a root app.

Every error the service or the engines raise on bad input is printed as one line
on stderr with exit code 2; no traceback reaches the user.

The command modules import the database, Ray, SciPy and the rest inside their
commands, so that ``arena --help`` or ``arena games`` start at once, and the root
imports a command's module and builds its parameters only when that command runs
(:data:`COMMANDS`); ``tests/arena/test_cli_imports.py`` checks both.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import Any

import typer
import typer.main
from rich.markup import escape
from typer._click import Command, Context, HelpFormatter
from typer.core import TyperCommand, TyperGroup

from arena.cli.console import error_console
from arena.errors import ArenaError
from engines.errors import GameError

EXIT_BAD_INPUT = 2


class ArenaGroup(TyperGroup):
    """The root group: turns our errors into a one-line message and exit code 2."""

    def invoke(self, ctx: Context) -> Any:
        try:
            return super().invoke(ctx)
        except (ArenaError, GameError) as exc:
            _print_error(str(exc))
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except Exception as exc:
            if not _is_database_error(exc):
                raise
            original = getattr(exc, "orig", None) or exc
            _print_error(f"database error: {str(original).strip().splitlines()[0]}")
            raise typer.Exit(EXIT_BAD_INPUT) from None


@dataclass(frozen=True)
class Subcommand:
    """A command of the root: where it is defined and the line ``arena --help`` shows."""

    module: str
    attribute: str
    """A command function or a Typer app of ``arena.cli.<module>``."""
    summary: str
    """The first paragraph of its help (a test keeps them equal)."""


COMMANDS = {
    "games": Subcommand("play", "games", "List the games, their seat counts, bots and options."),
    "play": Subcommand(
        "play", "play", "Play one game or a match between bots and show the result."
    ),
    "replay": Subcommand(
        "play",
        "replay_command",
        "Re-validate every action of a record; name the first illegal one by its index.",
    ),
    "report": Subcommand(
        "report",
        "report",
        "Standings with Elo ± interval, W/D/L or mean place, forfeits, head-to-head.",
    ),
    "leaderboard": Subcommand(
        "report",
        "leaderboard",
        "Rank every bot version across all tournaments of GAME of one seat count and one\n"
        "time-control class (see docs/ratings.md for what counts).",
    ),
    "demo": Subcommand(
        "tournament", "demo", "Run the embedded demo tournament and print its report."
    ),
    "solitaire": Subcommand(
        "solitaire",
        "solitaire",
        "Play the same deals with every bot; print each bot's win rate with a 95% Wilson\n"
        "interval and its mean score.",
    ),
    "serve": Subcommand(
        "web",
        "serve",
        "Serve the pages and the JSON API (docs at /api/docs) over the database. It states\n"
        "the sandbox's isolation at start, and takes bot uploads only if it is complete.",
    ),
    "worker": Subcommand(
        "web",
        "worker",
        "Run tournaments queued over the web, one at a time, until stopped; play started\n"
        "ladders while the queue is empty.",
    ),
    "bots": Subcommand("bots", "app", "Register, list, inspect and retire bots."),
    "ladder": Subcommand(
        "ladder",
        "app",
        "Start, stop, show and play continuous ladders: every active bot of a game rated.",
    ),
    "tournament": Subcommand(
        "tournament", "app", "Run, resume, list, inspect and cancel tournaments."
    ),
    "deals": Subcommand("deals", "app", "Make deal files: the same deals for several tournaments."),
    "bench": Subcommand("bench", "app", "Measure speed; figures go into docs/benchmarks.md."),
    "cluster": Subcommand(
        "cluster", "app", "Keep a local Ray cluster warm for `--executor ray`: start, stop, status."
    ),
    "solve": Subcommand(
        "solve", "app", "Solve one deal of a patience, or a Königsgarten position, exactly."
    ),
    "users": Subcommand(
        "web",
        "users_app",
        "Accounts of the web API: each has a token for submitting bots and tournaments.",
    ),
}
"""The root's commands in the order of ``arena --help``."""


def build_command(name: str) -> Command:
    """The command ``name`` of :data:`COMMANDS` as Typer builds it, importing its module."""
    entry = COMMANDS[name]
    target = getattr(importlib.import_module(f"arena.cli.{entry.module}"), entry.attribute)
    holder = typer.Typer()
    if isinstance(target, typer.Typer):
        holder.add_typer(target, name=name)
    else:
        holder.command(name)(target)
    return typer.main.get_group(holder).commands[name]


class _Summary(TyperCommand):
    """Stands for a command of :data:`COMMANDS` in the root's help until it runs."""


class RootGroup(ArenaGroup):
    """The ``arena`` group: builds a command of :data:`COMMANDS` only when it runs, and
    lists them all in its help (and its "did you mean") from their summaries."""

    _listing = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        summaries = {name: _Summary(name, short_help=c.summary) for name, c in COMMANDS.items()}
        self.commands = {**summaries, **self.commands}

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = super().get_command(ctx, cmd_name)
        if isinstance(command, _Summary) and not self._listing:
            command = self.commands[cmd_name] = build_command(cmd_name)
        return command

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


def _is_database_error(exc: Exception) -> bool:
    # SQLAlchemy is imported by the commands that use the database; an error of it
    # can only come after that import.
    errors = sys.modules.get("sqlalchemy.exc")
    return errors is not None and isinstance(exc, errors.SQLAlchemyError)


def _print_error(message: str) -> None:
    error_console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)


app = typer.Typer(
    cls=RootGroup,
    name="arena",
    help="Tournaments and ratings for bots playing card games.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    # Without a callback Typer makes a group only of registered commands; RootGroup
    # adds the commands of COMMANDS itself.
    pass


def main() -> None:
    """Entry point of the ``arena`` console script."""
    app(prog_name="arena")
