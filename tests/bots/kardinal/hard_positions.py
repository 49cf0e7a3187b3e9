"""Kardinal & König decks and positions that are hard on a take planner: no circles
(the circle limit never ends a turn) and seats hoarding their tablets (``mixed``
opens every row end to every take, and each tablet multiplies the orders of a turn).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, cast

from engines.kardinal import (
    GAME,
    MIXED,
    PLAYABLE_TABLETS,
    Deck,
    KardinalState,
    PlayTablet,
    TabletMix,
    deck_from_toml_text,
    deck_to_data,
)

NO_CIRCLES_FILE = Path(__file__).parents[3] / "configs" / "kardinal" / "no-circles.toml"


def no_circles_deck(tablets: TabletMix | None = None) -> Deck:
    """The default deck without circles (``configs/kardinal/no-circles.toml``), with
    the default tablets or ``tablets``."""
    deck = deck_from_toml_text(NO_CIRCLES_FILE.read_text(encoding="utf-8"))
    return deck if tablets is None else Deck(cards=deck.cards, tablets=tablets)


def options(deck: Deck) -> dict[str, Any]:
    return {"deck": deck_to_data(deck)}


def hoarding_positions(deck: Deck, seats: int, seed: int, count: int) -> list[KardinalState]:
    """The ``count`` hardest turn starts of a seeded game of random players who never
    play a tablet: first those where the seat to move holds a ``mixed`` tablet, then
    the most playable tablets held, then the earliest."""
    state = GAME.new_initial_state(seed=seed, seats=seats, options=options(deck))
    assert isinstance(state, KardinalState)
    rng = random.Random(seed)
    found: list[tuple[bool, int, int, KardinalState]] = []
    while not state.is_terminal():
        legal = state.legal_actions()
        me = state.current_seat
        held = [kind for kind in state.held_tablets(me) if kind in PLAYABLE_TABLETS]
        if not state.taken_this_turn() and len(legal) > 1:
            found.append(
                (MIXED in held, len(held), -len(found), cast(KardinalState, state.clone()))
            )
        choices = [action for action in legal if not isinstance(action, PlayTablet)]
        state.apply_action(choices[rng.randrange(len(choices))])
    found.sort(key=lambda entry: entry[:3], reverse=True)
    return [position for *_, position in found[:count]]
