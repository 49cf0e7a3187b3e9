"""``arena bench envs``: the PettingZoo environment's step rate beside the engine's own.

Both loops play seeded random games to the end on one core: the engine's through
``legal_actions`` and ``apply_unchecked`` (:func:`arena.bench.random_playouts`), the
environment's through the public PettingZoo API as a learner uses it (``agent_iter``,
``last``, a random legal action from the observation's mask, ``step``, and ``reset``
for every game). They alternate in rounds, so a change in the machine's load hits
both alike; each rate is the median over the rounds.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from arena.bench import random_playouts
from engines.core import Game
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

    @property
    def engine(self) -> float:
        return statistics.median(self.engine_rates)

    @property
    def env(self) -> float:
        return statistics.median(self.env_rates)

    @property
    def ratio(self) -> float:
        return self.env / self.engine


def env_playouts(
    game: Game, seats: int, seconds: float, *, seed: int = 0, text_observations: bool = True
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
    game: Game, seats: int, *, seconds: float, rounds: int, text_observations: bool = True
) -> EnvSpeed:
    """Alternate ``rounds`` engine and environment measurements of ``seconds`` each."""
    engine_rates, env_rates = [], []
    for number in range(rounds):
        engine_rates.append(random_playouts(game, seats, seconds, seed=number).actions_per_second)
        env_rates.append(
            env_playouts(game, seats, seconds, seed=number, text_observations=text_observations)
        )
    return EnvSpeed(game.name, seats, text_observations, tuple(engine_rates), tuple(env_rates))
