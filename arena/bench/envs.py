"""``arena bench envs``: the PettingZoo environment's step rate beside the engine's own.

Both loops play seeded random games to the end on one core: the engine's through
``legal_actions`` and ``apply_unchecked`` (:func:`arena.bench.engines.random_playouts`), the
environment's through the public PettingZoo API as a learner uses it (``agent_iter``,
``last``, a random legal action from the observation's mask, ``step``, and ``reset``
for every game). They alternate in rounds, so a change in the machine's load hits
both alike; each rate is the median over the rounds.

A third loop measures the floor that PettingZoo's protocol itself sets: :class:`BareAEC`
steps the engine behind the same API calls but observes nothing (no vector, no mask,
no infos), so the gap between it and the engine is what ``agent_iter``, ``last``,
``step`` and the bookkeeping of rewards and terminations cost.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from typing import Any

from pettingzoo import AECEnv

from arena.bench.engines import random_playouts
from engines.core import TERMINAL, Action, Game, State
from engines.envs import env


@dataclass(frozen=True)
class EnvSpeed:
    game: str
    seats: int
    text_observations: bool
    engine_rates: tuple[float, ...]
    """Engine actions per second, one figure per round."""
    env_rates: tuple[float, ...]
    """Game actions per second through the environment, one figure per round (the
    finished agents' ``step(None)`` calls and the resets are timed but not counted)."""
    bare_rates: tuple[float, ...]
    """The same through :class:`BareAEC`: the protocol's floor."""

    @property
    def engine(self) -> float:
        return statistics.median(self.engine_rates)

    @property
    def env(self) -> float:
        return statistics.median(self.env_rates)

    @property
    def ratio(self) -> float:
        return self.env / self.engine

    @property
    def bare_ratio(self) -> float:
        return statistics.median(self.bare_rates) / self.engine


class BareAEC(AECEnv[str, None, int]):
    """The engine behind PettingZoo's AEC calls and nothing else: observations are None
    and an action is a position in the engine's legal actions. Only for measuring."""

    metadata: dict[str, Any] = {"name": "bare_v0"}  # noqa: RUF012  (AECEnv's instance field)

    def __init__(self, game: Game, seats: int):
        self.game, self.seats = game, seats
        self.possible_agents = [f"seat_{seat}" for seat in range(seats)]
        self.legal: list[Action] = []
        self.state: State | None = None  # type: ignore[assignment]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.state = self.game.new_initial_state(seed=seed or 0, seats=self.seats)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[0]
        self.legal = self.state.legal_actions()

    def observe(self, agent: str) -> None:
        return None

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent]:
            self._was_dead_step(action)
            return
        state = self.state
        assert state is not None
        state.apply_unchecked(self.legal[action])
        seat = state.current_seat
        if seat == TERMINAL:
            for agent, value in zip(self.agents, state.returns(), strict=True):
                self.rewards[agent] = value
                self.terminations[agent] = True
            self._accumulate_rewards()
            return
        self.legal = state.legal_actions()
        self.agent_selection = self.possible_agents[seat]


def bare_playouts(game: Game, seats: int, seconds: float, *, seed: int = 0) -> float:
    """Random games through :class:`BareAEC` for about ``seconds``; actions per second."""
    rng = random.Random(seed)
    playground = BareAEC(game, seats)
    actions = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while now < deadline:
        for _ in range(20):
            playground.reset(seed=seed + games)
            games += 1
            for _agent in playground.agent_iter():
                _, _, terminated, truncated, _ = playground.last(observe=False)
                if terminated or truncated:
                    playground.step(None)  # type: ignore[arg-type]
                    continue
                playground.step(rng.randrange(len(playground.legal)))
                actions += 1
        now = time.perf_counter()
    return actions / (now - start)


def env_playouts(
    game: Game, seats: int, seconds: float, *, seed: int = 0, text_observations: bool = False
) -> float:
    """Random games through the PettingZoo API for about ``seconds``; actions per second."""
    rng = random.Random(seed)
    playground = env(game, seats=seats, text_observations=text_observations)
    playground.reset(seed=seed)
    actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while now < deadline:
        for _ in range(20):
            playground.reset()
            for _agent in playground.agent_iter():
                observation, _, terminated, truncated, _ = playground.last()
                if terminated or truncated:
                    playground.step(None)
                    continue
                assert observation is not None
                legal = observation["action_mask"].nonzero()[0]
                playground.step(int(legal[rng.randrange(len(legal))]))
                actions += 1
        now = time.perf_counter()
    return actions / (now - start)


def env_speed(
    game: Game, seats: int, *, seconds: float, rounds: int, text_observations: bool = False
) -> EnvSpeed:
    """Alternate ``rounds`` engine, environment and bare-protocol measurements of
    ``seconds`` each."""
    engine_rates, env_rates, bare_rates = [], [], []
    for number in range(rounds):
        engine_rates.append(random_playouts(game, seats, seconds, seed=number).actions_per_second)
        env_rates.append(
            env_playouts(game, seats, seconds, seed=number, text_observations=text_observations)
        )
        bare_rates.append(bare_playouts(game, seats, seconds, seed=number))
    return EnvSpeed(
        game.name,
        seats,
        text_observations,
        tuple(engine_rates),
        tuple(env_rates),
        tuple(bare_rates),
    )
