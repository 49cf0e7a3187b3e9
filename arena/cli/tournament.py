"""``arena tournament run | resume | list | show | cancel``.

``--format`` is the output format, as everywhere; the tournament's type is ``--type``.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from arena.cli.common import (
    EXECUTOR_HELP,
    EXECUTORS,
    SEED_RULE,
    DbOption,
    EachOption,
    chosen_seed,
    database,
    parse_assignments,
    write_lines,
)
from arena.cli.console import Verbosity, console, error_console, progress_console, verbosity
from arena.errors import ArenaError
from engines.errors import did_you_mean

if TYPE_CHECKING:
    from arena.tournament.driver import RunSummary

app = typer.Typer(help="Run, resume, list, inspect and cancel tournaments.", no_args_is_help=True)

EXIT_INTERRUPTED = 130
# Named here so that the help needs no import of the tournament package; a test keeps
# them equal to arena.tournament's.
TOURNAMENT_TYPES = ("round-robin", "gauntlet", "elo", "sprt", "solitaire", "ladder")
DEFAULT_RATING_INTERVAL = 100


def _report_run(summary: RunSummary, output: str = "text", *, next_command: bool = True) -> None:
    from arena.store.models import TournamentStatus

    if output == "json":
        data = {**dataclasses.asdict(summary), "games_per_second": summary.games_per_second}
        console.out(json.dumps(data, indent=1), highlight=False)
        if summary.status == TournamentStatus.INTERRUPTED:
            raise typer.Exit(EXIT_INTERRUPTED)
        return
    line = (
        f"tournament {summary.tournament_id}: {summary.status}, {summary.stored} of "
        f"{summary.scheduled} games stored; {summary.played_now} played in "
        f"{summary.seconds:.1f} s ({summary.games_per_second:,.0f} games/s)"
    )
    console.print(line, soft_wrap=True)
    if summary.message and summary.status != TournamentStatus.INTERRUPTED:
        console.print(f"  {summary.message}", soft_wrap=True)
    if summary.stored and summary.status != TournamentStatus.INTERRUPTED and next_command:
        progress_console(console).print(
            f"next: `arena report {summary.tournament_id}`", markup=False, highlight=False
        )
    if summary.status == TournamentStatus.INTERRUPTED:
        error_console.print(
            f"stopped; resume with `arena tournament resume {summary.tournament_id}`"
        )
        raise typer.Exit(EXIT_INTERRUPTED)


OUTPUT_FORMATS = ("text", "json")
SPRT_KEYS = {
    "elo0": float,
    "elo1": float,
    "alpha": float,
    "beta": float,
    "batch": int,
    "max_games": int,
}


def _output_format(fmt: str) -> str:
    """Raises ArenaError for anything but an output format, pointing a tournament type
    at ``--type``."""
    if fmt in TOURNAMENT_TYPES:
        raise ArenaError(
            f"--format is the output format ({', '.join(OUTPUT_FORMATS)}); the tournament "
            f"type is --type {fmt}"
        )
    if fmt not in OUTPUT_FORMATS:
        raise ArenaError(
            f"unknown output format {fmt!r} ({did_you_mean(fmt, OUTPUT_FORMATS)}formats: "
            f"{', '.join(OUTPUT_FORMATS)}; "
            f"tournament types go to --type: {', '.join(TOURNAMENT_TYPES)})"
        )
    return fmt


def _split_arguments(
    arguments: list[str], sprt: list[str] | None
) -> tuple[Path | None, dict[str, float | int]]:
    """The config file and the SPRT settings among the positional arguments: with
    ``--sprt elo0=0 elo1=5 alpha=0.05 beta=0.05`` (cutechess's form) only the first
    setting belongs to ``--sprt``, the others arrive as arguments.

    Raises:
        ArenaError: a second file, a setting without ``--sprt``, an unknown setting or a
        value that is not a number.
    """
    config_file: Path | None = None
    settings: list[str] = list(sprt or [])
    for argument in arguments:
        if "=" in argument and argument.partition("=")[0].strip() in SPRT_KEYS:
            if sprt is None:
                raise ArenaError(
                    f"unexpected argument {argument!r}: SPRT settings follow --sprt, e.g. "
                    "--sprt elo0=0 elo1=5 alpha=0.05 beta=0.05"
                )
            settings.append(argument)
        elif config_file is None:
            config_file = Path(argument)
        else:
            raise ArenaError(f"unexpected argument {argument!r}: one CONFIG.toml at most")
    parsed: dict[str, float | int] = {}
    for item in settings:
        for word in item.replace(",", " ").split():
            key, _, value = word.partition("=")
            convert = SPRT_KEYS.get(key.strip())
            if convert is None:
                raise ArenaError(
                    f"bad --sprt setting {word!r}: write KEY=VALUE with KEY one of "
                    f"{', '.join(SPRT_KEYS)}"
                )
            try:
                parsed[key.strip()] = convert(value)
            except ValueError:
                raise ArenaError(
                    f"bad --sprt setting {word!r}: {value!r} is not "
                    f"{'an integer' if convert is int else 'a number'}"
                ) from None
    return config_file, parsed


RatingIntervalOption = Annotated[
    int,
    typer.Option(
        min=0,
        help="print the live Elo ± 95% (and the SPRT's LLR) every N rated games; 0: never",
    ),
]


@app.command("run")
def run(
    arguments: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[CONFIG.toml]",
            help="see configs/ for examples",
            show_default=False,
        ),
    ] = None,
    game: Annotated[str | None, typer.Option(help="the game")] = None,
    type_: Annotated[
        str | None,
        typer.Option("--type", help="the tournament type: " + " | ".join(TOURNAMENT_TYPES)),
    ] = None,
    sprt: Annotated[
        list[str] | None,
        typer.Option(
            help="SPRT settings, as cutechess takes them: --sprt elo0=0 elo1=5 alpha=0.05 "
            "beta=0.05 (also batch=N, max_games=N); implies --type sprt"
        ),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            "-b",
            help="a participant (NAME, NAME@V or a built-in kind), optionally with its own "
            "time control after a space: 'mine@2 tc=5+0.1 st=0.5'",
        ),
    ] = None,
    candidate: Annotated[list[str] | None, typer.Option(help="gauntlet: a bot under test")] = None,
    opponent: Annotated[list[str] | None, typer.Option(help="gauntlet: a bot of the field")] = None,
    games: Annotated[
        int | None, typer.Option(help="games per pairing or table; deals in solitaire")
    ] = None,
    seats: Annotated[int | None, typer.Option(help="seats per game")] = None,
    seed: Annotated[
        int | None,
        typer.Option(help=f"the tournament seed ({SEED_RULE}; or the config file's)"),
    ] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-O", metavar="NAME=VALUE", help="a game option")
    ] = None,
    name: Annotated[str | None, typer.Option(help="a label for listings")] = None,
    deals: Annotated[
        Path | None,
        typer.Option(metavar="FILE", help="play the deals of this file (`arena deals make`)"),
    ] = None,
    deal_order: Annotated[
        str | None,
        typer.Option(metavar="ORDER", help="sequential (default) | random: the deals' order"),
    ] = None,
    executor: Annotated[str | None, typer.Option(help=EXECUTOR_HELP)] = None,
    workers: Annotated[
        int | None, typer.Option(help="worker processes (default: all cores)")
    ] = None,
    ray_address: Annotated[
        str | None, typer.Option(help="join this Ray cluster (host:port or auto)")
    ] = None,
    time_per_move: Annotated[float | None, typer.Option(help="seconds per move")] = None,
    time_per_game: Annotated[float | None, typer.Option(help="seconds per bot per game")] = None,
    each: EachOption = None,
    rating_interval: RatingIntervalOption = DEFAULT_RATING_INTERVAL,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="output format: text | json (the run's summary as JSON; progress to stderr)",
        ),
    ] = "text",
    db: DbOption = None,
) -> None:
    """Create a tournament from a config file and/or flags, then run it.

    The first bot of a sprt tournament is the candidate: the test reads from its side.
    """
    from arena.report.build import record_final_ratings
    from arena.store.db import session_scope
    from arena.tournament.config import config_source, load_config, read_config_file
    from arena.tournament.driver import TournamentRunner, create_tournament

    output = _output_format(fmt)
    config_file, sprt_settings = _split_arguments(arguments or [], sprt)
    if sprt is not None and type_ not in (None, "sprt"):
        raise ArenaError(f"--sprt sets up an SPRT, but --type is {type_!r}")
    from_file = read_config_file(config_file) if config_file is not None else {}
    if seed is None and "seed" not in from_file:
        seed = chosen_seed(None)
    overrides: dict[str, Any] = {
        "game": game,
        "format": type_ or ("sprt" if sprt is not None else None),
        "bots": bot or None,
        "candidates": candidate or None,
        "opponents": opponent or None,
        "games": games,
        "seats": seats,
        "seed": seed,
        "name": name,
        "deals": str(deals) if deals is not None else None,
        "deal_order": deal_order,
        "executor": executor,
        "workers": workers,
        "ray_address": ray_address,
        "time_per_move": time_per_move,
        "time_per_game": time_per_game,
        "each": each,
    }
    if sprt_settings:
        in_file = from_file.get("sprt", {})
        overrides["sprt"] = {**(in_file if isinstance(in_file, dict) else {}), **sprt_settings}
    if option:
        overrides["options"] = parse_assignments(option, "option")
    config = load_config(config_file, overrides)
    engine = database(db)
    with session_scope(engine) as session:
        tournament_id = create_tournament(session, config, config_source(config_file))
    shown = progress_console(console if output == "text" else error_console)
    shown.print(
        f"tournament {tournament_id}: {config.label} ({config.format}, {config.game}, "
        f"seed {config.seed})"
    )
    runner = TournamentRunner(
        engine,
        tournament_id,
        console=shown,
        rating_interval=rating_interval,
        on_completed=record_final_ratings,
        verbose=verbosity() is Verbosity.VERBOSE,
    )
    _report_run(runner.run(), output)


@app.command("resume")
def resume(
    tournament_id: Annotated[int, typer.Argument(metavar="ID")],
    executor: Annotated[
        str | None, typer.Option(help=" | ".join(EXECUTORS) + " (default: as configured)")
    ] = None,
    workers: Annotated[int | None, typer.Option(help="worker processes")] = None,
    ray_address: Annotated[str | None, typer.Option(help="join this Ray cluster")] = None,
    rating_interval: RatingIntervalOption = DEFAULT_RATING_INTERVAL,
    db: DbOption = None,
) -> None:
    """Play exactly the scheduled games not stored yet (after a kill, Ctrl-C or failure)."""
    from arena.report.build import record_final_ratings
    from arena.tournament.driver import TournamentRunner

    engine = database(db)
    runner = TournamentRunner(
        engine,
        tournament_id,
        console=progress_console(console),
        executor=executor,
        workers=workers,
        ray_address=ray_address,
        rating_interval=rating_interval,
        on_completed=record_final_ratings,
        verbose=verbosity() is Verbosity.VERBOSE,
    )
    _report_run(runner.run())


@app.command("list")
def list_command(db: DbOption = None) -> None:
    """List tournaments, newest first."""
    from sqlmodel import Session, col, select

    from arena.store.games import count_stored
    from arena.store.models import Tournament

    engine = database(db)
    with Session(engine) as session:
        tournaments = session.exec(select(Tournament).order_by(col(Tournament.id).desc())).all()
        table = Table(title="tournaments")
        for column in ("id", "name", "game", "type", "status", "games", "created"):
            table.add_column(column, justify="right" if column in ("id", "games") else "left")
        for t in tournaments:
            assert t.id is not None
            table.add_row(
                str(t.id),
                t.name,
                t.game,
                t.format,
                t.status,
                f"{count_stored(session, t.id)}/{t.scheduled}",
                t.created.strftime("%Y-%m-%d %H:%M"),
            )
    console.print(
        table if tournaments else "no tournaments yet (see `arena tournament run --help`)"
    )


@app.command("show")
def show(tournament_id: Annotated[int, typer.Argument(metavar="ID")], db: DbOption = None) -> None:
    """Show a tournament: configuration, progress and standings (counted as
    `arena report` counts; without the ratings)."""
    from sqlmodel import Session

    from arena.report.build import ReportError, tournament_report
    from arena.report.format import render_text
    from arena.store.games import get_tournament

    engine = database(db)
    try:
        report = tournament_report(engine, tournament_id, ratings=False)
    except ReportError:  # nothing stored yet: the configuration alone
        with Session(engine) as session:
            t = get_tournament(session, tournament_id)
        console.print(f"[bold]tournament {t.id}[/]: {t.name}")
        console.print(
            f"  game {t.game}, type {t.format}, seed {t.seed}: no games stored yet "
            f"({t.scheduled} scheduled, {t.status})",
            highlight=False,
        )
        return
    render_text(report, console)


@app.command("cancel")
def cancel(
    tournament_id: Annotated[int, typer.Argument(metavar="ID")], db: DbOption = None
) -> None:
    """Cancel a tournament; a running driver stops at its next write."""
    from arena.store.db import session_scope
    from arena.tournament.driver import cancel_tournament

    engine = database(db)
    with session_scope(engine) as session:
        cancel_tournament(session, tournament_id)
    console.print(f"tournament {tournament_id} cancelled")


@app.command("games")
def games_command(
    tournament_id: Annotated[int, typer.Argument(metavar="ID")],
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            "-b",
            metavar="NAME[@V]",
            help="only games it played; repeated: games all of them played together",
        ),
    ] = None,
    result: Annotated[
        str | None,
        typer.Option(
            metavar="RESULT",
            help="win | loss | draw | forfeit (of the first --bot; without it: draw or "
            "forfeit games)",
        ),
    ] = None,
    reason: Annotated[
        str | None,
        typer.Option(
            metavar="REASON",
            help="only forfeits for this reason (timeout, crash, illegal_action, …)",
        ),
    ] = None,
    from_index: Annotated[
        int | None, typer.Option(min=0, metavar="INDEX", help="only games from this index on")
    ] = None,
    to_index: Annotated[
        int | None, typer.Option(min=0, metavar="INDEX", help="only games up to this index")
    ] = None,
    regression_test: Annotated[
        int | None,
        typer.Option(
            "--regression-test",
            metavar="TEST",
            help="only the games of this regression test (of the tournament's ladder)",
        ),
    ] = None,
    limit: Annotated[int, typer.Option(min=0, help="show at most N games; 0: all")] = 100,
    db: DbOption = None,
) -> None:
    """List a tournament's stored games: index, seed, each seat's bot with its result
    and score, how the game ended (a forfeit's reason and seat) and its duration."""
    from sqlmodel import Session

    from arena.play.results import GameStatus
    from arena.store.bots import find_bot
    from arena.store.games import get_tournament
    from arena.store.ladders import ladder_test
    from arena.store.listing import iter_games, seat_result
    from arena.store.tally import bot_names

    wanted = _seat_result(result)
    engine = database(db)
    with Session(engine) as session:
        tournament = get_tournament(session, tournament_id)
        bot_ids = [find_bot(session, b, game=tournament.game).id or 0 for b in bot or []]
        test = (
            None
            if regression_test is None
            else ladder_test(session, tournament_id, regression_test)
        )
        games = iter_games(
            session,
            tournament_id,
            bot_id=bot_ids[0] if bot_ids else None,
            also=bot_ids[1:],
            result=wanted,
            reason=reason,
            indices=(from_index, to_index),
            test=test,
        )
        shown = 0
        labels: dict[int, str] = {}
        batch: list[str] = []
        for game in games:
            if limit and shown >= limit:
                batch.append("… more games: raise --limit (0 shows all)")
                break
            missing = set(game.seats) - set(labels)
            if missing:
                labels.update(bot_names(session, missing).labels)
            players = []
            for seat, bot_of_seat in enumerate(game.seats):
                label = labels.get(bot_of_seat, str(bot_of_seat))
                outcome = (
                    GameStatus.ERROR
                    if game.status == GameStatus.ERROR
                    else seat_result(game, seat).value
                )
                players.append(
                    f"{label} {outcome} {game.returns[seat]:g}" if game.returns else label
                )
            how = game.termination
            if game.offender is not None:
                how += f" ({game.reason} by seat {game.offender})"
            batch.append(
                f"#{game.index:<5} seed {game.seed:<20} {', '.join(players)}  {how}  "
                f"{game.duration:.2f} s"
            )
            shown += 1
            if len(batch) >= PRINTED_TOGETHER:  # one print per batch: printing is the cost
                console.print("\n".join(batch), markup=False, highlight=False, soft_wrap=True)
                batch = []
        if not shown:
            batch.append("no stored games match")
        if batch:
            console.print("\n".join(batch), markup=False, highlight=False, soft_wrap=True)


PRINTED_TOGETHER = 500


def _seat_result(text: str | None) -> Any:
    from arena.store.listing import SeatResult

    if text is None:
        return None
    try:
        return SeatResult(text.strip().lower())
    except ValueError:
        raise ArenaError(
            f"unknown result {text!r} ({did_you_mean(text, [r.value for r in SeatResult])}"
            f"results: {', '.join(r.value for r in SeatResult)})"
        ) from None


@app.command("export")
def export(
    tournament_id: Annotated[int, typer.Argument(metavar="ID")],
    output: Annotated[
        Path,
        typer.Option("--output", "-o", metavar="FILE", help="the JSON-lines file; - for stdout"),
    ],
    db: DbOption = None,
) -> None:
    """Write every stored record of a tournament as JSON lines, one game per line, in
    game order (docs/records.md). Streams a page at a time: any size."""
    from sqlmodel import Session

    from arena.store.games import get_tournament
    from arena.store.listing import iter_records

    engine = database(db)
    with Session(engine) as session:
        get_tournament(session, tournament_id)
        count = write_lines(iter_records(session, tournament_id), output)
    shown = error_console if str(output) == "-" else console
    shown.print(f"wrote {count} records to {output}", markup=False, highlight=False, soft_wrap=True)


def demo(
    executor: Annotated[str | None, typer.Option(help=EXECUTOR_HELP)] = None,
    db: Annotated[str | None, typer.Option("--db", help="database (default: demo.db here)")] = None,
) -> None:
    """Run the embedded demo tournament and print its report."""
    from arena.cli.demo import DEMO_CONFIG
    from arena.cli.report import emit
    from arena.report.build import record_final_ratings, tournament_report
    from arena.store.db import session_scope
    from arena.tournament.config import load_config
    from arena.tournament.driver import TournamentRunner, create_tournament

    overrides = {"executor": executor} if executor else {}
    config = load_config(None, {**DEMO_CONFIG, **overrides})
    engine = database(db or "demo.db")
    with session_scope(engine) as session:
        tournament_id = create_tournament(session, config, "demo")
    progress_console(console).print(
        f"tournament {tournament_id}: {config.label} ({config.format}, {config.game})"
    )
    summary = TournamentRunner(
        engine,
        tournament_id,
        console=progress_console(console),
        on_completed=record_final_ratings,
        verbose=verbosity() is Verbosity.VERBOSE,
    ).run()
    _report_run(summary, next_command=False)  # the report follows
    console.print()
    emit(tournament_report(engine, tournament_id), "text", None, None)
