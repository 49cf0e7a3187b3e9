"""The worker-process executor: every game played and handled once, a worker that dies
is replaced and its games played again, Ctrl-C and a killed driver leave no worker
behind; and the same through `arena tournament run --executor processes`."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from arena.cli.common import EXECUTORS as CLI_EXECUTORS
from arena.play.results import PlannedGame
from arena.players.loader import BUILTIN, BotSource, BotSpec
from arena.tournament import execution
from arena.tournament.execution import (
    EXECUTORS,
    ChunkResult,
    ExecutionError,
    LocalExecutor,
    ProcessExecutor,
    TournamentContext,
)
from engines.seeding import derive_seed
from tests.arena.test_fault_tolerance import (
    arena_in_process,
    assert_complete_without_duplicates,
    query,
    run_args,
    start,
    stored,
)
from tests.waiting import wait_until


def context() -> TournamentContext:
    bots = {
        bot_id: BotSpec(bot_id, f"{kind}@1", "koenigsgarten", BotSource(BUILTIN, kind))
        for bot_id, kind in ((1, "random"), (2, "greedy"))
    }
    return TournamentContext(tournament_id=1, game="koenigsgarten", options={}, seats=2, bots=bots)


def planned(count: int) -> list[PlannedGame]:
    return [PlannedGame(i, derive_seed(7, i), (1, 2) if i % 2 else (2, 1)) for i in range(count)]


def play(executor: LocalExecutor | ProcessExecutor, games: int) -> list[ChunkResult]:
    results: list[ChunkResult] = []

    def handle(result: ChunkResult) -> bool:
        results.append(result)
        return True

    executor.run(context(), planned(games), handle)
    return results


def indices(results: Sequence[ChunkResult]) -> list[int]:
    return [game.index for result in results for game in result.games]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_cli_names_the_executors_of_the_tournament_package() -> None:
    assert CLI_EXECUTORS == EXECUTORS


def test_every_game_is_played_once_as_it_is_played_here() -> None:
    executor = ProcessExecutor(workers=2)
    try:
        results = play(executor, 200)
        workers = {game.worker for result in results for game in result.games}
    finally:
        executor.close()
    assert sorted(indices(results)) == list(range(200))
    here = {game.index: game for result in play(LocalExecutor(), 200) for game in result.games}
    for result in results:
        for game in result.games:
            mine = here[game.index]
            assert (game.returns, game.ranking) == (mine.returns, mine.ranking)
            assert _timeless(game.record) == _timeless(mine.record)
    assert len(workers) == 2 and str(os.getpid()) not in {w.split(":")[1] for w in workers}


def _timeless(record: str) -> dict[str, object]:
    data: dict[str, object] = json.loads(record)
    del data["duration"]
    return data


def test_the_workers_stay_warm_between_runs_and_close_leaves_none() -> None:
    executor = ProcessExecutor(workers=2)
    try:
        play(executor, 20)
        first = [worker.process.pid for worker in executor._pool]
        assert sorted(indices(play(executor, 30))) == list(range(30))
        assert [worker.process.pid for worker in executor._pool] == first
    finally:
        executor.close()
    assert executor._pool == []
    assert not any(pid is not None and alive(pid) for pid in first)


ChunkTask = Callable[[TournamentContext, Sequence[PlannedGame]], ChunkResult]


def _dying_once(marker: Path) -> ChunkTask:
    """A chunk task whose worker kills itself halfway through its first chunk of more
    than 4 games (once in the whole run: the marker file says it happened)."""
    play_chunk = execution.play_chunk

    def task(context: TournamentContext, games: Sequence[PlannedGame]) -> ChunkResult:
        if len(games) > 4 and not marker.exists():
            play_chunk(context, games[: len(games) // 2])
            marker.write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return play_chunk(context, games)

    return task


def test_a_killed_worker_is_replaced_and_no_game_is_lost_or_handled_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "killed"
    # Forked workers run the module's chunk task as it is when they start.
    monkeypatch.setattr(execution, "play_chunk", _dying_once(marker))
    executor = ProcessExecutor(workers=2)
    try:
        results = play(executor, 300)
        pids = [worker.process.pid for worker in executor._pool]
    finally:
        executor.close()
    assert marker.exists(), "a worker was killed"
    victim = int(marker.read_text())
    assert victim not in pids and len(pids) == 2
    assert sorted(indices(results)) == list(range(300))


def test_a_chunk_that_kills_every_worker_fails_the_run_naming_its_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    play_chunk = execution.play_chunk

    def deadly(context: TournamentContext, games: Sequence[PlannedGame]) -> ChunkResult:
        if any(game.index == 7 for game in games):
            os._exit(3)
        return play_chunk(context, games)

    monkeypatch.setattr(execution, "play_chunk", deadly)
    executor = ProcessExecutor(workers=2)
    try:
        with pytest.raises(
            ExecutionError, match=r"died 5 times playing games \d+–\d+ \(exit code 3\)"
        ):
            play(executor, 100)
    finally:
        executor.close()


def test_ctrl_c_in_the_driver_stops_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    executor = ProcessExecutor(workers=2)
    pids: list[int] = []

    def handle(result: ChunkResult) -> bool:
        pids.extend(w.process.pid for w in executor._pool if w.process.pid is not None)
        raise KeyboardInterrupt

    try:
        with pytest.raises(KeyboardInterrupt):
            executor.run(context(), planned(10_000), handle)
        # The workers still playing were stopped: nobody waits for their chunks.
        assert all(not worker.in_flight for worker in executor._pool)
    finally:
        executor.close()
    assert len(pids) == 2 and not any(alive(pid) for pid in pids)


def test_a_worker_ignores_ctrl_c_sent_to_the_process_group() -> None:
    # A terminal's Ctrl-C reaches every process of the group: the driver stores what
    # finished and stops the workers itself.
    executor = ProcessExecutor(workers=1)
    try:
        play(executor, 5)
        (worker,) = executor._pool
        assert worker.process.pid is not None
        os.kill(worker.process.pid, signal.SIGINT)
        assert sorted(indices(play(executor, 20))) == list(range(20))
        assert executor._pool[0].process.pid == worker.process.pid
    finally:
        executor.close()


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [int(child) for child in path.read_text().split()]
    except OSError:
        return []


@pytest.mark.slow
@pytest.mark.xdist_group("subprocess")
def test_killing_a_worker_process_of_a_tournament_loses_no_game(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    process = start(db, *run_args("processes", 600))
    try:
        wait_until(
            lambda: len(_children(process.pid)) == 2 and stored(db) >= 20,
            what="2 worker processes and 20 games stored",
        )
        victim = _children(process.pid)[0]
        os.kill(victim, signal.SIGKILL)
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert "executor: processes (as asked)" in out + err
    assert_complete_without_duplicates(db, 1, 600)
    workers = {str(row[0]).split(":")[1] for row in query(db, "SELECT DISTINCT worker FROM game")}
    assert len(workers - {str(victim)}) == 2  # the other worker, and a fresh one


@pytest.mark.slow
@pytest.mark.xdist_group("subprocess")
def test_ctrl_c_and_a_killed_driver_leave_no_worker_and_resume_completes(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    # ~50 ms games on 2 workers: 200 last several seconds, so Ctrl-C after the first
    # stored batch comes well before the end; the last resume plays the rest.
    process = start(db, *run_args("processes", 200, "mcts:iterations=400"))
    wait_until(lambda: stored(db) >= 20, what="20 games stored")
    workers = _children(process.pid)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
    _, err = process.communicate(timeout=300)
    assert process.returncode == 130, err
    assert "resume with `arena tournament resume 1`" in err and "Traceback" not in err
    assert len(workers) == 2 and not any(alive(pid) for pid in workers)

    process = start(db, "tournament", "resume", "1", "--executor", "processes")
    wait_until(lambda: len(_children(process.pid)) == 2, what="2 worker processes")
    workers = _children(process.pid)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    wait_until(lambda: not any(alive(pid) for pid in workers), what="the workers gone")

    code, _, err = arena_in_process(db, "tournament", "resume", "1", "--executor", "processes")
    assert code == 0, err
    assert_complete_without_duplicates(db, 1, 200)


def test_a_worker_sends_its_results_without_waiting_for_the_driver_to_read() -> None:
    # Three messages of 1 MB each: far more than a pipe holds. The sender takes each at
    # once and the reader, which starts only afterwards, gets them whole and in order.
    import multiprocessing
    import threading

    here, there = multiprocessing.Pipe()
    sender = execution._ResultSender(there)
    payloads = [bytes([number]) * 1_000_000 for number in range(3)]

    def send_all() -> None:
        for number, payload in enumerate(payloads):
            sender.send(("result", (number, payload)))

    sending = threading.Thread(target=send_all, daemon=True)
    sending.start()
    sending.join(60)
    # Nothing read yet: a sender writing to the pipe itself would still be blocked.
    assert not sending.is_alive()
    assert [here.recv() for _ in payloads] == [
        ("result", (number, payload)) for number, payload in enumerate(payloads)
    ]
    sender.send(("result", "last"))
    sender.close()  # sends what waits, then stops
    assert here.recv() == ("result", "last")
    assert not sender._thread.is_alive()


def test_a_sender_whose_driver_went_away_stops_quietly() -> None:
    import multiprocessing

    here, there = multiprocessing.Pipe()
    here.close()
    sender = execution._ResultSender(there)
    sender.send(("result", b"x" * 1_000_000))
    sender.close()
    assert not sender._thread.is_alive()
