"""The Blumengarten players: a greedy one-ply player and the solver's player."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import pydantic
from pydantic import ConfigDict

from bots.base import Bot, GameInfo
from bots.blumengarten.search import WON, position_key, ranked_moves, solve
from engines.blumengarten import FOUNDATION, RESIGN, BlumengartenState, Move
from engines.core import Action
from engines.errors import InvalidStateError


@pydantic.dataclasses.dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class GreedyParams:
    seed: int = pydantic.Field(default=0, description="base seed (the greedy bot never draws)")
    patience: int = pydantic.Field(
        default=80,
        ge=1,
        description="resign after this many moves without a card reaching a foundation",
    )


class GreedyBot(Bot):
    """A sensible player without search.

    Safe foundation moves first (cards no other card could still need as a base), then
    any foundation move. Otherwise it tries every move (a bridge of bouquet cards counts
    as one move) with the foundation moves it makes possible, and judges the position
    reached, or the best one a move further (cards on the foundations, how deep the
    next cards of each suit lie, cards stuck over a lower card of their suit, empty
    columns; see :func:`~bots.blumengarten.search.ranked_moves`). Each
    bouquet card spent in the garden costs ``BOUQUET_CHARGE`` points, so the bouquet
    is spent last. It never goes back to a position it has seen in this game, and it
    resigns when every move would, or after ``patience`` moves without a card reaching
    a foundation.
    """

    name = "greedy"

    BOUQUET_CHARGE = 8
    """Evaluation points a move must gain per bouquet card it lays into the garden."""

    def __init__(self, *, seed: int = 0, patience: int = 80) -> None:
        super().__init__(seed=seed)
        self.patience = patience
        self._seen: set[Hashable] = set()
        self._plan: list[Action] = []

    def new_game(self, info: GameInfo) -> None:
        super().new_game(info)
        self._seen = set()
        self._plan = []

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        state = self.game_info(observation).game.state_from_observation(observation, self.rng)
        assert isinstance(state, BlumengartenState)
        self._seen.add(position_key(state))
        to_foundation = [a for a in legal_actions if isinstance(a, Move) and a.target == FOUNDATION]
        if to_foundation:
            safe_floor = min(state.foundations.values()) + 2
            safe = [m for m in to_foundation if m.card.rank <= safe_floor]
            self._plan = []
            return (safe or to_foundation)[0]
        if self._plan and self._plan[0] in legal_actions:
            return self._plan.pop(0)
        if _moves_since_progress(observation) >= self.patience:
            return RESIGN
        best: tuple[float, tuple[Action, ...]] = (float("-inf"), ())
        for value, spent, line, key in ranked_moves(state):
            if key in self._seen:
                continue
            worth = value - self.BOUQUET_CHARGE * spent
            if worth > best[0]:
                best = (worth, line)
        if not best[1]:
            return RESIGN
        self._plan = list(best[1])
        return self._plan.pop(0)


def _moves_since_progress(observation: Mapping[str, Any]) -> int:
    moves: list[str] = observation["moves"]
    for back, text in enumerate(reversed(moves)):
        if text.endswith(">f"):
            return back
    return len(moves)


@pydantic.dataclasses.dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class SolverParams:
    seed: int = pydantic.Field(default=0, description="base seed (the solver never draws)")
    seconds: float = pydantic.Field(
        default=10.0, gt=0, description="seconds the solver may search per game"
    )
    node_limit: int | None = pydantic.Field(
        default=None, ge=1, description="positions the solver may search (default: no limit)"
    )


class SolverBot(Bot):
    """Solves the position when the game starts and plays the line found.

    With a winning line it plays that; otherwise (proved lost, or the budget ran out)
    it plays the line to the best score found and then resigns. The search budget is
    ``seconds``, or less when the game clock has less left. Should the game
    reach a position the plan did not lead to, it solves again from there.
    """

    name = "solver"

    CLOCK_SHARE = 0.8
    """Share of the game clock the search may use, leaving time to play the line."""

    def __init__(
        self, *, seed: int = 0, seconds: float = 10.0, node_limit: int | None = None
    ) -> None:
        super().__init__(seed=seed)
        self.seconds = seconds
        self.node_limit = node_limit
        self._plan: list[Action] = []
        self._planned_from = -1

    def new_game(self, info: GameInfo) -> None:
        super().new_game(info)
        self._plan = []
        self._planned_from = -1

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        self.game_info(observation)  # raises when new_game() was not called
        if not isinstance(observation.get("moves"), list):
            raise InvalidStateError("not a Blumengarten observation: no list of 'moves' in it")
        step = len(observation["moves"]) - self._planned_from
        if (
            self._planned_from < 0
            or not 0 <= step < len(self._plan)
            or self._plan[step] not in legal_actions
        ):
            # the first move, or a position the plan did not lead to: plan from here
            self._make_plan(observation, time_left)
            step = 0
        return self._plan[step]

    def _make_plan(self, observation: Mapping[str, Any], time_left: float | None) -> None:
        state = self.game_info(observation).game.state_from_observation(observation, self.rng)
        assert isinstance(state, BlumengartenState)
        budget = self.seconds
        if time_left is not None:
            budget = min(budget, time_left * self.CLOCK_SHARE)
        result = solve(state, time_limit=budget, node_limit=self.node_limit)
        self._plan = list(result.line)
        if result.status != WON:
            self._plan.append(RESIGN)
        self._planned_from = len(observation["moves"])
