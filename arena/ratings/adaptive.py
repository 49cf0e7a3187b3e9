"""Where an adaptive ``elo`` tournament should play next.

Sort the bots by rating; each neighbouring pair in that order is *separated* when the
two-sided interval of their rating difference at the chosen confidence excludes 0,
that is when ``|Δ| / se(Δ) > z`` (``se`` from the fit's covariance, which is tighter
and more correct than asking whether the two single-rating intervals overlap). More
games between the pairs that are not yet separated settle the ranking fastest; the
tournament can stop once every neighbouring pair is separated.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from scipy.special import ndtr, ndtri

from arena.ratings.elo import EloRatings
from arena.ratings.errors import RatingError


@dataclass(frozen=True)
class NeighbourPair:
    """Two bots next to each other in the ranking, ``higher`` rated above ``lower``.

    ``z`` is the difference in standard errors (``inf`` for a positive difference known
    exactly, which only a degenerate covariance gives); ``los`` the probability that
    ``higher`` is the stronger.
    """

    higher: str
    lower: str
    difference: float
    stderr: float
    z: float
    los: float


def neighbour_pairs(ratings: EloRatings) -> list[NeighbourPair]:
    """Every neighbouring pair in the ranking, from the top down."""
    order = ratings.order()
    pairs = []
    for higher, lower in itertools.pairwise(order):
        difference = ratings.rating(higher) - ratings.rating(lower)
        stderr = ratings.difference_stderr(higher, lower)
        z = difference / stderr if stderr > 0.0 else float("inf") if difference > 0.0 else 0.0
        pairs.append(NeighbourPair(higher, lower, difference, stderr, z, float(ndtr(z))))
    return pairs


def _threshold(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise RatingError(f"confidence {confidence!r} must lie between 0 and 1")
    return float(ndtri(0.5 + confidence / 2.0))


def pairs_to_schedule(ratings: EloRatings, *, confidence: float = 0.95) -> list[NeighbourPair]:
    """The neighbouring pairs not yet separated at ``confidence``, least certain first.

    Raises RatingError unless ``0 < confidence < 1``.
    """
    threshold = _threshold(confidence)
    unsettled = [pair for pair in neighbour_pairs(ratings) if pair.z <= threshold]
    return sorted(unsettled, key=lambda pair: (pair.z, pair.higher, pair.lower))


def all_neighbours_separated(ratings: EloRatings, *, confidence: float = 0.95) -> bool:
    """True when every neighbouring pair in the ranking is separated at ``confidence``.

    Raises RatingError unless ``0 < confidence < 1``.
    """
    return not pairs_to_schedule(ratings, confidence=confidence)
