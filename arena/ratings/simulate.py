"""Synthetic two-player games from known ratings, for the benchmark and the tests.

Each rotation pits two players on one deal twice, seats swapped. The deal may favour
a seat: the first seat's expected score moves up by a random amount and the second
seat's down by the same, so the pair's mean stays at the Bradley–Terry expectation
and the ratings stay the truth the fit should recover, while the two games of a
rotation are correlated as on real deals.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from scipy.special import expit

from arena.ratings.data import DRAW, LOSS, WIN, FloatArray, PairwiseGames
from arena.ratings.elo import ELO_PER_LOGIT
from arena.ratings.errors import RatingError


def game_probabilities(
    expected: FloatArray, draw_rate: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Win, draw and loss probabilities with the given expected scores.

    The draw probability is ``draw_rate · (1 − |2·expected − 1|)``: ``draw_rate`` between
    equals, fewer draws the more lopsided the game, never a negative probability.
    """
    draw = draw_rate * (1.0 - np.abs(2.0 * expected - 1.0))
    win = expected - draw / 2.0
    return win, draw, 1.0 - win - draw


def simulate_rotations(
    elo: Sequence[float] | FloatArray,
    rotations: int,
    *,
    rng: np.random.Generator,
    draw_rate: float = 0.0,
    seat_effect: float = 0.0,
    players: Sequence[str] | None = None,
) -> PairwiseGames:
    """``2 · rotations`` games between random pairs of distinct players.

    Args:
        elo: the true rating of each player.
        rotations: how many deals; each is played twice with seats swapped.
        rng: the only source of randomness.
        draw_rate: the draw probability between equal players (0 ≤ draw_rate ≤ 1).
        seat_effect: how much a deal may favour a seat, 0 ≤ seat_effect ≤ 1: the first
            seat's expected score moves by ``u · min(p, 1 − p)``, ``u`` uniform in
            ``[−seat_effect, seat_effect]`` per deal.
        players: names; default ``p0``, ``p1``, …

    Raises RatingError for fewer than two players or a rate outside its range.
    """
    strengths = np.asarray(elo, dtype=np.float64) / ELO_PER_LOGIT
    n = strengths.size
    names = tuple(players) if players is not None else tuple(f"p{i}" for i in range(n))
    if n < 2 or len(names) != n:
        raise RatingError(f"need two or more players with one name each, got {n} ratings")
    if not (0.0 <= draw_rate <= 1.0 and 0.0 <= seat_effect <= 1.0):
        raise RatingError(f"draw_rate {draw_rate!r} and seat_effect {seat_effect!r} need 0..1")
    home = rng.integers(0, n, rotations)
    away = (home + rng.integers(1, n, rotations)) % n
    expected = expit(strengths[home] - strengths[away])
    shift = rng.uniform(-seat_effect, seat_effect, rotations) * np.minimum(expected, 1 - expected)
    first = np.concatenate([home, away])
    second = np.concatenate([away, home])
    first_expected = np.concatenate([expected + shift, 1.0 - expected + shift])
    win, draw, _ = game_probabilities(first_expected, draw_rate)
    roll = rng.random(2 * rotations)
    score: npt.NDArray[np.float64] = np.where(
        roll < win, WIN, np.where(roll < win + draw, DRAW, LOSS)
    )
    group = np.concatenate([np.arange(rotations), np.arange(rotations)])
    return PairwiseGames.from_arrays(names, first, second, score, group)
