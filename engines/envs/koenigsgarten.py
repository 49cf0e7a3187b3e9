"""Königsgarten's observation vector (perfect information: both seats see everything)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, cast

import numpy as np

from engines.core import Action, State
from engines.envs.actions import ActionIndex, Mask
from engines.envs.encoding import Block, Encoder, Layout, Tracker, Vector
from engines.koenigsgarten import CELL_NAMES, CELLS, EDGE_CELLS, GARDEN_CARDS

CARD_NUMBER: Final = {str(card): number for number, card in enumerate(GARDEN_CARDS)}
"""A garden card's number 0..15, also its action index."""
_CELL_NUMBER: Final = {name: cell for cell, name in enumerate(CELL_NAMES)}
_CARDS: Final = len(GARDEN_CARDS)
_EDGE: Final = frozenset(EDGE_CELLS)

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
        return _KoenigsgartenTracker(state)


def _matching_bits(card: str) -> int:
    """Bit ``n`` set for every garden card ``n`` sharing ``card``'s rank or suit: the
    cards that may follow it."""
    return sum(1 << n for n, c in enumerate(CARD_NUMBER) if c[0] == card[0] or c[1] == card[1])


_MATCHING: Final = tuple(_matching_bits(card) for card in CARD_NUMBER)
_MASKS: Final = ((np.arange(1 << _CARDS)[:, None] >> np.arange(_CARDS)) & 1).astype(np.int8)
"""The mask of every set of legal cards (a 16-bit number), 1 MB: copying a row is
cheaper than building a mask on every step."""


class _KoenigsgartenTracker(Tracker):
    """Keeps both seats' vectors up to date in place and the legal cards as the rules
    give them: the cards left that share the rank or suit of the card taken last (at
    first, the cards at the edge). A test holds both to encoding and masking afresh.

    Every step runs this, so it writes as little as it can: a move changes the taken
    card's cell in both vectors; the last card and whose turn it is are written into
    the copy that :meth:`vector` hands out.
    """

    def __init__(self, state: State):
        self._state = state
        first = LAYOUT.zeros()
        edge = 0
        cell_of: dict[int, int] = {}
        self._cell_of = cell_of
        for cell, card in enumerate(state.deal()["layout"]):
            number = CARD_NUMBER[card]
            cell_of[number] = cell
            first[_GARDEN + cell * _CARDS + number] = 1
            if cell in _EDGE:
                edge |= 1 << number
        self._vectors = (first, first.copy())
        self._legal = edge
        self._left = (1 << _CARDS) - 1
        self._last = -1
        for seat, action in state.history:
            self.advance(seat, action)

    def advance(self, seat: int, action: Action) -> None:
        number = CARD_NUMBER[cast(str, action)]
        cell = self._cell_of[number]
        first, second = self._vectors
        first[_GARDEN + cell * _CARDS + number] = second[_GARDEN + cell * _CARDS + number] = 0
        if seat == 0:
            first[_MINE + cell] = second[_THEIRS + cell] = 1
        else:
            first[_THEIRS + cell] = second[_MINE + cell] = 1
        self._last = number
        self._left &= ~(1 << number)
        self._legal = self._left & _MATCHING[number]

    def vector(self, seat: int) -> Vector:
        vector = self._vectors[seat].copy()
        if self._last >= 0:
            vector[_LAST + self._last] = 1
        vector[_TO_MOVE] = self._state.current_seat == seat
        return vector

    def mask(self) -> Mask:
        mask: Mask = _MASKS[self._legal].copy()
        return mask

    def is_legal(self, index: int) -> bool:
        return bool(self._legal >> index & 1)
