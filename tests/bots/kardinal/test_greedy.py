"""The greedy Kardinal & König bot: it plays legally, blocks, and beats random play."""

from __future__ import annotations

import pytest

from arena.play.runner import play_game
from bots.base import GameInfo
from bots.kardinal.greedy import KardinalGreedyBot
from bots.registry import make_bot
from engines.kardinal import GAME
from tests.engines.kardinal_support import play, start


def greedy_against_random(seats: int, games: int) -> tuple[int, float]:
    """Games the greedy bot wins outright, and its mean place, seat rotating."""
    wins = 0
    places = 0
    for game in range(games):
        seat = game % seats
        bots = [
            make_bot("greedy" if s == seat else "random", "kardinal", {"seed": s})
            for s in range(seats)
        ]
        state = GAME.new_initial_state(seed=1000 + game, seats=seats)
        record = play_game(state, bots)
        assert record.outcome_value.termination != "forfeit", record.outcome
        ranking = record.outcome_value.ranking
        wins += ranking[seat] == 1 and ranking.count(1) == 1
        places += ranking[seat]
    return wins, places / games


def test_greedy_beats_random_clearly_with_four_players() -> None:
    wins, mean_place = greedy_against_random(4, 16)
    assert wins >= 10, f"won {wins} of 16 (random would win about 4)"
    assert mean_place < 1.6


@pytest.mark.slow
def test_greedy_beats_random_clearly_one_on_one() -> None:
    wins, _ = greedy_against_random(2, 10)
    assert wins >= 8


def test_greedy_blocks_the_card_that_decides_a_rivals_majority() -> None:
    # Both hold two Frankreich cards; FR2 at an end would give seat 1 the majority
    # (and the circles). Seat 0 has just taken IT2 (2 circles: no more taking) and
    # should put its stone on FR2. The other end cards are England (seat 1 leads
    # there already) and Dänemark, worth far less to seat 1.
    state = start("FR1 FR3 EN2 | EN3 FR5", "FR7 EN4 | EN5", "FR2 | DK1 IT2", "EN1 DK3 | DK4")
    play(state, "take FR5", "end", "take FR1", "take FR3", "end", "take FR7", "end")
    play(state, "take EN1", "end", "take IT2")
    bot = KardinalGreedyBot(seed=1)
    bot.new_game(GameInfo(GAME, {}, 0, 2, seed=0))
    action = bot.act(state.observation(0), state.legal_actions(), None)
    assert str(action) == "stone FR2"


def test_greedy_takes_what_wins_a_majority() -> None:
    # Seat 1 leads Frankreich 2 to 1; FR2 and FR4 are at the ends: taking one ties
    # the majority. Nothing else in reach matters as much to seat 0.
    state = start("FR1 FR3 | EN1", "FR5 | FR2", "DK1 | FR4", "EN2 | EN3")
    play(state, "take FR5", "end", "take FR1", "take FR3", "end")
    bot = KardinalGreedyBot(seed=1)
    bot.new_game(GameInfo(GAME, {}, 0, 2, seed=0))
    action = bot.act(state.observation(0), state.legal_actions(), None)
    assert str(action) in ("take FR2", "take FR4")


def test_the_same_seeds_give_the_same_game() -> None:
    def one_game() -> list[object]:
        bots = [make_bot("greedy", "kardinal", {"seed": s}) for s in range(3)]
        state = GAME.new_initial_state(seed=42, seats=3)
        return play_game(state, bots).actions

    assert one_game() == one_game()
