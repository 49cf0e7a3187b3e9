"""Kings in the Corner's observation vector: the observer's hand and everything public."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.cards import DECK
from engines.envs.encoding import Block, Encoder, Layout, Vector, relative
from engines.kings_corner import CORNERS, PILES

_CARDS = len(DECK)
_ORDINAL = {str(card): card.ordinal for card in DECK}
"""A card's text to its ordinal, without making a Card on every step."""


class KingsCornerEncoder(Encoder):
    """The observer's hand, each pile's top and bottom card and size, the cards on the
    piles, hand sizes, the stock, collected corners and where the turn stands. Other
    hands are never in it (the engine's observation does not show them)."""

    def __init__(self, seats: int):
        self.seats = seats
        piles = len(PILES)
        self.layout = Layout(
            [
                Block("hand", _CARDS, 1, "1 for a card in the observer's hand (A♠ A♥ … K♣)"),
                Block(
                    "pile_top",
                    piles * _CARDS,
                    1,
                    "1 at pile × 52 + card: the pile's top card (piles N E S W NE SE SW NW)",
                ),
                Block("pile_bottom", piles * _CARDS, 1, "1 at pile × 52 + card: its bottom card"),
                Block("pile_size", piles, _CARDS, "cards in each pile"),
                Block("on_piles", _CARDS, 1, "1 for a card lying in any pile"),
                Block("hand_sizes", seats, _CARDS, "cards in each hand, the observer's first"),
                Block("stock_size", 1, _CARDS, "cards left in the stock"),
                Block("corners_collected", seats, len(CORNERS), "corners each seat completed"),
                Block("to_move", seats, 1, "1 for the seat to move, counted from the observer"),
                Block("opening_turn", 1, 1, "1 in the first player's first turn"),
                Block("played_this_turn", 1, 1, "1 once the mover played or moved this turn"),
                Block("draw_pending", 1, 1, "1 when the turn must start with a draw"),
                Block("bare_turns", 1, seats, "turns in a row ended without a play, stock empty"),
            ]
        )

    def encode(self, observation: Mapping[str, Any]) -> Vector:
        layout = self.layout
        vector = layout.zeros()
        seats, me = self.seats, observation["seat"]
        hand = layout["hand"]
        for text in observation["hand"]:
            vector[hand + _ORDINAL[text]] = 1
        top, bottom, size = layout["pile_top"], layout["pile_bottom"], layout["pile_size"]
        on_piles = layout["on_piles"]
        for number, name in enumerate(PILES):
            pile = observation["piles"][name]
            vector[size + number] = len(pile)
            if pile:
                vector[top + number * _CARDS + _ORDINAL[pile[-1]]] = 1
                vector[bottom + number * _CARDS + _ORDINAL[pile[0]]] = 1
            for text in pile:
                vector[on_piles + _ORDINAL[text]] = 1
        sizes, corners = layout["hand_sizes"], layout["corners_collected"]
        for seat in range(seats):
            at = relative(seat, me, seats)
            vector[sizes + at] = observation["hand_sizes"][seat]
            vector[corners + at] = observation["corners_collected"][seat]
        vector[layout["stock_size"]] = observation["stock_size"]
        if observation["to_move"] >= 0:
            vector[layout["to_move"] + relative(observation["to_move"], me, seats)] = 1
        vector[layout["opening_turn"]] = observation["opening_turn"]
        vector[layout["played_this_turn"]] = observation["played_this_turn"]
        vector[layout["draw_pending"]] = observation["draw_pending"]
        vector[layout["bare_turns"]] = observation["bare_turns"]
        return vector
