"""Benchmarks behind ``arena bench``: plain functions returning measurements."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import numpy as np

from arena.ratings import IntervalMethod, PairwiseGames, fit_elo
from arena.ratings.simulate import simulate_rotations
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


@dataclass(frozen=True)
class RatingFitSpeed:
    games: int
    bots: int
    interval: IntervalMethod
    seconds: float
    aggregation_seconds: float
    """Checking and aggregating the arrays alone, timed separately."""
    max_error: float
    """The largest distance of a fitted rating from the truth (Elo, both mean 0)."""
    mean_half_width: float
    """The average half-width of the 95% intervals (Elo)."""


def rating_fit_speed(
    games: int,
    bots: int,
    *,
    interval: IntervalMethod = "hessian",
    bootstrap_samples: int = 1000,
    seed: int = 0,
) -> RatingFitSpeed:
    """Time :func:`arena.ratings.fit_elo` from per-game arrays to ratings with intervals.

    ``games`` games between ``bots`` bots of known strength (normal, sd 200 Elo) are
    simulated first, in rotations of two with seats swapped, 30% draws between equals and
    deal-dependent seat advantages; the timed part checks and aggregates the arrays,
    fits and computes the intervals.
    """
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.0, 200.0, bots)
    simulated = simulate_rotations(truth, games // 2, rng=rng, draw_rate=0.3, seat_effect=0.5)
    arrays = (simulated.first, simulated.second, simulated.score, simulated.group)
    start = time.perf_counter()
    PairwiseGames.from_arrays(simulated.players, *arrays).aggregate()
    aggregation_seconds = time.perf_counter() - start
    start = time.perf_counter()
    ratings = fit_elo(
        PairwiseGames.from_arrays(simulated.players, *arrays),
        interval=interval,
        bootstrap_samples=bootstrap_samples,
        seed=seed,
    )
    seconds = time.perf_counter() - start
    return RatingFitSpeed(
        games=len(simulated),
        bots=bots,
        interval=interval,
        seconds=seconds,
        aggregation_seconds=aggregation_seconds,
        max_error=float(np.max(np.abs(ratings.elo - (truth - truth.mean())))),
        mean_half_width=float(np.mean(ratings.upper - ratings.lower) / 2.0),
    )
