"""The Königsgarten heuristic player: its rules on hand-made positions, and in play."""

from __future__ import annotations

import random

from bots.base import GameInfo
from bots.koenigsgarten.greedy import GreedyKoenigsgartenBot
from bots.koenigsgarten.solver import WIN, GardenRules, read_observation
from bots.registry import make_bot
from engines.koenigsgarten import GAME, KoenigsgartenState

LAYOUT = "AS KS JS QC  AH KH QH JH  AD KD QD JD  AC KC JC QS".split()


def play(moves: str) -> KoenigsgartenState:
    state = GAME.state_from_deal({"layout": LAYOUT})
    for move in moves.split():
        state.apply_action(GAME.parse_action(move))
    return state


def choice(state: KoenigsgartenState, seed: int = 0) -> str:
    bot = GreedyKoenigsgartenBot(seed=seed)
    seat = state.current_seat
    bot.new_game(GameInfo(GAME, {}, seat, 2, 0))
    return str(bot.act(state.observation(seat), state.legal_actions(), None))


def test_it_wins_at_once_when_it_can() -> None:
    # QS leaves seat 1 without a queen or a spade (see the solver tests).
    assert choice(play("AS JS JD QD QC KC KS KD AD AH KH QH")) == "QS"


def test_it_does_not_hand_over_a_win() -> None:
    # KC and JC both leave QC to seat 0, which completes column d; QC does not.
    state = play("KS AS AD KD JD QD QS JS JH KH QH AH AC")
    assert {choice(state, seed) for seed in range(5)} == {"QC"}


def test_it_completes_a_pattern_whenever_one_is_open() -> None:
    for seed in range(40):
        rng = random.Random(seed)
        state = GAME.new_initial_state(seed=seed)
        assert isinstance(state, KoenigsgartenState)
        while not state.is_terminal():
            seat = state.current_seat
            layout, position = read_observation(state.observation(seat))
            rules = GardenRules(layout)
            winning = {
                layout[cell]
                for cell in rules.legal_cells(position)
                if rules.after(position, cell)[0] == WIN
            }
            picked = choice(state, seed)
            if winning:
                assert picked in winning
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])


def test_it_beats_random_by_a_wide_margin() -> None:
    wins = losses = 0
    for seed in range(30):
        for greedy_seat in (0, 1):
            state = GAME.new_initial_state(seed=seed)
            bots = [make_bot("random", GAME.name, {"seed": seed}) for _ in range(2)]
            bots[greedy_seat] = make_bot("greedy", GAME.name, {"seed": seed})
            for seat, bot in enumerate(bots):
                bot.new_game(GameInfo(GAME, {}, seat, 2, seed))
            while not state.is_terminal():
                seat = state.current_seat
                action = bots[seat].act(state.observation(seat), state.legal_actions(), None)
                state.apply_action(action)
            outcome = state.outcome()
            assert outcome is not None
            if not outcome.is_draw:
                wins += greedy_seat in outcome.winners
                losses += greedy_seat not in outcome.winners
    # Measured: about 80% wins and 8% losses over 200 games.
    assert wins >= 3 * losses and wins >= 30
