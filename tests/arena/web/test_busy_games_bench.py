"""``arena bench busy-games`` runs: a live server, browser games played over HTTP,
``GET /api/games`` timed idle and busy."""

from __future__ import annotations

import pytest

from arena.bench.busy_games import busy_games

pytestmark = pytest.mark.slow  # a live server, sandboxed bots


def test_the_busy_games_benchmark_times_both_phases() -> None:
    result = busy_games(games=1, game="koenigsgarten", bot="random", requests=3, warmup=1.0)
    assert len(result.idle.seconds) == len(result.busy.seconds) == 3
    assert result.server_cpu_seconds >= 0 and result.games == 1
    assert 0 < result.busy.p50 <= max(result.busy.seconds)
