"""One driver per tournament: the lease two drivers contend for, tested by doing it."""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from rich.console import Console

from arena.store.db import open_database, session_scope
from arena.store.models import Tournament, utcnow
from arena.tournament.config import validate_config
from arena.tournament.driver import TournamentRunner, create_tournament
from arena.tournament.lease import DriverLease, TournamentBusyError, read_holder
from arena.web.worker import run_claimed
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

QUIET = Console(file=io.StringIO())


def small_tournament(db: str, games: int = 20) -> int:
    engine = open_database(db)
    config = validate_config(
        {
            "game": "koenigsgarten",
            "bots": ["random", "random:seed=1"],
            "games": games,
            "executor": "local",
        },
        "test",
    )
    with session_scope(engine) as session:
        tournament_id = create_tournament(session, config)
    engine.dispose()
    return tournament_id


def finished_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_held_lease_is_refused_naming_the_holder_and_free_once_released(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    tournament_id = small_tournament(db)
    engine = open_database(db)
    with DriverLease(engine, tournament_id) as first:
        holder = read_holder(engine, tournament_id)
        assert holder is not None and holder.token == first.token
        with pytest.raises(TournamentBusyError) as refused:
            DriverLease(engine, tournament_id).acquire()
        message = str(refused.value)
        holder_text = f"{socket.gethostname()}:{os.getpid()} since "
        assert f"tournament {tournament_id} is being run by {holder_text}" in message
        assert "last heartbeat" in message
        # The runner refuses as well, before it writes anything.
        with pytest.raises(TournamentBusyError):
            TournamentRunner(engine, tournament_id, console=QUIET).run()
        assert query(db, "SELECT status FROM tournament") == [("pending",)]
    assert read_holder(engine, tournament_id) is None
    summary = TournamentRunner(engine, tournament_id, console=QUIET).run()
    assert (summary.status, summary.stored) == ("completed", 20)
    assert read_holder(engine, tournament_id) is None, "released at the end"


def test_a_lease_whose_holder_is_gone_is_taken_over(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    tournament_id = small_tournament(db)
    engine = open_database(db)
    table = Tournament.__table__  # type: ignore[attr-defined]

    def hold(host: str, pid: int, age_seconds: float) -> None:
        renewed = utcnow() - timedelta(seconds=age_seconds)
        with session_scope(engine) as session:
            session.connection().execute(
                sa.update(table).values(
                    lease_token="other",
                    lease_host=host,
                    lease_pid=pid,
                    lease_since=renewed,
                    lease_renewed=renewed,
                )
            )

    # A dead process on this host: taken over at once, however fresh its heartbeat.
    hold(socket.gethostname(), finished_pid(), 0)
    lease = DriverLease(engine, tournament_id)
    lease.acquire()
    assert read_holder(engine, tournament_id).token == lease.token  # type: ignore[union-attr]
    # Another host: only a heartbeat older than the bound counts as gone.
    hold("elsewhere", 1, 10)
    with pytest.raises(TournamentBusyError, match=r"elsewhere:1 since .*last heartbeat 10 s ago"):
        DriverLease(engine, tournament_id, stale_seconds=60).acquire()
    hold("elsewhere", 1, 120)
    DriverLease(engine, tournament_id, stale_seconds=60).acquire()
    # The driver taken over finds out at its next heartbeat and stops writing.
    assert not lease.renew() and lease.lost


def test_a_driver_taken_over_stores_nothing_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Presumed dead (say, a heartbeat lost for minutes), the driver was taken over; its
    # next batch must not land after the new holder's, nor overwrite its state.
    import arena.tournament.driver as driver_module

    monkeypatch.setattr(driver_module, "FLUSH_GAMES", 5)
    db = str(tmp_path / "arena.db")
    tournament_id = small_tournament(db, games=60)
    engine = open_database(db)
    table = Tournament.__table__  # type: ignore[attr-defined]
    flushed: list[int] = []

    def take_over(stored: int) -> None:
        flushed.append(stored)
        if len(flushed) == 1:
            with session_scope(engine) as session:
                session.connection().execute(
                    sa.update(table).values(lease_token="other", lease_host="elsewhere")
                )

    runner = TournamentRunner(engine, tournament_id, console=QUIET, on_flush=take_over)
    with pytest.raises(TournamentBusyError, match="taken over"):
        runner.run()
    first = flushed[0]
    assert 0 < first < 60
    assert query(db, "SELECT count(*) FROM game") == [(first,)]
    assert query(db, "SELECT stored FROM driver_state") == [(first,)]
    assert query(db, "SELECT lease_token, status FROM tournament") == [("other", "running")]


@pytest.mark.slow
def test_two_resumes_at_once_play_every_game_once(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    # Games of ~50 ms: the second resume looks long before the first could finish.
    process = start(db, *run_args("local", 200, SLOWER))
    wait_until(lambda: stored(db) >= 20, what="20 games stored")
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert 20 <= stored(db) < 200
    resumes = [start(db, "tournament", "resume", "1", "--executor", "local") for _ in range(2)]
    outputs = [resume.communicate(timeout=600) for resume in resumes]
    codes = sorted(resume.returncode for resume in resumes)
    assert codes == [0, 2], outputs
    refused = next(
        err for resume, (_, err) in zip(resumes, outputs, strict=True) if resume.returncode
    )
    winner = next(resume.pid for resume in resumes if resume.returncode == 0)
    assert "tournament 1 is being run by" in refused
    assert f"{socket.gethostname()}:{winner} since" in refused.replace("\n", "")
    assert_complete_without_duplicates(db, 1, 200)


@pytest.mark.slow
def test_a_resume_while_the_run_goes_on_exits_2_and_the_run_completes(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    process = start(db, *run_args("local", 200, SLOWER))
    wait_until(lambda: stored(db) >= 10, what="10 games stored")
    code, _, err = arena_in_process(db, "tournament", "resume", "1", "--executor", "local")
    assert code == 2
    assert f"is being run by {socket.gethostname()}:{process.pid} since" in err.replace("\n", "")
    _, run_err = process.communicate(timeout=600)
    assert process.returncode == 0, run_err
    assert_complete_without_duplicates(db, 1, 200)


def test_the_web_worker_leaves_a_tournament_another_driver_holds(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    tournament_id = small_tournament(db)
    engine = open_database(db)
    with DriverLease(engine, tournament_id):
        assert run_claimed(engine, tournament_id, executor=None, console=QUIET) is None
        assert query(db, "SELECT status, message FROM tournament") == [("pending", None)]
        assert stored(db) == 0
