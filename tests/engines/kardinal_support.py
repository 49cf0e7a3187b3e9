"""Building Kardinal & König positions by hand for the rule tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from engines.kardinal import CARD_IDS, GAME, KardinalState

MIX = {"reclaim": 2, "three": 2, "mixed": 2, "minus2": 2}
# Where the tablets a test does not name go: deep inside the rows, out of reach.
_DEEP_COLUMNS = (6, 7)


def deal(*rows: str, tablets: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A deal whose rows start and end as given.

    Each row is written ``"FR1 FR3 | DK2 DK1"``: the cards from the left end inwards,
    then after ``|`` the cards ending at the right end. Cards not named fill the
    middles in id order. ``tablets`` names card → kind; the rest of the default mix
    lies on cards deep in the middle of the rows.
    """
    named = [text.partition("|") for text in rows]
    used = {card for left, _, right in named for card in (left + " " + right).split()}
    filler = [card for card in CARD_IDS if card not in used]
    layout = []
    for r in range(4):
        left, _, right = named[r] if r < len(named) else ("", "", "")
        ends = left.split(), right.split()
        size = 14 - len(ends[0]) - len(ends[1])
        layout.append(ends[0] + filler[:size] + ends[1])
        filler = filler[size:]
    given = dict(tablets or {})
    missing = Counter(MIX) - Counter(given.values())
    spots = [
        row[column]
        for column in _DEEP_COLUMNS
        for row in layout
        if row[column] not in given and row[column] not in used
    ]
    for spot, kind in zip(spots, missing.elements(), strict=False):
        given[spot] = kind
    return {"layout": layout, "tablets": given}


def start(*rows: str, seats: int = 2, tablets: Mapping[str, str] | None = None) -> KardinalState:
    return GAME.state_from_deal(deal(*rows, tablets=tablets), seats=seats)


def play(state: KardinalState, *actions: str) -> KardinalState:
    """Apply the actions through the checked path (each must be legal)."""
    for text in actions:
        state.apply_action(GAME.parse_action(text))
    return state


def legal(state: KardinalState) -> set[str]:
    return {str(action) for action in state.legal_actions()}


def takes(state: KardinalState) -> set[str]:
    return {text for text in legal(state) if text.startswith("take ")}
