"""UCT (bots.mcts) on Königsgarten: it finds forced results the solver proves, keeps
its budgets, repeats itself under a seed and beats random play."""

from __future__ import annotations

import time

import pytest

from arena.play.runner import play_game
from bots.base import Bot, GameInfo
from bots.koenigsgarten.solver import WIN, solve_state
from bots.mcts import MctsBot
from bots.registry import make_bot
from engines.koenigsgarten import GAME, KoenigsgartenState

LAYOUT = "AS KS JS QC  AH KH QH JH  AD KD QD JD  AC KC JC QS".split()


def play(moves: str) -> KoenigsgartenState:
    state = GAME.state_from_deal({"layout": LAYOUT})
    for move in moves.split():
        state.apply_action(GAME.parse_action(move))
    return state


def decide(bot: MctsBot, state: KoenigsgartenState) -> str:
    seat = state.current_seat
    bot.new_game(GameInfo(GAME, {}, seat, 2, 0))
    return str(bot.act(state.observation(seat), state.legal_actions(), None))


def test_it_takes_the_card_that_leaves_the_opponent_none() -> None:
    # Seat 0 to move: QS wins at once (the opponent has no card), JH loses.
    state = play("AS JS JD QD QC KC KS KD AD AH KH QH")
    assert dict(solve_state(state).action_values)["QS"] == WIN
    for seed in range(3):
        assert decide(MctsBot(seed=seed, iterations=200), state) == "QS"


@pytest.mark.slow  # searches whole layouts
def test_it_plays_a_winning_card_where_the_solver_proves_a_win() -> None:
    # Positions from seeded random games, eight cards taken: whenever the solver
    # proves a win for the side to move, UCT with 2,000 iterations plays a winning card.
    checked = 0
    for seed in range(30):
        state = GAME.new_initial_state(seed=seed)
        assert isinstance(state, KoenigsgartenState)
        bots = [make_bot("random", "koenigsgarten", {"seed": seed + s}) for s in (0, 1)]
        for seat, bot in enumerate(bots):
            bot.new_game(GameInfo(GAME, {}, seat, 2, seed))
        for _ in range(8):
            if state.is_terminal():
                break
            seat = state.current_seat
            state.apply_action(bots[seat].act(state.observation(seat), state.legal_actions(), None))
        if state.is_terminal():
            continue
        solution = solve_state(state)
        if solution.value != WIN:
            continue
        values = dict(solution.action_values)
        if all(v == WIN for v in values.values()):
            continue  # no choice to get wrong
        checked += 1
        assert values[decide(MctsBot(seed=seed, iterations=2000), state)] == WIN, seed
    assert checked >= 3


def test_a_seeded_search_repeats_itself_and_counts_its_iterations() -> None:
    state = GAME.new_initial_state(seed=11)
    assert isinstance(state, KoenigsgartenState)
    first, second = MctsBot(seed=4, iterations=300), MctsBot(seed=4, iterations=300)
    assert decide(first, state) == decide(second, state)
    assert first.last_iterations == 300


def test_a_time_budget_stops_the_search() -> None:
    state = GAME.new_initial_state(seed=2)
    assert isinstance(state, KoenigsgartenState)
    bot = MctsBot(iterations=10**9, seconds=0.2)
    started = time.perf_counter()
    decide(bot, state)
    assert time.perf_counter() - started < 2.0
    assert 0 < bot.last_iterations < 10**9


@pytest.mark.slow  # plays whole games to measure strength
def test_uct_beats_random_play() -> None:
    wins = 0
    games = 12
    for index in range(games):
        seat = index % 2
        bots: list[Bot] = [make_bot("random", "koenigsgarten", {"seed": index}) for _ in (0, 1)]
        bots[seat] = make_bot("mcts", "koenigsgarten", {"seed": index, "iterations": 300})
        record = play_game(GAME.new_initial_state(seed=900 + index), bots)
        wins += seat in record.outcome_value.winners
    # A random player wins well under half; UCT wins nearly all.
    assert wins >= 10
