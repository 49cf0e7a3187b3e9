"""PairwiseGames: checking, aggregation into win and draw matrices."""

from __future__ import annotations

import numpy as np
import pytest

from arena.ratings import GameResult, PairCounts, PairwiseGames, RatingError


def test_aggregate_counts_wins_draws_and_losses_per_pair() -> None:
    # a beats b twice, loses once, draws once; b and c draw; c beats a.
    games = PairwiseGames.from_arrays(
        ["a", "b", "c"],
        first=[0, 0, 1, 0, 1, 2],
        second=[1, 1, 0, 1, 2, 0],
        score=[1, 1, 1, 0.5, 0.5, 1],
    )
    counts = games.aggregate()
    assert counts.head_to_head("a", "b") == (2, 1, 1)
    assert counts.head_to_head("b", "a") == (1, 1, 2)
    assert counts.head_to_head("b", "c") == (0, 1, 0)
    assert counts.head_to_head("a", "c") == (0, 0, 1)
    assert counts.record("a") == (2, 1, 2)
    assert counts.record("b") == (1, 2, 2)
    assert counts.record("c") == (1, 1, 0)
    assert counts.games_played().tolist() == [5, 5, 2]
    assert counts.points.sum(axis=1).tolist() == [2.5, 1.5 + 0.5, 1.5]
    assert counts.score_rate().tolist() == [0.5, 0.4, 0.75]


def test_arrays_are_read_only_copies() -> None:
    first = np.array([0, 1])
    games = PairwiseGames.from_arrays(["a", "b"], first, [1, 0], [1, 0])
    first[0] = 1
    assert games.first.tolist() == [0, 1]
    with pytest.raises(ValueError, match="read-only"):
        games.score[0] = 0.5


def test_without_groups_every_game_is_its_own_group() -> None:
    games = PairwiseGames.from_arrays(["a", "b"], [0, 1, 0], [1, 0, 1], [1, 0, 0.5])
    assert games.group.tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    ("first", "second", "score", "message"),
    [
        ([0], [2], [1.0], "player index 2 outside"),
        ([-1], [1], [1.0], "player index -1 outside"),
        ([1], [1], [1.0], "'b' against itself"),
        ([0], [1], [0.75], "score 0.75 is not"),
        ([0, 1], [1], [1.0, 0.0], "one length"),
    ],
)
def test_bad_arrays_are_refused(
    first: list[int], second: list[int], score: list[float], message: str
) -> None:
    with pytest.raises(RatingError, match=message):
        PairwiseGames.from_arrays(["a", "b"], first, second, score)


def test_repeated_names_are_refused() -> None:
    with pytest.raises(RatingError, match="repeat"):
        PairwiseGames.from_arrays(["a", "a"], [0], [1], [1])


def test_count_matrices_are_checked() -> None:
    with pytest.raises(RatingError, match="symmetric"):
        PairCounts.from_matrices(["a", "b"], [[0, 1], [0, 0]], [[0, 1], [0, 0]])
    with pytest.raises(RatingError, match="negative"):
        PairCounts.from_matrices(["a", "b"], [[0, -1], [0, 0]], [[0, 0], [0, 0]])
    with pytest.raises(RatingError, match=r"\(2, 2\)"):
        PairCounts.from_matrices(["a", "b"], [[0]], [[0]])


def test_head_to_head_names_the_unknown_player() -> None:
    counts = PairwiseGames.from_arrays(["a", "b"], [0], [1], [1]).aggregate()
    with pytest.raises(RatingError, match="'zed'"):
        counts.head_to_head("a", "zed")


@pytest.mark.parametrize(
    ("players", "ranking", "message"),
    [
        (("a", "b"), (1,), "differ in length"),
        (("a",), (1,), "two or more seats"),
        (("a", "b"), (0, 1), "start at 1"),
    ],
)
def test_bad_game_results_are_refused(
    players: tuple[str, ...], ranking: tuple[int, ...], message: str
) -> None:
    with pytest.raises(RatingError, match=message):
        GameResult(players, ranking)
