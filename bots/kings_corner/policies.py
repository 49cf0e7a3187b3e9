"""The fast Kings in the Corner policy and evaluation for the search bots.

* ``heuristic``: a random action of the best class in the greedy player's order
  (:func:`kings_corner_classes`: kings into corners, pile moves, cards onto piles,
  cards that fit nowhere into empty spots, and only then the end of the turn).
  Evaluation: minus the penalty points in every hand.

Simulations to the end proved best (``docs/strength.md``); the evaluation serves
searches that cut simulations short (``ismcts:depth=N``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final, cast

from bots.kings_corner.greedy import (
    END_TURN,
    INTO_EMPTY_SPOT,
    KING_PILE_TO_CORNER,
    KING_TO_CORNER,
    ONTO_PILE,
    PILE_MOVE,
    WASTED_SPOT,
)
from bots.search import Simulation, stateless
from engines.core import Action, State
from engines.kings_corner import CORNERS, PILES, KingsCornerAction, KingsCornerState, penalty_points


def kings_corner_classes(state: State, legal: Sequence[Action]) -> list[int]:
    """Each action's class, higher better: a king into an empty corner (6), a king's
    pile into an empty corner (5), a pile moved onto another (4), a card onto a pile
    (3), a card that fits no pile into an empty side spot (2), ending the turn (1), a
    card that fits a pile into an empty side spot (0) — the greedy player's order."""
    game = cast(KingsCornerState, state)
    actions = cast(Sequence[KingsCornerAction], legal)
    empty = {name for name in PILES if not game.pile(name)}
    fitting = {a.card for a in actions if a.kind == "play" and a.target not in empty}
    classes = []
    for action in actions:
        kind = action.kind
        if kind == "play":
            target = action.target
            if target not in empty:
                rank = ONTO_PILE
            elif target in CORNERS:
                rank = KING_TO_CORNER
            else:
                rank = WASTED_SPOT if action.card in fitting else INTO_EMPTY_SPOT
        elif kind == "move":
            rank = KING_PILE_TO_CORNER if action.target in empty else PILE_MOVE
        else:
            rank = END_TURN
        classes.append(rank)
    return classes


def kings_corner_step(state: State, rng: random.Random) -> Action:
    """A random action of the best class (:func:`kings_corner_classes`); the only
    legal action when there is one."""
    legal: list[Action] = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    classes = kings_corner_classes(state, legal)
    top = max(classes)
    best = [action for action, rank in zip(legal, classes, strict=True) if rank == top]
    return best[rng.randrange(len(best))]


def kings_corner_evaluation(state: State) -> list[float]:
    game = cast(KingsCornerState, state)
    pip_values = game.options.pip_values
    return [
        -float(penalty_points(game.hand(seat), pip_values=pip_values))
        for seat in range(game.num_seats)
    ]


HEURISTIC: Final = Simulation(
    stateless(kings_corner_step), kings_corner_evaluation, scale=5.0, margin=0.0
)
