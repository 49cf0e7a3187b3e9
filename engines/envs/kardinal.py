"""Kardinal & König's observation vector: everything public plus the observer's tablets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from engines.envs.encoding import Block, Encoder, Layout, Vector, relative
from engines.kardinal import (
    CARD_INDEX,
    CARRIAGE,
    NUM_CARDS,
    NUM_ROWS,
    NUM_TABLETS,
    PLAYABLE_TABLETS,
    RAISED_CIRCLE_LIMIT,
    ROW_LENGTH,
    SHIP,
    STONES_PER_SEAT,
    TABLET_KINDS,
    KardinalOptions,
    deck_tables,
)

_PLAYABLE = {TABLET_KINDS[kind]: number for number, kind in enumerate(PLAYABLE_TABLETS)}
_KIND_NUMBER = {kind: number for number, kind in enumerate(TABLET_KINDS)}


class KardinalEncoder(Encoder):
    """Per card (in the order DK1 … FR8): its place in the layout, whether it is still
    there and at a row's end, tablets, stones, who took it, and the deck's circles and
    symbols; per seat: stones, tablets held and played; the observer's own tablets and
    the turn so far. The kinds of face-down tablets and of others' tablets are never in
    it (the engine's observation does not show them)."""

    def __init__(self, seats: int, options: KardinalOptions):
        self.seats = seats
        cards = NUM_CARDS
        self.layout = Layout(
            [
                Block("card_row", cards * NUM_ROWS, 1, "1 at card × 4 + row: the card's row"),
                Block("card_column", cards * ROW_LENGTH, 1, "1 at card × 14 + column"),
                Block("in_rows", cards, 1, "1 while the card lies in its row"),
                Block("row_end", cards, 1, "1 for a card at an end of its row now"),
                Block("face_down_tablet", cards, 1, "1 while a face-down tablet lies on it"),
                Block("carried_tablet", cards, 1, "1 if a tablet was dealt onto it"),
                Block(
                    "stone",
                    cards * seats,
                    1,
                    "1 at card × seats + seat: whose stone is on it "
                    "(seats counted from the observer)",
                ),
                Block("taken_by", cards * seats, 1, "1 at card × seats + seat: who took it"),
                Block("taken_this_turn", cards, 1, "1 for a card taken in the current turn"),
                Block("circles", cards, 2, "the card's circles (from the deck)"),
                Block("ship", cards, 1, "1 for a card with a ship"),
                Block("carriage", cards, 1, "1 for a card with a carriage"),
                Block("supply", seats, STONES_PER_SEAT, "stones in each seat's supply"),
                Block("spent", seats, STONES_PER_SEAT, "stones each seat paid"),
                Block("tablets_held", seats, NUM_TABLETS, "tablets each seat holds"),
                Block(
                    "tablets_played",
                    seats * len(_PLAYABLE),
                    NUM_TABLETS,
                    "at seat × 3 + kind: reclaim, three, mixed tablets the seat played",
                ),
                Block(
                    "my_tablets",
                    len(TABLET_KINDS),
                    NUM_TABLETS,
                    "the observer's tablets by kind: reclaim, three, mixed, minus2",
                ),
                Block("turn_circles", 1, RAISED_CIRCLE_LIMIT, "circles taken this turn"),
                Block("circle_limit", 1, RAISED_CIRCLE_LIMIT, "this turn's circle limit"),
                Block("mixed", 1, 1, "1 when this turn may take several countries"),
                Block("stone_done", 1, 1, "1 once this turn placed or moved its stone"),
                Block("skips", 1, seats, "turns skipped in a row"),
                Block("to_move", seats, 1, "1 for the seat to move, counted from the observer"),
            ]
        )
        tables = deck_tables(options.deck)
        self._deck = self.layout.zeros()
        circles, ship, carriage = (self.layout[n] for n in ("circles", "ship", "carriage"))
        for card in range(cards):
            self._deck[circles + card] = tables.circles[card]
            self._deck[ship + card] = tables.symbol[card] == SHIP
            self._deck[carriage + card] = tables.symbol[card] == CARRIAGE

    def encode(self, observation: Mapping[str, Any]) -> Vector:
        layout = self.layout
        vector = self._deck.copy()
        seats, me = self.seats, observation["seat"]
        card_row, card_column = layout["card_row"], layout["card_column"]
        for row, cards in enumerate(observation["layout"]):
            for column, text in enumerate(cards):
                card = CARD_INDEX[text]
                vector[card_row + card * NUM_ROWS + row] = 1
                vector[card_column + card * ROW_LENGTH + column] = 1
        in_rows, row_end = layout["in_rows"], layout["row_end"]
        for cards in observation["rows"]:
            for text in cards:
                vector[in_rows + CARD_INDEX[text]] = 1
            if cards:
                vector[row_end + CARD_INDEX[cards[0]]] = 1
                vector[row_end + CARD_INDEX[cards[-1]]] = 1
        _ones(vector, layout["face_down_tablet"], observation["face_down"])
        _ones(vector, layout["carried_tablet"], observation["tablet_cards"])
        _ones(vector, layout["taken_this_turn"], observation["turn"]["taken"])
        stone = layout["stone"]
        for text, seat in observation["stones"].items():
            vector[stone + CARD_INDEX[text] * seats + relative(seat, me, seats)] = 1
        taken_by = layout["taken_by"]
        for seat, cards in enumerate(observation["holdings"]):
            at = relative(seat, me, seats)
            for text in cards:
                vector[taken_by + CARD_INDEX[text] * seats + at] = 1
        supply, spent, held = layout["supply"], layout["spent"], layout["tablets_held"]
        for seat in range(seats):
            at = relative(seat, me, seats)
            vector[supply + at] = observation["supply"][seat]
            vector[spent + at] = observation["spent"][seat]
            vector[held + at] = observation["tablet_counts"][seat]
        played = layout["tablets_played"]
        for seat, kind in observation["played_tablets"]:
            vector[played + relative(seat, me, seats) * len(_PLAYABLE) + _PLAYABLE[kind]] += 1
        mine = layout["my_tablets"]
        for kind in observation["my_tablets"]:
            vector[mine + _KIND_NUMBER[kind]] += 1
        turn = observation["turn"]
        vector[layout["turn_circles"]] = turn["circles"]
        vector[layout["circle_limit"]] = turn["circle_limit"]
        vector[layout["mixed"]] = turn["mixed"]
        vector[layout["stone_done"]] = turn["stone_done"]
        vector[layout["skips"]] = observation["skips_in_a_row"]
        if observation["to_move"] >= 0:
            vector[layout["to_move"] + relative(observation["to_move"], me, seats)] = 1
        return vector


def _ones(vector: Vector, offset: int, texts: list[str]) -> None:
    if texts:
        vector[np.array([CARD_INDEX[text] for text in texts]) + offset] = 1
