"""The fast Kardinal policy and the tree filter it lends the search bots."""

from __future__ import annotations

import random

from bots.kardinal.policies import KardinalPlayer, kardinal_tree_actions
from bots.search import game_search
from engines.kardinal import GAME as KARDINAL
from engines.kardinal import KardinalState, PlaceStone, Take
from engines.kings_corner import GAME as KINGS_CORNER


def test_kardinal_player_takes_whenever_a_turn_starts_with_a_take() -> None:
    for seed in range(3):
        state = KARDINAL.new_initial_state(seed=seed, seats=4)
        assert isinstance(state, KardinalState)
        player = KardinalPlayer(state)
        rng = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            action = player(state, rng)
            if not state.taken_this_turn() and any(isinstance(a, Take) for a in legal):
                assert isinstance(action, Take)
            if isinstance(action, PlaceStone):
                assert action.card in state.end_cards()
            state.apply_action(action)


def test_the_kardinal_tree_leaves_out_stones_far_from_the_ends() -> None:
    state = KARDINAL.new_initial_state(seed=4, seats=4)
    assert isinstance(state, KardinalState)
    state.apply_action(next(a for a in state.legal_actions() if isinstance(a, Take)))
    legal = state.legal_actions()
    kept = kardinal_tree_actions(state, legal)
    near = {card for row in state.rows() for card in row[:2] + row[-2:]}
    stones = [a for a in legal if isinstance(a, PlaceStone)]
    assert len(stones) > len(near)
    assert [a for a in kept if isinstance(a, PlaceStone)] == [a for a in stones if a.card in near]
    assert [a for a in kept if not isinstance(a, PlaceStone)] == [
        a for a in legal if not isinstance(a, PlaceStone)
    ]
    assert game_search(KARDINAL.name).tree_actions is kardinal_tree_actions
    assert game_search(KINGS_CORNER.name).tree_actions(state, legal) == legal
