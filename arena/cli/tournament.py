"""``arena tournament run | resume | list | show | cancel``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from sqlmodel import Session, col, select

from arena.cli.common import DbOption, database, parse_assignments
from arena.cli.console import console, error_console
from arena.config import config_source, load_config
from arena.models import BotVersion, Tournament
from arena.progress import Standings
from arena.storage import count_stored, finished_games, get_tournament, participants
from arena.tournament import (
    INTERRUPTED,
    RunSummary,
    TournamentRunner,
    cancel_tournament,
    create_tournament,
)

app = typer.Typer(help="Run, resume, list, inspect and cancel tournaments.", no_args_is_help=True)

EXIT_INTERRUPTED = 130


def _report_run(summary: RunSummary) -> None:
    line = (
        f"tournament {summary.tournament_id}: {summary.status}, {summary.stored} of "
        f"{summary.scheduled} games stored; {summary.played_now} played in "
        f"{summary.seconds:.1f} s ({summary.games_per_second:,.0f} games/s)"
    )
    console.print(line)
    if summary.message and summary.status != INTERRUPTED:
        console.print(f"  {summary.message}")
    if summary.status == INTERRUPTED:
        error_console.print(
            f"stopped; resume with `arena tournament resume {summary.tournament_id}`"
        )
        raise typer.Exit(EXIT_INTERRUPTED)


@app.command("run")
def run(
    config_file: Annotated[
        Path | None, typer.Argument(metavar="[CONFIG.toml]", help="see configs/ for examples")
    ] = None,
    game: Annotated[str | None, typer.Option(help="the game")] = None,
    format: Annotated[
        str | None, typer.Option(help="round-robin | gauntlet | elo | sprt | solitaire")
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option("--bot", "-b", help="a participant (NAME, NAME@V or a built-in kind)"),
    ] = None,
    candidate: Annotated[list[str] | None, typer.Option(help="gauntlet: a bot under test")] = None,
    opponent: Annotated[list[str] | None, typer.Option(help="gauntlet: a bot of the field")] = None,
    games: Annotated[
        int | None, typer.Option(help="games per pairing or table; deals in solitaire")
    ] = None,
    seats: Annotated[int | None, typer.Option(help="seats per game")] = None,
    seed: Annotated[int | None, typer.Option(help="the tournament seed")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="game option NAME=VALUE")
    ] = None,
    name: Annotated[str | None, typer.Option(help="a label for listings")] = None,
    executor: Annotated[str | None, typer.Option(help="ray (default) | local")] = None,
    workers: Annotated[
        int | None, typer.Option(help="worker processes (default: all cores)")
    ] = None,
    ray_address: Annotated[
        str | None, typer.Option(help="join this Ray cluster (host:port or auto)")
    ] = None,
    time_per_move: Annotated[float | None, typer.Option(help="seconds per move")] = None,
    time_per_game: Annotated[float | None, typer.Option(help="seconds per bot per game")] = None,
    db: DbOption = None,
) -> None:
    """Create a tournament from a config file and/or flags, then run it."""
    overrides: dict[str, Any] = {
        "game": game,
        "format": format,
        "bots": bot or None,
        "candidates": candidate or None,
        "opponents": opponent or None,
        "games": games,
        "seats": seats,
        "seed": seed,
        "name": name,
        "executor": executor,
        "workers": workers,
        "ray_address": ray_address,
        "time_per_move": time_per_move,
        "time_per_game": time_per_game,
    }
    if option:
        overrides["options"] = parse_assignments(option, "option")
    config = load_config(config_file, overrides)
    engine = database(db)
    tournament_id = create_tournament(engine, config, config_source(config_file))
    console.print(f"tournament {tournament_id}: {config.label} ({config.format}, {config.game})")
    _report_run(TournamentRunner(engine, tournament_id, console=console).run())


@app.command("resume")
def resume(
    tournament_id: Annotated[int, typer.Argument(metavar="ID")],
    executor: Annotated[
        str | None, typer.Option(help="ray | local (default: as configured)")
    ] = None,
    workers: Annotated[int | None, typer.Option(help="worker processes")] = None,
    ray_address: Annotated[str | None, typer.Option(help="join this Ray cluster")] = None,
    db: DbOption = None,
) -> None:
    """Play exactly the scheduled games not stored yet (after a kill, Ctrl-C or failure)."""
    engine = database(db)
    runner = TournamentRunner(
        engine,
        tournament_id,
        console=console,
        executor=executor,
        workers=workers,
        ray_address=ray_address,
    )
    _report_run(runner.run())


@app.command("list")
def list_command(db: DbOption = None) -> None:
    """List tournaments, newest first."""
    engine = database(db)
    with Session(engine) as session:
        tournaments = session.exec(select(Tournament).order_by(col(Tournament.id).desc())).all()
        table = Table(title="tournaments")
        for column in ("id", "name", "game", "format", "status", "games", "created"):
            table.add_column(column, justify="right" if column in ("id", "games") else "left")
        for t in tournaments:
            assert t.id is not None
            table.add_row(
                str(t.id),
                t.name,
                t.game,
                t.format,
                t.status,
                f"{count_stored(engine, t.id)}/{t.scheduled}",
                t.created.strftime("%Y-%m-%d %H:%M"),
            )
    console.print(
        table if tournaments else "no tournaments yet (see `arena tournament run --help`)"
    )


@app.command("show")
def show(tournament_id: Annotated[int, typer.Argument(metavar="ID")], db: DbOption = None) -> None:
    """Show a tournament: configuration, progress and standings."""
    engine = database(db)
    with Session(engine) as session:
        t = get_tournament(session, tournament_id)
        members = participants(session, tournament_id)
        labels = {}
        for p in members:
            bot = session.get(BotVersion, p.bot_id)
            labels[p.bot_id] = bot.label if bot else str(p.bot_id)
    stored = count_stored(engine, tournament_id)
    console.print(f"[bold]tournament {t.id}[/]: {t.name}")
    console.print(f"  game {t.game}, format {t.format}, seed {t.seed}, options {t.options or '—'}")
    console.print(f"  status {t.status}: {stored} of {t.scheduled} games stored")
    if t.message:
        console.print(f"  {t.message}")
    roles = [labels[p.bot_id] + ("" if p.role == "player" else f" ({p.role})") for p in members]
    console.print(f"  bots: {', '.join(roles)}")
    standings = Standings(labels)
    for game in finished_games(engine, tournament_id):
        standings.add(game.seats, game.ranking, game.scores, None)
    console.print(standings.table(len(labels), solitaire=t.format == "solitaire"))


@app.command("cancel")
def cancel(
    tournament_id: Annotated[int, typer.Argument(metavar="ID")], db: DbOption = None
) -> None:
    """Cancel a tournament; a running driver stops at its next write."""
    engine = database(db)
    cancel_tournament(engine, tournament_id)
    console.print(f"tournament {tournament_id} cancelled")


def demo(
    executor: Annotated[str | None, typer.Option(help="ray (default) | local")] = None,
    db: Annotated[str | None, typer.Option("--db", help="database (default: demo.db here)")] = None,
) -> None:
    """Run the embedded demo tournament and print its report."""
    from arena.cli.report import emit
    from arena.demo import DEMO_CONFIG
    from arena.report import tournament_report

    overrides = {"executor": executor} if executor else {}
    config = load_config(None, {**DEMO_CONFIG, **overrides})
    engine = database(db or "demo.db")
    tournament_id = create_tournament(engine, config, "demo")
    console.print(f"tournament {tournament_id}: {config.label} ({config.format}, {config.game})")
    summary = TournamentRunner(engine, tournament_id, console=console).run()
    _report_run(summary)
    console.print()
    emit(tournament_report(engine, tournament_id), "text", None, None)
