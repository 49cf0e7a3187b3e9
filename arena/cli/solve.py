"""``arena solve GAME …``: solve one deal of a patience, or a Königsgarten position,
exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.console import console
from arena.cli.solve_koenigsgarten import koenigsgarten
from arena.errors import ArenaError

app = typer.Typer(
    help="Solve one deal of a patience, or a Königsgarten position, exactly.",
    no_args_is_help=True,
)
app.command("koenigsgarten")(koenigsgarten)

BLUMENGARTEN_VARIANTS = ("classic", "sequences", "garden_7x5")


@app.command("blumengarten")
def blumengarten(
    seed: Annotated[int | None, typer.Option(help="solve the deal shuffled from this seed")] = None,
    deal: Annotated[
        Path | None,
        typer.Option(help='a JSON deal file {"columns": [[deepest … exposed], …], "bouquet": […]}'),
    ] = None,
    variant: Annotated[
        list[str] | None,
        typer.Option(help="classic (default), sequences, garden_7x5; repeat to combine"),
    ] = None,
    timeout: Annotated[float, typer.Option(help="seconds to search")] = 10.0,
) -> None:
    """Print `won` and a winning line, `lost` (no win exists) or `unknown`, and the
    nodes searched."""
    from arena.play.solitaire import load_deal_file
    from bots.blumengarten.search import LOST, WON, solve
    from engines.blumengarten import BlumengartenState
    from engines.registry import get_game

    if (seed is None) == (deal is None):
        raise ArenaError("give exactly one of --seed N and --deal FILE")
    if timeout <= 0:
        raise ArenaError(f"--timeout must be positive, not {timeout}")
    options = {}
    for name in variant or []:
        if name not in BLUMENGARTEN_VARIANTS:
            raise ArenaError(
                f"unknown variant {name!r} (variants: {', '.join(BLUMENGARTEN_VARIANTS)})"
            )
        if name != "classic":
            options[name] = True
    game = get_game("blumengarten")
    if deal is not None:
        state = game.state_from_deal(load_deal_file(deal), seats=1, options=options)
    else:
        assert seed is not None
        state = game.new_initial_state(seed=seed, options=options)
    assert isinstance(state, BlumengartenState)
    result = solve(state, time_limit=timeout)
    facts = f"nodes searched: {result.nodes:,} in {result.seconds:.2f} s"
    if result.status == WON:
        console.print(f"won in {len(result.line)} moves ({facts})")
        console.print(" ".join(str(action) for action in result.line), soft_wrap=True)
    elif result.status == LOST:
        console.print(f"lost: no winning line exists ({facts}); best score {result.score}")
    else:
        console.print(
            f"unknown: the budget ran out before a win or a proof ({facts}); "
            f"best score found {result.score}"
        )
