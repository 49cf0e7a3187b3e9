"""Rankings of k-player games as pairwise results; OpenSkill's view."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

from arena.ratings import (
    Anchor,
    GameResult,
    PairwiseGames,
    RatingError,
    fit_elo,
    openskill_ratings,
    pairwise_games,
)


def rows(results: list[GameResult]) -> list[tuple[str, str, float, int]]:
    games = pairwise_games(results)
    return [
        (games.players[a], games.players[b], float(s), int(g))
        for a, b, s, g in zip(games.first, games.second, games.score, games.group, strict=True)
    ]


def test_four_player_ranking_with_a_tie_by_hand() -> None:
    # Places: c first, a and d share second, b last.
    game = GameResult(("a", "b", "c", "d"), (2, 4, 1, 2))
    assert rows([game]) == [
        ("a", "b", 1.0, 0),
        ("a", "c", 0.0, 0),
        ("a", "d", 0.5, 0),
        ("b", "c", 0.0, 0),
        ("b", "d", 0.0, 0),
        ("c", "d", 1.0, 0),
    ]


def test_two_player_games_map_one_to_one() -> None:
    assert rows([GameResult(("x", "y"), (2, 1)), GameResult(("y", "x"), (1, 1))]) == [
        ("x", "y", 0.0, 0),
        ("y", "x", 0.5, 1),
    ]


def test_games_of_a_rotation_share_a_group_and_lone_games_get_their_own() -> None:
    results = [
        GameResult(("a", "b", "c"), (1, 2, 3), group="deal-7"),
        GameResult(("b", "c", "a"), (1, 2, 3), group="deal-7"),
        GameResult(("a", "b", "c"), (3, 2, 1)),
        GameResult(("c", "a", "b"), (1, 2, 3), group="deal-8"),
    ]
    groups = [g for *_, g in rows(results)]
    assert groups == [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2]


def test_a_player_in_two_seats_meets_only_the_others() -> None:
    assert rows([GameResult(("a", "a", "b"), (1, 3, 2))]) == [
        ("a", "b", 1.0, 0),
        ("a", "b", 0.0, 0),
    ]


def test_player_order_can_be_given_and_strangers_are_refused() -> None:
    games = pairwise_games([GameResult(("a", "b"), (1, 2))], players=["b", "a", "c"])
    assert games.players == ("b", "a", "c")
    assert (games.first.tolist(), games.second.tolist()) == ([1], [0])
    with pytest.raises(RatingError, match="unknown player 'z'"):
        pairwise_games([GameResult(("a", "z"), (1, 2))], players=["a", "b"])


def test_decomposed_rankings_feed_the_elo_fit() -> None:
    # Three games a > b > c and one c > b > a: every pair reads 3–1 for the better
    # player. With gaps x = a − b and y = b − c, b's equation (4·E(−x) + 4·E(y) = 4)
    # gives x = y, and a's (4·E(x) + 4·E(2x) = 6) fixes x.
    results = [GameResult(("a", "b", "c"), (1, 2, 3))] * 3 + [
        GameResult(("a", "b", "c"), (3, 2, 1))
    ]
    ratings = fit_elo(pairwise_games(results), anchor=Anchor("c"))

    def expected(gap: float) -> float:
        return 1 / (1 + 10 ** (-gap / 400))

    gap = brentq(lambda x: expected(x) + expected(2 * x) - 1.5, 0, 1000)
    assert ratings.rating("b") == pytest.approx(gap)
    assert ratings.rating("a") == pytest.approx(2 * gap)


def test_openskill_ranks_a_clear_order() -> None:
    results = [GameResult(("strong", "middle", "weak"), (1, 2, 3))] * 10 + [
        GameResult(("weak", "strong", "middle"), (3, 1, 2))
    ] * 10
    view = openskill_ratings(results)
    assert list(view.ratings) == ["strong", "middle", "weak"]
    assert view.ratings["strong"].mu > 25 > view.ratings["weak"].mu
    assert all(r.games == 20 for r in view.ratings.values())
    assert all(r.sigma < 25 / 3 for r in view.ratings.values())
    assert view.skipped_games == 0


def test_openskill_treats_equal_places_as_ties() -> None:
    view = openskill_ratings([GameResult(("a", "b"), (1, 1))] * 5)
    assert view.ratings["a"].mu == pytest.approx(view.ratings["b"].mu)


def test_openskill_skips_games_with_a_player_in_two_seats() -> None:
    view = openskill_ratings(
        [GameResult(("a", "a", "b"), (1, 2, 3)), GameResult(("a", "b"), (1, 2))]
    )
    assert view.skipped_games == 1
    assert view.ratings["a"].games == 1


TRUE_ELO = np.array([-150.0, -50.0, 0.0, 80.0, 120.0, 200.0])


def plackett_luce_games(rng: np.random.Generator, games: int) -> list[GameResult]:
    """Four-player games among six players: places by an exponential race with rates
    10^(elo/400), which is Plackett–Luce, and in which any two players finish in order
    with the Bradley–Terry probability."""
    strength = 10 ** (TRUE_ELO / 400)
    results = []
    for _ in range(games):
        seats = rng.choice(TRUE_ELO.size, 4, replace=False)
        finish = rng.exponential(1 / strength[seats])
        places = np.argsort(np.argsort(finish)) + 1
        results.append(GameResult(tuple(f"p{s}" for s in seats), tuple(int(p) for p in places)))
    return results


@pytest.mark.slow
def test_decomposed_games_keep_95_percent_coverage() -> None:
    """Each game is its own group: the intervals account for the six pairwise results
    of a game sharing one outcome. Treated as independent games they would be too
    narrow."""
    truth = TRUE_ELO - TRUE_ELO.mean()
    grouped, independent = [], []
    for seed in range(200):
        games = pairwise_games(plackett_luce_games(np.random.default_rng(seed), 40))
        as_independent = PairwiseGames.from_arrays(
            games.players, games.first, games.second, games.score
        )
        for inside, data in ((grouped, games), (independent, as_independent)):
            ratings = fit_elo(data)
            order = [ratings.index(f"p{i}") for i in range(TRUE_ELO.size)]
            inside.extend((ratings.lower[order] <= truth) & (truth <= ratings.upper[order]))
    assert 0.92 <= np.mean(grouped) <= 0.98
    assert np.mean(independent) < np.mean(grouped) - 0.03


def test_openskill_equals_the_library_called_directly_pinned() -> None:
    # Pinned from openskill 6.2.0 called directly (not through arena): PlackettLuce(),
    # one team of one per seat, model.rate(teams, ranks=places) game by game, in this
    # order; mu and sigma printed with repr().
    results = [
        GameResult(("a", "b", "c"), (1, 2, 3)),
        GameResult(("c", "a"), (1, 2)),
        GameResult(("b", "c", "a"), (1, 1, 3)),
        GameResult(("a", "b"), (2, 1)),
        GameResult(("a", "b", "c"), (2, 3, 1)),
    ]
    reference = {
        "a": (22.555223345868193, 7.394395301310578),
        "b": (24.501988862698433, 7.438718658826906),
        "c": (27.863397842272093, 7.60151837258684),
    }
    view = openskill_ratings(results)
    for name, (mu, sigma) in reference.items():
        assert view.ratings[name].mu == pytest.approx(mu, abs=1e-9)
        assert view.ratings[name].sigma == pytest.approx(sigma, abs=1e-9)
    assert list(view.ratings) == ["c", "b", "a"]
