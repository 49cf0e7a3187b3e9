"""``arena bench load`` runs: locust's readers and browser players against a live
server for a few seconds, every route answered without a 5xx, moves accepted, the
web process's memory sampled; the bare reference app measured the same way."""

from __future__ import annotations

import importlib.util

import pytest

from arena.bench.load import bare_load, service_load

# Looked up, never imported here: importing locust patches the standard library with
# gevent, and the test process's own threads (pytest-xdist's) would block forever.
pytestmark = [
    pytest.mark.slow,  # a live server and a locust process
    pytest.mark.skipif(
        importlib.util.find_spec("locust") is None, reason="locust (the `load` extra) missing"
    ),
]


def test_the_load_benchmark_drives_every_route_without_server_errors() -> None:
    run = service_load(users=4, seconds=6, game="kardinal", bot="random", seed_games=2)
    routes = {route.name: route for route in run.routes}
    assert {"GET /signin", "POST /signin", "POST /games/{game}/play"} <= set(routes)
    assert routes["Aggregated"].requests > 0
    assert all(route.server_errors == 0 and route.failures == 0 for route in run.routes)
    assert run.counts["games_started"] >= 1
    assert run.rss_mb and all(mb > 10 for _, mb in run.rss_mb)


def test_the_bare_reference_answers_its_constant_list() -> None:
    run = bare_load(users=2, seconds=2)
    assert [route.name for route in run.routes] == ["GET /items", "Aggregated"]
    assert run.routes[0].requests > 0 and run.routes[0].failures == 0
