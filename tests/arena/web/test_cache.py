"""The report cache: current while no game is stored, refitted (or refreshed in the
background, for slow fits) when one is."""

from __future__ import annotations

import threading
import time

from sqlalchemy.engine import Engine

from arena.report.build import Report, game_leaderboard
from arena.web.cache import ReportCache, games_version
from tests.arena.web.conftest import Web, play_tournament
from tests.waiting import GENEROUS_SECONDS, wait_until


def counting(engine: Engine, calls: list[float]):  # type: ignore[no-untyped-def]
    def compute() -> Report:
        calls.append(time.monotonic())
        return game_leaderboard(engine, "koenigsgarten")

    return compute


def test_the_version_changes_exactly_when_games_are_stored(engine: Engine) -> None:
    assert games_version(engine, game="koenigsgarten") == (0, 0)
    first = play_tournament(engine, game="koenigsgarten", bots=["random", "first-legal"])
    with engine.connect() as connection:
        newest = connection.exec_driver_sql("SELECT max(id) FROM game").scalar_one()
    version = games_version(engine, game="koenigsgarten")
    assert version == (newest, newest)
    assert games_version(engine, tournament_id=first) == version
    kings = play_tournament(engine, game="kings_corner", bots=["random:seed=7", "greedy"], seats=2)
    assert games_version(engine, game="koenigsgarten") == version
    assert games_version(engine, tournament_id=kings)[1] > newest
    play_tournament(engine, game="koenigsgarten", bots=["random", "random:seed=2"], games=4)
    later = games_version(engine, game="koenigsgarten")
    assert later[0] > version[0] and later[1] > games_version(engine, tournament_id=kings)[1]
    assert games_version(engine, tournament_id=first) == version


def test_a_fast_report_is_refitted_as_soon_as_games_change(engine: Engine) -> None:
    play_tournament(engine, game="koenigsgarten", bots=["random", "first-legal"])
    cache = ReportCache(sync_seconds=10.0)
    calls: list[float] = []
    compute = counting(engine, calls)
    first = cache.get("board", games_version(engine, game="koenigsgarten"), compute)
    again = cache.get("board", games_version(engine, game="koenigsgarten"), compute)
    assert again.entry is first.entry and len(calls) == 1
    play_tournament(engine, game="koenigsgarten", bots=["random", "greedy"], games=4)
    fresh = cache.get("board", games_version(engine, game="koenigsgarten"), compute)
    assert fresh.current and len(calls) == 2 and fresh.entry.report.games == 6


def test_a_slow_report_is_served_stale_while_one_refit_runs(engine: Engine) -> None:
    play_tournament(engine, game="koenigsgarten", bots=["random", "first-legal"])
    cache = ReportCache(sync_seconds=0.05)
    calls: list[float] = []
    refit_may_end = threading.Event()

    def compute() -> Report:
        calls.append(time.monotonic())
        if len(calls) == 1:
            time.sleep(0.1)  # longer than sync_seconds: a slow report
        else:
            assert refit_may_end.wait(GENEROUS_SECONDS)  # the refit lasts while readers read
        return game_leaderboard(engine, "koenigsgarten")

    old = cache.get("board", games_version(engine, game="koenigsgarten"), compute)
    play_tournament(engine, game="koenigsgarten", bots=["random", "greedy"], games=4)
    version = games_version(engine, game="koenigsgarten")
    answers = []
    readers = [
        threading.Thread(target=lambda: answers.append(cache.get("board", version, compute)))
        for _ in range(5)
    ]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(GENEROUS_SECONDS)
    # Every reader was answered while the refit could not end: nobody waited for it.
    assert len(answers) == 5
    assert all(not a.current and a.entry is old.entry for a in answers)
    refit_may_end.set()
    wait_until(
        lambda: cache.get("board", version, compute).entry is not old.entry,
        what="the refit did not replace the stale report",
        interval=0.02,
    )
    latest = cache.get("board", version, compute)
    assert latest.current and latest.entry.report.games == 6
    assert len(calls) == 2  # one refit for all the readers


def test_the_leaderboard_endpoint_follows_new_games(web: Web) -> None:
    play_tournament(web.engine, game="koenigsgarten", bots=["random", "first-legal"])
    assert web.client.get("/api/leaderboards/koenigsgarten").json()["games"] == 2
    play_tournament(web.engine, game="koenigsgarten", bots=["random", "greedy"], games=4)
    board = web.client.get("/api/leaderboards/koenigsgarten")
    assert board.json()["games"] == 6 and board.headers["x-report-current"] == "true"
