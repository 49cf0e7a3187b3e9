"""Ctrl-C on a running tournament, done as a terminal does: it always ends the run,
a second Ctrl-C ends it at once, and ``resume`` then finishes it with every game
stored exactly once and the database free.

The processes here start through :func:`tests.interrupts.as_from_a_terminal`.
"""

from __future__ import annotations

import contextlib
import random
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.arena.test_fault_tolerance import (
    SLOWER,
    arena_in_process,
    assert_complete_without_duplicates,
    query,
    run_args,
    start,
    stored,
)
from tests.waiting import wait_until

pytestmark = [pytest.mark.xdist_group("subprocess"), pytest.mark.slow]

# A bound only for a stuck process: a run that ignores Ctrl-C waits far longer (the
# database's busy timeout is 60 s and a write is retried five times).
ENDS_WITHIN_SECONDS = 45.0


def assert_ends(process: subprocess.Popen[str]) -> None:
    try:
        process.communicate(timeout=ENDS_WITHIN_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"the run was still going {ENDS_WITHIN_SECONDS:g} s after Ctrl-C")


def assert_unlocked(db: str) -> None:
    """Another process can take the write lock at once."""
    connection = sqlite3.connect(db, timeout=0)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.rollback()
    finally:
        connection.close()


def resume_and_check(db: str, games: int) -> None:
    code, _, err = arena_in_process(db, "tournament", "resume", "1", "--executor", "local")
    assert code == 0, err
    assert_complete_without_duplicates(db, 1, games)
    assert_unlocked(db)


def test_a_second_ctrl_c_ends_a_run_whose_first_waits_on_the_database(tmp_path: Path) -> None:
    # The reported hang: the first Ctrl-C's last writes wait on a write lock (here
    # another process holds it), and a second Ctrl-C must not wait with them.
    db = str(tmp_path / "arena.db")
    process = start(db, *run_args("local", 300, SLOWER))
    wait_until(lambda: stored(db) >= 20, what="20 games stored")
    blocker = sqlite3.connect(db, timeout=60)
    try:
        blocker.execute("BEGIN IMMEDIATE")
        process.send_signal(signal.SIGINT)
        # The first Ctrl-C is being handled: its writes wait on the lock.
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=3)
        assert process.poll() is None, "the run stopped although its writes were locked out"
        process.send_signal(signal.SIGINT)
        assert_ends(process)
    finally:
        blocker.rollback()
        blocker.close()
    assert process.returncode != 0
    resume_and_check(db, 300)


@pytest.mark.parametrize("executor", ["local", "processes"])
def test_ctrl_c_at_random_moments_always_ends_the_run_and_resume_finishes_it(
    tmp_path: Path, executor: str
) -> None:
    shuffle = random.Random()
    for attempt in range(10):
        db = str(tmp_path / f"arena{attempt}.db")
        games = 120
        process = start(db, *run_args(executor, games, SLOWER))
        wait_until(
            lambda db=db, process=process: stored(db) >= 1 or process.poll() is not None,
            what="a game stored",
        )
        assert process.poll() is None, process.communicate()
        # A random moment of the run: while playing, storing or deciding.
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=shuffle.uniform(0.0, 3.0))
        process.send_signal(signal.SIGINT)
        if shuffle.random() < 0.3:  # an impatient user presses it twice
            try:
                process.wait(timeout=shuffle.uniform(0.0, 0.5))
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGINT)
        assert_ends(process)
        assert_unlocked(db)
        if query(db, "SELECT status FROM tournament") == [("completed",)]:
            # It finished before the interrupt (or was giving its lease back).
            assert_complete_without_duplicates(db, 1, games)
        else:
            assert process.returncode != 0
            resume_and_check(db, games)
