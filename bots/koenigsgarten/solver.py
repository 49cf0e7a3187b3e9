"""Königsgarten solved exactly: win, draw or loss for the side to move, with perfect play.

A position is four small ints: the markers of the side to move and of its opponent
(16-bit masks over the cells 0..15, row by row from the top left, as in
:mod:`engines.koenigsgarten`), and the cell of the card last taken (-1 before the
first move). The cards still in the garden are the cells without a marker, and the
cards that may be taken next are those sharing the last card's rank or suit, a mask
precomputed per cell from the layout.

The search is negamax with alpha-beta over the three values ``LOSS < DRAW < WIN`` and
a transposition table of bounds keyed by the position. Every move that wins at once
(a pattern completed, or the opponent left without a card) ends the search of its
node before anything else is tried; the other moves are tried in order of the
opponent's choices after them, fewest first, since a cornered opponent is quickly
refuted or quickly wins.

:class:`SolverBot` plays the best value; among equally good moves it prefers the one
that gives the opponent the most replies that would worsen its own result (the most
rope to hang itself with), then picks at random.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from bots.base import Bot, GameInfo
from bots.registry import BotKind
from engines.cards import Card
from engines.core import Action
from engines.koenigsgarten import (
    CELLS,
    EDGE_CELLS,
    WINNING_PATTERNS,
    KoenigsgartenState,
    cell_index,
    parse_layout,
)

WIN: Final = 1
DRAW: Final = 0
LOSS: Final = -1
VALUE_NAMES: Final = {WIN: "win", DRAW: "draw", LOSS: "loss"}

_FULL: Final = (1 << CELLS) - 1
_EDGE_MASK: Final = sum(1 << cell for cell in EDGE_CELLS)
_START: Final = -1
"""``last`` before the first move: any edge card may be taken."""


@functools.cache
def _winning_masks() -> bytes:
    """``table[mask]`` is 1 when ``mask`` holds one of the 19 patterns completely.

    Made on first use, not at import: listing the bots must not load NumPy."""
    import numpy as np

    masks = np.arange(1 << CELLS, dtype=np.int64)
    winning = np.zeros(1 << CELLS, dtype=bool)
    for pattern in WINNING_PATTERNS:
        winning |= (masks & pattern) == pattern
    return winning.astype(np.uint8).tobytes()


# Transposition-table entries hold a lower and an upper bound, both in LOSS..WIN.
_ENTRY_OF_BOUNDS: Final = {
    (lo, hi): 3 * (lo + 1) + hi + 1 for lo in (-1, 0, 1) for hi in (-1, 0, 1)
}
_BOUNDS_OF_ENTRY: Final = {entry: bounds for bounds, entry in _ENTRY_OF_BOUNDS.items()}


@dataclass(frozen=True)
class Position:
    """A Königsgarten position from the point of view of the side to move.

    Attributes:
        mine: the cells marked by the side to move.
        theirs: the cells marked by its opponent.
        last: the cell of the card the opponent just took; -1 before the first move.
    """

    mine: int
    theirs: int
    last: int

    @property
    def garden(self) -> int:
        """The cells whose card is still in the garden."""
        return _FULL & ~(self.mine | self.theirs)


class GardenRules:
    """The moves of one layout on bitmask positions (shared by the solver and the
    heuristic player)."""

    def __init__(self, layout: Sequence[Card]):
        """Raises InvalidDealError when ``layout`` is not 16 distinct garden cards."""
        self.layout: tuple[Card, ...] = tuple(parse_layout(list(layout)))
        self._winning = _winning_masks()
        self._cell_of = {card: cell for cell, card in enumerate(self.layout)}
        self._follows = tuple(
            sum(
                1 << other
                for other, card in enumerate(self.layout)
                if other != cell and (card[0] == taken[0] or card[1] == taken[1])
            )
            for cell, taken in enumerate(self.layout)
        )
        """``_follows[cell]``: the cells whose card shares rank or suit with ``cell``'s."""

    def cell_of(self, card: Card) -> int:
        """The cell where ``card`` lies in the layout (KeyError for another card)."""
        return self._cell_of[card]

    def legal_cells(self, position: Position) -> list[int]:
        """The cells whose card the side to move may take, in cell order."""
        allowed = _EDGE_MASK if position.last == _START else self._follows[position.last]
        moves = position.garden & allowed
        return [cell for cell in range(CELLS) if moves >> cell & 1]

    def after(self, position: Position, cell: int) -> tuple[int | None, Position]:
        """Take ``cell``: the game's value for the mover if the move ends the game
        (else None), and the next position from the opponent's point of view."""
        mine = position.mine | 1 << cell
        garden = position.garden & ~(1 << cell)
        following = Position(position.theirs, mine, cell)
        if self._winning[mine]:
            return WIN, following
        if not garden:
            return DRAW, following
        if not garden & self._follows[cell]:
            return WIN, following
        return None, following


def read_observation(observation: Mapping[str, Any]) -> tuple[list[Card], Position]:
    """The layout and the position (for the seat to move) of a Königsgarten observation."""
    layout: list[str | None] = list(observation["garden"])
    marks = [0, 0]
    for seat, cells in enumerate(observation["markers"]):
        for name in cells:
            marks[seat] |= 1 << cell_index(name)
    for card, name in observation["moves"]:
        layout[cell_index(name)] = card
    cards = [Card(text) for text in layout if text is not None]
    me = int(observation["to_move"])
    last = observation["last_taken"]
    cell = _START if last is None else cards.index(Card(last))
    return cards, Position(marks[me], marks[1 - me], cell)


class Solver(GardenRules):
    """Exact values of the positions of one layout; the table is kept between calls."""

    def __init__(self, layout: Sequence[Card]):
        """Raises InvalidDealError when ``layout`` is not 16 distinct garden cards."""
        super().__init__(layout)
        self._table: dict[int, int] = {}
        self.nodes = 0
        """Positions searched (not answered by the table) since the solver was made."""

    # -- values -----------------------------------------------------------------------------

    def value(self, position: Position) -> int:
        """WIN, DRAW or LOSS for the side to move, with perfect play by both sides.

        The position must not be over (the side to move has a legal card).
        """
        return self._negamax(position.mine, position.theirs, position.last, LOSS, WIN)

    def move_value(self, position: Position, cell: int) -> int:
        """The value for the side to move of taking ``cell`` and playing on perfectly."""
        ended, following = self.after(position, cell)
        return ended if ended is not None else -self.value(following)

    def action_values(self, position: Position) -> dict[Card, int]:
        """The exact value of every legal card for the side to move, in cell order."""
        return {
            self.layout[cell]: self.move_value(position, cell)
            for cell in self.legal_cells(position)
        }

    def _negamax(self, mine: int, theirs: int, last: int, alpha: int, beta: int) -> int:
        garden = _FULL & ~(mine | theirs)
        follows = self._follows
        winning = self._winning
        moves = garden & (_EDGE_MASK if last == _START else follows[last])
        # A move that wins at once settles the node; a move that takes the last card
        # is a draw; every other move is searched, fewest replies first.
        candidates: list[tuple[int, int, int]] = []
        best = LOSS - 1
        remaining = moves
        while remaining:
            low = remaining & -remaining
            remaining ^= low
            cell = low.bit_length() - 1
            after_mine = mine | low
            if winning[after_mine]:
                return WIN
            after_garden = garden ^ low
            if not after_garden:
                best = DRAW
                continue
            replies = after_garden & follows[cell]
            if not replies:
                return WIN
            candidates.append((replies.bit_count(), cell, after_mine))
        if not candidates:
            return best
        key = mine | theirs << CELLS | (last + 1) << (2 * CELLS)
        entry = self._table.get(key)
        lower, upper = (LOSS, WIN) if entry is None else _BOUNDS_OF_ENTRY[entry]
        lower = max(lower, best)
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        self.nodes += 1
        alpha = floor = max(alpha, lower)
        beta = ceiling = min(beta, upper)
        candidates.sort()
        for _, cell, after_mine in candidates:
            value = -self._negamax(theirs, after_mine, cell, -beta, -alpha)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        # Fail-soft: below the window ``best`` bounds the value from above, above it
        # from below; inside it is exact.
        if best <= floor:
            upper = best
        elif best >= ceiling:
            lower = best
        else:
            lower = upper = best
        self._table[key] = _ENTRY_OF_BOUNDS[lower, upper]
        return best


@dataclass(frozen=True)
class Solution:
    """The value of a position for the side to move and of each of its legal cards."""

    value: int
    action_values: Mapping[Card, int]


def solve_state(state: KoenigsgartenState, solver: Solver | None = None) -> Solution:
    """Solve a running game exactly (reusing ``solver``'s table when it is given and
    belongs to the same layout).

    Raises:
        ValueError: the game is over.
    """
    if state.is_terminal():
        raise ValueError("the game is over: nothing to solve")
    layout, position = read_observation(state.observation(state.current_seat))
    if solver is None or list(solver.layout) != layout:
        solver = Solver(layout)
    values = solver.action_values(position)
    return Solution(max(values.values()), values)


class SolverBot(Bot):
    """Perfect play (see the module docstring)."""

    name = "solver"

    def __init__(self, *, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self._solver: Solver | None = None

    def new_game(self, info: GameInfo) -> None:
        super().new_game(info)
        self._solver = None

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]  # the only legal action
        layout, position = read_observation(observation)
        if self._solver is None or list(self._solver.layout) != layout:
            self._solver = Solver(layout)
        solver = self._solver
        values = {cell: solver.move_value(position, cell) for cell in solver.legal_cells(position)}
        best = max(values.values())
        choices = [cell for cell, value in values.items() if value == best]
        if len(choices) > 1 and best != WIN:
            rope = {cell: self._rope(solver, position, cell, best) for cell in choices}
            most = max(rope.values())
            choices = [cell for cell in choices if rope[cell] == most]
        chosen = solver.layout[choices[self.rng.randrange(len(choices))]]
        return legal_actions[legal_actions.index(chosen)]

    @staticmethod
    def _rope(solver: Solver, position: Position, cell: int, value: int) -> int:
        """After taking ``cell`` (worth ``value``), how many opponent replies would
        leave us better off than ``value``."""
        ended, following = solver.after(position, cell)
        if ended is not None:
            return 0
        return sum(
            1
            for reply in solver.legal_cells(following)
            if -solver.move_value(following, reply) > value
        )


SOLVER: Final = BotKind(
    "solver",
    SolverBot,
    "Königsgarten: perfect play by alpha-beta search to the end (exact win/draw/loss)",
    games=frozenset({"koenigsgarten"}),
)
