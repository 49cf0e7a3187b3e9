"""The generalised sequential probability ratio test on normalised Elo, with the LLR
fishtest and fastchess compute and the stopping rule fastchess uses.

H0: the normalised Elo is ``elo0``; H1: it is ``elo1``. The log-likelihood ratio
compares the most likely result distribution with each normalised Elo, given the
observed frequencies (trinomial per game, or pentanomial per pair of games); the test
accepts H1 when it reaches ``log((1 − β) / α)``, H0 when it falls to
``log(β / (1 − α))``, and continues in between: Wald's bounds compared with the raw
LLR after every game or pair, as fastchess stops. Fishtest stops by another rule: it
moves each bound towards zero by the expected overshoot of the LLR's last step
(Siegmund's correction), so on the same data it may stop earlier (by about one pair in
half of the sequences tried); that rule is not offered here. The constrained
maximum-likelihood distributions follow Van den Bergh, "Comments on normalized Elo",
section 4.1. See ``docs/ratings.md``.

The LLR is computed for many count vectors at once (numpy, one row each), so a test
checked after every pair of games costs one vectorised call per batch of pairs, and
:func:`sprt_sequence` finds the first pair at which the test decided.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import numpy.typing as npt

from arena.ratings.data import FloatArray
from arena.ratings.errors import RatingError
from arena.ratings.pairs import (
    NORMALISED_ELO_PER_T,
    PAIR_CATEGORIES,
    Counts,
    MatchStatistics,
    Pentanomial,
    Trinomial,
)

EMPTY_CATEGORY = 1e-3
"""Stand-in count for a category never observed, so that every distribution has full
support (the same regularisation as fishtest and fastchess)."""

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The mean score per game of a pair in each of the five pentanomial categories."""
GAME_SCORES = (0.0, 0.5, 1.0)
"""The score of a loss, a draw and a win."""
GAME_CATEGORIES = ("losses", "draws", "wins")
"""The fields of :class:`Trinomial`, in the order of :data:`GAME_SCORES`."""

_FIXED_POINT_TOLERANCE = 1e-10
_FIXED_POINT_MAX_STEPS = 1000
_ROOT_MAX_STEPS = 200
_ROOT_TOLERANCE = 1e-12
"""Newton's last step on θ was this small (relative): the next would be far below
rounding, as the convergence is quadratic."""
FIRST_BLOCK = 64
"""Results whose LLRs :func:`sprt_sequence` computes in its first vectorised call."""


MAX_ELO = 200.0
"""The largest hypothesis (normalised Elo, either sign) the test takes: beyond about 230
for pairs the constrained distribution cannot be found from the uniform start, and a
test between such differences would decide within a few pairs anyway."""


class SprtDecision(StrEnum):
    ACCEPT_H0 = "H0"
    ACCEPT_H1 = "H1"
    CONTINUE = "continue"


@dataclass(frozen=True)
class SprtSettings:
    """The test's hypotheses, in normalised Elo, and its error rates.

    Raises RatingError unless ``elo0 < elo1``, both within ±:data:`MAX_ELO`,
    ``0 < alpha, beta < 1`` and ``alpha + beta < 1``.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (abs(self.elo0) <= MAX_ELO and abs(self.elo1) <= MAX_ELO):
            raise RatingError(
                f"SPRT elo0 {self.elo0!r} and elo1 {self.elo1!r} must lie within "
                f"±{MAX_ELO:g} normalised Elo"
            )
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

    def decide(self, llr: float) -> SprtDecision:
        """The decision at this LLR."""
        if llr >= self.upper_bound:
            return SprtDecision.ACCEPT_H1
        if llr <= self.lower_bound:
            return SprtDecision.ACCEPT_H0
        return SprtDecision.CONTINUE


@dataclass(frozen=True)
class SprtResult:
    """The test's state: the decision, the LLR and the bounds it is compared with,
    and the counts it was computed from (for a sequence: where it stopped)."""

    decision: SprtDecision
    llr: float
    lower_bound: float
    upper_bound: float
    settings: SprtSettings
    counts: Counts


def sprt(counts: Counts | MatchStatistics, settings: SprtSettings) -> SprtResult:
    """Decide the test on the results so far.

    ``counts`` may be the match's statistics, which test the pentanomial counts when
    games are paired and the trinomial counts otherwise. With no results yet the
    LLR is 0 and the test continues.
    """
    if isinstance(counts, MatchStatistics):
        counts = counts.sequential_counts()
    llr = log_likelihood_ratio(counts, settings.elo0, settings.elo1)
    return SprtResult(
        settings.decide(llr), llr, settings.lower_bound, settings.upper_bound, settings, counts
    )


def sprt_sequence(
    results: Sequence[str], settings: SprtSettings, *, before: Counts
) -> tuple[SprtResult, int]:
    """Run the test result by result: after ``before`` (the counts so far, empty to
    start), add ``results`` one at a time, in the order played, and stop at the first
    whose LLR reaches a bound.

    A result names a field of ``before``'s type: ``"ll"``, ``"ld"``, ``"wl"``, ``"dd"``,
    ``"wd"`` or ``"ww"`` for a pair (:class:`Pentanomial`), ``"losses"``, ``"draws"``
    or ``"wins"`` for a game (:class:`Trinomial`).

    Returns the result where the test stopped (after every result when it did not
    decide) and how many of ``results`` it used. Raises RatingError for a result that
    is not such a field.
    """
    if not results:
        return sprt(before, settings), 0
    fields = PAIR_CATEGORIES if isinstance(before, Pentanomial) else GAME_CATEGORIES
    columns = {name: i for i, name in enumerate(fields)}
    try:
        kinds = np.array([columns[result] for result in results])
    except KeyError as unknown:
        raise RatingError(
            f"unknown result {unknown.args[0]!r} (results: {', '.join(fields)})"
        ) from None
    start = np.array([getattr(before, name) for name in fields], dtype=np.int64)
    steps = np.zeros((kinds.size, len(fields)), dtype=np.int64)
    steps[np.arange(kinds.size), kinds] = 1
    prefixes = start + np.cumsum(steps, axis=0)
    paired = isinstance(before, Pentanomial)
    values = PAIR_SCORES if paired else GAME_SCORES
    # Doubling blocks, so that a test deciding early costs about what it used.
    first, size = 0, FIRST_BLOCK
    while True:
        block = prefixes[first : first + size]
        llrs = log_likelihood_ratios(
            _pair_scores(block) if paired else block,
            values,
            paired=paired,
            elo0=settings.elo0,
            elo1=settings.elo1,
        )
        decided = np.flatnonzero((llrs >= settings.upper_bound) | (llrs <= settings.lower_bound))
        if decided.size or first + size >= kinds.size:
            last = int(decided[0]) if decided.size else block.shape[0] - 1
            break
        first, size = first + size, 2 * size
    final = dict(zip(fields, map(int, block[last]), strict=True))
    counts: Counts = Pentanomial(**final) if paired else Trinomial(**final)
    llr = float(llrs[last])
    result = SprtResult(
        settings.decide(llr), llr, settings.lower_bound, settings.upper_bound, settings, counts
    )
    return result, first + last + 1


def _pair_scores(prefixes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Six pentanomial columns (LL, LD, WL, DD, WD, WW) as the five score categories."""
    ll, ld, wl, dd, wd, ww = prefixes.T
    result: npt.NDArray[np.int64] = np.stack([ll, ld, wl + dd, wd, ww], axis=1)
    return result


def log_likelihood_ratio(counts: Counts, elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of normalised Elo ``elo1`` against ``elo0``.

    ``N · Σ p̂ᵢ · log(p1ᵢ / p0ᵢ)`` where ``p̂`` are the observed frequencies over the
    ``N`` games (trinomial) or pairs (pentanomial), and ``p0``, ``p1`` the distributions
    on the same scores nearest to ``p̂`` (largest likelihood) whose normalised Elo is
    ``elo0`` and ``elo1``. Zero without results.

    Raises RatingError when no distribution on the scores has one of the Elos.
    """
    frequencies = counts.frequencies()
    values = [score for score, _ in frequencies]
    row = [[count for _, count in frequencies]]
    paired = isinstance(counts, Pentanomial)
    return float(log_likelihood_ratios(row, values, paired=paired, elo0=elo0, elo1=elo1)[0])


def log_likelihood_ratios(
    counts: npt.ArrayLike,
    values: Sequence[float],
    *,
    paired: bool,
    elo0: float,
    elo1: float,
) -> FloatArray:
    """:func:`log_likelihood_ratio` of each row of ``counts`` (one column per score in
    ``values``; rows of pairs when ``paired``), all rows at once.

    Raises RatingError when no distribution on ``values`` has one of the Elos.
    """
    raw = np.atleast_2d(np.asarray(counts, dtype=np.float64))
    regularised = np.where(raw > 0, raw, EMPTY_CATEGORY)
    total = regularised.sum(axis=1)
    observed = regularised / total[:, None]
    points = np.asarray(values, dtype=np.float64)
    # Per pair, the mean score has the variance of one game over two: t of the pair mean
    # is √2 times the per-game t.
    scale = math.sqrt(2.0) if paired else 1.0
    rows = observed.shape[0]
    t = np.repeat(np.array([elo0, elo1]) * scale / NORMALISED_ELO_PER_T, rows)
    both = _nearest_with_t(points, np.concatenate([observed, observed]), t)
    p0, p1 = both[:rows], both[rows:]
    llr: FloatArray = total * np.sum(observed * (np.log(p1) - np.log(p0)), axis=1)
    return np.where(raw.sum(axis=1) > 0, llr, 0.0)


def _nearest_with_t(values: FloatArray, observed: FloatArray, t: FloatArray) -> FloatArray:
    """Per row, the distribution ``p`` on ``values`` maximising ``Σ observed·log p``
    subject to ``(mean(p) − ½) / sd(p) = t`` (one ``t`` per row).

    Stationarity gives ``pᵢ = observedᵢ / (1 + θ·φᵢ)`` with
    ``φᵢ = aᵢ − ½ − t·σ·(1 + ((aᵢ − μ)/σ)²) / 2`` (μ, σ of ``p``) and θ the root of
    ``Σ observedᵢ·φᵢ / (1 + θ·φᵢ) = 0``; iterate from the uniform distribution until
    ``p`` settles (Van den Bergh, section 4.1). The arrays are held one score per row
    (scores × count vectors), so each sum runs over a few long rows, and each θ search
    starts from the previous step's θ.

    Raises RatingError when no distribution on ``values`` has that ``t``.
    """
    observed_columns = observed.T
    scores = values[:, None]
    probabilities = np.full_like(observed_columns, 1.0 / values.size)
    theta = np.zeros(observed_columns.shape[1])
    for _ in range(_FIXED_POINT_MAX_STEPS):
        mean = np.sum(probabilities * scores, axis=0)
        spread = scores - mean
        sigma = np.sqrt(np.sum(probabilities * spread**2, axis=0))
        phi = scores - 0.5 - 0.5 * t * sigma * (1.0 + (spread / sigma) ** 2)
        low, high = phi.min(axis=0), phi.max(axis=0)
        if not np.all((low < 0.0) & (high > 0.0)):
            bad = float(t[np.argmin((low < 0.0) & (high > 0.0))])
            raise RatingError(f"no score distribution on {values.tolist()!r} has t = {bad!r}")
        theta = _balancing_theta(observed_columns, phi, -1.0 / high, -1.0 / low, theta)
        updated = observed_columns / (1.0 + theta * phi)
        change = float(np.max(np.abs(updated - probabilities)))
        probabilities = updated
        if change < _FIXED_POINT_TOLERANCE:
            break
    result: FloatArray = probabilities.T
    return result


def _balancing_theta(
    observed: FloatArray,
    phi: FloatArray,
    lowest: FloatArray,
    highest: FloatArray,
    start: FloatArray,
) -> FloatArray:
    """Per column, the root θ in (``lowest``, ``highest``) of
    ``Σ observedᵢ·φᵢ / (1 + θ·φᵢ)``, which falls from +∞ to −∞ there: Newton's method
    from ``start`` (or 0, which always lies inside, when ``start`` does not), falling
    back to bisection whenever a step leaves the bracket."""
    low, high = lowest, highest
    theta = np.where((start > low) & (start < high), start, 0.0)
    for _ in range(_ROOT_MAX_STEPS):
        denominator = 1.0 + theta * phi
        ratio = observed * phi / denominator
        balance = np.sum(ratio, axis=0)
        slope = -np.sum(ratio * phi / denominator, axis=0)
        low = np.where(balance > 0.0, theta, low)
        high = np.where(balance < 0.0, theta, high)
        newton = theta - balance / slope
        settled = np.abs(newton - theta) <= _ROOT_TOLERANCE * np.maximum(1.0, np.abs(theta))
        inside = (newton > low) & (newton < high)
        theta = np.where(inside | settled, newton, 0.5 * (low + high))
        if np.all(settled):
            break
    return theta
