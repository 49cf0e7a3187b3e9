"""Whole turns as the actions of an IS-MCTS tree in Kardinal & König.

A Kardinal turn is a chain of small actions (tablet plays, takes, a stone, ``end``);
a tree over them spends most of its iterations telling apart takes that the greedy
player's planner already ranks well, and a move's worth shows only after the rivals
answered it. So the search's actions are whole take plans: the best few of the
greedy planner (:func:`bots.kardinal.take_plans`: every sequence of takes and plays of tablets
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
from typing import Final, cast

from bots.kardinal import Part, can_take, choose_stone, take_plans
from bots.policies import KardinalPlayer, Projection, Simulation, kardinal_evaluation
from engines.core import Action, State
from engines.kardinal import (
    EndTurn,
    KardinalState,
)


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
    start of a turn the planner's best plan (:func:`bots.kardinal.take_plans`), then its stone
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
            plans = take_plans(game, Projection(game), 1)
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
