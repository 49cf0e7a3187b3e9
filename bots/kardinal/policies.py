"""The fast Kardinal & König policy and evaluation for the search bots.

* ``heuristic`` (:class:`KardinalPlayer`): take, card by card, the end card that gains
  the most points over the average rival if the game ended now, stop when no take
  gains; then put a stone on the end card a rival would gain most from, keeping the
  last stone for cards worth a lot; no tablets. Evaluation: the greedy player's view
  of the points each seat is heading for (:class:`bots.kardinal.evaluation.Evaluator`),
  plus stones in the supply and tablets held.

Simulations to the end proved best (``docs/strength.md``); the evaluation serves
searches that cut simulations short (``ismcts:depth=N``) and the turn search
(:mod:`bots.kardinal.turn_search`).

*Tree actions*: a stone may go on any card of the display (up to 56 choices after
every take), but only a stone on a card at or next to the end of a row can stop a
rival soon; a search tree keeps those.
"""

from __future__ import annotations

import math
import random
from typing import Final, cast

from bots.kardinal.evaluation import Evaluator
from bots.kardinal.planner import STONE_VALUE, TABLET_VALUE
from bots.search import Simulation
from engines.core import Action, State
from engines.kardinal import (
    CARD_IDS,
    COUNTRIES,
    MINUS2,
    STONES,
    TABLET_KINDS,
    KardinalState,
    MoveStone,
    PlaceStone,
    Take,
)

_NOISE: Final = 0.5
"""Uniform noise added to each take's gain, in points."""
_STONE_THRESHOLD: Final = 1.0
_LAST_STONE_THRESHOLD: Final = 4.0
"""A rival's gain that makes a stone worth placing (the last one: more)."""


class Projection(Evaluator):
    """The greedy Kardinal player's view of the points each seat is heading for, made
    from a state and kept up to date as a simulation takes cards."""

    def __init__(self, state: KardinalState):
        seats = state.num_seats
        super().__init__(
            {
                "num_seats": seats,
                "holdings": [[CARD_IDS[c] for c in state.holdings(seat)] for seat in range(seats)],
                "rows": [[CARD_IDS[card] for card in row] for row in state.rows()],
            },
            state.tables,
        )

    def totals(self) -> list[float]:
        """Every seat's projected points from countries, circles and symbols."""
        totals = [self.symbol_points(seat) for seat in range(self.seats)]
        for country in range(len(COUNTRIES)):
            for seat, points in enumerate(self.country_points(country)):
                totals[seat] += points
        return totals


class KardinalPlayer:
    """The fast Kardinal policy of the module docstring. It is made at the start of a
    simulation and follows the cards the simulation takes, so it must choose every
    action of the simulation."""

    def __init__(self, state: KardinalState):
        self.projection = Projection(state)

    def __call__(self, state: State, rng: random.Random) -> Action:
        game = cast(KardinalState, state)
        legal = game.legal_actions()
        me = game.current_seat
        projection = self.projection
        takes = [action for action in legal if type(action) is Take]
        taken = bool(game.taken_this_turn())
        if takes:
            best = takes[0]
            best_gain = -math.inf
            for take in takes:
                gain = projection.advantage(me, [take.card]) + _NOISE * rng.random()
                owner = game.stone_on(take.card)
                if owner is not None and owner != me:
                    gain -= STONE_VALUE
                if gain > best_gain:
                    best, best_gain = take, gain
            if best_gain > 0 or not taken:
                projection.take(me, [best.card])
                return best
        if taken and len(legal) > 1 and game.supply(me) > 0:
            stone = self.stone(game, me)
            if stone is not None:
                return stone
        return legal[-1]  # ``end`` after taking, else ``skip``

    def stone(self, game: KardinalState, me: int) -> PlaceStone | None:
        """The end card a rival would gain most from (relative to this seat), as the
        greedy player blocks; None when no card is worth the stone."""
        projection = self.projection
        best: int | None = None
        best_value = _STONE_THRESHOLD if game.supply(me) >= 2 else _LAST_STONE_THRESHOLD
        rivals = [seat for seat in range(game.num_seats) if seat != me]
        for card in game.end_cards():
            if game.stone_on(card) is None:
                value = max(
                    changes[rival] - changes[me]
                    for rival in rivals
                    for changes in [projection.gains(rival, [card])]
                )
                if value >= best_value:
                    best, best_value = card, value
        return None if best is None else STONES[best]


def kardinal_evaluation(state: State) -> list[float]:
    game = cast(KardinalState, state)
    values = Projection(game).totals()
    for seat in range(game.num_seats):
        values[seat] += STONE_VALUE * game.supply(seat)
        for kind in game.held_tablets(seat):
            values[seat] += -2.0 if kind == MINUS2 else TABLET_VALUE[TABLET_KINDS[kind]]
    return values


def kardinal_tree_actions(state: State, legal: list[Action]) -> list[Action]:
    """Drop stones placed or moved onto cards more than one step from a row's end."""
    if len(legal) < 12:
        return legal
    near: set[int] = set()
    for row in cast(KardinalState, state).rows():
        near.update(row[:2])
        near.update(row[-2:])
    return [
        action
        for action in legal
        if not (
            (type(action) is PlaceStone and action.card not in near)
            or (type(action) is MoveStone and action.target not in near)
        )
    ]


HEURISTIC: Final = Simulation(
    lambda state: KardinalPlayer(cast(KardinalState, state)),
    kardinal_evaluation,
    scale=8.0,
    margin=1.0,
)
