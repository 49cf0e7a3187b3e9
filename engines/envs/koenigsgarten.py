"""Königsgarten's observation vector (perfect information: both seats see everything)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, cast

import numpy as np

from engines.core import Action, State
from engines.envs.encoding import Block, Encoder, Layout, Tracker, Vector
from engines.koenigsgarten import CELL_NAMES, CELLS, GARDEN_CARDS

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

    def tracker(self, state: State) -> Tracker:
        return _KoenigsgartenTracker(self, state)


class _KoenigsgartenTracker(Tracker):
    """Both seats' vectors as bytes, updated in place: a move changes five numbers of
    each (0/1 bytes are cheaper to write than NumPy elements; a vector is converted
    when it is asked for)."""

    def __init__(self, encoder: KoenigsgartenEncoder, state: State):
        self._state = state
        size = LAYOUT.size
        self._size = size
        self._cell_of = {card: cell for cell, card in enumerate(state.deal()["layout"])}
        if state.history:
            observation = state.observation(0)
            vectors = (encoder.encode(observation), encoder.encode(state.observation(1)))
            self._bytes = bytearray(np.concatenate(vectors).astype(np.uint8).tobytes())
            self._last = CARD_NUMBER.get(observation["last_taken"], -1)
            return
        # A fresh deal: every card in its cell, nothing taken, seat 0 to move.
        data = bytearray(2 * size)
        for card, cell in self._cell_of.items():
            at = _GARDEN + cell * _CARDS + CARD_NUMBER[card]
            data[at] = data[size + at] = 1
        data[_TO_MOVE] = 1
        self._bytes = data
        self._last = -1

    def advance(self, seat: int, action: Action) -> None:
        card = cast(str, action)
        number = CARD_NUMBER[card]
        cell = self._cell_of[card]
        data, size = self._bytes, self._size
        other = size - seat * size  # where the other seat's vector starts
        own = seat * size
        at = _GARDEN + cell * _CARDS + number
        data[at] = data[size + at] = 0
        data[own + _MINE + cell] = data[other + _THEIRS + cell] = 1
        if self._last >= 0:
            data[_LAST + self._last] = data[size + _LAST + self._last] = 0
        data[_LAST + number] = data[size + _LAST + number] = 1
        self._last = number
        to_move = self._state.current_seat
        data[_TO_MOVE] = to_move == 0
        data[size + _TO_MOVE] = to_move == 1

    def vector(self, seat: int) -> Vector:
        return np.frombuffer(self._bytes, np.uint8, self._size, seat * self._size).astype(
            np.float32
        )
