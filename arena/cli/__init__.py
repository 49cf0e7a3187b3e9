"""The ``arena`` command line: one Typer app per noun, composed on a root app.

Every error the service or the engines raise on bad input, and every usage error (a
mistyped command or flag, a bad value), is printed as one ``error:`` line on stderr
with exit code 2; no traceback and no box reaches the user. Help shows readable
metavars (``NAME``, ``N``, ``FILE``), set here for every command at once.

The command modules import the database, Ray, SciPy and the rest inside their
commands, so that ``arena --help`` or ``arena games`` start at once, and the root
imports a command's module and builds its parameters only when that command runs
(:data:`COMMANDS`); ``tests/arena/test_cli_imports.py`` checks both.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from dataclasses import dataclass
from typing import Annotated, Any, NoReturn

import typer
import typer.main
from rich.markup import escape
from typer._click import Command, Context, HelpFormatter, Parameter
from typer._click.exceptions import BadParameter, NoArgsIsHelpError, NoSuchOption, UsageError
from typer._click.shell_completion import CompletionItem
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from arena.cli.console import Verbosity, error_console, set_verbosity
from arena.errors import ArenaError
from engines.errors import GameError, short_repr

EXIT_BAD_INPUT = 2


class ArenaGroup(TyperGroup):
    """The root group: turns our errors and usage errors into a one-line message and
    exit code 2, and gives its commands the conventions of :func:`conventions`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for command in self.commands.values():
            conventions(command)

    def make_context(
        self, info_name: str | None, args: list[str], parent: Context | None = None, **extra: Any
    ) -> Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:
            _report_usage_error(exc)

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        # Typer adds the completion options after __init__; click the help option.
        for param in [*self.params, self.get_help_option(ctx)]:
            _readable(param)
        super().format_help(ctx, formatter)

    def invoke(self, ctx: Context) -> Any:
        try:
            return super().invoke(ctx)
        except NoArgsIsHelpError:
            raise
        except UsageError as exc:
            _report_usage_error(exc)
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
        "Rank every bot version across all tournaments of GAME of one seat count, one\n"
        "time-control class and one rule variant (see docs/ratings.md for what counts).",
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
    "db": Subcommand(
        "db", "app", "The database: which one, its schema and rows; back it up and restore it."
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
    command = typer.main.get_group(holder).commands[name]
    conventions(command)
    return command


def conventions(command: Command) -> None:
    """Give ``command`` and every command under it readable metavars and ``-q``/``-v``."""
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            conventions(sub)
    elif _verbosity_options()[0] not in command.params:
        command.params.extend(_verbosity_options())
    for param in [*command.params, command.get_help_option(Context(command))]:
        _readable(param)


class _ReadableArgument(TyperArgument):
    def display_type_rich(self, ctx: Context) -> str | None:
        return None  # the name column shows the metavar already

    def shell_complete(self, ctx: Context, incomplete: str) -> list[CompletionItem]:
        return _complete_names(self, ctx, incomplete) or super().shell_complete(ctx, incomplete)


class _ReadableOption(TyperOption):
    def display_type_rich(self, ctx: Context) -> str | None:
        if self.metavar is not None:
            return self.metavar
        if self.is_flag or self.count:
            return None
        return _metavar(self)

    def shell_complete(self, ctx: Context, incomplete: str) -> list[CompletionItem]:
        return _complete_names(self, ctx, incomplete) or super().shell_complete(ctx, incomplete)


def _complete_names(param: Parameter, ctx: Context, incomplete: str) -> list[CompletionItem]:
    """Shell completion of a game (``GAME``, ``--game``) or a built-in bot kind
    (``--bot``); nothing for other parameters."""
    if param.metavar == "GAME" or "--game" in param.opts:
        from engines.registry import all_games

        names = [game.name for game in all_games()]
    elif "--bot" in param.opts:
        # Every kind: while completing an option's value click parses the line only up
        # to that option, so the game is not known yet.
        from bots.registry import all_bot_kinds

        names = sorted({kind.name for kind in all_bot_kinds()})
    else:
        return []
    return [CompletionItem(name) for name in names if name.startswith(incomplete)]


def _readable(param: Parameter | None) -> None:
    """Help shows ``--game GAME``, ``--games N`` and ``NAME``, not ``<str>`` or
    ``<list[str]>``: the argparse convention, the parameter's name in capitals, but for
    numbers, paths and choices."""
    if type(param) is TyperArgument:
        param.__class__ = _ReadableArgument
        if param.metavar is None:
            param.metavar = (param.name or "value").strip("_").upper()
    elif type(param) is TyperOption:
        param.__class__ = _ReadableOption


def _metavar(option: TyperOption) -> str:
    described = option.type_descriptor
    if described.is_choice:
        return "|".join(str(getattr(c, "value", c)) for c in described.choices or ())
    element = described.annotation
    if described.is_list:
        (element,) = getattr(element, "__args__", (str,))
    if element is bool:
        return "BOOL"
    if element is int:
        return "N"
    if element is float:
        return "NUMBER"
    if described.is_path:
        return (
            "DIR"
            if described.parameter_info.dir_okay and not described.parameter_info.file_okay
            else "FILE"
        )
    long_names = [name for name in option.opts if name.startswith("--")]
    return (long_names[0][2:] if long_names else option.name or "value").replace("-", "_").upper()


_VERBOSITY_OPTIONS: list[Parameter] = []


def _verbosity_options() -> list[Parameter]:
    """``-q``/``--quiet`` and ``-v``/``--verbose``, as every command takes them."""
    if not _VERBOSITY_OPTIONS:
        holder = typer.Typer(add_completion=False)
        holder.command()(_verbosity)
        _VERBOSITY_OPTIONS.extend(typer.main.get_command(holder).params)
    return _VERBOSITY_OPTIONS


def _set_quiet(value: bool) -> None:
    if value:
        set_verbosity(Verbosity.QUIET)


def _set_verbose(value: bool) -> None:
    if value:
        set_verbosity(Verbosity.VERBOSE)


QUIET_HELP = "print only errors and the result"
VERBOSE_HELP = "print more detail (a progress line per batch of games, …)"
QuietOption = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help=QUIET_HELP,
        callback=_set_quiet,
        expose_value=False,
    ),
]
VerboseOption = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help=VERBOSE_HELP,
        callback=_set_verbose,
        expose_value=False,
    ),
]


def _verbosity(quiet: QuietOption = False, verbose: VerboseOption = False) -> None:
    """Holds the options of :func:`_verbosity_options`."""


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


_NO_SUCH_COMMAND = re.compile(r"No such command (?P<name>'.*')\.(?: Did you mean (?P<close>.*)\?)?")


def usage_error_message(exc: UsageError) -> str:
    """The one line for a usage error: ``no such option '--bogus' (did you mean
    '--bot'?)``, ``no such command 'gmaes' (did you mean 'games'?)``, ``invalid value
    'x' for '--games': Input should be a valid integer, …``."""
    close: list[str] = []
    if isinstance(exc, NoSuchOption):
        message = f"no such option {exc.option_name!r}"
        close = [repr(name) for name in sorted(exc.possibilities or ())]
    elif found := _NO_SUCH_COMMAND.fullmatch(exc.format_message()):
        message = f"no such command {found['name']}"
        close = [found["close"]] if found["close"] else []
    else:
        text = exc.format_message().rstrip(".")
        message = text[:1].lower() + text[1:]
        bad = _bad_input(exc)
        if bad is not None and message.startswith("invalid value for "):
            message = (
                f"invalid value {short_repr(bad)} for {message.removeprefix('invalid value for ')}"
            )
    if close:
        message += f" (did you mean {' or '.join(close)}?)"
    return message


def _bad_input(exc: UsageError) -> object | None:
    """The value a parameter's conversion rejected (Typer converts with pydantic and
    keeps its error as the cause), or None."""
    errors = getattr(exc.__cause__, "errors", None)
    found = errors() if isinstance(exc, BadParameter) and callable(errors) else None
    return found[0].get("input") if isinstance(found, list) and found else None


def _report_usage_error(exc: UsageError) -> NoReturn:
    _print_error(usage_error_message(exc))
    if exc.ctx is not None:
        error_console.print(
            f"Try '{exc.ctx.command_path} --help' for help.", markup=False, soft_wrap=True
        )
    raise typer.Exit(EXIT_BAD_INPUT)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version  # not on every start: it is slow to load

        print(f"arena {version('arena')}")
        raise typer.Exit()


app = typer.Typer(
    cls=RootGroup,
    name="arena",
    help="Tournaments and ratings for bots playing card games.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
)


@app.callback()
def root_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="print the version and exit",
            callback=_version,
            is_eager=True,
            expose_value=False,
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help=QUIET_HELP)] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help=VERBOSE_HELP)] = False,
) -> None:
    """The root's own options. Without a callback Typer makes a group only of registered
    commands; RootGroup adds the commands of COMMANDS itself."""
    set_verbosity(Verbosity.QUIET if quiet else Verbosity.VERBOSE if verbose else Verbosity.NORMAL)


_PLAIN_TYPES: dict[Any, type] = {bool: bool, str: str, str | None: str}
"""Parameter annotations whose values the command line parser hands over already as
they are (a flag's bool, an option's text, or nothing)."""


def _plain_parameters_without_pydantic() -> None:
    """Typer converts each parameter's value through a pydantic ``TypeAdapter`` built on
    first use; for a flag or a text option, whose value is a bool or a string (or
    nothing) already, that buys only the import of pydantic (about 0.1 s of CPU: a
    third of `arena games`' budget, docs/benchmarks.md, since every command takes
    `-q`/`-v` and the root its completion flags). Those take Typer's own pass-through
    conversion instead, which accepts exactly a value of that type or nothing. Another
    Typer without these internals keeps its own conversion."""
    try:
        from typer import core as typer_core
        from typer._coercion import PassThroughRuntimeParam
    except ImportError:
        return
    parameter = getattr(typer_core, "_TyperParameter", None)
    original = getattr(parameter, "get_runtime_param", None)
    if parameter is None or original is None or getattr(original, "arena_flags", False):
        return

    def get_runtime_param(self: Any) -> Any:
        descriptor = self.type_descriptor
        plain = _PLAIN_TYPES.get(descriptor.annotation)
        if self._runtime_param is None and plain is not None and not self.multiple:
            self._runtime_param = PassThroughRuntimeParam(
                annotation=plain, parameter_info=descriptor.parameter_info
            )
        return original(self)

    get_runtime_param.arena_flags = True  # type: ignore[attr-defined]
    parameter.get_runtime_param = get_runtime_param


_plain_parameters_without_pydantic()


SINGLE_THREADED_BLAS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
"""Thread counts of NumPy's linear algebra, set to 1 unless the user set them.

The service's matrices are small (bots × bots): one thread solves a 50 × 50 system in
0.3 ms, OpenBLAS's default threads took 4 ms on a loaded 2-core machine, and a
tournament's worker processes already use the cores (docs/benchmarks.md, the ladder's
refit lag)."""


def main() -> None:
    """Entry point of the ``arena`` console script."""
    for name in SINGLE_THREADED_BLAS:  # before anything imports NumPy
        os.environ.setdefault(name, "1")
    app(prog_name="arena")
