"""Game knowledge for the search bots: simulation policies, evaluations, and which
actions a search tree considers.

A *simulation* plays a (determinised) state on with a cheap policy — to the end, or
for a number of turns after which an *evaluation* estimates each seat's final score —
and returns per-seat scores, higher better (the outcome's returns at the end). It
must be cheap: a search runs hundreds of them per move. Policies:

* ``random``: uniformly random legal actions.
* ``heuristic``, Kings in the Corner: a random action of the best class in the greedy
  player's order (:func:`kings_corner_classes`: kings into corners, pile moves, cards
  onto piles, cards that fit nowhere into empty spots, and only then the end of the
  turn). Evaluation: minus the penalty points in every hand.
* ``heuristic``, Kardinal & König (:class:`KardinalPlayer`): take, card by card, the
  end card that gains the most points over the average rival if the game ended now,
  stop when no take gains; then put a stone on the end card a rival would gain most
  from, keeping the last stone for cards worth a lot; no tablets. Evaluation: the
  greedy player's view of the points each seat is heading for
  (:class:`bots.kardinal.Evaluator`), plus stones in the supply and tablets held.

Simulations to the end proved best in both games (``docs/strength.md``); the
evaluations serve searches that cut simulations short (``ismcts:depth=N``).

*Tree actions* are the legal actions a search tree expands. In Kardinal a stone may go
on any card of the display (up to 56 choices after every take), but only a stone on a
card at or next to the end of a row can stop a rival soon; the tree keeps those.
Other games keep every legal action.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, cast

from bots.kardinal import STONE_VALUE, TABLET_VALUE, Evaluator
from engines.core import Action, State
from engines.kardinal import (
    CARD_COUNTRY,
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
from engines.kings_corner import CORNERS, PILES, KingsCornerAction, KingsCornerState, penalty_points

Step = Callable[[State, random.Random], Action]
"""One action of a simulated game for the seat to move."""
TreeActions = Callable[[State, list[Action]], list[Action]]

POLICIES: Final = ("random", "heuristic")

_KING_TO_CORNER, _KING_PILE_TO_CORNER, _PILE_MOVE, _ONTO_PILE = 6, 5, 4, 3
_INTO_EMPTY_SPOT, _END_TURN, _WASTED_SPOT = 2, 1, 0
"""Kings in the Corner action classes, best first, as the greedy player ranks them."""
_NOISE: Final = 0.5
"""Uniform noise added to each Kardinal take's gain, in points."""
_STONE_THRESHOLD: Final = 1.0
_LAST_STONE_THRESHOLD: Final = 4.0
"""A rival's gain that makes a Kardinal stone worth placing (the last one: more)."""


def random_step(state: State, rng: random.Random) -> Action:
    legal = state.legal_actions()
    return legal[rng.randrange(len(legal))]


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
                rank = _ONTO_PILE
            elif target in CORNERS:
                rank = _KING_TO_CORNER
            else:
                rank = _WASTED_SPOT if action.card in fitting else _INTO_EMPTY_SPOT
        elif kind == "move":
            rank = _KING_PILE_TO_CORNER if action.target in empty else _PILE_MOVE
        else:
            rank = _END_TURN
        classes.append(rank)
    return classes


def kings_corner_step(state: State, rng: random.Random) -> Action:
    """A random action of the best class (:func:`kings_corner_classes`)."""
    legal = state.legal_actions()
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

    def take(self, seat: int, card: int) -> None:
        self._add(seat, card, 1)
        self.left[CARD_COUNTRY[card]] -= 1
        self.symbols_left[self.tables.symbol[card]] -= 1

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
                projection.take(me, best.card)
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


@dataclass(frozen=True)
class Simulation:
    """How a search plays on from a leaf: a policy made per simulation from its start
    state, and an evaluation for simulations cut short (None: always to the end)."""

    policy: Callable[[State], Step]
    evaluation: Callable[[State], Sequence[float]] | None = None
    scale: float = 1.0
    """A clear lead in the game's scores (points), for rewards by margin."""
    margin: float = 0.0
    """The weight of the score margin in a search's rewards that served this game
    best (measured: ``docs/strength.md``)."""

    def run(self, state: State, rng: random.Random, turns: int = 0) -> Sequence[float]:
        """Play ``state`` on in place: to the end, or for ``turns`` changes of the seat
        to move when ``turns`` > 0 and the game has an evaluation; return per-seat
        scores (the returns at the end, else the evaluation)."""
        step = self.policy(state)
        seat = state.current_seat
        changes = 0
        limited = turns > 0 and self.evaluation is not None
        while not state.is_terminal():
            if limited and changes >= turns:
                assert self.evaluation is not None
                return self.evaluation(state)
            state.apply_unchecked(step(state, rng))
            if state.current_seat != seat:
                seat = state.current_seat
                changes += 1
        outcome = state.outcome()
        assert outcome is not None
        return outcome.returns


def _stateless(step: Step) -> Callable[[State], Step]:
    return lambda state: step


_RANDOM: Final = Simulation(_stateless(random_step))
_HEURISTIC: Final = {
    "kings_corner": Simulation(
        _stateless(kings_corner_step), kings_corner_evaluation, scale=5.0, margin=0.0
    ),
    "kardinal": Simulation(
        lambda state: KardinalPlayer(cast(KardinalState, state)),
        kardinal_evaluation,
        scale=8.0,
        margin=1.0,
    ),
}


def simulation(game: str, kind: str) -> Simulation:
    """The simulation ``kind`` (``random`` or ``heuristic``) for ``game``; a game
    without a heuristic of its own simulates ``heuristic`` at random, to the end.

    Raises:
        ValueError: an unknown kind.
    """
    if kind == "random":
        return _RANDOM
    if kind == "heuristic":
        return _HEURISTIC.get(game, _RANDOM)
    raise ValueError(f"unknown playout policy {kind!r} (policies: {', '.join(POLICIES)})")


def all_actions(state: State, legal: list[Action]) -> list[Action]:
    return legal


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


_TREE: Final[dict[str, TreeActions]] = {"kardinal": kardinal_tree_actions}


def tree_actions(game: str) -> TreeActions:
    """The filter of the actions a search tree expands in ``game`` (all by default)."""
    return _TREE.get(game, all_actions)
