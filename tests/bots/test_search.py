"""The simulations and tree filters the search bots get for every game (bots.search)."""

from __future__ import annotations

import random

import pytest

from bots.kardinal.policies import kardinal_evaluation
from bots.kings_corner.policies import kings_corner_evaluation
from bots.search import simulation
from engines.core import Game, State
from engines.kardinal import GAME as KARDINAL
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


def test_games_without_a_heuristic_simulate_at_random_to_the_end() -> None:
    sim = simulation(KOENIGSGARTEN.name, "heuristic")
    assert sim == simulation(KOENIGSGARTEN.name, "random")
    state = KOENIGSGARTEN.new_initial_state(seed=1)
    scores = sim.run(state, random.Random(0), turns=1)
    assert state.is_terminal()
    assert tuple(scores) == state.returns()
    with pytest.raises(ValueError, match="unknown playout"):
        simulation(KOENIGSGARTEN.name, "clever")
