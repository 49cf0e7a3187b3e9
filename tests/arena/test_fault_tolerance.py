"""Fault tolerance, tested by doing it: killed workers, killed drivers, Ctrl-C, cancel,
two tournaments writing one database at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from arena.cli import app
from arena.store.db import open_database
from tests.interrupts import as_from_a_terminal
from tests.waiting import wait_until

runner = CliRunner()
SLOW = "mcts:iterations=40"
SLOWER = "mcts:iterations=400"
# Fault injection: kills drivers and Ray workers mid-run.
pytestmark = [pytest.mark.xdist_group("subprocess"), pytest.mark.slow]


def arena_in_process(db: str, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--db", str(db)])
    return result.exit_code, result.stdout, result.stderr


def start(db: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena", *args, "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=as_from_a_terminal,
        env={**os.environ, "COLUMNS": "200"},
    )


def query(db: str, sql: str) -> list[tuple[object, ...]]:
    engine = open_database(str(db))
    try:
        with engine.connect() as connection:
            return [tuple(r) for r in connection.execute(sa.text(sql))]
    finally:
        engine.dispose()


def stored(db: str, tournament: int = 1) -> int:
    try:
        return int(
            str(query(db, f"SELECT count(*) FROM game WHERE tournament_id = {tournament}")[0][0])
        )
    except Exception:
        return 0


def assert_complete_without_duplicates(db: str, tournament: int, scheduled: int) -> None:
    assert query(db, f"SELECT scheduled, status FROM tournament WHERE id = {tournament}") == [
        (scheduled, "completed")
    ]
    assert query(
        db, f'SELECT count(*), count(DISTINCT "index") FROM game WHERE tournament_id = {tournament}'
    ) == [(scheduled, scheduled)]
    missing = query(
        db,
        "SELECT count(*) FROM scheduled_game s LEFT JOIN game g ON g.tournament_id = "
        f's.tournament_id AND g."index" = s."index" WHERE s.tournament_id = {tournament} '
        "AND g.id IS NULL",
    )
    assert missing == [(0,)]


@pytest.fixture
def slow_bot(tmp_path: Path) -> str:
    """An SQLite database for a tournament of slow games."""
    return str(tmp_path / "arena.db")


@pytest.fixture
def slow_bot_any_db(db_url: str) -> str:
    """The same on every database backend the suite has."""
    return db_url


def run_args(executor: str, games: int, bot: str = SLOW) -> list[str]:
    # A searching bot makes games slow enough to interrupt (a few ms each).
    return [
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "-b",
        bot,
        "-b",
        "random",
        "--games",
        str(games),
        "--executor",
        executor,
        "--workers",
        "2",
        "--seed",
        "3",
    ]


def test_killing_the_driver_is_recovered_by_resume(slow_bot_any_db: str) -> None:
    db = slow_bot_any_db
    process = start(db, *run_args("local", 400))
    wait_until(lambda: stored(db) >= 40, what="40 games stored")
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    before = {row[0]: row[1] for row in query(db, 'SELECT "index", id FROM game')}
    assert 40 <= len(before) < 400
    assert query(db, "SELECT status FROM tournament") == [("running",)]
    code, out, err = arena_in_process(db, "tournament", "resume", "1", "--executor", "local")
    assert code == 0, err
    assert f"{400 - len(before)} played" in out
    assert_complete_without_duplicates(db, 1, 400)
    after = {row[0]: row[1] for row in query(db, 'SELECT "index", id FROM game')}
    assert all(after[index] == row_id for index, row_id in before.items()), "stored games kept"


def test_ctrl_c_stops_cleanly_and_resumes(slow_bot: str) -> None:
    # One local process playing ~50 ms games: 300 take ~15 s, so the interrupt after
    # the first stored batch comes long before the end even on a fast, quiet machine.
    db = slow_bot
    process = start(db, *run_args("local", 300, SLOWER))
    wait_until(lambda: stored(db) >= 20, what="20 games stored")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 130
    assert "resume with `arena tournament resume 1`" in err and "Traceback" not in err
    assert query(db, "SELECT status FROM tournament") == [("interrupted",)]
    code, _, err = arena_in_process(db, "tournament", "resume", "1", "--executor", "local")
    assert code == 0, err
    assert_complete_without_duplicates(db, 1, 300)


def test_cancel_stops_a_running_tournament(slow_bot: str) -> None:
    db = slow_bot
    process = start(db, *run_args("local", 300, SLOWER))
    wait_until(lambda: stored(db) >= 10, what="10 games stored")
    code, out, _ = arena_in_process(db, "tournament", "cancel", "1")
    assert code == 0 and "cancelled" in out
    process.communicate(timeout=300)
    assert process.returncode == 0
    assert query(db, "SELECT status FROM tournament") == [("cancelled",)]
    assert stored(db) < 300
    code, _, err = arena_in_process(db, "tournament", "resume", "1")
    assert code == 2 and "already cancelled" in err


def test_two_tournaments_write_one_database_at_once(slow_bot_any_db: str) -> None:
    db = slow_bot_any_db
    first = start(db, *run_args("local", 300))
    second = start(db, *run_args("local", 300))
    for process in (first, second):
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
    for tournament in (1, 2):
        assert_complete_without_duplicates(db, tournament, 300)


def _ray_task_workers() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                title = (entry / "cmdline").read_bytes().split(b"\0")[0]
            except OSError:
                continue
            if title.startswith(b"ray::play_chunk"):
                pids.append(int(entry.name))
    return pids


def test_killing_a_ray_worker_costs_at_most_a_retry(slow_bot: str) -> None:
    db = slow_bot
    process = start(db, *run_args("ray", 600))
    try:
        wait_until(
            lambda: bool(_ray_task_workers()) and stored(db) >= 20,
            what="Ray workers playing and 20 games stored",
        )
        victim = _ray_task_workers()[0]
        os.kill(victim, signal.SIGKILL)
        _, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert victim not in _ray_task_workers()
    assert_complete_without_duplicates(db, 1, 600)
