"""The rating mathematics against references nobody here wrote, kept as pinned values.

fishtest's SPRT: the values below were computed once with fishtest's own
``server/fishtest/stats/LLRcalc.py`` (``LLR_normalized(nelo0, nelo1, results)``, the
generalised LLR on normalised Elo that fishtest runs; results ``[LL, LD+DL, WL+DD,
DW+WD, WW]`` for pairs, ``[L, D, W]`` for games; a count of 0 regularised to 1e-3),
run on 2026-12-05 with SciPy's ``brentq``; fishtest's code is not part of this
repository. Our LLR agreed with it to 1e-13 on every row.
"""

from __future__ import annotations

import pytest

from arena.ratings.pairs import Pentanomial, Trinomial
from arena.ratings.sprt import log_likelihood_ratio

FISHTEST_PAIRS = [
    # (LL, LD, WL+DD, WD, WW), nelo0, nelo1, fishtest's LLR_normalized
    ((0, 30, 7, 48, 25), 0, 5, 1.1986398179571673),
    ((43, 2, 8, 60, 7), 0, 5, -0.22147008919885905),
    ((45, 48, 8, 9, 47), 0, 2, -0.17669063453901238),
    ((42, 3, 8, 14, 34), 0.5, 2.5, -0.02786934865579973),
    ((33, 26, 13, 37, 5), 0, 2, -0.28268871811199736),
    ((1, 49, 60, 56, 25), -3, 1, 0.9211177411809851),
    ((12, 13, 21, 25, 23), 0, 5, 0.4796693372162515),
    ((13, 46, 13, 26, 37), 0, 2, 0.15882872741250928),
    ((3, 53, 11, 22, 8), 0, 5, -0.39141836476441383),
    ((9, 53, 50, 24, 1), 0, 2, -0.4028937271746637),
    ((47, 33, 55, 28, 41), 0, 5, -0.2852835371026218),
    ((13, 50, 27, 46, 23), 0, 5, 0.23331271936174292),
    ((0, 10, 20, 0, 5), 0, 2, -0.0011720340885261118),
    ((3, 0, 40, 12, 0), 0, 5, 0.15423863061066156),
    ((0, 0, 7, 30, 12), -3, 1, 0.5952987645731836),
]
FISHTEST_GAMES = [
    # (L, D, W), nelo0, nelo1, fishtest's LLR_normalized
    ((170, 113, 247), 0, 2, 0.4909404688512477),
    ((135, 173, 151), -3, 1, 0.24856471250826953),
    ((293, 203, 247), -3, 1, -0.5966012094577957),
    ((110, 49, 157), 0, 5, 0.703133454122138),
    ((287, 280, 152), 0, 2, -1.006337855668081),
    ((89, 99, 15), -3, 1, -1.1839631108994768),
    ((49, 205, 146), -3, 1, 1.6122760118579924),
    ((101, 59, 233), 0, 5, 2.020077049460757),
    ((171, 228, 207), 0, 2, 0.2523580068046785),
    ((288, 61, 138), 0, 2, -0.9312557118848086),
    ((0, 40, 30), 0, 2, 0.262788894010055),
    ((25, 0, 31), 0, 5, 0.0805462778359773),
]


@pytest.mark.parametrize(("counts", "elo0", "elo1", "expected"), FISHTEST_PAIRS)
def test_the_pair_llr_equals_fishtests(
    counts: tuple[int, ...], elo0: float, elo1: float, expected: float
) -> None:
    ll, ld, wl_dd, wd, ww = counts
    pairs = Pentanomial(ll=ll, ld=ld, wl=wl_dd, wd=wd, ww=ww)
    assert log_likelihood_ratio(pairs, elo0, elo1) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(("counts", "elo0", "elo1", "expected"), FISHTEST_GAMES)
def test_the_game_llr_equals_fishtests(
    counts: tuple[int, ...], elo0: float, elo1: float, expected: float
) -> None:
    losses, draws, wins = counts
    games = Trinomial(losses=losses, draws=draws, wins=wins)
    assert log_likelihood_ratio(games, elo0, elo1) == pytest.approx(expected, abs=1e-9)


LOGISTIC_GAMES = [
    # (first, second, first's score), how many: 240 games of four players
    ((0, 1, 0.0), 12), ((0, 1, 0.5), 3), ((0, 1, 1.0), 7), ((0, 2, 0.0), 5),
    ((0, 2, 0.5), 5), ((0, 2, 1.0), 12), ((0, 3, 0.0), 13), ((0, 3, 0.5), 5),
    ((0, 3, 1.0), 5), ((1, 0, 0.0), 7), ((1, 0, 0.5), 6), ((1, 0, 1.0), 11),
    ((1, 2, 0.0), 5), ((1, 2, 0.5), 3), ((1, 2, 1.0), 10), ((1, 3, 0.0), 9),
    ((1, 3, 0.5), 4), ((1, 3, 1.0), 8), ((2, 0, 0.0), 14), ((2, 0, 0.5), 5),
    ((2, 0, 1.0), 4), ((2, 1, 0.0), 11), ((2, 1, 0.5), 3), ((2, 1, 1.0), 5),
    ((2, 3, 0.0), 7), ((2, 3, 0.5), 5), ((2, 3, 1.0), 5), ((3, 0, 0.0), 5),
    ((3, 0, 0.5), 3), ((3, 0, 1.0), 5), ((3, 1, 0.0), 9), ((3, 1, 0.5), 4),
    ((3, 1, 1.0), 10), ((3, 2, 0.0), 2), ((3, 2, 0.5), 3), ((3, 2, 1.0), 10),
]  # fmt: skip
STATSMODELS_ELO = [-2.1936140831188546, 41.8123914944687, -93.23083467914378, 53.612057267793936]
STATSMODELS_HALF_WIDTH = [
    39.87400508334851,
    42.20182751187966,
    45.094928752521675,
    44.20371352950451,
]
"""statsmodels 0.15.0, run once on 2026-12-05 (not a dependency): ``GLM(score, X P,
family=Binomial()).fit(tol=1e-14, cov_type="HC0")`` with ``X[k]`` +1 at the first
player and −1 at the second, ``P`` the mean-zero contrasts of four players; the Elo is
``P β · 400 / ln 10`` and the half-width ``1.959964 · √diag(P Σ Pᵀ) · 400 / ln 10``
(the sandwich covariance, each game a cluster of its own)."""


def test_the_elo_fit_equals_a_logistic_regression() -> None:
    """The Bradley–Terry fit is a logistic regression on the pair indicators (draws as
    half points); its interval is statsmodels' robust (HC0) one with the small-sample
    factor √(G / (G − 1)) over the G clusters, here G = 240 single games."""
    import math

    from arena.ratings.data import PairwiseGames
    from arena.ratings.elo import fit_elo

    first = [i for (i, _, _), n in LOGISTIC_GAMES for _ in range(n)]
    second = [j for (_, j, _), n in LOGISTIC_GAMES for _ in range(n)]
    score = [s for (_, _, s), n in LOGISTIC_GAMES for _ in range(n)]
    ratings = fit_elo(PairwiseGames.from_arrays(list("abcd"), first, second, score))
    assert list(ratings.elo) == pytest.approx(STATSMODELS_ELO, abs=1e-9)
    factor = math.sqrt(len(score) / (len(score) - 1))
    half = [(upper - lower) / 2 for lower, upper in zip(ratings.lower, ratings.upper, strict=True)]
    assert half == pytest.approx([w * factor for w in STATSMODELS_HALF_WIDTH], abs=1e-9)
