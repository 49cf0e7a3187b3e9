"""Information-set Monte Carlo tree search (single observer) for hidden-information games.

SO-ISMCTS (Cowling, Powley & Whitehouse 2012): one tree over the actions seen from
the bot's seat. Each iteration draws a fresh determinisation — a full state
consistent with the bot's observation, ``game.state_from_observation(observation,
rng)`` — and descends the tree using only the actions legal in that sample. A child
is scored by UCB1 with its *availability* (how often it was legal when its parent
was visited) in place of the parent's visits, so actions that are rarely possible are
not over-explored. A new child is added for one untried legal action, the game is
played on by a simulation (:mod:`bots.search`: ``random``, or the game's
``heuristic``; to the end, or ``depth`` turns and an evaluation), and every node on
the path is credited with the reward of the seat that chose its action: the seat's
share of the opponents it finished ahead of
(:func:`engines.outcome.ranking_points`), mixed with its score margin when
``margin`` > 0 (:func:`score_rewards`; by default the game's setting). The most
visited action is played.

The bot knows no game. What a game's bot package lends it (:class:`bots.search.
GameSearch`) decides the rest: the simulations, which actions the tree expands, and
a search over whole turns that replaces the tree while ``turns`` is on (Kardinal &
König: :mod:`bots.kardinal.turn_search`; why: ``docs/strength.md``).

Budgets: a number of iterations and/or seconds per move (and never more than an
eighth of the time left for the game), at least one iteration; every random choice
comes from the bot's seeded generator, so a seeded game replays the same under an
iteration budget.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

import pydantic
from pydantic import ConfigDict

from bots.base import Bot
from bots.registry import BotKind
from bots.search import SearchRequest, SearchResult, TreeActions, game_search, simulation, squash
from engines.core import TERMINAL, Action, State
from engines.outcome import competition_ranking, ranking_points
from engines.registry import all_games

TIME_SHARE: Final = 8
"""A move may use at most 1/TIME_SHARE of the game's remaining time."""


def score_rewards(scores: Sequence[float], margin: float, scale: float) -> list[float]:
    """Per-seat rewards in 0..1: the seat's share of the opponents it finished ahead of
    (:func:`engines.outcome.ranking_points`), mixed with weight ``margin`` : 1 with its
    lead over the average opponent squashed into 0..1 (``(1 + tanh(lead / scale)) / 2``)."""
    rewards = list(ranking_points(competition_ranking(scores)))
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
        playout: str = "heuristic",
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
        """The most visited action, or the turn search's choice.

        Raises:
            GameNotStartedError: ``new_game`` was not called.
            BotParameterError: the game offers no simulation named ``playout``.
            InvalidStateError: the observation is not one of the game's.
        """
        game = self.observed_game(observation)
        if len(legal_actions) == 1:
            return legal_actions[0]  # the only legal action: nothing to search
        lent = game_search(game.name)
        start = time.perf_counter()
        deadline = start + self.seconds if self.seconds > 0 else math.inf
        if time_left is not None:
            deadline = min(deadline, start + time_left / TIME_SHARE)
        request = SearchRequest(
            game=game,
            observation=observation,
            legal_actions=legal_actions,
            rng=self.rng,
            simulation=simulation(game.name, self.playout),
            iterations=self.iterations,
            deadline=deadline,
            exploration=self.exploration,
            depth=self.depth,
        )
        if self.turns and lent.turn_search is not None:
            result = lent.turn_search(request)
        else:
            result = self._search_tree(request, lent.tree_actions)
        self.last_iterations = result.iterations
        return result.action

    def _search_tree(self, request: SearchRequest, considered: TreeActions) -> SearchResult:
        root = _Node()
        done = 0
        while done < request.iterations and (
            done % 8 or done == 0 or time.perf_counter() < request.deadline
        ):
            state = request.game.state_from_observation(request.observation, request.rng)
            self._iterate(root, state, request, considered)
            done += 1
        visits = {
            action: child.visits for action, child in root.children.items() if child.visits > 0
        }
        best = max(visits, key=visits.__getitem__)
        legal_actions = request.legal_actions
        return SearchResult(legal_actions[legal_actions.index(best)], done)

    def _iterate(
        self, root: _Node, state: State, request: SearchRequest, considered: TreeActions
    ) -> None:
        rng = request.rng
        c = request.exploration
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
            chosen: Action | None = None
            for action in legal:
                child = children[action]
                child.available += 1
                score = child.reward / child.visits + c * math.sqrt(
                    math.log(child.available) / child.visits
                )
                if score > best_score:
                    best_score = score
                    chosen = action
            assert chosen is not None, "every child of a visited node has a finite score"
            state.apply_unchecked(chosen)
            node = children[chosen]
            path.append((node, seat))
        simulate = request.simulation
        margin = simulate.margin if self.margin is None else self.margin
        depth = request.depth or 0
        rewards = score_rewards(simulate.run(state, rng, depth), margin, simulate.scale)
        root.visits += 1
        for child, seat in path:
            child.visits += 1
            child.reward += rewards[seat]


@pydantic.dataclasses.dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class IsMctsParams:
    seed: int = pydantic.Field(default=0, description="base seed")
    iterations: int = pydantic.Field(default=200, ge=1, description="iterations per move")
    seconds: float = pydantic.Field(default=0.0, ge=0.0, description="time per move (0: none)")
    exploration: float = pydantic.Field(default=0.7, gt=0.0, description="UCB1 constant")
    playout: Literal["random", "heuristic", "greedy"] = pydantic.Field(
        default="heuristic",
        description="simulation policy (bots/search.py; heuristic and greedy: where the "
        "game's bot package offers them, greedy in Kardinal)",
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
        "default: two rounds in a search by turns, else to the end)",
    )
    turns: bool = pydantic.Field(
        default=True,
        description="search whole turns where the game's bot package offers it "
        "(Kardinal: take plans, bots/kardinal/turn_search.py)",
    )


KIND: Final = BotKind(
    "ismcts",
    IsMctsBot,
    "information-set MCTS (single observer) over sampled determinisations",
    games=frozenset(game.name for game in all_games() if not game.perfect_information),
    params_type=IsMctsParams,
)
