"""The ``arena`` command line: one Typer app per noun, composed on a root app.

Every error the service or the engines raise on bad input is printed as one line
on stderr with exit code 2; no traceback reaches the user.

The command modules import the database, Ray, SciPy and the rest inside their
commands, so that ``arena --help`` or ``arena games`` start at once
(``tests/arena/test_cli_imports.py`` checks it).
"""

from __future__ import annotations

import sys
from typing import Any

import typer
from rich.markup import escape
from typer._click import Context
from typer.core import TyperGroup

from arena.cli import bench, bots, deals, play, report, solitaire, solve, tournament, web
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


def _is_database_error(exc: Exception) -> bool:
    # SQLAlchemy is imported by the commands that use the database; an error of it
    # can only come after that import.
    errors = sys.modules.get("sqlalchemy.exc")
    return errors is not None and isinstance(exc, errors.SQLAlchemyError)


def _print_error(message: str) -> None:
    error_console.print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)


app = typer.Typer(
    cls=ArenaGroup,
    name="arena",
    help="Tournaments and ratings for bots playing card games.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
play.register(app)
report.register(app)
app.command("demo")(tournament.demo)
app.add_typer(bots.app, name="bots")
app.add_typer(tournament.app, name="tournament")
app.add_typer(deals.app, name="deals")
app.add_typer(bench.app, name="bench")
app.add_typer(solve.app, name="solve")
app.command("solitaire")(solitaire.solitaire)
app.command("serve")(web.serve)
app.command("worker")(web.worker)
app.add_typer(web.users_app, name="users")


def main() -> None:
    """Entry point of the ``arena`` console script."""
    app(prog_name="arena")
