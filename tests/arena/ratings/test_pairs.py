"""Trinomial and pentanomial counts of a match, logistic and normalised Elo."""

from __future__ import annotations

import math

import pytest
from scipy.stats import norm

from arena.ratings import (
    GameResult,
    Pentanomial,
    RatingError,
    Trinomial,
    logistic_elo,
    match_statistics,
    normalized_elo,
)

Z95 = norm.ppf(0.975)
NELO = 800 / math.log(10)


def pair(group: str, first_result: str, second_result: str) -> list[GameResult]:
    """Two games of one rotation, ``me`` in seat 0 then seat 1; results from my side."""
    places = {"W": (1, 2), "D": (1, 1), "L": (2, 1)}
    mine_first = places[first_result]
    mine_second = places[second_result]
    return [
        GameResult(("me", "you"), mine_first, group),
        GameResult(("you", "me"), (mine_second[1], mine_second[0]), group),
    ]


def test_pentanomial_counts_hand_made_pairs() -> None:
    games = [
        *pair("r1", "W", "W"),
        *pair("r2", "W", "L"),
        *pair("r3", "L", "W"),
        *pair("r4", "D", "D"),
        *pair("r5", "D", "W"),
        *pair("r6", "L", "D"),
        *pair("r7", "L", "L"),
        *pair("r8", "W", "D"),
    ]
    stats = match_statistics(games, "me", "you")
    assert stats.pentanomial == Pentanomial(ll=1, ld=1, wl=2, dd=1, wd=2, ww=1)
    assert stats.pentanomial.counts() == (1, 1, 3, 2, 1)
    assert stats.trinomial == Trinomial(wins=6, draws=5, losses=5)
    assert stats.unpaired_games == 0
    assert stats.paired and stats.sequential_counts() == stats.pentanomial
    mirrored = match_statistics(games, "you", "me")
    assert mirrored.pentanomial == Pentanomial(ll=1, ld=2, wl=2, dd=1, wd=1, ww=1)


def test_incomplete_rotations_and_other_games_are_left_out_of_the_pairs() -> None:
    games = [
        *pair("r1", "W", "D"),
        GameResult(("me", "you"), (1, 2), "r2"),  # partner not played yet
        GameResult(("you", "me"), (1, 1)),  # no rotation at all
        GameResult(("me", "them"), (1, 2), "r1"),  # another opponent
        GameResult(("me", "you", "them"), (1, 2, 3), "r3"),  # three seats
    ]
    stats = match_statistics(games, "me", "you")
    assert stats.pentanomial == Pentanomial(wd=1)
    assert stats.unpaired_games == 2
    assert stats.trinomial == Trinomial(wins=2, draws=2, losses=0)


def test_unpaired_match_tests_the_trinomial() -> None:
    games = [GameResult(("me", "you"), (1, 2)), GameResult(("you", "me"), (1, 2))]
    stats = match_statistics(games, "me", "you")
    assert not stats.paired
    assert stats.sequential_counts() == Trinomial(wins=1, draws=0, losses=1)


def test_three_games_in_a_rotation_are_refused() -> None:
    games = [*pair("r1", "W", "W"), GameResult(("me", "you"), (1, 2), "r1")]
    with pytest.raises(RatingError, match="'r1' holds 3 games"):
        match_statistics(games, "me", "you")


def test_a_match_needs_two_players() -> None:
    with pytest.raises(RatingError, match="'me' twice"):
        match_statistics([], "me", "me")


def test_normalised_elo_of_a_trinomial_by_hand() -> None:
    # 6 wins, 2 draws, 2 losses: score 0.7; variance (6·0.3² + 2·0.2² + 2·0.7²)/10 = 0.16.
    estimate = normalized_elo(Trinomial(wins=6, draws=2, losses=2))
    assert estimate.elo == pytest.approx(0.2 / 0.4 * NELO)
    assert estimate.error == pytest.approx(Z95 * NELO / math.sqrt(10))
    assert estimate.los == pytest.approx(norm.cdf(0.2 / math.sqrt(0.16 / 10)))


def test_normalised_elo_of_a_pentanomial_by_hand() -> None:
    # Pair means 1, 1, 0.75, 0.5: mean 0.8125, variance of the pair mean 0.04296875;
    # per game the spread is √(2·variance).
    pentanomial = Pentanomial(ww=2, wd=1, wl=1)
    variance = (2 * 0.1875**2 + 0.0625**2 + 0.3125**2) / 4
    assert variance == pytest.approx(0.04296875)
    estimate = normalized_elo(pentanomial)
    assert estimate.elo == pytest.approx(0.3125 / math.sqrt(2 * variance) * NELO)
    assert estimate.error == pytest.approx(
        Z95 * math.sqrt(variance / 4) / math.sqrt(2 * variance) * NELO
    )


def score_to_elo(score: float) -> float:
    return 400 * math.log10(score / (1 - score))


def test_logistic_elo_and_its_error_by_hand() -> None:
    pentanomial = Pentanomial(ll=10, ld=30, dd=40, wl=20, wd=35, ww=15)
    mean = (30 * 0.25 + 60 * 0.5 + 35 * 0.75 + 15 * 1.0) / 150
    variance = (
        10 * mean**2
        + 30 * (0.25 - mean) ** 2
        + 60 * (0.5 - mean) ** 2
        + 35 * (0.75 - mean) ** 2
        + 15 * (1 - mean) ** 2
    ) / 150
    se = math.sqrt(variance / 150)
    estimate = logistic_elo(pentanomial)
    assert estimate.elo == pytest.approx(score_to_elo(mean))
    expected_error = (score_to_elo(mean + Z95 * se) - score_to_elo(mean - Z95 * se)) / 2
    assert estimate.error == pytest.approx(expected_error)
    assert estimate.los == pytest.approx(norm.cdf((mean - 0.5) / se))


def test_logistic_error_is_nan_when_the_interval_leaves_the_scale() -> None:
    # Mean 0.8125, se √(0.04296875 / 4) ≈ 0.104: the upper end passes 1.
    estimate = logistic_elo(Pentanomial(ww=2, wd=1, wl=1))
    assert estimate.elo == pytest.approx(score_to_elo(0.8125))
    assert math.isnan(estimate.error)


def test_pairing_tightens_the_estimate_when_deals_cancel() -> None:
    # Mostly a win and a loss per pair (the deal decides): as single games the results
    # swing widely, as pairs they hardly move.
    games = [g for r in range(20) for g in pair(f"r{r}", "W", "L")]
    games += [g for r in range(20, 24) for g in pair(f"r{r}", "W", "D")]
    stats = match_statistics(games, "me", "you")
    paired, single = logistic_elo(stats.pentanomial), logistic_elo(stats.trinomial)
    assert paired.elo == pytest.approx(single.elo)
    assert paired.error < 0.5 * single.error


def test_equal_results_have_no_normalised_elo() -> None:
    with pytest.raises(RatingError, match="undefined"):
        normalized_elo(Trinomial(draws=5))
    with pytest.raises(RatingError, match="no games"):
        logistic_elo(Pentanomial())


def test_perfect_score_has_infinite_elo() -> None:
    estimate = logistic_elo(Trinomial(wins=3))
    assert estimate.elo == math.inf
    assert math.isnan(estimate.error)
    assert estimate.los == 1.0
