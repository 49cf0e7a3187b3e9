"""``arena bench browser`` runs: a live server, headless Chromium, moves timed.

A module of its own: the benchmark starts playwright itself, which cannot run while
another module's browser fixture holds it in this thread."""

from __future__ import annotations

import pytest

from arena.bench.browser import CHROMIUM, browser_round_trips

pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium (.ci/run installs it)"
    ),
    pytest.mark.xdist_group("browser"),
    pytest.mark.slow,  # a live server and a browser
]


def test_the_round_trip_benchmark_times_moves() -> None:
    trips = browser_round_trips(moves=3, game="kings_corner")
    assert len(trips.seconds) >= 3 and trips.games >= 1
    assert all(seconds > 0 for seconds in trips.seconds)
