"""An example submitted bot in Python: plain code, no arena imports, two games.

Run it by hand:     python -m bots.sdk bots/examples/python_bot.py:ExampleBot
Register it:        arena bots add example -g koenigsgarten --python bots/examples/python_bot.py

Königsgarten: win at once if it can, never hand the opponent an immediate win or a
free choice it can use, else take the cell with the most open patterns.
Kardinal & König: keep taking cards of the country it holds most of, then end the turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SIZE = 4
CELLS = tuple(f"{file}{rank}" for rank in range(1, SIZE + 1) for file in "abcd")


def _cells(*coordinates: tuple[int, int]) -> frozenset[int]:
    return frozenset(row * SIZE + column for row, column in coordinates)


PATTERNS = (
    *(_cells(*((r, c) for c in range(SIZE))) for r in range(SIZE)),
    *(_cells(*((r, c) for r in range(SIZE))) for c in range(SIZE)),
    _cells(*((i, i) for i in range(SIZE))),
    _cells(*((i, SIZE - 1 - i) for i in range(SIZE))),
    *(
        _cells((r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1))
        for r in range(SIZE - 1)
        for c in range(SIZE - 1)
    ),
)


class ExampleBot:
    name = "example-python"
    games = ("koenigsgarten", "kardinal")

    def act(
        self, observation: Mapping[str, Any], legal_actions: Sequence[str], time_left: float | None
    ) -> str:
        if observation["game"] == "koenigsgarten":
            return _garden_move(observation, legal_actions)
        return _kardinal_move(observation, legal_actions)


def _garden_move(observation: Mapping[str, Any], legal: Sequence[str]) -> str:
    me = observation["seat"]
    garden: list[str | None] = observation["garden"]
    cell_of = {card: cell for cell, card in enumerate(garden) if card is not None}
    mine = {CELLS.index(name) for name in observation["markers"][me]}
    theirs = {CELLS.index(name) for name in observation["markers"][1 - me]}

    def wins(owned: set[int], cell: int) -> bool:
        return any(cell in p and p <= owned | {cell} for p in PATTERNS)

    def score(card: str) -> tuple[int, int]:
        cell = cell_of[card]
        if wins(mine, cell):
            return (3, 0)
        replies = [
            other
            for other in cell_of
            if other != card and (other[0] == card[0] or other[1] == card[1])
        ]
        if not replies and len(cell_of) > 1:
            return (3, 0)  # the opponent cannot move: a win
        if any(wins(theirs, cell_of[reply]) for reply in replies):
            return (0, 0)
        open_patterns = sum(1 for p in PATTERNS if cell in p and not p & theirs)
        return (1, open_patterns)

    return max(legal, key=score)


def _kardinal_move(observation: Mapping[str, Any], legal: Sequence[str]) -> str:
    held = observation["holdings"][observation["seat"]]
    counts: dict[str, int] = {}
    for card in held:
        counts[card[:2]] = counts.get(card[:2], 0) + 1
    takes = [action for action in legal if action.startswith("take ")]
    if takes:
        return max(takes, key=lambda action: counts.get(action[5:7], 0))
    for finish in ("end", "skip"):
        if finish in legal:
            return finish
    return legal[0]
