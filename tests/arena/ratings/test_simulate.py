"""The simulator the benchmark and the coverage tests rest on."""

from __future__ import annotations

import numpy as np
import pytest

from arena.ratings import RatingError
from arena.ratings.simulate import game_probabilities, simulate_rotations


def test_probabilities_keep_the_expected_score_and_the_draw_rate() -> None:
    expected = np.array([0.1, 0.5, 0.8])
    win, draw, loss = game_probabilities(expected, 0.4)
    assert np.allclose(win + draw / 2, expected)
    assert np.allclose(win + draw + loss, 1)
    assert draw[1] == pytest.approx(0.4)
    assert np.all(win >= 0) and np.all(loss >= 0)


def test_scores_follow_the_true_ratings() -> None:
    games = simulate_rotations(
        [0.0, 200.0], 20_000, rng=np.random.default_rng(0), draw_rate=0.3, seat_effect=0.9
    )
    p1_first = games.first == 1
    p1_score = np.where(p1_first, games.score, 1 - games.score)
    assert p1_score.mean() == pytest.approx(1 / (1 + 10 ** (-0.5)), abs=0.006)
    assert np.mean(games.score == 0.5) == pytest.approx(0.3 * (1 - abs(2 * 0.76 - 1)), abs=0.02)


def test_rotations_are_pairs_with_seats_swapped() -> None:
    games = simulate_rotations([0.0, 0.0, 0.0], 50, rng=np.random.default_rng(1))
    assert len(games) == 100
    for rotation in range(50):
        rows = np.flatnonzero(games.group == rotation)
        assert len(rows) == 2
        a, b = rows
        assert (games.first[a], games.second[a]) == (games.second[b], games.first[b])


def test_seat_effect_anticorrelates_the_pair() -> None:
    games = simulate_rotations([0.0, 0.0], 20_000, rng=np.random.default_rng(2), seat_effect=1.0)
    first_seat_wins = games.score.reshape(2, -1)
    correlation = np.corrcoef(first_seat_wins[0], 1 - first_seat_wins[1])[0, 1]
    assert correlation < -0.2


def test_bad_settings_are_refused() -> None:
    with pytest.raises(RatingError, match="two or more players"):
        simulate_rotations([0.0], 3, rng=np.random.default_rng(0))
    with pytest.raises(RatingError, match="draw_rate"):
        simulate_rotations([0.0, 1.0], 3, rng=np.random.default_rng(0), draw_rate=1.5)
