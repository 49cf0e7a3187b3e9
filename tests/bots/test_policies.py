"""The simulation policies, evaluations and tree filters of the search bots."""

from __future__ import annotations

import random

import pytest

from bots.policies import (
    KardinalPlayer,
    kardinal_evaluation,
    kardinal_tree_actions,
    kings_corner_evaluation,
    simulation,
    tree_actions,
)
from engines.core import Game, State
from engines.kardinal import GAME as KARDINAL
from engines.kardinal import KardinalState, PlaceStone, Take
from engines.kings_corner import CORNERS, PILES, SIDES, KingsCornerState
from engines.kings_corner import GAME as KINGS_CORNER
from engines.koenigsgarten import GAME as KOENIGSGARTEN


def checked_simulation(state: State, kind: str, seed: int) -> list[str]:
    """Run the simulation step by step through the checked path; the actions taken."""
    sim = simulation(state.game.name, kind)
    step = sim.policy(state)
    rng = random.Random(seed)
    actions = []
    while not state.is_terminal():
        action = step(state, rng)
        state.apply_action(action)  # raises IllegalActionError for an illegal choice
        actions.append(str(action))
    return actions


@pytest.mark.parametrize("kind", ["random", "heuristic"])
@pytest.mark.parametrize(("game", "seats"), [(KINGS_CORNER, 2), (KINGS_CORNER, 4), (KARDINAL, 3)])
def test_simulations_play_legal_games_to_the_end(game: Game, seats: int, kind: str) -> None:
    for seed in range(3):
        state = game.new_initial_state(seed=seed, seats=seats)
        checked_simulation(state, kind, seed)
        assert state.outcome() is not None


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


def test_a_limited_simulation_stops_after_its_turns_and_evaluates() -> None:
    for game, seats, evaluation in (
        (KINGS_CORNER, 3, kings_corner_evaluation),
        (KARDINAL, 4, kardinal_evaluation),
    ):
        state = game.new_initial_state(seed=8, seats=seats)
        scores = simulation(game.name, "heuristic").run(state, random.Random(1), turns=2)
        assert not state.is_terminal()
        assert state.current_seat == 2
        assert list(scores) == evaluation(state)


def test_evaluations_are_the_scores_a_finished_position_would_give() -> None:
    state = KINGS_CORNER.new_initial_state(seed=3, seats=2)
    hand_sizes = [len(state.hand(seat)) for seat in range(2)]
    penalties = kings_corner_evaluation(state)
    kings = [sum(card.rank == 13 for card in state.hand(seat)) for seat in range(2)]
    assert penalties == [-(n + 9 * k) for n, k in zip(hand_sizes, kings, strict=True)]


def test_games_without_a_heuristic_simulate_at_random_to_the_end() -> None:
    sim = simulation(KOENIGSGARTEN.name, "heuristic")
    assert sim == simulation(KOENIGSGARTEN.name, "random")
    state = KOENIGSGARTEN.new_initial_state(seed=1)
    scores = sim.run(state, random.Random(0), turns=1)
    assert state.is_terminal()
    assert tuple(scores) == state.returns()
    with pytest.raises(ValueError, match="unknown playout"):
        simulation(KOENIGSGARTEN.name, "clever")


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
    assert tree_actions(KINGS_CORNER.name)(state, legal) == legal
