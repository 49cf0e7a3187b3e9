"""Ladders survive faults, tested by doing them: a worker killed mid-batch loses only
its unstored games and duplicates none; and the end-to-end demonstration: a worker
playing a small ladder of built-ins and a weakened bot finds their order."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import Session

from arena.ladder.service import select_ladder, standings
from arena.store.db import open_database
from tests.interrupts import as_from_a_terminal
from tests.waiting import wait_until

pytestmark = [pytest.mark.xdist_group("subprocess"), pytest.mark.slow]
GAME = "koenigsgarten"
STRONG = "mcts:iterations=300"
WEAKENED = "mcts:iterations=10"
"""The same search with a thirtieth of the iterations: the weakened bot."""


def arena(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args, "--db", db],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "200"},
    )


def start(db: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena", *args, "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=as_from_a_terminal,
        env={**os.environ, "COLUMNS": "200"},
    )


def counts(db: str) -> tuple[int, int, int, int]:
    """(games, distinct indices, games the rating state counts, next index)."""
    engine = open_database(db)
    try:
        with engine.connect() as connection:
            games, distinct = connection.execute(
                sa.text('SELECT count(*), count(DISTINCT "index") FROM game')
            ).one()
            rated, next_index = connection.execute(
                sa.text("SELECT rated_games, next_index FROM ladder")
            ).one()
        return int(games), int(distinct), int(rated), int(next_index)
    finally:
        engine.dispose()


def ladder_with(db: str, *bots: str) -> None:
    result = arena(db, "ladder", "start", GAME, "--time-control", "unlimited")
    assert result.returncode == 0, result.stderr
    for bot in bots:
        kind, _, params = bot.partition(":")
        name = bot.replace(":", "-").replace("=", "")
        extra = ["-p", params] if params else []
        result = arena(db, "bots", "add", name, "-g", GAME, "--builtin", kind, *extra)
        assert result.returncode == 0, result.stderr


def test_a_killed_ladder_worker_loses_no_stored_game_and_duplicates_none(db_url: str) -> None:
    db = db_url
    ladder_with(db, "random", STRONG, "greedy")
    run = ["ladder", "run", GAME, "--time-control", "unlimited", "--executor", "local"]
    first, second = start(db, *run, "--tables", "4"), start(db, *run, "--tables", "3")
    try:
        wait_until(lambda: counts(db)[0] >= 40, what="two workers storing 40 games")
    finally:
        for process in (first, second):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    games, distinct, rated, next_index = counts(db)
    assert games == distinct == rated  # no duplicate; the ratings count exactly those
    assert next_index >= games  # indices taken by the killed batches stay unused
    result = arena(db, *run, "--games", "10")
    assert result.returncode == 0, result.stderr
    after, distinct_after, rated_after, _ = counts(db)
    assert after == distinct_after == rated_after and after >= games + 10


def test_a_worker_playing_a_ladder_finds_the_order_of_its_bots(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    ladder_with(db, "random", "greedy", STRONG, WEAKENED)
    worker = start(db, "worker", "--executor", "local", "--poll", "0.2")
    try:
        # 500 games: at 300 the intervals of the weakened search and random touched
        # in one run of many (their deals are drawn at random).
        wait_until(lambda: counts(db)[0] >= 500, what="the worker storing 500 ladder games")
    finally:
        worker.send_signal(signal.SIGTERM)  # a clean stop: the batch's games are stored
        _, err = worker.communicate(timeout=300)
    assert worker.returncode == 0, err
    games, distinct, rated, _ = counts(db)
    assert games == distinct == rated
    engine = open_database(db)
    with Session(engine) as session:
        lines = standings(session, select_ladder(session, GAME, None, "unlimited"))
    order = [line.label for line in lines]
    by_label = {line.label: line for line in lines}
    strong, weakened = "mcts-iterations300@1", "mcts-iterations10@1"
    assert order[0] == strong and order[-1] == "random@1", order
    assert order.index(weakened) > order.index(strong)
    # Separated: the intervals of the strong search, its weakened self and random.
    assert by_label[strong].lower > by_label[weakened].upper  # type: ignore[operator]
    assert by_label[weakened].lower > by_label["random@1"].upper  # type: ignore[operator]
    shown = arena(db, "ladder", "show", GAME, "--time-control", "unlimited")
    assert shown.returncode == 0 and f"│ 1 │ {strong}" in shown.stdout


def test_ctrl_c_stores_the_games_a_ladder_run_finished(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    ladder_with(db, "random", STRONG)
    run = start(db, "ladder", "run", GAME, "--time-control", "unlimited", "--executor", "local")
    try:
        wait_until(lambda: counts(db)[0] >= 10, what="the worker storing 10 games")
    finally:
        os.killpg(run.pid, signal.SIGINT)
        out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    assert "stopped; the games finished are stored" in out
    games, distinct, rated, _ = counts(db)
    assert games == distinct == rated >= 10
