"""The Kardinal take planner (bots.kardinal.planner) searches positions instead of
orders of takes: it finds exactly the plans a search of every order found, ranked the
same way, and stays fast where every order would take seconds."""

from __future__ import annotations

import time
from typing import cast

import pytest

from bots.kardinal import planner
from bots.kardinal.evaluation import Evaluator
from bots.kardinal.planner import (
    FACE_DOWN_VALUE,
    MAX_TAKES_PER_TURN,
    PLANS,
    STONE_VALUE,
    TABLET_VALUE,
    Part,
    can_take,
    take_plans,
)
from bots.kardinal.policies import Projection
from engines.core import Action
from engines.kardinal import TABLET_KINDS, KardinalState, PlayTablet, TabletMix, Take
from tests.bots.kardinal.hard_positions import hoarding_positions, no_circles_deck
from tests.bots.kardinal.test_turn_search import positions


def every_order_plans(state: KardinalState, evaluator: Evaluator, limit: int) -> list[Part]:
    """The planner as it was: a depth-first search of every order of takes and plays
    of tablets really held, keeping per set of cards and tablets the most valuable
    order met first, ranked by value and then by when it was met."""
    me = state.current_seat
    already = state.taken_this_turn()
    best: dict[tuple[frozenset[int], tuple[int, ...]], Part] = {}

    def search(
        node: KardinalState,
        held: list[int],
        cards: list[int],
        actions: list[Action],
        tablets: list[int],
        cost: float,
    ) -> None:
        if already or cards:
            key = (frozenset(cards), tuple(sorted(tablets)))
            value = evaluator.advantage(me, already + cards) - cost
            if key not in best or best[key].value < value:
                best.pop(key, None)
                best[key] = Part(tuple(actions), value)
        if len(cards) >= MAX_TAKES_PER_TURN or node.is_terminal():
            return
        for action in node.legal_actions():
            child = cast(KardinalState, node.clone())
            if isinstance(action, Take):
                owner = node.stone_on(action.card)
                step = STONE_VALUE if owner is not None and owner != me else 0.0
                step -= FACE_DOWN_VALUE if node.has_face_down_tablet(action.card) else 0.0
                child.apply_unchecked(action)
                search(child, held, [*cards, action.card], [*actions, action], tablets, cost + step)
            elif isinstance(action, PlayTablet) and action.kind in held:
                step = TABLET_VALUE[TABLET_KINDS[action.kind]]
                if TABLET_KINDS[action.kind] == "reclaim":
                    step -= STONE_VALUE * node.spent(me)
                child.apply_unchecked(action)
                less = list(held)
                less.remove(action.kind)
                search(child, less, cards, [*actions, action], [*tablets, action.kind], cost + step)

    search(state, state.held_tablets(me), [], [], [], 0.0)
    return sorted(best.values(), key=lambda part: -part.value)[:limit]


@pytest.mark.slow
def test_the_plans_are_those_of_a_search_of_every_order() -> None:
    compared = 0
    for state in positions(16, seed=21) + hoarding_positions(no_circles_deck(), 2, 5, 40)[-8:]:
        if not can_take(state.legal_actions()):
            continue
        for limit in (1, 5):
            expected = every_order_plans(state, Projection(state), limit)
            assert take_plans(state, Projection(state), limit) == expected
        compared += 1
    assert compared >= 12


@pytest.mark.slow  # compares with a search of every order
def test_plans_mid_turn_and_with_tablets_match_a_search_of_every_order() -> None:
    # Mid-turn (stopping is a plan) and with several tablets in hand (reclaim after
    # paying a stone is worth more than before): orders matter to the value.
    compared = 0
    for state in positions(60, seed=4):
        me = state.current_seat
        if can_take(state.legal_actions()) and (
            state.taken_this_turn() or len(state.held_tablets(me)) >= 2
        ):
            expected = every_order_plans(state, Projection(state), 5)
            assert take_plans(state, Projection(state), 5) == expected
            compared += 1
    assert compared >= 5


def hard_turns() -> list[KardinalState]:
    """Turn starts where every order took the old planner 5–20 s: no circles, and the
    seat holds a mixed tablet with others."""
    deck = no_circles_deck(TabletMix(reclaim=2, three=2, mixed=4, minus2=0))
    return hoarding_positions(deck, 2, 1, 3)


def assert_legal_and_ranked(state: KardinalState, plans: list[Part]) -> None:
    values = [plan.value for plan in plans]
    assert values == sorted(values, reverse=True)
    assert len({plan.actions for plan in plans}) == len(plans)
    for plan in plans:
        trial = state.clone()
        for action in plan.actions:
            trial.apply_action(action)  # checked: raises on an illegal action


def test_a_deck_without_circles_is_planned_fast_and_as_well_as_without_a_width_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for state in hard_turns():
        started = time.perf_counter()
        plans = take_plans(state, Projection(state))
        assert time.perf_counter() - started < 3.0
        assert len(plans) == PLANS
        assert_legal_and_ranked(state, plans)
        with monkeypatch.context() as unlimited:
            unlimited.setattr(planner, "LAYER_WIDTH", 1_000_000)
            best = take_plans(state, Projection(state), 1)
        assert plans[0] == best[0]


def test_a_narrow_layer_still_gives_legal_ranked_plans(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(planner, "LAYER_WIDTH", 4)
    for state in hard_turns():
        plans = take_plans(state, Projection(state))
        assert plans
        assert_legal_and_ranked(state, plans)
