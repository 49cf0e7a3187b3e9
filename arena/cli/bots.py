"""``arena bots add | list | show | remove``: the bot registry."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from arena.cli.common import DbOption, database, parse_assignments
from arena.cli.console import console
from arena.errors import ArenaError

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from arena.players.loader import BotSource

# arena.players.sandbox.DEFAULT_LIMITS.move_seconds, kept here so that `arena --help` needs
# no sandbox (tests/arena/test_cli_imports.py checks they agree).
CHECK_SECONDS = 10.0

app = typer.Typer(help="Register, list, inspect and retire bots.", no_args_is_help=True)


@app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="the bot's name; new code makes NAME@2, …")],
    game: Annotated[str, typer.Option("--game", "-g", help="the game it plays")],
    builtin: Annotated[str | None, typer.Option(help="a built-in kind (see `arena games`)")] = None,
    python: Annotated[
        str | None, typer.Option(help="FILE[:Class] with a class that has act()")
    ] = None,
    cmd: Annotated[
        str | None,
        typer.Option(
            help="a command that speaks the JSON-lines bot protocol; the files and folders "
            "it names are stored with the bot"
        ),
    ] = None,
    file: Annotated[
        list[str] | None,
        typer.Option(
            "--file",
            help="with --cmd: a file or folder the bot needs that its command does not name "
            "(stored with it, next to the named ones)",
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            metavar="KEY=VALUE",
            help="bot parameter KEY=VALUE: a built-in kind's (`arena bots kinds GAME`), or "
            "given to a --python bot's constructor and a --cmd bot's new_game message",
        ),
    ] = None,
    check_time: Annotated[
        float,
        typer.Option(help="seconds the submission check gives the bot to start and for each move"),
    ] = CHECK_SECONDS,
    db: DbOption = None,
) -> None:
    """Register a bot (or a new version of it). A --python or --cmd bot must first pass
    the submission check: start, handshake and whole games against the built-in bots at
    every seat count, each move legal and in time; it reports the bot's move times and
    the time-control classes they fit. Its code is stored (a --cmd bot's files too):
    tournaments never read your files."""
    from arena.players.loader import BUILTIN, COMMAND, command_files
    from arena.store.bots import add_bot, builtin_source, command_source, python_source
    from arena.store.db import session_scope

    chosen = [
        flag
        for flag, value in (("--builtin", builtin), ("--python", python), ("--cmd", cmd))
        if value is not None
    ]
    if len(chosen) != 1:
        raise ArenaError("give exactly one of --builtin KIND, --python FILE[:Class], --cmd COMMAND")
    if file and cmd is None:
        raise ArenaError("--file goes with --cmd: a --python bot is one file")
    params = parse_assignments(param or [], "parameter")
    if builtin is not None:
        source = builtin_source(builtin, game, params)
    elif python is not None:
        source = python_source(python, params)
    else:
        source = command_source(cmd or "", also=file or [], params=params)
    if source.kind != BUILTIN:
        _check_submission(source, game, name, check_time)
    engine = database(db)
    with session_scope(engine) as session:
        bot, created = add_bot(session, name=name, game=game, source=source)
        label = bot.label
    if created:
        console.print(f"registered [bold]{label}[/] ({source.kind}: {source.entry}) for {game}")
        if source.kind == COMMAND and source.code:
            stored = ", ".join(command_files(source.code))
            console.print(f"stored with it: {stored}", markup=False, highlight=False)
    else:
        console.print(f"unchanged: [bold]{label}[/] already has this code")


def _check_submission(source: BotSource, game: str, name: str, seconds: float) -> None:
    """Raises SubmissionRejected (one line, exit code 2) before anything is stored."""
    from arena.players.sandbox import DEFAULT_LIMITS
    from arena.players.submission import check_submission

    if not seconds > 0:
        raise ArenaError(f"--check-time must be positive, not {seconds!r}")
    limits = dataclasses.replace(DEFAULT_LIMITS, move_seconds=seconds, startup_seconds=seconds)
    result = check_submission(source, game, label=name, limits=limits)
    warning = [f"warning: {result.warning}"] if result.warning else []
    for line in [*result.describe(), *warning, f"sandbox: {result.sandbox}"]:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


@app.command("kinds")
def kinds(
    game: Annotated[str, typer.Argument(metavar="GAME", help="see `arena games`")],
) -> None:
    """List the built-in bot kinds of a game with every parameter: its type, default
    and meaning. Give them as KIND:key=value,… (`-b mcts:iterations=500,seconds=0.2`)."""
    from bots.registry import all_bot_kinds
    from engines.registry import get_game

    name = get_game(game).name
    lines = [f"built-in bots for {name} (give parameters as KIND:key=value,…)"]
    for kind in all_bot_kinds(name):
        lines.append(f"\n{kind.name}: {kind.description}")
        for spec in kind.param_specs():
            default = "none" if spec.default is None else repr(spec.default)
            meaning = spec.description
            if spec.old_name is not None:
                meaning += f" (old name {spec.old_name!r}: deprecated, still accepted)"
            lines.append(f"  {spec.name:<12} {spec.type:<10} default {default:<11} {meaning}")
    console.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)


@app.command("list")
def list_command(
    game: Annotated[str | None, typer.Option("--game", "-g", help="only bots of this game")] = None,
    all_versions: Annotated[bool, typer.Option("--all", help="include retired versions")] = False,
    db: DbOption = None,
) -> None:
    """List registered bot versions."""
    from contextlib import closing

    from arena.store.bot_list import listed_bots
    from arena.store.location import resolve_url
    from arena.store.quick import open_current_sqlite

    quick = open_current_sqlite(resolve_url(db))
    if quick is not None:  # the common case, without SQLAlchemy (docs/benchmarks.md)
        with closing(quick):
            bots = listed_bots(quick, game=game, include_retired=all_versions)
    else:
        with database(db).connect() as connection:
            bots = listed_bots(connection, game=game, include_retired=all_versions)
    table = Table(title="bots")
    table.add_column("bot", no_wrap=True)
    for column in ("game", "kind", "entry", "code hash", "created", "games"):
        table.add_column(column)
    for bot in bots:
        table.add_row(
            bot.label + (" (retired)" if bot.retired else ""),
            bot.game,
            bot.kind,
            bot.entry,
            bot.code_hash[:12],
            bot.created.strftime("%Y-%m-%d %H:%M"),
            str(bot.games),
        )
    console.print(table if bots else "no bots registered (see `arena bots add --help`)")


@app.command("show")
def show(
    reference: Annotated[str, typer.Argument(metavar="NAME[@VERSION]")],
    game: Annotated[
        str | None, typer.Option("--game", "-g", help="when several games have this name")
    ] = None,
    code: Annotated[bool, typer.Option("--code", help="print the stored code")] = False,
    plot: Annotated[
        Path | None, typer.Option(help="draw its ladder rating history into this PNG")
    ] = None,
    db: DbOption = None,
) -> None:
    """Show one bot version: kind, entry, parameters, code hash, games played, its
    forfeits (how many for each reason, the latest messages and its stderr's tail), its
    ladder ratings and its version regression tests."""
    from sqlmodel import Session

    from arena.store.bots import find_bot, games_played

    engine = database(db)
    with Session(engine) as session:
        bot = find_bot(session, reference, game=game)
        assert bot.id is not None
        console.print(f"[bold]{bot.label}[/]{' (retired)' if bot.retired else ''}")
        console.print(f"  game:      {bot.game}")
        console.print(f"  kind:      {bot.kind}")
        console.print(f"  entry:     {bot.entry}")
        console.print(f"  params:    {bot.params or '—'}")
        console.print(f"  code hash: {bot.code_hash}")
        console.print(f"  created:   {bot.created:%Y-%m-%d %H:%M:%S} UTC")
        console.print(f"  games:     {games_played(session, bot.id)}")
        bot_id = bot.id
        stored_code = bot.code if code else None
    _show_forfeits(engine, bot_id)
    _show_ladders(engine, bot_id, plot)
    if stored_code:
        console.print(stored_code, markup=False, highlight=False)


def _show_forfeits(engine: Engine, bot_id: int) -> None:
    """The bot's forfeits by reason, the latest messages and its stderr tail."""
    from sqlmodel import Session

    from arena.store.listing import bot_forfeits

    with Session(engine) as session:
        summary = bot_forfeits(session, bot_id)
    if not summary.by_reason:
        console.print("  forfeits:  none")
        return
    counts = ", ".join(f"{reason} {count}" for reason, count in summary.by_reason.items())
    lines = [f"  forfeits:  {sum(summary.by_reason.values())} ({counts})", "  latest:"]
    for forfeit in summary.latest:
        lines.append(
            f"    tournament {forfeit.tournament_id} game #{forfeit.index}: {forfeit.reason}: "
            f"{forfeit.message}"
        )
    stderr = next((f.stderr for f in summary.latest if f.stderr), None)
    if stderr is not None:
        lines.append("  stderr (the end kept with its latest forfeit):")
        lines.extend(f"    {line}" for line in stderr.split(" | "))
    console.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)


def _show_ladders(engine: Engine, bot_id: int, plot: Path | None) -> None:
    """The bot's latest rating on each ladder, its regression tests, and the plot."""
    from sqlmodel import Session

    from arena.ladder.service import describe_tests
    from arena.store.ladders import rating_history, regression_tests
    from arena.store.listing import version_test_bounds
    from arena.store.models import BotVersion

    with Session(engine) as session:
        histories = rating_history(session, bot_id)
        stored_tests = regression_tests(session, bot_id=bot_id)
        tests = describe_tests(session, stored_tests)
        bounds = [version_test_bounds(session, test) for test in stored_tests]
        bot = session.get(BotVersion, bot_id)
        assert bot is not None
        label = bot.label
    lines = []
    for ladder, rows in histories:
        last = rows[-1]
        lines.append(
            f"  ladder:    {ladder.game} {ladder.time_class}, {ladder.seats} seats: Elo "
            f"{last.rating:.0f} ({last.lower:.0f} … {last.upper:.0f}), {last.games} games"
        )
    for test, games in zip(tests, bounds, strict=True):
        lines.append(
            f"  test:      {test.candidate} vs {test.baseline} ({test.ladder}): {test.status}, "
            f"LLR {test.llr:.2f} ({test.lower_bound:.2f} … {test.upper_bound:.2f}), "
            f"{test.games} games" + (f"; {test.message}" if test.message else "")
        )
        if games is not None:
            lines.append(
                f"             its games: arena tournament games {test.tournament_id} "
                f"--regression-test {test.id} (#{games[0]} … #{games[1]})"
            )
    if lines:
        console.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)
    if plot is not None:
        from arena.ladder.plot import write_history_plot

        write_history_plot(plot, label, histories)
        console.print(f"  plot:      {plot}", markup=False, highlight=False)


@app.command("remove")
def remove(
    reference: Annotated[str, typer.Argument(metavar="NAME[@VERSION]")],
    game: Annotated[
        str | None, typer.Option("--game", "-g", help="when several games have this name")
    ] = None,
    db: DbOption = None,
) -> None:
    """Retire a bot version (or all versions of a name): it leaves listings and new
    tournaments; its stored games and ratings stay."""
    from arena.store.bots import remove_bot
    from arena.store.db import session_scope

    engine = database(db)
    with session_scope(engine) as session:
        retired = [bot.label for bot in remove_bot(session, reference, game=game)]
    console.print(f"retired {', '.join(retired)}")
