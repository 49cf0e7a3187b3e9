"""The GSPRT: bounds, the log-likelihood ratio against an independent optimiser and
fishtest's approximation, decisions, and error rates on simulated streams."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import brentq, minimize

from arena.ratings import (
    GameResult,
    Pentanomial,
    RatingError,
    SprtDecision,
    SprtSettings,
    Trinomial,
    log_likelihood_ratio,
    match_statistics,
    normalized_elo,
    sprt,
)
from arena.ratings.pairs import Counts
from arena.ratings.sprt import sprt_sequence

NELO = 800 / math.log(10)
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
GAME_SCORES = np.array([0.0, 0.5, 1.0])


def test_bounds_are_walds() -> None:
    settings = SprtSettings(elo0=0.0, elo1=5.0, alpha=0.05, beta=0.1)
    assert settings.lower_bound == pytest.approx(math.log(0.1 / 0.95))
    assert settings.upper_bound == pytest.approx(math.log(0.9 / 0.05))
    assert settings.lower_bound == pytest.approx(-2.2513, abs=1e-4)
    assert settings.upper_bound == pytest.approx(2.8904, abs=1e-4)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"elo0": 5.0, "elo1": 5.0}, "elo0 < elo1"),
        ({"elo0": 0.0, "elo1": 5.0, "alpha": 0.0}, "alpha"),
        ({"elo0": 0.0, "elo1": 5.0, "beta": 1.0}, "beta"),
        ({"elo0": 0.0, "elo1": 5.0, "alpha": 0.6, "beta": 0.5}, "alpha \\+ beta"),
    ],
)
def test_bad_settings_are_refused(settings: dict[str, float], message: str) -> None:
    with pytest.raises(RatingError, match=message):
        SprtSettings(**settings)


def test_no_results_continue_at_zero() -> None:
    result = sprt(Pentanomial(), SprtSettings(0.0, 5.0))
    assert result.llr == 0.0
    assert result.decision is SprtDecision.CONTINUE


def frequencies_of(counts: Counts) -> tuple[np.ndarray, np.ndarray, float]:
    values = np.array([v for v, _ in counts.frequencies()])
    raw = np.array([c for _, c in counts.frequencies()], dtype=float)
    regularised = np.where(raw > 0, raw, 1e-3)
    return values, regularised / regularised.sum(), float(regularised.sum())


def brute_force_llr(counts: Counts, elo0: float, elo1: float) -> float:
    """The same generalised LLR by a general constrained optimiser (SLSQP)."""
    values, observed, total = frequencies_of(counts)
    scale = math.sqrt(2) if isinstance(counts, Pentanomial) else 1.0

    def best_log_likelihood(elo: float) -> float:
        t = scale * elo / NELO

        def constraint(p: np.ndarray) -> float:
            mean = p @ values
            return float(mean - 0.5 - t * math.sqrt(p @ (values - mean) ** 2))

        found = minimize(
            lambda p: -float(observed @ np.log(p)),
            observed,
            method="SLSQP",
            bounds=[(1e-9, 1)] * len(values),
            constraints=[
                {"type": "eq", "fun": lambda p: p.sum() - 1},
                {"type": "eq", "fun": constraint},
            ],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        assert found.success, found.message
        return float(-found.fun)

    return total * (best_log_likelihood(elo1) - best_log_likelihood(elo0))


@pytest.mark.parametrize(
    "counts",
    [
        Trinomial(wins=130, draws=240, losses=110),
        Trinomial(wins=40, draws=0, losses=55),
        Pentanomial(ll=3, ld=40, wl=30, dd=70, wd=52, ww=5),
        Pentanomial(ll=0, ld=12, wl=9, dd=0, wd=20, ww=4),
    ],
    ids=repr,
)
@pytest.mark.parametrize(("elo0", "elo1"), [(0.0, 5.0), (-10.0, 10.0), (0.0, 60.0)])
def test_llr_agrees_with_a_general_optimiser(counts: Counts, elo0: float, elo1: float) -> None:
    assert log_likelihood_ratio(counts, elo0, elo1) == pytest.approx(
        brute_force_llr(counts, elo0, elo1), rel=1e-4, abs=1e-5
    )


@pytest.mark.parametrize(
    "counts",
    [
        Trinomial(wins=3000, draws=5000, losses=2800),
        Pentanomial(ll=90, ld=2000, wl=900, dd=4000, wd=2100, ww=110),
    ],
    ids=repr,
)
def test_llr_matches_fishtests_approximation_on_large_samples(counts: Counts) -> None:
    # fishtest: LLR ≈ (games / 2) · log((1 + (t − t0)²) / (1 + (t − t1)²)), t per game.
    values, observed, _ = frequencies_of(counts)
    mean = observed @ values
    variance = observed @ (values - mean) ** 2
    if isinstance(counts, Pentanomial):
        games, t = 2 * counts.pairs, (mean - 0.5) / math.sqrt(2 * variance)
    else:
        games, t = counts.games, (mean - 0.5) / math.sqrt(variance)
    t0, t1 = 0.0, 5.0 / NELO
    approximation = games / 2 * math.log((1 + (t - t0) ** 2) / (1 + (t - t1) ** 2))
    assert log_likelihood_ratio(counts, 0.0, 5.0) == pytest.approx(approximation, rel=2e-3)


def test_decisions_follow_the_bounds() -> None:
    settings = SprtSettings(elo0=0.0, elo1=10.0)
    strong = sprt(Trinomial(wins=700, draws=400, losses=500), settings)
    weak = sprt(Trinomial(wins=500, draws=400, losses=700), settings)
    unclear = sprt(Trinomial(wins=52, draws=40, losses=50), settings)
    assert strong.decision is SprtDecision.ACCEPT_H1 and strong.llr >= strong.upper_bound
    assert weak.decision is SprtDecision.ACCEPT_H0 and weak.llr <= weak.lower_bound
    assert unclear.decision is SprtDecision.CONTINUE
    assert unclear.lower_bound < unclear.llr < unclear.upper_bound


def test_paired_match_is_tested_on_its_pentanomial() -> None:
    games = []
    for r in range(30):
        results = [(1, 2), (2, 1)] if r % 3 else [(1, 2), (1, 1)]
        games.append(GameResult(("me", "you"), results[0], r))
        games.append(GameResult(("you", "me"), results[1], r))
    stats = match_statistics(games, "me", "you")
    settings = SprtSettings(0.0, 20.0)
    assert sprt(stats, settings).llr == pytest.approx(sprt(stats.pentanomial, settings).llr)
    assert sprt(stats, settings).llr != pytest.approx(sprt(stats.trinomial, settings).llr)


# -- error rates on simulated streams -----------------------------------------


def trinomial_with_nelo(nelo: float, draw_rate: float) -> np.ndarray:
    """Loss, draw, win probabilities with the given normalised Elo and draw share."""

    def gap(score: float) -> float:
        variance = score - draw_rate / 4 - score**2
        return (score - 0.5) / math.sqrt(variance) * NELO - nelo

    half = (1 - draw_rate) / 2
    score = brentq(gap, 0.5 - half + 1e-9, 0.5 + half - 1e-9)
    win = score - draw_rate / 2
    return np.array([1 - win - draw_rate, draw_rate, win])


def pentanomial_with_nelo(nelo: float) -> np.ndarray:
    """A pair distribution (LL … WW), an exponential tilt of a drawish base, with the
    given normalised Elo per game."""
    base = np.array([0.04, 0.22, 0.48, 0.22, 0.04])

    def tilted(strength: float) -> np.ndarray:
        weights = base * np.exp(strength * PAIR_SCORES)
        return weights / weights.sum()

    def gap(strength: float) -> float:
        p = tilted(strength)
        mean = p @ PAIR_SCORES
        return (mean - 0.5) / math.sqrt(2 * p @ (PAIR_SCORES - mean) ** 2) * NELO - nelo

    return tilted(brentq(gap, -20, 20))


def decision_shares(
    probabilities: np.ndarray, paired: bool, settings: SprtSettings, runs: int, seed: int
) -> dict[SprtDecision, float]:
    """Run ``runs`` seeded tests on draws from ``probabilities``, looking after every
    result, for at most 4000 results."""
    rng = np.random.default_rng(seed)
    names = ("ll", "ld", "dd", "wd", "ww") if paired else ("losses", "draws", "wins")
    empty: Counts = Pentanomial() if paired else Trinomial()
    decisions = []
    for _ in range(runs):
        stream = rng.choice(len(probabilities), size=4000, p=probabilities)
        result, _used = sprt_sequence([names[k] for k in stream], settings, before=empty)
        decisions.append(result.decision)
    return {d: decisions.count(d) / runs for d in SprtDecision}


SETTINGS = SprtSettings(elo0=0.0, elo1=50.0, alpha=0.05, beta=0.05)


@pytest.mark.slow  # an error-rate simulation
@pytest.mark.parametrize("paired", [False, True], ids=["trinomial", "pentanomial"])
def test_error_rates_on_simulated_streams(paired: bool) -> None:
    def distribution(nelo: float) -> np.ndarray:
        return pentanomial_with_nelo(nelo) if paired else trinomial_with_nelo(nelo, 0.4)

    under_h0 = decision_shares(distribution(SETTINGS.elo0), paired, SETTINGS, 250, seed=1)
    under_h1 = decision_shares(distribution(SETTINGS.elo1), paired, SETTINGS, 250, seed=2)
    # Wald's bounds hold the error rates to about alpha and beta (a little below, as
    # the LLR overshoots the bound); 0.035 is about 2.5 standard errors of 250 runs.
    assert under_h0[SprtDecision.ACCEPT_H1] <= SETTINGS.alpha + 0.035
    assert under_h1[SprtDecision.ACCEPT_H0] <= SETTINGS.beta + 0.035
    assert under_h0[SprtDecision.ACCEPT_H0] >= 0.9
    assert under_h1[SprtDecision.ACCEPT_H1] >= 0.9


def test_simulated_distributions_have_the_asked_normalised_elo() -> None:
    trinomial = trinomial_with_nelo(30.0, 0.4) * 1e6
    pentanomial = pentanomial_with_nelo(30.0) * 1e6
    # Scaled to counts, rounded: the normalised Elo of the distribution itself.
    losses, draws, wins = (round(x) for x in trinomial)
    as_trinomial = Trinomial(wins=wins, draws=draws, losses=losses)
    ll, ld, dd, wd, ww = (round(x) for x in pentanomial)
    as_pentanomial = Pentanomial(ll=ll, ld=ld, dd=dd, wd=wd, ww=ww)
    assert normalized_elo(as_trinomial).elo == pytest.approx(30.0, abs=0.01)
    assert normalized_elo(as_pentanomial).elo == pytest.approx(30.0, abs=0.01)


small_counts = st.integers(0, 60)


@st.composite
def any_counts(draw: st.DrawFn) -> Counts:
    if draw(st.booleans()):
        return Trinomial(
            wins=draw(small_counts), draws=draw(small_counts), losses=draw(small_counts)
        )
    ll, ld, wl, dd, wd, ww = (draw(small_counts) for _ in range(6))
    return Pentanomial(ll=ll, ld=ld, wl=wl, dd=dd, wd=wd, ww=ww)


def mirrored(counts: Counts) -> Counts:
    """The same results seen from the opponent's side."""
    if isinstance(counts, Trinomial):
        return Trinomial(wins=counts.losses, draws=counts.draws, losses=counts.wins)
    return Pentanomial(
        ll=counts.ww, ld=counts.wd, wl=counts.wl, dd=counts.dd, wd=counts.ld, ww=counts.ll
    )


@given(counts=any_counts(), elo0=st.floats(-30, 30), width=st.floats(1, 30))
def test_llr_is_symmetric_under_swapping_sides(counts: Counts, elo0: float, width: float) -> None:
    """Testing elo0 against elo1 for one side is testing −elo0 against −elo1 for the
    other side: the likelihood ratio is the same number."""
    elo1 = elo0 + width
    forward = log_likelihood_ratio(counts, elo0, elo1)
    backward = log_likelihood_ratio(mirrored(counts), -elo0, -elo1)
    assert forward == pytest.approx(backward, rel=1e-6, abs=1e-6)
