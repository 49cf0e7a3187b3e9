"""Choosing the next pairs of an adaptive tournament."""

from __future__ import annotations

import numpy as np
import pytest

from arena.ratings import (
    NeighbourPair,
    RatingError,
    all_neighbours_separated,
    fit_elo,
    neighbour_pairs,
    pairs_to_schedule,
)
from arena.ratings.simulate import simulate_rotations


def test_far_apart_players_are_all_separated() -> None:
    games = simulate_rotations([-600.0, 0.0, 600.0], 300, rng=np.random.default_rng(0))
    ratings = fit_elo(games)
    assert [(p.higher, p.lower) for p in neighbour_pairs(ratings)] == [("p2", "p1"), ("p1", "p0")]
    assert all(p.z > 5 and p.los > 0.999 for p in neighbour_pairs(ratings))
    assert pairs_to_schedule(ratings) == []
    assert all_neighbours_separated(ratings)


def pair_names(pairs: list[NeighbourPair]) -> set[frozenset[str]]:
    return {frozenset((p.higher, p.lower)) for p in pairs}


def test_only_the_close_neighbours_are_scheduled() -> None:
    # p1 and p2 are 10 Elo apart, everything else 400.
    truth = [-400.0, 0.0, 10.0, 400.0]
    ratings = fit_elo(simulate_rotations(truth, 400, rng=np.random.default_rng(0)))
    unsettled = pairs_to_schedule(ratings)
    assert pair_names(unsettled) == {frozenset(("p1", "p2"))}
    assert not all_neighbours_separated(ratings)
    (pair,) = unsettled
    stderr = ratings.difference_stderr(pair.higher, pair.lower)
    assert pair.z == pytest.approx(pair.difference / stderr)
    assert 0 <= pair.z <= 1.96


def test_unsettled_pairs_come_least_certain_first() -> None:
    truth = [0.0, 5.0, 10.0, 15.0, 400.0]
    ratings = fit_elo(simulate_rotations(truth, 500, rng=np.random.default_rng(0)))
    unsettled = pairs_to_schedule(ratings)
    assert len(unsettled) >= 2
    assert [p.z for p in unsettled] == sorted(p.z for p in unsettled)
    assert frozenset(("p3", "p4")) not in pair_names(unsettled)


def test_a_lower_confidence_separates_more_pairs() -> None:
    ratings = fit_elo(simulate_rotations([0.0, 25.0, 50.0], 600, rng=np.random.default_rng(2)))
    strict = pairs_to_schedule(ratings, confidence=0.999)
    loose = pairs_to_schedule(ratings, confidence=0.5)
    assert len(loose) <= len(strict)
    assert {p.z for p in loose} <= {p.z for p in strict}
    with pytest.raises(RatingError, match="confidence"):
        pairs_to_schedule(ratings, confidence=1.5)
