"""``arena solve koenigsgarten``: the exact value of a Königsgarten position."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated

import typer

from arena.cli.console import console
from arena.errors import ArenaError

if TYPE_CHECKING:
    from engines.koenigsgarten import KoenigsgartenState


def position_from_text(text: str) -> KoenigsgartenState:
    """16 cards row by row from the top left, then the cards taken so far, in order.

    Raises:
        InvalidDealError: fewer than 16 cards, or a bad layout.
        InvalidActionError, IllegalActionError, GameOverError: a bad action.
    """
    from engines.koenigsgarten import CELLS, GAME, KoenigsgartenState, parse_layout

    tokens = text.replace(",", " ").split()
    state = GAME.state_from_deal({"layout": parse_layout(tokens[:CELLS])}, seats=2, options=None)
    assert isinstance(state, KoenigsgartenState)
    for token in tokens[CELLS:]:
        state.apply_action(GAME.parse_action(token))
    return state


def koenigsgarten(
    layout: Annotated[
        str,
        typer.Option(
            help='16 cards row by row from the top left ("QC AS …"), optionally followed '
            "by the cards taken so far"
        ),
    ],
) -> None:
    """Print the value (win / draw / loss) for the side to move with perfect play, and
    the value of every legal card."""
    from bots.koenigsgarten.solver import VALUE_NAMES, Solver, read_observation
    from engines.koenigsgarten import CELL_NAMES

    state = position_from_text(layout)
    outcome = state.outcome()
    if outcome is not None:
        result = "a draw" if outcome.is_draw else f"won by seat {outcome.winners[0]}"
        raise ArenaError(f"nothing to solve: the game is over, {result} ({outcome.termination})")
    cards, position = read_observation(state.observation(state.current_seat))
    start = time.perf_counter()
    solver = Solver(cards)
    values = solver.action_values(position)
    seconds = time.perf_counter() - start
    console.print(state.render())
    console.print(
        f"seat {state.current_seat} to move: [bold]{VALUE_NAMES[max(values.values())]}[/] "
        f"({len(values)} legal cards; solved in {seconds:.2f} s, "
        f"{solver.nodes:,} positions searched)",
        highlight=False,
    )
    for card, value in values.items():
        console.print(
            f"  {card}  {CELL_NAMES[solver.cell_of(card)]}  {VALUE_NAMES[value]}", highlight=False
        )
