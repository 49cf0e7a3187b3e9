"""Königsgarten's observation vector (perfect information: both seats see everything)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from engines.core import TERMINAL, Action, State
from engines.envs.actions import ActionIndex, Mask
from engines.envs.encoding import Block, Encoder, Layout, Tracker, Vector
from engines.koenigsgarten import CELL_NAMES, CELLS, EDGE_CELLS, GARDEN_CARDS

CARD_NUMBER: Final = {str(card): number for number, card in enumerate(GARDEN_CARDS)}
"""A garden card's number 0..15, also its action index."""
_CELL_NUMBER: Final = {name: cell for cell, name in enumerate(CELL_NAMES)}
_CARDS: Final = len(GARDEN_CARDS)

LAYOUT: Final = Layout(
    [
        Block("garden", CELLS * _CARDS, 1, "1 at cell × 16 + card: that card lies in that cell"),
        Block("my_markers", CELLS, 1, "1 where the observer's markers stand (cells a1..d4)"),
        Block("their_markers", CELLS, 1, "1 where the opponent's markers stand"),
        Block("last_taken", _CARDS, 1, "the card taken last (all 0 before the first move)"),
        Block("to_move", 1, 1, "1 when the observer is to move"),
    ]
)
_GARDEN, _MINE, _THEIRS = LAYOUT["garden"], LAYOUT["my_markers"], LAYOUT["their_markers"]
_LAST, _TO_MOVE = LAYOUT["last_taken"], LAYOUT["to_move"]
_AT_EDGE: Final = tuple(cell in EDGE_CELLS for cell in range(CELLS))


class KoenigsgartenEncoder(Encoder):
    layout = LAYOUT

    def encode(self, observation: Mapping[str, Any]) -> Vector:
        vector = LAYOUT.zeros()
        me = observation["seat"]
        for cell, card in enumerate(observation["garden"]):
            if card is not None:
                vector[_GARDEN + cell * _CARDS + CARD_NUMBER[card]] = 1
        for seat, block in ((me, _MINE), (1 - me, _THEIRS)):
            for name in observation["markers"][seat]:
                vector[block + _CELL_NUMBER[name]] = 1
        if observation["last_taken"] is not None:
            vector[_LAST + CARD_NUMBER[observation["last_taken"]]] = 1
        vector[_TO_MOVE] = observation["to_move"] == me
        return vector

    def tracker(self, state: State, actions: ActionIndex) -> Tracker:
        return _KoenigsgartenTracker(state, actions)


def _matching_bits(card: str) -> int:
    """Bit ``n`` set for every garden card ``n`` sharing ``card``'s rank or suit: the
    cards that may follow it."""
    return sum(1 << n for n, c in enumerate(CARD_NUMBER) if c[0] == card[0] or c[1] == card[1])


_MATCHING: Final = tuple(_matching_bits(card) for card in CARD_NUMBER)


def _read_only(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    array.flags.writeable = False
    return array


_EMPTY: Final = _read_only(LAYOUT.zeros())
_TABLE: Final = _read_only(
    ((np.arange(1 << _CARDS)[:, None] >> np.arange(_CARDS)) & 1).astype(np.int8)
)
"""The mask of every set of legal cards (a 16-bit number) as one row, read-only."""


class _Masks(dict[int, Mask]):
    """The rows of :data:`_TABLE` that steps hand out, each made once: a step costs a
    dict lookup instead of indexing the table (a NumPy call and a new view per step);
    nobody can change a row. A game reaches a few thousand sets at most: the 12 edge
    cards of a layout, or subsets of the 6 cards sharing a card's rank or suit."""

    def __missing__(self, legal: int) -> Mask:
        mask: Mask = _TABLE[legal]
        self[legal] = mask
        return mask


_MASKS: Final = _Masks()


class _KoenigsgartenTracker(Tracker):
    """Keeps both seats' vectors up to date in place and the legal cards as the rules
    give them: the cards left that share the rank or suit of the card taken last (at
    first, the cards at the edge). A test holds both to encoding and masking afresh.

    Every step runs this, so it does as little as it can: a move writes ten numbers
    through memoryviews (a NumPy item write costs half as much again), a vector is one
    copy of 305 bytes, a mask an entry of :data:`_MASKS`.
    """

    def __init__(self, state: State, actions: ActionIndex):
        super().__init__(state, actions)
        # The cell of each card (by number), the garden block's 1s (one per cell) and
        # the cards at the edge, in one pass over the layout.
        self._cell_of = cell_of = [0] * _CARDS
        first = _EMPTY.copy()
        ones = first.data
        edge = 0
        for cell, card in enumerate(state.deal()["layout"]):
            number = CARD_NUMBER[card]
            cell_of[number] = cell
            ones[_GARDEN + cell * _CARDS + number] = 1
            if _AT_EDGE[cell]:
                edge |= 1 << number
        self._vectors = (first, first.copy())
        self._copies = (first.copy, self._vectors[1].copy)
        """Per seat: a fresh copy of its vector (the bound method saves a lookup)."""
        second = self._vectors[1].data
        self._views = ((ones, second), (second, ones))
        """Per mover: its own vector and the opponent's, to write through."""
        self._legal = edge
        self._left = (1 << _CARDS) - 1
        self._last = -1
        self._to_move = state.current_seat
        if state.history:
            for seat, action in state.history:
                self.advance(seat, action)
        else:
            self._views[self._to_move][0][_TO_MOVE] = 1

    def advance(self, seat: int, action: Action) -> None:
        self._take(seat, CARD_NUMBER[action])  # type: ignore[index]  # a Card is a str

    def _take(self, seat: int, number: int) -> None:
        """``seat`` took card ``number``: the garden, markers, last card, legal cards and
        (from the state, which has taken it already) whose turn it is."""
        cell = self._cell_of[number]
        mine, theirs = self._views[seat]
        at = _GARDEN + cell * _CARDS + number
        mine[at] = theirs[at] = 0
        mine[_MINE + cell] = theirs[_THEIRS + cell] = 1
        last = self._last
        if last >= 0:
            mine[_LAST + last] = theirs[_LAST + last] = 0
        mine[_LAST + number] = theirs[_LAST + number] = 1
        self._last = number
        self._left = left = self._left & ~(1 << number)
        self._legal = left & _MATCHING[number]
        self._to_move = to_move = self.state.current_seat
        mine[_TO_MOVE] = 0
        if to_move != TERMINAL:
            theirs[_TO_MOVE] = 1

    def vector(self, seat: int) -> Vector:
        return self._vectors[seat].copy()

    def mask(self) -> Mask:
        mask: Mask = _MASKS[self._legal]
        return mask

    def is_legal(self, index: int) -> bool:
        return bool(self._legal >> index & 1)

    # What every step asks, each in one call (docs/benchmarks.md).

    def observe(self, seat: int) -> dict[str, Any]:
        mask = _MASKS[self._legal] if seat == self._to_move else self.idle_mask
        return {"observation": self._copies[seat](), "action_mask": mask}

    def play(self, seat: int, index: int, action: Action) -> int | None:
        if not self._legal >> index & 1:
            return None
        self.state.apply_unchecked(action)
        self._take(seat, index)
        return self._to_move
