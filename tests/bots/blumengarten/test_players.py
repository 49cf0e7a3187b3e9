"""The Blumengarten bots (greedy and solver) through the real game loop."""

from __future__ import annotations

from typing import Any

import pytest

from arena.play.runner import TimeControl, play_game
from bots.blumengarten.players import GreedyBot, SolverBot
from bots.registry import make_bot
from bots.simple import RandomBot
from engines.blumengarten import GAME
from engines.cards import DECK
from engines.outcome import Termination


def low_cards_first() -> dict[str, Any]:
    """Won by playing every card to its foundation in rank order (see the solver tests)."""
    order = sorted(DECK, key=lambda c: (c.rank, "SHDC".index(c.suit)))
    columns: list[list[str]] = [[] for _ in range(6)]
    for index, card in enumerate(order[16:]):
        columns[index % 6].insert(0, str(card))
    return {"columns": columns, "bouquet": [str(c) for c in order[:16]]}


def stuck_after_spades() -> dict[str, Any]:
    """Only the spades ace to five can move, then nothing."""
    exposed = ["KS", "KH", "KD", "KC", "9S", "9H"]
    bouquet = ["AS", "2S", "3S", "4S", "5S", "2H", "3H", "4H", "5H"]
    bouquet += ["2D", "3D", "4D", "5D", "2C", "3C", "4C"]
    buried = [str(c) for c in DECK if str(c) not in set(exposed) | set(bouquet)]
    columns = [[*buried[i * 5 : i * 5 + 5], exposed[i]] for i in range(6)]
    return {"columns": columns, "bouquet": bouquet}


def test_the_kinds_are_registered_for_blumengarten() -> None:
    assert isinstance(make_bot("greedy", "blumengarten"), GreedyBot)
    solver = make_bot("solver", "blumengarten", {"seconds": "1.5", "node_limit": "500"})
    assert isinstance(solver, SolverBot)
    assert solver.seconds == 1.5 and solver.node_limit == 500
    # The old spelling still loads (bots stored with it), as the new one.
    old = make_bot("solver", "blumengarten", {"time_limit": "2.5"})
    assert isinstance(old, SolverBot) and old.seconds == 2.5
    assert isinstance(make_bot("random", "blumengarten"), RandomBot)


@pytest.mark.parametrize("seed", range(4))
def test_greedy_plays_legal_games_to_the_end(seed: int) -> None:
    state = GAME.new_initial_state(seed=seed)
    record = play_game(state, [GreedyBot()])
    outcome = record.outcome_value
    assert not outcome.is_forfeit
    assert outcome.returns == (float(state.score),)


def test_greedy_makes_safe_foundation_moves_first() -> None:
    state = GAME.state_from_deal(low_cards_first(), seats=1)
    record = play_game(state, [GreedyBot()])
    assert record.outcome_value.termination == Termination.WON
    assert all(text.endswith(">f") for _, text in record.actions)


@pytest.mark.slow
def test_greedy_beats_random_on_average() -> None:
    greedy = random = 0.0
    for seed in range(6):
        greedy += play_game(GAME.new_initial_state(seed=seed), [GreedyBot()]).outcome_value.returns[
            0
        ]
        random += play_game(GAME.new_initial_state(seed=seed), [RandomBot()]).outcome_value.returns[
            0
        ]
    assert greedy > random


def test_solver_plays_its_winning_line() -> None:
    state = GAME.state_from_deal(low_cards_first(), seats=1)
    record = play_game(state, [SolverBot(seconds=5)])
    assert record.outcome_value.termination == Termination.WON
    assert len(record.actions) == 52


def test_solver_plays_its_best_line_then_resigns_when_lost() -> None:
    state = GAME.state_from_deal(stuck_after_spades(), seats=1)
    record = play_game(state, [SolverBot(seconds=5)])
    assert [text for _, text in record.actions] == ["AS>f", "2S>f", "3S>f", "4S>f", "5S>f"]
    # after the fifth spade no card can move: the game ends before the bot resigns
    assert record.outcome_value.returns == (5.0,)


def test_solver_resigns_after_its_best_line_on_a_budget() -> None:
    state = GAME.new_initial_state(seed=1)
    record = play_game(state, [SolverBot(seconds=5, node_limit=200)])
    outcome = record.outcome_value
    assert not outcome.is_forfeit
    if outcome.termination != Termination.WON:
        assert record.actions[-1][1] == "resign"


def test_solver_keeps_within_the_game_clock() -> None:
    state = GAME.new_initial_state(seed=2)
    record = play_game(state, [SolverBot(seconds=30)], time_control=TimeControl(per_game=3))
    assert not record.outcome_value.is_forfeit


@pytest.mark.slow
def test_solver_bot_wins_at_least_as_often_as_greedy() -> None:
    solver_wins = greedy_wins = 0
    for seed in range(4):
        solver = play_game(GAME.new_initial_state(seed=seed), [SolverBot(node_limit=30_000)])
        greedy = play_game(GAME.new_initial_state(seed=seed), [GreedyBot()])
        solver_wins += solver.outcome_value.termination == Termination.WON
        greedy_wins += greedy.outcome_value.termination == Termination.WON
        assert solver.outcome_value.returns[0] >= 0
    assert solver_wins >= greedy_wins and solver_wins > 0
