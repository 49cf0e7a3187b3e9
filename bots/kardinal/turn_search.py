"""Whole turns as the actions of the search in Kardinal & König (``ismcts``, by turns).

A Kardinal turn is a chain of small actions (tablet plays, takes, a stone, ``end``);
a tree over them spends most of its iterations telling apart takes that the greedy
player's planner already ranks well, and a move's worth shows only after the rivals
answered it. So the search's actions are whole take plans: the best few of the
greedy planner (:func:`bots.kardinal.planner.take_plans`: every sequence of takes and
plays of tablets really held, valued as the greedy player values them), including
stopping when a card was already taken.

Every iteration draws a determinisation, picks a plan by UCB1, plays it and finishes
the turn with the fast policy of :mod:`bots.kardinal.policies` (:func:`play_part`),
lets the rivals play on with the simulation (``depth`` changes of the seat to move;
by default two rounds), and credits the plan with its gain in the evaluation over the
average rival (the simulation's own returns when the game ended). So the search sees
what its rivals do with what it leaves them — the greedy player does not. When the
plan chosen is to stop taking, or taking is over, the turn ends by the greedy
player's rule (:func:`bots.kardinal.greedy.finish_turn`: measured, searched stones
played worse; ``docs/strength.md``).

:func:`search_turns` is the :data:`bots.search.TurnSearch` that :mod:`bots.kardinal`
lends to :mod:`bots.ismcts`.
"""

from __future__ import annotations

import math
import time
from typing import Final, cast

from bots.kardinal.greedy import choose_stone, evaluator_for, finish_turn
from bots.kardinal.planner import Part, can_take, take_plans
from bots.kardinal.policies import KardinalPlayer, Projection, kardinal_evaluation
from bots.search import SearchRequest, SearchResult, Simulation, lead, squash
from engines.core import Action, State
from engines.kardinal import EndTurn, KardinalState


def search_turns(request: SearchRequest) -> SearchResult:
    """The first action of the plan the search likes best (module docstring), or the
    greedy player's end of the turn; ``iterations`` is the number of simulations.

    Raises:
        InvalidStateError: the observation is not a Kardinal observation.
    """
    game, observation, legal_actions = request.game, request.observation, request.legal_actions
    rng = request.rng
    if not can_take(legal_actions):
        return SearchResult(_greedy_finish(request), 0)
    root_state = as_state(game.state_from_observation(observation, rng))
    me = root_state.current_seat
    plans = take_plans(root_state, Projection(root_state))
    if not plans:  # only tablets could be played, and no take would follow them
        return SearchResult(_greedy_finish(request), 0)
    depth = request.depth if request.depth is not None else 2 * root_state.num_seats - 1
    simulation = request.simulation
    # A simulation without an evaluation of its own (``random``) plays to the end; its
    # gains are then measured from the greedy player's view of the start.
    evaluation = simulation.evaluation or kardinal_evaluation
    greedy = simulation is GREEDY_SIMULATION
    base = lead(evaluation(root_state), me)
    exploration = request.exploration
    visits = [0] * len(plans)
    totals = [0.0] * len(plans)
    done = 0
    while len(plans) > 1 and done < request.iterations:
        if done % 8 == 0 and done >= len(plans) and time.perf_counter() >= request.deadline:
            break
        if done < len(plans):
            choice = done
        else:
            log_done = math.log(done)
            choice = max(
                range(len(plans)),
                key=lambda k: totals[k] / visits[k] + exploration * math.sqrt(log_done / visits[k]),
            )
        state = as_state(game.state_from_observation(observation, rng))
        play_part(state, plans[choice], greedy=greedy)
        values = simulation.run(state, rng, depth) if depth > 0 else simulation.run(state, rng)
        visits[choice] += 1
        totals[choice] += squash(lead(values, me) - base, simulation.scale)
        done += 1
    chosen = plans[max(range(len(plans)), key=lambda k: (visits[k], -k))]
    if not chosen.actions:  # stop taking
        return SearchResult(_greedy_finish(request), done)
    return SearchResult(legal_actions[legal_actions.index(chosen.actions[0])], done)


def _greedy_finish(request: SearchRequest) -> Action:
    observation = request.observation
    evaluator = evaluator_for(request.game, observation)
    return finish_turn(observation, evaluator, request.legal_actions)


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
    start of a turn the planner's best plan (:func:`bots.kardinal.planner.take_plans`),
    then its stone (:func:`greedy_stone`). Slower than
    :class:`bots.kardinal.policies.KardinalPlayer` (about a millisecond a turn), but it
    is the greedy player, with no noise."""

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
        return legal[-1]  # ``skip``: nothing could be taken


def as_state(state: State) -> KardinalState:
    return cast(KardinalState, state)


GREEDY_SIMULATION: Final = Simulation(GreedyTurns, kardinal_evaluation, scale=8.0)
"""Simulations in which every seat plays like the greedy player (``playout=greedy``)."""
