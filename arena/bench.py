"""Benchmarks behind ``arena bench``: plain functions returning measurements."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from engines.core import Game


@dataclass(frozen=True)
class PlayoutSpeed:
    game: str
    seats: int
    games: int
    actions: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds


def random_playouts(game: Game, seats: int, seconds: float, seed: int = 0) -> PlayoutSpeed:
    """Deal and play random games through the engine API for about ``seconds``.

    Each game is a fresh seeded deal played to the end with uniformly random legal
    actions on the unchecked path, as search bots use it, on this one core.
    """
    rng = random.Random(seed)
    options = game.parse_options(None)
    games = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    now = start
    while now < deadline:
        for _ in range(20):
            state = game.new_initial_state(seed=seed + games, seats=seats, options=options)
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_unchecked(legal[rng.randrange(len(legal))])
            actions += len(state.history)
            games += 1
        now = time.perf_counter()
    return PlayoutSpeed(game.name, seats, games, actions, now - start)
