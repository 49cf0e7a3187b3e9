"""The fast Kings in the Corner policy and evaluation for the search bots."""

from __future__ import annotations

import random

from bots.kings_corner.policies import kings_corner_evaluation
from bots.search import simulation
from engines.kings_corner import CORNERS, PILES, SIDES, KingsCornerState
from engines.kings_corner import GAME as KINGS_CORNER


def test_kings_corner_heuristic_ends_a_turn_only_when_no_useful_play_is_left() -> None:
    # Useful: a king into a corner, a pile move, a card onto a pile, or a card that
    # fits no pile into an empty side spot; the end of the turn comes before putting a
    # card that fits a pile into an empty side spot.
    for seed in range(5):
        state = KINGS_CORNER.new_initial_state(seed=seed, seats=3)
        assert isinstance(state, KingsCornerState)
        step = simulation(KINGS_CORNER.name, "heuristic").policy(state)
        rng = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            action = step(state, rng)
            empty = {name for name in PILES if not state.pile(name)}
            fits_a_pile = {a.card for a in legal if a.kind == "play" and a.target not in empty}
            useful = [
                a
                for a in legal
                if a.kind == "move"
                or (
                    a.kind == "play"
                    and (a.target not in empty or a.target in CORNERS or a.card not in fits_a_pile)
                )
            ]
            if action.kind in ("draw", "end") and len(legal) > 1:
                assert not useful, (str(action), [str(a) for a in useful])
            if action.kind == "play" and action.target in empty and action.target in SIDES:
                assert action.card not in fits_a_pile
            state.apply_action(action)


def test_evaluations_are_the_scores_a_finished_position_would_give() -> None:
    state = KINGS_CORNER.new_initial_state(seed=3, seats=2)
    hand_sizes = [len(state.hand(seat)) for seat in range(2)]
    penalties = kings_corner_evaluation(state)
    kings = [sum(card.rank == 13 for card in state.hand(seat)) for seat in range(2)]
    assert penalties == [-(n + 9 * k) for n, k in zip(hand_sizes, kings, strict=True)]
