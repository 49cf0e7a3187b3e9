"""Information-set Monte Carlo tree search (single observer) for hidden-information games.

SO-ISMCTS (Cowling, Powley & Whitehouse 2012): one tree over the actions seen from
the bot's seat. Each iteration draws a fresh determinisation — a full state
consistent with the bot's observation, ``game.state_from_observation(observation,
rng)`` — and descends the tree using only the actions legal in that sample. A child
is scored by UCB1 with its *availability* (how often it was legal when its parent
was visited) in place of the parent's visits, so actions that are rarely possible are
not over-explored. A new child is added for one untried legal action, the game is
played on by a simulation of :mod:`bots.policies` (to the end, or ``depth`` turns
and an evaluation), and every node on the path is credited with the reward of the
seat that chose its action: the seat's share of the opponents it finished ahead of
(:func:`bots.mcts.seat_rewards`), mixed with its score margin when ``margin`` > 0
(:func:`score_rewards`; by default the game's setting, 1 for Kardinal, 0 for Kings in
the Corner). The most visited action is played.

Kardinal & König (``turns``, the default there): the root's actions are whole take
plans proposed by the greedy planner, each simulation plays a plan and two rounds of
the rivals' answers and is scored by the greedy evaluation, and the stone follows
the greedy rule (:mod:`bots.kardinal_search`; why: ``docs/strength.md``).

Budgets: a number of iterations and/or seconds per move (and never more than an
eighth of the time left for the game); every random choice comes from the bot's
seeded generator, so a seeded game replays the same under an iteration budget.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

import pydantic
from pydantic import ConfigDict

from bots.base import Bot
from bots.kardinal import Evaluator, can_take, choose_stone, take_plans
from bots.kardinal_search import GREEDY_SIMULATION, as_state, lead, play_part, squash
from bots.mcts import seat_rewards
from bots.policies import Projection, Simulation, TreeActions, simulation, tree_actions
from bots.registry import BotKind, register_bot_kind
from engines.core import TERMINAL, Action, State
from engines.kardinal import EndTurn, KardinalOptions, deck_tables
from engines.outcome import competition_ranking

ISMCTS_GAMES: Final = frozenset({"kings_corner", "kardinal"})
TIME_SHARE: Final = 8
"""A move may use at most 1/TIME_SHARE of the game's remaining time."""


def score_rewards(scores: Sequence[float], margin: float, scale: float) -> list[float]:
    """Per-seat rewards in 0..1: the seat's share of the opponents it finished ahead of
    (:func:`seat_rewards`), mixed with weight ``margin`` : 1 with its lead over the
    average opponent squashed into 0..1 (``(1 + tanh(lead / scale)) / 2``)."""
    rewards = seat_rewards(competition_ranking(scores))
    seats = len(scores)
    if margin <= 0 or seats < 2:
        return rewards
    total = sum(scores)
    return [
        (reward + margin * squash(mine - (total - mine) / (seats - 1), scale)) / (1 + margin)
        for reward, mine in zip(rewards, scores, strict=True)
    ]


class _Node:
    __slots__ = ("available", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        """Total reward of the seat that chose the action leading here."""


class IsMctsBot(Bot):
    """Single-observer IS-MCTS (see the module docstring)."""

    name = "ismcts"

    def __init__(
        self,
        *,
        seed: int = 0,
        iterations: int = 200,
        seconds: float = 0.0,
        exploration: float = 0.7,
        playout: Literal["random", "heuristic", "greedy"] = "heuristic",
        margin: float | None = None,
        depth: int | None = None,
        turns: bool = True,
    ) -> None:
        super().__init__(seed=seed)
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.playout = playout
        self.margin = margin
        self.depth = depth
        self.turns = turns
        self.last_iterations = 0

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        if len(legal_actions) == 1 or self.info is None:
            return legal_actions[0]
        game = self.info.game
        if self.playout == "greedy" and not (self.turns and game.name == "kardinal"):
            raise ValueError("playout=greedy is for Kardinal searched by turns")
        simulate = (
            GREEDY_SIMULATION if self.playout == "greedy" else simulation(game.name, self.playout)
        )
        considered = tree_actions(game.name)
        start = time.perf_counter()
        deadline = start + self.seconds if self.seconds > 0 else math.inf
        if time_left is not None:
            deadline = min(deadline, start + time_left / TIME_SHARE)
        if self.turns and game.name == "kardinal":
            return self._search_turns(observation, legal_actions, simulate, deadline)
        root = _Node()
        done = 0
        while done < self.iterations and (done % 8 or time.perf_counter() < deadline):
            state = game.state_from_observation(observation, self.rng)
            self._iterate(root, state, simulate, considered)
            done += 1
        self.last_iterations = done
        visits = {
            action: child.visits for action, child in root.children.items() if child.visits > 0
        }
        if not visits:
            return legal_actions[0]
        best = max(visits, key=visits.__getitem__)
        return legal_actions[legal_actions.index(best)]

    def _iterate(
        self, root: _Node, state: State, simulate: Simulation, considered: TreeActions
    ) -> None:
        rng = self.rng
        c = self.exploration
        node = root
        path: list[tuple[_Node, int]] = []
        while True:
            seat = state.current_seat
            if seat == TERMINAL:
                break
            legal = considered(state, state.legal_actions())
            children = node.children
            untried = [action for action in legal if action not in children]
            if untried:
                action = untried[rng.randrange(len(untried))]
                child = children[action] = _Node()
                for other in legal:
                    if other in children:
                        children[other].available += 1
                state.apply_unchecked(action)
                path.append((child, seat))
                break
            best_score = -math.inf
            chosen: Action = legal[0]
            for action in legal:
                child = children[action]
                child.available += 1
                score = child.reward / child.visits + c * math.sqrt(
                    math.log(child.available) / child.visits
                )
                if score > best_score:
                    best_score = score
                    chosen = action
            state.apply_unchecked(chosen)
            node = children[chosen]
            path.append((node, seat))
        margin = simulate.margin if self.margin is None else self.margin
        depth = self.depth or 0
        rewards = score_rewards(simulate.run(state, rng, depth), margin, simulate.scale)
        root.visits += 1
        for child, seat in path:
            child.visits += 1
            child.reward += rewards[seat]

    def _search_turns(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        simulate: Simulation,
        deadline: float,
    ) -> Action:
        """Kardinal: the search over whole take plans (:mod:`bots.kardinal_search`).
        The root's children are the greedy planner's best plans; every iteration draws
        a determinisation, picks a plan by UCB1, plays it (the turn finished by the fast
        policy), then the rivals' next turns (``depth`` changes of the seat to move; by
        default two rounds), and credits the plan with its gain in the evaluation over
        the average rival. When the plan chosen is to stop taking, or taking is over,
        the stone follows the greedy player's rule (:func:`bots.kardinal.choose_stone`:
        measured, searched stones played worse)."""
        assert self.info is not None
        game = self.info.game
        rng = self.rng
        self.last_iterations = 0
        if not can_take(legal_actions):
            return self._greedy_stone(observation, legal_actions)
        root_state = as_state(game.state_from_observation(observation, rng))
        me = root_state.current_seat
        plans = take_plans(root_state, Projection(root_state))
        if not plans:
            return legal_actions[0]
        depth = self.depth if self.depth is not None else 2 * root_state.num_seats - 1
        evaluation = simulate.evaluation
        assert evaluation is not None
        base = lead(evaluation(root_state), me)
        visits = [0] * len(plans)
        totals = [0.0] * len(plans)
        done = 0
        while len(plans) > 1 and done < self.iterations:
            if done % 8 == 0 and done >= len(plans) and time.perf_counter() >= deadline:
                break
            if done < len(plans):
                choice = done
            else:
                log_done = math.log(done)
                choice = max(
                    range(len(plans)),
                    key=lambda k: (
                        totals[k] / visits[k] + self.exploration * math.sqrt(log_done / visits[k])
                    ),
                )
            state = as_state(game.state_from_observation(observation, rng))
            play_part(state, plans[choice], greedy=self.playout == "greedy")
            values = simulate.run(state, rng, depth) if depth > 0 else simulate.run(state, rng)
            visits[choice] += 1
            totals[choice] += squash(lead(values, me) - base, simulate.scale)
            done += 1
        self.last_iterations = done
        chosen = plans[max(range(len(plans)), key=lambda k: (visits[k], -k))]
        if not chosen.actions:  # stop taking
            return self._greedy_stone(observation, legal_actions)
        return legal_actions[legal_actions.index(chosen.actions[0])]

    def _greedy_stone(
        self, observation: Mapping[str, Any], legal_actions: Sequence[Action]
    ) -> Action:
        assert self.info is not None
        if not any(isinstance(a, EndTurn) for a in legal_actions):
            return legal_actions[-1]  # ``skip``: nothing could be taken
        options = self.info.game.parse_options(observation["options"])
        assert isinstance(options, KardinalOptions)
        return choose_stone(
            observation, Evaluator(observation, deck_tables(options.deck)), legal_actions
        )


@pydantic.dataclasses.dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class IsMctsParams:
    seed: int = pydantic.Field(default=0, description="base seed")
    iterations: int = pydantic.Field(default=200, ge=1, description="iterations per move")
    seconds: float = pydantic.Field(default=0.0, ge=0.0, description="time per move (0: none)")
    exploration: float = pydantic.Field(default=0.7, gt=0.0, description="UCB1 constant")
    playout: Literal["random", "heuristic", "greedy"] = pydantic.Field(
        default="heuristic",
        description="simulation policy (bots/policies.py; greedy: Kardinal by turns only)",
    )
    margin: float | None = pydantic.Field(
        default=None,
        ge=0.0,
        description="weight of the score margin in rewards (default: the game's, 0 or 1)",
    )
    depth: int | None = pydantic.Field(
        default=None,
        ge=0,
        description="turns to simulate before evaluating the position (0: to the end; "
        "default: Kardinal by turns two rounds, else to the end)",
    )
    turns: bool = pydantic.Field(
        default=True,
        description="Kardinal: search over whole take plans (bots/kardinal_search.py)",
    )


register_bot_kind(
    BotKind(
        "ismcts",
        IsMctsBot,
        "information-set MCTS (single observer) over sampled determinisations",
        games=ISMCTS_GAMES,
        params_type=IsMctsParams,
    )
)
