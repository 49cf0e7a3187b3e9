"""Blumengarten's observation vector (perfect information: one seat sees everything)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.blumengarten import BlumengartenOptions, garden_shape
from engines.cards import DECK, SUITS, Card
from engines.envs.encoding import Block, Encoder, Layout, Vector

_CARDS = len(DECK)


class BlumengartenEncoder(Encoder):
    """Where every card is (column and depth, exposed, bouquet, foundation), the columns'
    sizes, the foundations' heights and the moves left before the move cap."""

    def __init__(self, options: BlumengartenOptions):
        self.columns, _ = garden_shape(options)
        columns = self.columns
        self.layout = Layout(
            [
                Block(
                    "card_column",
                    _CARDS * columns,
                    1,
                    f"1 at card × {columns} + column: the card lies in that column "
                    "(cards in the order A♠ A♥ A♦ A♣ 2♠ … K♣)",
                ),
                Block("card_depth", _CARDS, _CARDS - 1, "a column card's place, 0 = deepest"),
                Block("exposed", _CARDS, 1, "1 for a column's exposed card"),
                Block("bouquet", _CARDS, 1, "1 for a card in the bouquet"),
                Block("foundation", _CARDS, 1, "1 for a card on its foundation"),
                Block("column_size", columns, _CARDS, "cards in each column"),
                Block("foundation_height", len(SUITS), 13, "cards on the ♠ ♥ ♦ ♣ foundations"),
                Block("moves_left", 1, options.move_cap, "moves before the move cap ends the game"),
            ]
        )

    def encode(self, observation: Mapping[str, Any]) -> Vector:
        layout = self.layout
        vector = layout.zeros()
        columns = self.columns
        card_column, depth = layout["card_column"], layout["card_depth"]
        for index, column in enumerate(observation["columns"]):
            for place, text in enumerate(column):
                ordinal = Card(text).ordinal
                vector[card_column + ordinal * columns + index] = 1
                vector[depth + ordinal] = place
            if column:
                vector[layout["exposed"] + Card(column[-1]).ordinal] = 1
            vector[layout["column_size"] + index] = len(column)
        for text in observation["bouquet"]:
            vector[layout["bouquet"] + Card(text).ordinal] = 1
        foundation, heights = layout["foundation"], layout["foundation_height"]
        for suit_number, suit in enumerate(SUITS):
            height = observation["foundations"][suit]
            vector[heights + suit_number] = height
            for rank in range(height):
                vector[foundation + rank * len(SUITS) + suit_number] = 1
        vector[layout["moves_left"]] = observation["moves_left"]
        return vector
