"""``arena bench …``: measurements for docs/benchmarks.md."""

from __future__ import annotations

import platform
from typing import Annotated

import typer
from rich.table import Table

from arena.bench import random_playouts
from arena.cli.console import console
from engines.registry import all_games, get_game

app = typer.Typer(help="Measure speed; figures go into docs/benchmarks.md.", no_args_is_help=True)


@app.command("engines")
def engines(
    game: Annotated[
        list[str] | None, typer.Option("--game", "-g", help="only these games (default: all)")
    ] = None,
    seconds: Annotated[float, typer.Option(help="time per game and seat count")] = 3.0,
) -> None:
    """Random-playout games per second per game and seat count, on one core."""
    chosen = [get_game(name) for name in game] if game else all_games()
    table = Table(
        title=f"random playouts, one core ({platform.python_implementation()} "
        f"{platform.python_version()}, {platform.machine()})"
    )
    for column in ("game", "seats", "games", "games/s", "actions/s", "actions/game"):
        table.add_column(column, justify="right" if column != "game" else "left")
    for g in chosen:
        for seats in g.seat_counts:
            speed = random_playouts(g, seats, seconds)
            table.add_row(
                g.name,
                str(seats),
                str(speed.games),
                f"{speed.games_per_second:,.0f}",
                f"{speed.actions_per_second:,.0f}",
                f"{speed.actions / speed.games:.1f}",
            )
    console.print(table)
