"""Monte Carlo tree search (UCT) for perfect-information games of two or more seats.

The bot rebuilds the position from its observation (``game.state_from_observation``,
exact for perfect information), then grows a search tree: select by UCB1 from the
point of view of the seat to move, expand one child, play the rest at random, and
back up every seat's reward (its share of the opponents it finished ahead of,
:attr:`engines.outcome.Outcome.points`). The most visited action is played. Budgets:
a number of iterations and/or a time limit, at least one iteration; every random
choice comes from the bot's seeded generator.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final

import pydantic
from pydantic import ConfigDict

from bots.base import Bot
from bots.registry import BotKind
from engines.core import Action, State
from engines.registry import all_games


class _Node:
    __slots__ = ("action", "children", "parent", "reward", "seat", "untried", "visits")

    def __init__(
        self, parent: _Node | None, action: Action | None, seat: int, untried: list[Action]
    ):
        self.parent = parent
        self.action = action
        self.seat = seat  # the seat that chooses among this node's children
        self.untried = untried
        self.children: list[_Node] = []
        self.visits = 0
        self.reward = 0.0  # total reward of the seat that chose ``action``


class MctsBot(Bot):
    """UCT with random playouts."""

    name = "mcts"

    def __init__(
        self,
        *,
        seed: int = 0,
        iterations: int = 1000,
        seconds: float = 0.0,
        exploration: float = 1.4,
    ) -> None:
        super().__init__(seed=seed)
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.last_iterations = 0

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        """The most visited action at the root.

        Raises:
            GameNotStartedError: ``new_game`` was not called.
            InvalidStateError: the observation is not one of the game's.
        """
        game = self.observed_game(observation)
        if len(legal_actions) == 1:
            return legal_actions[0]  # the only legal action: nothing to search
        root_state = game.state_from_observation(observation, self.rng)
        root = _Node(None, None, root_state.current_seat, list(legal_actions))
        deadline = time.perf_counter() + self.seconds if self.seconds > 0 else math.inf
        if time_left is not None:
            deadline = min(deadline, time.perf_counter() + time_left / 4)
        done = 0
        while done < self.iterations and (done % 16 or done == 0 or time.perf_counter() < deadline):
            self._iterate(root, root_state.clone())
            done += 1
        self.last_iterations = done
        best = max(root.children, key=lambda child: child.visits)
        assert best.action is not None, "only the root has no action"
        return legal_actions[legal_actions.index(best.action)]

    def _iterate(self, root: _Node, state: State) -> None:
        node = root
        rng = self.rng
        # Selection
        while not node.untried and node.children:
            log_visits = math.log(node.visits)
            c = self.exploration
            node = max(
                node.children,
                key=lambda ch: ch.reward / ch.visits + c * math.sqrt(log_visits / ch.visits),
            )
            assert node.action is not None
            state.apply_unchecked(node.action)
        # Expansion
        if node.untried:
            action = node.untried.pop(rng.randrange(len(node.untried)))
            state.apply_unchecked(action)
            child = _Node(node, action, state.current_seat, state.legal_actions())
            node.children.append(child)
            node = child
        # Simulation
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_unchecked(legal[rng.randrange(len(legal))])
        outcome = state.outcome()
        assert outcome is not None
        rewards = outcome.points
        # Backpropagation: each edge is credited to the seat that chose it.
        while node.parent is not None:
            node.visits += 1
            node.reward += rewards[node.parent.seat]
            node = node.parent
        node.visits += 1


@pydantic.dataclasses.dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class MctsParams:
    seed: int = pydantic.Field(default=0, description="base seed")
    iterations: int = pydantic.Field(default=1000, ge=1, description="iterations per move")
    seconds: float = pydantic.Field(default=0.0, ge=0.0, description="time per move (0: none)")
    exploration: float = pydantic.Field(default=1.4, gt=0.0, description="UCB1 constant")


KIND: Final = BotKind(
    "mcts",
    MctsBot,
    "UCT Monte Carlo tree search with random playouts (perfect information)",
    games=frozenset(g.name for g in all_games() if g.perfect_information and g.max_seats >= 2),
    params_type=MctsParams,
)
