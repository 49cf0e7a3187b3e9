"""VersionTest: the pentanomial SPRT of a new version against its predecessor."""

from __future__ import annotations

import math

import pytest

from arena.ladder import LadderError, VersionTest
from arena.ratings import Pentanomial, SprtSettings, log_likelihood_ratio, sprt


def test_defaults_are_fishtest_bounds() -> None:
    test = VersionTest()
    assert (test.elo0, test.elo1, test.alpha, test.beta) == (0.0, 10.0, 0.05, 0.05)
    assert test.lower == pytest.approx(math.log(0.05 / 0.95))
    assert test.upper == pytest.approx(math.log(0.95 / 0.05))
    assert (test.status, test.llr, test.pairs) == ("running", 0.0, 0)


def test_pairs_are_counted_pentanomially_and_the_llr_is_the_sprts() -> None:
    test = VersionTest()
    for pair in [(1.0, 0.0), (0.5, 0.5), (1.0, 1.0), (0.0, 0.5), (1.0, 0.5), (0.5, 1.0)]:
        assert test.add_pair(*pair)
    assert test.pentanomial == Pentanomial(ll=0, ld=1, wl=1, dd=1, wd=2, ww=1)
    assert test.llr == pytest.approx(log_likelihood_ratio(test.pentanomial, 0.0, 10.0))
    assert test.status == "running"


def test_a_winning_version_is_accepted_and_then_takes_no_more_pairs() -> None:
    test = VersionTest(elo0=0.0, elo1=5.0)
    used = test.add_pairs([(1.0, 0.5)] * 40 + [(0.5, 0.5)] * 10 + [(1.0, 1.0), (0.0, 1.0)] * 200)
    assert test.status == "H1"
    assert test.llr >= test.upper
    assert used == test.pairs < 450
    expected = sprt(test.pentanomial, SprtSettings(0.0, 5.0))
    assert test.llr == pytest.approx(expected.llr)
    assert not test.add_pair(0.0, 0.0)
    assert test.pairs == used


def test_a_losing_version_is_rejected() -> None:
    test = VersionTest()
    test.add_pairs([(0.0, 0.5), (0.5, 0.5), (1.0, 0.0)] * 300)
    assert test.status == "H0"
    assert test.llr <= test.lower


def test_to_dict_and_back_keeps_counts_bounds_and_llr() -> None:
    test = VersionTest(elo0=-2.0, elo1=8.0, alpha=0.1, beta=0.02)
    test.add_pairs([(1.0, 0.5), (0.5, 0.0), (1.0, 0.0), (0.5, 0.5)] * 5)
    copy = VersionTest.from_dict(test.to_dict())
    assert copy == test
    assert copy.llr == pytest.approx(test.llr, abs=1e-12)
    assert copy.status == test.status


def test_bad_input_raises_ladder_error() -> None:
    with pytest.raises(LadderError, match="elo0 < elo1"):
        VersionTest(elo0=10.0, elo1=0.0)
    with pytest.raises(LadderError, match="alpha 0"):
        VersionTest(alpha=0.0)
    test = VersionTest()
    with pytest.raises(LadderError, match=r"\(0\.3, 1\.0\)"):
        test.add_pairs([(1.0, 1.0), (0.3, 1.0)])
    assert test.pairs == 0
    with pytest.raises(LadderError, match="not a version test"):
        VersionTest.from_dict({"elo0": 0.0})
    bad = VersionTest().to_dict()
    bad["pentanomial"]["ww"] = -1
    with pytest.raises(LadderError, match="not a version test"):
        VersionTest.from_dict(bad)
