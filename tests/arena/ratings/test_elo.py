"""The Elo fit: hand-checked cases, the likelihood equations, invariances, coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import norm

from arena.ratings import (
    Anchor,
    EloRatings,
    GameResult,
    IntervalMethod,
    PairwiseGames,
    RatingError,
    elo_difference,
    expected_score,
    fit_elo,
    pairwise_games,
    parse_anchor,
)
from arena.ratings.simulate import simulate_rotations

ELO_PER_LOGIT = 400 / math.log(10)


def match(wins: int, draws: int, losses: int) -> PairwiseGames:
    """``a`` against ``b``: the results as separate games."""
    scores = [1.0] * wins + [0.5] * draws + [0.0] * losses
    return PairwiseGames.from_arrays(["a", "b"], [0] * len(scores), [1] * len(scores), scores)


def test_three_wins_one_loss_is_400_log10_3() -> None:
    ratings = fit_elo(match(3, 0, 1), anchor=Anchor("b", 0.0))
    assert ratings.rating("a") == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert ratings.rating("a") == pytest.approx(190.85, abs=0.01)
    assert ratings.rating("b") == 0.0


def test_default_anchoring_is_mean_zero() -> None:
    ratings = fit_elo(match(3, 0, 1))
    assert ratings.rating("a") == pytest.approx(200 * math.log10(3))
    assert ratings.rating("b") == pytest.approx(-200 * math.log10(3))


def test_anchor_elo_shifts_every_rating() -> None:
    ratings = fit_elo(match(3, 0, 1), anchor=Anchor("a", 1500.0))
    assert ratings.rating("a") == 1500.0
    assert ratings.rating("b") == pytest.approx(1500 - 400 * math.log10(3))
    assert ratings.lower[0] == ratings.upper[0] == 1500.0


def test_a_draw_counts_as_half_a_win() -> None:
    # 2 wins, 2 draws, 1 loss score 3 of 5, the same as 3 wins and 2 losses.
    with_draws = fit_elo(match(2, 2, 1), anchor=Anchor("b"))
    without = fit_elo(match(3, 0, 2), anchor=Anchor("b"))
    assert with_draws.rating("a") == pytest.approx(400 * math.log10(3 / 2))
    assert without.rating("a") == pytest.approx(with_draws.rating("a"))


def test_draws_narrow_the_interval() -> None:
    # Same score, but draws vary less than a win and a loss: the sandwich sees it.
    with_draws = fit_elo(match(10, 20, 10))
    without = fit_elo(match(20, 0, 20))
    assert with_draws.rating("a") == pytest.approx(0.0, abs=1e-9)
    assert with_draws.difference_stderr("a", "b") < 0.75 * without.difference_stderr("a", "b")


def test_hessian_interval_of_two_players_by_hand() -> None:
    # Difference in logits d; information N·p·q = 4·3/4·1/4; residuals 1/4 (x3) and
    # -3/4 sum in squares to 3/4; sandwich (3/4) / (3/4)² = 4/3, times C/(C−1) = 4/3.
    ratings = fit_elo(match(3, 0, 1), anchor=Anchor("b"))
    stderr = ELO_PER_LOGIT * math.sqrt(4 / 3 * 4 / 3)
    assert ratings.difference_stderr("a", "b") == pytest.approx(stderr)
    half_width = norm.ppf(0.975) * stderr
    assert ratings.upper[0] - ratings.rating("a") == pytest.approx(half_width)
    assert ratings.rating("a") - ratings.lower[0] == pytest.approx(half_width)


def test_los_of_two_players_by_hand() -> None:
    ratings = fit_elo(match(3, 0, 1))
    los = ratings.los()
    expected = norm.cdf(400 * math.log10(3) / ratings.difference_stderr("a", "b"))
    assert los[0, 1] == pytest.approx(expected)
    assert los[1, 0] == pytest.approx(1 - expected)
    assert los[0, 0] == los[1, 1] == 0.5


def test_cyclic_results_rate_everyone_equal() -> None:
    # a beats b, b beats c, c beats a, twice each way round: everyone scores 50%.
    games = PairwiseGames.from_arrays(
        ["a", "b", "c"], [0, 1, 2, 1, 2, 0], [1, 2, 0, 0, 1, 2], [1, 1, 1, 0, 0, 0]
    )
    ratings = fit_elo(games)
    assert np.allclose(ratings.elo, 0.0, atol=1e-9)


def random_games(data: st.DataObject, players: int) -> PairwiseGames:
    """Random results, plus one draw between every pair so that ratings are finite."""
    rows = data.draw(
        st.lists(
            st.tuples(
                st.integers(0, players - 1),
                st.integers(1, players - 1),
                st.sampled_from([0.0, 0.5, 1.0]),
            ),
            max_size=40,
        )
    )
    first = [a for a, _, _ in rows] + [a for a in range(players) for b in range(a + 1, players)]
    second = [(a + step) % players for a, step, _ in rows] + [
        b for a in range(players) for b in range(a + 1, players)
    ]
    scores = [s for _, _, s in rows] + [0.5] * (players * (players - 1) // 2)
    names = [f"p{i}" for i in range(players)]
    return PairwiseGames.from_arrays(names, first, second, scores)


@pytest.mark.slow
@given(data=st.data(), players=st.integers(2, 5))
def test_fit_solves_the_likelihood_equations(data: st.DataObject, players: int) -> None:
    """At the maximum every player's expected score equals the actual score."""
    games = random_games(data, players)
    ratings = fit_elo(games)
    counts = ratings.counts
    difference = ratings.elo[:, None] - ratings.elo[None, :]
    expected = (counts.games / (1 + 10 ** (-difference / 400))).sum(axis=1)
    assert np.allclose(expected, counts.points.sum(axis=1), atol=1e-7)
    assert ratings.elo.sum() == pytest.approx(0.0, abs=1e-7)


@pytest.mark.slow
@given(data=st.data(), players=st.integers(2, 5))
def test_fit_ignores_game_order(data: st.DataObject, players: int) -> None:
    games = random_games(data, players)
    order = np.array(data.draw(st.permutations(range(len(games)))))
    shuffled = PairwiseGames.from_arrays(
        games.players, games.first[order], games.second[order], games.score[order]
    )
    assert np.allclose(fit_elo(games).elo, fit_elo(shuffled).elo, atol=1e-7)


@pytest.mark.slow
@given(data=st.data(), players=st.integers(2, 5))
def test_swapping_who_won_mirrors_the_ratings(data: st.DataObject, players: int) -> None:
    games = random_games(data, players)
    mirrored = PairwiseGames.from_arrays(games.players, games.first, games.second, 1 - games.score)
    original, flipped = fit_elo(games), fit_elo(mirrored)
    assert np.allclose(original.elo, -flipped.elo, atol=1e-7)
    assert np.allclose(original.covariance, flipped.covariance, atol=1e-6)


@pytest.mark.slow
@given(data=st.data(), players=st.integers(2, 5))
def test_renaming_players_permutes_the_ratings(data: st.DataObject, players: int) -> None:
    games = random_games(data, players)
    relabel = np.array(data.draw(st.permutations(range(players))))
    renamed = PairwiseGames.from_arrays(
        games.players, relabel[games.first], relabel[games.second], games.score
    )
    assert np.allclose(fit_elo(renamed).elo[relabel], fit_elo(games).elo, atol=1e-7)


@pytest.mark.slow
@given(data=st.data(), players=st.integers(2, 5))
def test_los_is_a_probability_of_order(data: st.DataObject, players: int) -> None:
    ratings = fit_elo(random_games(data, players))
    los = ratings.los()
    assert np.allclose(los + los.T, 1.0)
    higher = ratings.elo[:, None] > ratings.elo[None, :] + 1e-9
    assert np.all(los[higher] > 0.5)


def test_a_player_who_won_everything_needs_a_prior() -> None:
    games = PairwiseGames.from_arrays(
        ["a", "b", "c"], [0, 0, 1, 2], [1, 2, 2, 1], [1.0, 1.0, 1.0, 1.0]
    )
    with pytest.raises(RatingError, match=r"\{a\} won every game"):
        fit_elo(games)
    ratings = fit_elo(games, prior_draws=1.0)
    assert ratings.order()[0] == "a"
    assert np.all(np.isfinite(ratings.elo))


def test_a_prior_pulls_ratings_together() -> None:
    plain = fit_elo(match(3, 0, 1))
    shrunk = fit_elo(match(3, 0, 1), prior_draws=2.0)
    # 3 wins, 2 draws, 1 loss: a score of 4 of 6.
    assert shrunk.rating("a") - shrunk.rating("b") == pytest.approx(400 * math.log10(2))
    assert shrunk.rating("a") < plain.rating("a")


def test_players_who_never_met_have_no_common_scale() -> None:
    games = PairwiseGames.from_arrays(
        ["a", "b", "c", "d"], [0, 1, 2, 3], [1, 0, 3, 2], [1, 1, 1, 1]
    )
    with pytest.raises(RatingError, match=r"never met: \{a, b\} \| \{c, d\}"):
        fit_elo(games)


def test_a_player_without_games_is_named() -> None:
    games = PairwiseGames.from_arrays(["a", "b", "idle"], [0, 1], [1, 0], [1, 1])
    with pytest.raises(RatingError, match="without games: idle"):
        fit_elo(games)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"anchor": Anchor("nobody")}, "unknown player 'nobody'"),
        ({"confidence": 1.0}, "confidence"),
        ({"prior_draws": -1.0}, "prior_draws"),
        ({"interval": "guess"}, "'guess'"),
        ({"interval": "bootstrap", "bootstrap_samples": 1}, "bootstrap_samples"),
    ],
)
def test_bad_settings_are_refused(settings: dict[str, object], message: str) -> None:
    with pytest.raises(RatingError, match=message):
        fit_elo(match(3, 0, 1), **settings)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "anchor"),
    [
        ("random=0", Anchor("random", 0.0)),
        ("mcts = -250.5", Anchor("mcts", -250.5)),
        ("x", Anchor("x")),
    ],
)
def test_parse_anchor(text: str, anchor: Anchor) -> None:
    assert parse_anchor(text) == anchor


@pytest.mark.parametrize("text", ["=100", "bot=strong", "bot=inf"])
def test_parse_anchor_refuses_bad_text(text: str) -> None:
    with pytest.raises(RatingError, match="anchor"):
        parse_anchor(text)


def test_expected_score_and_elo_difference_are_inverse() -> None:
    assert expected_score(400 * math.log10(3)) == pytest.approx(0.75)
    assert elo_difference(0.75) == pytest.approx(400 * math.log10(3))
    with pytest.raises(RatingError, match=r"score 1\.0"):
        elo_difference(1.0)


def test_bootstrap_interval_brackets_the_estimate_and_is_reproducible() -> None:
    games = simulate_rotations([-100.0, 0.0, 150.0], 100, rng=np.random.default_rng(3))
    first = fit_elo(games, interval="bootstrap", bootstrap_samples=300, seed=7)
    again = fit_elo(games, interval="bootstrap", bootstrap_samples=300, seed=7)
    assert np.array_equal(first.lower, again.lower)
    assert np.all(first.lower < first.elo) and np.all(first.elo < first.upper)
    hessian = fit_elo(games)
    assert np.allclose(first.elo, hessian.elo)
    width_ratio = (first.upper - first.lower) / (hessian.upper - hessian.lower)
    assert np.all((width_ratio > 0.8) & (width_ratio < 1.25))


TRUE_ELO = np.array([-200.0, -100.0, 0.0, 50.0, 100.0, 200.0])


def coverage(
    repeats: int,
    *,
    draw_rate: float,
    seat_effect: float,
    interval: IntervalMethod = "hessian",
    bootstrap_samples: int = 1000,
) -> float:
    """The share of true ratings (mean 0) inside their intervals over seeded tournaments
    of 120 games among six players."""
    truth = TRUE_ELO - TRUE_ELO.mean()
    inside = []
    for seed in range(repeats):
        games = simulate_rotations(
            TRUE_ELO,
            60,
            rng=np.random.default_rng(seed),
            draw_rate=draw_rate,
            seat_effect=seat_effect,
        )
        ratings = fit_elo(games, interval=interval, bootstrap_samples=bootstrap_samples)
        inside.extend((ratings.lower <= truth) & (truth <= ratings.upper))
    return float(np.mean(inside))


@pytest.mark.parametrize(
    ("draw_rate", "seat_effect"), [(0.0, 0.0), (0.4, 0.0), (0.3, 0.8)], ids=str
)
def test_hessian_intervals_cover_the_truth_95_percent(draw_rate: float, seat_effect: float) -> None:
    assert 0.92 <= coverage(200, draw_rate=draw_rate, seat_effect=seat_effect) <= 0.98


@pytest.mark.slow  # a coverage simulation
def test_bootstrap_intervals_cover_the_truth_near_95_percent() -> None:
    share = coverage(
        60, draw_rate=0.3, seat_effect=0.8, interval="bootstrap", bootstrap_samples=200
    )
    assert 0.88 <= share <= 0.99


def test_large_tournament_is_recovered_within_the_intervals() -> None:
    rng = np.random.default_rng(11)
    truth = rng.normal(0.0, 200.0, 20)
    games = simulate_rotations(truth, 50_000, rng=rng, draw_rate=0.3, seat_effect=0.5)
    ratings = fit_elo(games)
    centred = truth - truth.mean()
    assert np.mean((ratings.lower <= centred) & (centred <= ratings.upper)) >= 0.85
    assert np.max(np.abs(ratings.elo - centred)) < 4 * np.max(ratings.upper - ratings.elo)


def standard_errors(ratings: EloRatings) -> np.ndarray:
    return np.sqrt(np.diag(ratings.covariance))


def round_robins(rng: np.random.Generator, elo: np.ndarray, rounds: int) -> PairwiseGames:
    """Every pair plays once per round, a round being one group: 66 pairs per group for
    twelve players, more than a rotation kind may span."""
    first, second = np.triu_indices(elo.size, 1)
    expected = 1 / (1 + 10 ** ((elo[second] - elo[first]) / 400))
    scores = (rng.random((rounds, first.size)) < expected).astype(float)
    return PairwiseGames.from_arrays(
        [f"p{i}" for i in range(elo.size)],
        np.tile(first, rounds),
        np.tile(second, rounds),
        scores.ravel(),
        np.repeat(np.arange(rounds), first.size),
    )


def four_player_games(rng: np.random.Generator, elo: np.ndarray, games: int) -> PairwiseGames:
    """Plackett–Luce four-player games (an exponential race), decomposed into pairs."""
    results = []
    for _ in range(games):
        seats = rng.choice(elo.size, 4, replace=False)
        places = np.argsort(np.argsort(rng.exponential(10 ** (-elo[seats] / 400)))) + 1
        results.append(GameResult(tuple(f"p{s:02}" for s in seats), tuple(map(int, places))))
    return pairwise_games(results)


@pytest.mark.parametrize("shape", ["rotations of two", "four-player games", "rounds of 66 pairs"])
def test_bootstrap_and_sandwich_agree_on_large_data(shape: str) -> None:
    """Two estimates of the same covariance; they must agree once data are plentiful,
    whether rotations collapse to few kinds or each round is unique."""
    rng = np.random.default_rng(4)
    truth = rng.normal(0.0, 150.0, 12)
    if shape == "rotations of two":
        games = simulate_rotations(truth, 20_000, rng=rng, draw_rate=0.3, seat_effect=0.6)
    elif shape == "four-player games":
        games = four_player_games(rng, truth, 3000)
    else:
        games = round_robins(rng, truth, 600)
    bootstrap = fit_elo(games, interval="bootstrap", bootstrap_samples=400, seed=1)
    sandwich = fit_elo(games)
    ratio = standard_errors(bootstrap) / standard_errors(sandwich)
    assert np.all((ratio > 0.85) & (ratio < 1.15)), ratio
