"""``arena deals make``: deal files, the deals a tournament plays (``deals = FILE``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import SEED_RULE, chosen_seed, parse_assignments, write_lines
from arena.cli.console import console, error_console
from arena.errors import ArenaError

app = typer.Typer(help="Make deal files: the same deals for several tournaments.")


@app.command("make")
def make(
    game_name: Annotated[str, typer.Argument(metavar="GAME", help="see `arena games`")],
    count: Annotated[int, typer.Option("--count", "-n", min=1, help="how many deals")],
    output: Annotated[
        Path,
        typer.Option("--output", "-o", metavar="FILE", help="the JSON-lines file; - for stdout"),
    ],
    seats: Annotated[
        int | None, typer.Option(help="seats the deals are for (default: the game's)")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help=f"seed of the series of deals ({SEED_RULE})")
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-O", metavar="NAME=VALUE", help="a game option the deals need"),
    ] = None,
) -> None:
    """Write COUNT deals of GAME, one JSON line each, in the game's deal notation (the
    `deal` of a record, docs/records.md). A tournament naming the file (`deals = "FILE"`
    in its config, or `--deals FILE`) plays these deals: two runs compare bots on the
    same deals."""
    from arena.play.deals import MAX_DEALS, make_deals
    from arena.play.options import resolve_file_options
    from engines.registry import get_game

    if count > MAX_DEALS:
        raise ArenaError(f"--count: at most {MAX_DEALS} deals, got {count}")
    game = get_game(game_name)
    chosen_seats = game.check_seats(game.default_seats if seats is None else seats)
    raw_options = resolve_file_options(game.name, parse_assignments(option or [], "option"))
    options = game.parse_options(raw_options)
    seed = chosen_seed(seed)
    lines = (
        json.dumps(line, separators=(",", ":"))
        for line in make_deals(game, count=count, seats=chosen_seats, seed=seed, options=options)
    )
    write_lines(lines, output)
    shown = error_console if str(output) == "-" else console
    shown.print(
        f"wrote {count} deals of {game.name} ({chosen_seats} seats, seed {seed}) to {output}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
