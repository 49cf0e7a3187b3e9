"""The generalised sequential probability ratio test on normalised Elo, as fishtest
and fastchess run it.

H0: the normalised Elo is ``elo0``; H1: it is ``elo1``. The log-likelihood ratio
compares the most likely result distribution with each normalised Elo, given the
observed frequencies (trinomial per game, or pentanomial per pair of games); the test
accepts H1 when it reaches ``log((1 − β) / α)``, H0 when it falls to
``log(β / (1 − α))``, and continues in between (Wald's bounds). The constrained
maximum-likelihood distributions follow Van den Bergh, "Comments on normalized Elo",
section 4.1. See ``docs/ratings.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from scipy.optimize import brentq

from arena.ratings.errors import RatingError
from arena.ratings.pairs import (
    NORMALISED_ELO_PER_T,
    Counts,
    MatchStatistics,
    Pentanomial,
    mean_and_variance,
)

EMPTY_CATEGORY = 1e-3
"""Stand-in count for a category never observed, so that every distribution has full
support (the same regularisation as fishtest and fastchess)."""

_FIXED_POINT_TOLERANCE = 1e-10
_FIXED_POINT_MAX_STEPS = 1000


class SprtDecision(StrEnum):
    ACCEPT_H0 = "H0"
    ACCEPT_H1 = "H1"
    CONTINUE = "continue"


@dataclass(frozen=True)
class SprtSettings:
    """The test's hypotheses, in normalised Elo, and its error rates.

    Raises RatingError unless ``elo0 < elo1``, ``0 < alpha, beta < 1`` and
    ``alpha + beta < 1``.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise RatingError(f"SPRT needs elo0 < elo1, got {self.elo0!r} and {self.elo1!r}")
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0):
            raise RatingError(
                f"SPRT alpha {self.alpha!r} and beta {self.beta!r} must lie between 0 and 1"
            )
        if self.alpha + self.beta >= 1.0:
            raise RatingError(f"SPRT needs alpha + beta < 1, got {self.alpha + self.beta!r}")

    @property
    def lower_bound(self) -> float:
        """Accept H0 at or below this LLR: ``log(β / (1 − α))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """Accept H1 at or above this LLR: ``log((1 − β) / α)``."""
        return math.log((1.0 - self.beta) / self.alpha)


@dataclass(frozen=True)
class SprtResult:
    """The test's state: the decision, the LLR and the bounds it is compared with."""

    decision: SprtDecision
    llr: float
    lower_bound: float
    upper_bound: float
    settings: SprtSettings


def sprt(counts: Counts | MatchStatistics, settings: SprtSettings) -> SprtResult:
    """Decide the test on the results so far.

    ``counts`` may be the match's statistics, which test the pentanomial counts when
    games are paired and the trinomial counts otherwise. With no results yet the
    LLR is 0 and the test continues.
    """
    if isinstance(counts, MatchStatistics):
        counts = counts.sequential_counts()
    llr = log_likelihood_ratio(counts, settings.elo0, settings.elo1)
    if llr >= settings.upper_bound:
        decision = SprtDecision.ACCEPT_H1
    elif llr <= settings.lower_bound:
        decision = SprtDecision.ACCEPT_H0
    else:
        decision = SprtDecision.CONTINUE
    return SprtResult(decision, llr, settings.lower_bound, settings.upper_bound, settings)


def log_likelihood_ratio(counts: Counts, elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of normalised Elo ``elo1`` against ``elo0``.

    ``N · Σ p̂ᵢ · log(p1ᵢ / p0ᵢ)`` where ``p̂`` are the observed frequencies over the
    ``N`` games (trinomial) or pairs (pentanomial), and ``p0``, ``p1`` the distributions
    on the same scores nearest to ``p̂`` (largest likelihood) whose normalised Elo is
    ``elo0`` and ``elo1``. Zero without results.
    """
    frequencies = counts.frequencies()
    if sum(count for _, count in frequencies) == 0:
        return 0.0
    values = [score for score, _ in frequencies]
    regularised = [count if count > 0 else EMPTY_CATEGORY for _, count in frequencies]
    total = sum(regularised)
    observed = [count / total for count in regularised]
    # Per pair, the mean score has the variance of one game over two: t of the pair mean
    # is √2 times the per-game t.
    scale = math.sqrt(2.0) if isinstance(counts, Pentanomial) else 1.0
    t0 = scale * elo0 / NORMALISED_ELO_PER_T
    t1 = scale * elo1 / NORMALISED_ELO_PER_T
    p0 = _nearest_with_t(values, observed, t0)
    p1 = _nearest_with_t(values, observed, t1)
    return total * sum(
        o * (math.log(a) - math.log(b)) for o, a, b in zip(observed, p1, p0, strict=True)
    )


def _nearest_with_t(values: list[float], observed: list[float], t: float) -> list[float]:
    """The distribution ``p`` on ``values`` maximising ``Σ observed·log p`` subject to
    ``(mean(p) − ½) / sd(p) = t``.

    Stationarity gives ``pᵢ = observedᵢ / (1 + θ·φᵢ)`` with
    ``φᵢ = aᵢ − ½ − t·σ·(1 + ((aᵢ − μ)/σ)²) / 2`` (μ, σ of ``p``) and θ the root of
    ``Σ observedᵢ·φᵢ / (1 + θ·φᵢ) = 0``; iterate from the uniform distribution until
    ``p`` settles (Van den Bergh, section 4.1).

    Raises RatingError when no distribution on ``values`` has that ``t``.
    """
    probabilities = [1.0 / len(values)] * len(values)
    for _ in range(_FIXED_POINT_MAX_STEPS):
        mean, variance = mean_and_variance(tuple(zip(values, probabilities, strict=True)))
        sigma = math.sqrt(variance)
        phi = [a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mean) / sigma) ** 2) for a in values]
        low, high = min(phi), max(phi)
        if not low < 0.0 < high:
            raise RatingError(f"no score distribution on {values!r} has t = {t!r}")

        def balance(theta: float, phi: list[float] = phi) -> float:
            return sum(o * f / (1.0 + theta * f) for o, f in zip(observed, phi, strict=True))

        # balance falls from +inf to -inf between the poles at -1/high and -1/low.
        margin = 1e-12 * (1.0 / high - 1.0 / low)
        theta = brentq(balance, -1.0 / high + margin, -1.0 / low - margin, xtol=1e-14)
        updated = [o / (1.0 + theta * f) for o, f in zip(observed, phi, strict=True)]
        change = max(abs(u - p) for u, p in zip(updated, probabilities, strict=True))
        probabilities = updated
        if change < _FIXED_POINT_TOLERANCE:
            break
    return probabilities
