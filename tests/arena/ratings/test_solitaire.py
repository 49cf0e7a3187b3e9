"""Solitaire: Wilson intervals, mean scores, duplicate Elo on shared deals."""

from __future__ import annotations

import math

import pytest
from scipy.stats import norm

from arena.ratings import (
    RatingError,
    SolitaireResult,
    duplicate_games,
    fit_elo,
    solitaire_summaries,
)


def wilson(wins: int, games: int, z: float) -> tuple[float, float]:
    """The Wilson score interval, written out."""
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z / (1 + z * z / games) * math.sqrt(p * (1 - p) / games + z * z / (4 * games**2))
    return centre - half, centre + half


def test_win_rate_has_the_wilson_interval_and_mean_score() -> None:
    results = [
        SolitaireResult("bot", deal, 52 if deal < 8 else 30 + deal, deal < 8) for deal in range(20)
    ]
    summary = solitaire_summaries(results)["bot"]
    assert (summary.games, summary.wins, summary.win_rate) == (20, 8, 0.4)
    low, high = wilson(8, 20, norm.ppf(0.975))
    assert summary.win_rate_low == pytest.approx(low)
    assert summary.win_rate_high == pytest.approx(high)
    scores = [52] * 8 + [30 + d for d in range(8, 20)]
    mean = sum(scores) / 20
    assert summary.mean_score == pytest.approx(mean)
    sample_sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / 19)
    assert summary.score_stderr == pytest.approx(sample_sd / math.sqrt(20))


def test_wilson_interval_stays_inside_zero_one_at_the_extremes() -> None:
    never = solitaire_summaries([SolitaireResult("b", d, 10, False) for d in range(5)])["b"]
    assert never.win_rate_low == 0.0
    assert never.win_rate_high == pytest.approx(wilson(0, 5, norm.ppf(0.975))[1])
    assert never.score_stderr == 0.0
    narrower = solitaire_summaries([SolitaireResult("b", 0, 10, False)], confidence=0.5)["b"]
    assert narrower.win_rate_high == pytest.approx(wilson(0, 1, norm.ppf(0.75))[1])


def test_summaries_refuse_a_bad_confidence() -> None:
    with pytest.raises(RatingError, match="confidence"):
        solitaire_summaries([], confidence=0.0)


def test_duplicate_games_compare_bots_on_each_shared_deal() -> None:
    results = [
        SolitaireResult("a", "d1", 40, False),
        SolitaireResult("b", "d1", 35, False),
        SolitaireResult("c", "d1", 40, False),
        SolitaireResult("a", "d2", 20, False),
        SolitaireResult("b", "d2", 52, True),
        SolitaireResult("c", "d3", 52, True),  # nobody else played d3
    ]
    games = duplicate_games(results)
    rows = [
        (games.players[f], games.players[s], float(x), int(g))
        for f, s, x, g in zip(games.first, games.second, games.score, games.group, strict=True)
    ]
    assert rows == [
        ("a", "b", 1.0, 0),
        ("a", "c", 0.5, 0),
        ("b", "c", 0.0, 0),
        ("a", "b", 0.0, 1),
    ]


def test_repeated_play_of_a_deal_counts_with_its_mean() -> None:
    results = [
        SolitaireResult("a", 1, 30, False),
        SolitaireResult("a", 1, 50, False),
        SolitaireResult("b", 1, 41, False),
    ]
    games = duplicate_games(results)
    assert games.score.tolist() == [0.0]


def test_duplicate_elo_ranks_the_better_player_first() -> None:
    # On 40 deals a beats b on 30, loses 6 and ties 4: a scores 32/40 = 0.8.
    results = []
    for deal in range(40):
        a_score, b_score = (40, 30) if deal < 30 else (30, 40) if deal < 36 else (35, 35)
        results += [
            SolitaireResult("a", deal, a_score, False),
            SolitaireResult("b", deal, b_score, False),
        ]
    ratings = fit_elo(duplicate_games(results))
    assert ratings.order() == ("a", "b")
    assert ratings.rating("a") - ratings.rating("b") == pytest.approx(400 * math.log10(0.8 / 0.2))
    assert ratings.lower[0] > ratings.upper[1]
