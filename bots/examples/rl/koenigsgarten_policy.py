"""A learned Königsgarten policy: a linear score over what taking each card does.

This file is both the policy the trainer (``train_koenigsgarten.py``) learns and the
bot it writes: the trainer copies it with the learned numbers in ``WEIGHTS``, and the
copy is registered with ``arena bots add NAME --game koenigsgarten --python
FILE:LearnedKoenigsgarten``. It uses nothing but the standard library, so the bot
starts fast in the sandbox, and it reads the same observation in training (the env's
``info["observation"]``) as in a tournament.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SIZE = 4
CELL_NAMES = tuple(f"{'abcd'[cell % SIZE]}{cell // SIZE + 1}" for cell in range(SIZE * SIZE))
_ROWS = [[r * SIZE + c for c in range(SIZE)] for r in range(SIZE)]
_SQUARES = [
    [r * SIZE + c, r * SIZE + c + 1, (r + 1) * SIZE + c, (r + 1) * SIZE + c + 1]
    for r in range(SIZE - 1)
    for c in range(SIZE - 1)
]
PATTERNS = tuple(
    frozenset(cells)
    for cells in [
        *_ROWS,
        *([r * SIZE + c for r in range(SIZE)] for c in range(SIZE)),
        [0, 5, 10, 15],
        [3, 6, 9, 12],
        *_SQUARES,
    ]
)
"""The 19 winning patterns of four cells: rows, columns, long diagonals, 2 × 2 squares."""

FEATURES = (
    "bias",
    "wins_now",
    "blocks_their_four",
    "leaves_no_reply",
    "gives_them_a_win",
    "replies_left",
    "my_threats",
    "open_patterns",
)

WEIGHTS: tuple[float, ...] = (0.0,) * len(FEATURES)
"""The learned weights, one per feature (the trainer writes them here)."""


def features(observation: Mapping[str, Any], card: str) -> tuple[float, ...]:
    """What taking ``card`` does, for the seat the observation belongs to (see FEATURES).

    Raises:
        ValueError: ``card`` is not in the garden.
    """
    garden: list[str | None] = observation["garden"]
    seat = observation["seat"]
    mine = {CELL_NAMES.index(name) for name in observation["markers"][seat]}
    theirs = {CELL_NAMES.index(name) for name in observation["markers"][1 - seat]}
    cell = garden.index(card)
    through = [pattern for pattern in PATTERNS if cell in pattern]
    after = mine | {cell}
    wins_now = any(pattern <= after for pattern in through)
    blocks = any(len(pattern & theirs) == 3 for pattern in through)
    replies = [
        other
        for other, left in enumerate(garden)
        if left is not None and other != cell and (left[0] == card[0] or left[1] == card[1])
    ]
    cards_left = sum(left is not None for left in garden) - 1
    gives_win = any(
        pattern <= theirs | {reply} for reply in replies for pattern in PATTERNS if reply in pattern
    )
    threats = sum(1 for pattern in through if len(pattern & after) == 3 and not pattern & theirs)
    open_patterns = sum(1 for pattern in through if not pattern & theirs)
    return (
        1.0,
        float(wins_now),
        float(blocks),
        float(not replies and cards_left > 0),
        float(gives_win),
        len(replies) / 12,
        threats / 4,
        open_patterns / 7,
    )


def score(weights: Sequence[float], values: Sequence[float]) -> float:
    return sum(w * v for w, v in zip(weights, values, strict=True))


class LearnedKoenigsgarten:
    """Takes the legal card with the highest score (the first of equals)."""

    name = "learned-koenigsgarten"
    games = ("koenigsgarten",)

    def act(
        self, observation: Mapping[str, Any], legal_actions: Sequence[str], time_left: float | None
    ) -> str:
        return max(legal_actions, key=lambda card: score(WEIGHTS, features(observation, card)))
