"""Whole turns as the actions of an IS-MCTS tree in Kardinal & König.

A Kardinal turn is a chain of small actions (tablet plays, takes, a stone, ``end``);
a tree over them spends most of its iterations telling apart takes that the greedy
player's planner already ranks well, and a move's worth shows only after the rivals
answered it. So the search's actions are whole take plans: the best few of the
greedy planner (:func:`take_plans`: every sequence of takes and plays of tablets
really held, valued as the greedy player values them), including stopping when a
card was already taken.

A simulation plays the chosen plan, finishes the turn with the fast policy of
:mod:`bots.policies` (:func:`play_part`), lets the rivals play on with that policy,
and then scores the position with the greedy player's evaluation (the simulation's
own returns when the game ended). So the search sees what its rivals do with what it
leaves them — the greedy player does not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, cast

from bots.kardinal import (
    FACE_DOWN_VALUE,
    MAX_TAKES_PER_TURN,
    STONE_VALUE,
    TABLET_VALUE,
    choose_stone,
)
from bots.policies import KardinalPlayer, Projection, Simulation, kardinal_evaluation
from engines.core import Action, State
from engines.kardinal import (
    TABLET_KINDS,
    EndTurn,
    KardinalState,
    PlayTablet,
    Take,
)

PLANS: Final = 5
"""How many take plans a search compares."""


@dataclass(frozen=True)
class Part:
    """A part of the turn: the actions to play (empty: stop taking), and its value to
    the greedy planner (points over the average rival)."""

    actions: tuple[Action, ...]
    value: float


def take_plans(state: KardinalState, limit: int = PLANS) -> list[Part]:
    """The ``limit`` best distinct plans of takes and tablet plays for the seat to
    move, best first, as the greedy planner values them; with a card already taken
    this turn, stopping (no actions) is a plan too."""
    me = state.current_seat
    evaluator = Projection(state)
    held: dict[int, int] = {}
    for kind in state.held_tablets(me):
        held[kind] = held.get(kind, 0) + 1
    already = state.taken_this_turn()
    best: dict[tuple[frozenset[int], tuple[int, ...]], Part] = {}

    def search(
        node: KardinalState,
        held: dict[int, int],
        cards: list[int],
        actions: list[Action],
        tablets: list[int],
        cost: float,
    ) -> None:
        if already or cards:
            key = (frozenset(cards), tuple(sorted(tablets)))
            value = evaluator.advantage(me, already + cards) - cost
            if key not in best or best[key].value < value:
                best[key] = Part(tuple(actions), value)
        if len(cards) >= MAX_TAKES_PER_TURN or node.is_terminal():
            return
        for action in node.legal_actions():
            if type(action) is Take:
                step = 0.0
                owner = node.stone_on(action.card)
                if owner is not None and owner != me:
                    step += STONE_VALUE
                if node.has_face_down_tablet(action.card):
                    step -= FACE_DOWN_VALUE
                child = cast(KardinalState, node.clone())
                child.apply_unchecked(action)
                search(child, held, [*cards, action.card], [*actions, action], tablets, cost + step)
            elif type(action) is PlayTablet and held.get(action.kind, 0) > 0:
                kind = TABLET_KINDS[action.kind]
                step = TABLET_VALUE[kind]
                if kind == "reclaim":
                    step -= STONE_VALUE * node.spent(me)
                child = cast(KardinalState, node.clone())
                child.apply_unchecked(action)
                less = {**held, action.kind: held[action.kind] - 1}
                search(child, less, cards, [*actions, action], [*tablets, action.kind], cost + step)

    search(state, held, [], [], [], 0.0)
    ranked = sorted(best.values(), key=lambda part: -part.value)
    return ranked[:limit]


def can_take(legal: Sequence[Action]) -> bool:
    """Whether the taking part of the turn is still open (a take or a tablet play)."""
    return any(type(a) is Take or type(a) is PlayTablet for a in legal)


def lead(values: Sequence[float], seat: int) -> float:
    """``seat``'s value less the average of the others'."""
    others = len(values) - 1
    return values[seat] - (sum(values) - values[seat]) / others if others else values[seat]


def greedy_stone(state: KardinalState) -> Action:
    """The greedy player's stone (or ``end``) for the seat to move, after its takes."""
    me = state.current_seat
    seen = {
        "seat": me,
        "rows": state.rows(),
        "supply": [state.supply(seat) for seat in range(state.num_seats)],
    }
    return choose_stone(seen, Projection(state), state.legal_actions())


def play_part(state: KardinalState, part: Part, *, greedy: bool = False) -> None:
    """Play ``part`` and, unless the game ended, the rest of the seat's turn: no more
    takes, and a stone when the fast policy wants one (``greedy``: by the greedy
    player's rule)."""
    me = state.current_seat
    for action in part.actions:
        state.apply_unchecked(action)
    if state.is_terminal() or state.current_seat != me:
        return
    legal = state.legal_actions()
    if any(type(a) is EndTurn for a in legal):
        stone: Action | None
        if greedy:
            stone = greedy_stone(state)
        else:
            stone = KardinalPlayer(state).stone(state, me) if state.supply(me) > 0 else None
        if stone is not None and stone in legal:
            state.apply_unchecked(stone)
        if not state.is_terminal() and state.current_seat == me:
            state.apply_unchecked(EndTurn())


class GreedyTurns:
    """A simulation policy that plays like the greedy player, a turn at a time: at the
    start of a turn the planner's best plan (:func:`take_plans`), then its stone
    (:func:`greedy_stone`). Slower than :class:`bots.policies.KardinalPlayer` (about
    a millisecond a turn), but it is the greedy player, with no noise."""

    def __init__(self, state: State):
        self.queue: list[Action] = []

    def __call__(self, state: State, rng: object) -> Action:
        game = as_state(state)
        if self.queue:
            return self.queue.pop(0)
        legal = game.legal_actions()
        if can_take(legal):
            plans = take_plans(game, 1)
            if plans and plans[0].actions:
                self.queue = list(plans[0].actions[1:])
                return plans[0].actions[0]
        if any(type(a) is EndTurn for a in legal):
            return greedy_stone(game)
        return legal[-1]


def squash(gain: float, scale: float) -> float:
    """A gain in points as a reward in 0..1."""
    return (1.0 + math.tanh(gain / scale)) / 2.0


def as_state(state: State) -> KardinalState:
    return cast(KardinalState, state)


GREEDY_SIMULATION: Final = Simulation(GreedyTurns, kardinal_evaluation, scale=8.0)
"""Simulations in which every seat plays like the greedy player (``playout=greedy``)."""
