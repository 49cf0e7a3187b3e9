"""IS-MCTS in Kardinal & König searches whole take plans (bots.kardinal.turn_search): the
plans are legal, led by the greedy planner's choice, and the stone follows the greedy
rule."""

from __future__ import annotations

import random

import pytest

from bots.base import Bot, GameInfo
from bots.ismcts import IsMctsBot
from bots.kardinal.greedy import KardinalGreedyBot
from bots.kardinal.planner import can_take, take_plans
from bots.kardinal.policies import Projection
from bots.kardinal.turn_search import GreedyTurns, play_part
from engines.kardinal import GAME, EndTurn, KardinalState, PlayTablet, Skip, Take


def positions(count: int, seed: int = 0) -> list[KardinalState]:
    """Mid-game positions of greedy self-play: at the start of turns and after takes."""
    found: list[KardinalState] = []
    rng = random.Random(seed)
    game_seed = seed
    while len(found) < count:
        state = GAME.new_initial_state(seed=game_seed, seats=4)
        assert isinstance(state, KardinalState)
        bots = [KardinalGreedyBot(seed=s) for s in range(4)]
        for seat, bot in enumerate(bots):
            bot.new_game(GameInfo(GAME, {}, seat, 4, game_seed))
        stop = rng.randrange(10, 120)
        for _ in range(stop):
            if state.is_terminal():
                break
            seat = state.current_seat
            state.apply_action(bots[seat].act(state.observation(seat), state.legal_actions(), None))
        if not state.is_terminal() and len(state.legal_actions()) > 2:
            found.append(state)
        game_seed += 1
    return found


def tablets_but_no_take(games: int) -> list[KardinalState]:
    """Positions of two-player greedy self-play where the seat to move could play a
    tablet but take nothing, before or after it (no take plan exists)."""
    found: list[KardinalState] = []
    for game_seed in range(games):
        state = GAME.new_initial_state(seed=game_seed, seats=2)
        assert isinstance(state, KardinalState)
        bots = [KardinalGreedyBot(seed=s) for s in range(2)]
        for seat, bot in enumerate(bots):
            bot.new_game(GameInfo(GAME, {}, seat, 2, game_seed))
        while not state.is_terminal():
            legal = state.legal_actions()
            kinds = {type(action) for action in legal}
            if kinds == {PlayTablet, Skip} and not take_plans(state, Projection(state)):
                found.append(state.clone())
            seat = state.current_seat
            state.apply_action(bots[seat].act(state.observation(seat), legal, None))
    return found


def decide(bot: Bot, state: KardinalState) -> str:
    seat = state.current_seat
    bot.new_game(GameInfo(GAME, {}, seat, 4, 0))
    return str(bot.act(state.observation(seat), state.legal_actions(), None))


@pytest.mark.slow
def test_every_plan_is_legal_and_uses_only_tablets_really_held() -> None:
    for state in positions(12):
        if not can_take(state.legal_actions()):
            continue
        me = state.current_seat
        held = state.held_tablets(me)
        plans = take_plans(state, Projection(state))
        assert plans and [p.value for p in plans] == sorted((p.value for p in plans), reverse=True)
        for plan in plans:
            played = [a.kind for a in plan.actions if isinstance(a, PlayTablet)]
            assert all(played.count(kind) <= held.count(kind) for kind in played)
            trial = state.clone()
            for action in plan.actions:
                trial.apply_action(action)  # checked: raises on an illegal action
            assert all(isinstance(a, Take | PlayTablet) for a in plan.actions)
            if not state.taken_this_turn():
                assert any(isinstance(a, Take) for a in plan.actions)


@pytest.mark.slow
def test_the_best_plan_starts_with_the_greedy_players_choice() -> None:
    checked = 0
    for state in positions(12, seed=3):
        if not can_take(state.legal_actions()):
            continue
        plans = take_plans(state, Projection(state))
        greedy = decide(KardinalGreedyBot(seed=0), state)
        if plans[0].actions:
            assert str(plans[0].actions[0]) == greedy
            checked += 1
    assert checked >= 5


@pytest.mark.slow
def test_the_search_plays_the_first_action_of_one_of_its_plans() -> None:
    for state in positions(6, seed=5):
        if not can_take(state.legal_actions()):
            continue
        firsts = {str(p.actions[0]) for p in take_plans(state, Projection(state)) if p.actions}
        action = decide(IsMctsBot(seed=2, iterations=40), state)
        stops = any(not p.actions for p in take_plans(state, Projection(state)))
        assert action in firsts or (stops and action.split()[0] in {"stone", "move", "end"})


@pytest.mark.slow  # searches many whole turns
def test_after_taking_the_stone_follows_the_greedy_rule() -> None:
    checked = 0
    for state in positions(40, seed=8):
        legal = state.legal_actions()
        if can_take(legal) or not any(isinstance(a, EndTurn) for a in legal):
            continue
        assert decide(IsMctsBot(seed=1, iterations=40), state) == decide(
            KardinalGreedyBot(seed=0), state
        )
        checked += 1
    assert checked >= 3


@pytest.mark.slow
def test_with_nothing_to_take_it_skips_rather_than_waste_a_tablet() -> None:
    # The search once played the first legal action here: a tablet, for nothing.
    states = tablets_but_no_take(15)
    assert states
    for state in states:
        bot = IsMctsBot(seed=0, iterations=40)
        assert decide(bot, state) == "skip" == decide(KardinalGreedyBot(seed=0), state)
        assert bot.last_iterations == 0
        assert str(state.legal_actions()[0]).startswith("play ")


@pytest.mark.slow
def test_playing_a_plan_finishes_the_turn() -> None:
    for state in positions(8, seed=11):
        if not can_take(state.legal_actions()):
            continue
        me = state.current_seat
        for plan in take_plans(state, Projection(state)):
            trial = state.clone()
            assert isinstance(trial, KardinalState)
            play_part(trial, plan)
            assert trial.is_terminal() or trial.current_seat != me


@pytest.mark.slow
def test_greedy_simulations_take_what_the_greedy_player_takes() -> None:
    checked = 0
    for state in positions(12, seed=13):
        if not can_take(state.legal_actions()) or state.taken_this_turn():
            continue
        policy = GreedyTurns(state)
        simulated = policy(state.clone(), random.Random(0))
        assert str(simulated) == decide(KardinalGreedyBot(seed=0), state)
        checked += 1
    assert checked >= 4


def test_greedy_playout_is_refused_outside_kardinal() -> None:
    from engines.kings_corner import GAME as KINGS_CORNER

    state = KINGS_CORNER.new_initial_state(seed=1, seats=2)
    bot = IsMctsBot(iterations=5, playout="greedy")
    bot.new_game(GameInfo(KINGS_CORNER, {}, 0, 2, 0))
    with pytest.raises(ValueError, match="greedy"):
        bot.act(state.observation(0), state.legal_actions(), None)
