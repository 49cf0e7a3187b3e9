"""``arena bench mcts`` and ``arena bench opening-solve``: speed of the search bots."""

from __future__ import annotations

import os
import platform
from typing import Annotated

import typer
from rich.table import Table

from arena.cli.console import console
from arena.errors import ArenaError

SEARCH_KINDS = ("mcts", "ismcts")


def _machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}, "
        f"load average {load:.1f}"
    )


def mcts(
    game: Annotated[
        list[str] | None,
        typer.Option("--game", "-g", help="only these games (default: all with a search bot)"),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            "-b",
            help="search bots to time, e.g. ismcts:playout=random (default: mcts / ismcts)",
        ),
    ] = None,
    seats: Annotated[int | None, typer.Option(help="seats (default: each game's default)")] = None,
    positions: Annotated[int, typer.Option(help="sampled positions per game")] = 20,
    seconds: Annotated[float, typer.Option(help="thinking time per position")] = 1.0,
    seed: Annotated[int, typer.Option(help="seed of the sampled positions")] = 0,
) -> None:
    """MCTS / IS-MCTS iterations per second at sampled positions of each game, one core."""
    from arena.bench.search import search_speed
    from bots.registry import all_bot_kinds
    from engines.registry import all_games, get_game

    if positions < 1 or seconds <= 0:
        raise ArenaError(f"need --positions ≥ 1 and --seconds > 0, got {positions} and {seconds}")
    games = [get_game(name) for name in game] if game else all_games()
    table = Table(title=f"search iterations per second, one core ({_machine()})")
    for column in ("game", "seats", "bot", "positions", "iterations", "it/s", "median it/s"):
        table.add_column(column, justify="left" if column in ("game", "bot") else "right")
    for chosen in games:
        kinds = [kind.name for kind in all_bot_kinds(chosen.name) if kind.name in SEARCH_KINDS]
        specs = bot or kinds
        if not specs:
            continue
        count = chosen.check_seats(seats or chosen.default_seats)
        for spec in specs:
            speed = search_speed(
                chosen, count, spec, positions=positions, seconds=seconds, seed=seed
            )
            table.add_row(
                chosen.name,
                str(count),
                spec,
                str(speed.positions),
                f"{speed.iterations:,}",
                f"{speed.iterations_per_second:,.0f}",
                f"{speed.median:,.0f}",
            )
    console.print(table)


def opening_solve(
    layouts: Annotated[int, typer.Option(help="random layouts to solve")] = 50,
    seed: Annotated[int, typer.Option(help="layout i is shuffled from derive_seed(seed, i)")] = 0,
) -> None:
    """Königsgarten: solve the values of all 12 first cards of random layouts exactly;
    time per layout, and how often the first player wins, draws or loses."""
    from arena.bench.search import opening_solves
    from bots.koenigsgarten.solver import DRAW, LOSS, WIN

    if layouts < 1:
        raise ArenaError(f"--layouts must be at least 1, not {layouts}")
    result = opening_solves(layouts, seed)
    table = Table(
        title=f"Königsgarten opening solve, {layouts} random layouts from seed {seed} "
        f"({_machine()})"
    )
    columns = (
        "median s",
        "p90 s",
        "max s",
        "positions/layout",
        "first player wins",
        "draws",
        "loses",
    )
    for column in columns:
        table.add_column(column, justify="right")
    table.add_row(
        f"{result.median_seconds:.2f}",
        f"{result.quantile_seconds(0.9):.2f}",
        f"{max(result.seconds):.2f}",
        f"{result.positions / layouts:,.0f}",
        f"{result.share(WIN):.0%}",
        f"{result.share(DRAW):.0%}",
        f"{result.share(LOSS):.0%}",
    )
    console.print(table)
