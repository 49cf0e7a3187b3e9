"""The auto executor: local when the work ends in seconds or one worker is asked, worker
processes when their start pays (Ray when a cluster is named or Ray runs already); every
game handled once; the run says which."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.players.loader import BUILTIN, BotSource, BotSpec
from arena.tournament import execution
from arena.tournament.execution import (
    AutoExecutor,
    ChunkResult,
    ExecutionError,
    LocalExecutor,
    ProcessExecutor,
    TournamentContext,
    estimated_seconds,
    make_executor,
    parallel_pays,
)
from arena.tournament.scheduling import PlannedGame
from engines.seeding import derive_seed

runner = CliRunner()


class FakeParallel(LocalExecutor):
    """Stands for the Ray executor or the worker processes: plays here, and remembers
    what it was given."""

    instances: ClassVar[list[FakeParallel]] = []

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        super().__init__()
        self.workers, self.address = workers, address
        self.played: list[int] = []
        FakeParallel.instances.append(self)

    def run(
        self,
        context: TournamentContext,
        games: Iterable[PlannedGame],
        handle: execution.ResultHandler,
        *,
        expected: int | None = None,
    ) -> None:
        def recording(result: ChunkResult) -> bool:
            self.played += [game.index for game in result.games]
            return handle(result)

        super().run(context, games, recording)


class FakeRay(FakeParallel):
    pass


class FakeProcesses(FakeParallel):
    pass


@pytest.fixture
def fake_ray(monkeypatch: pytest.MonkeyPatch) -> type[FakeRay]:
    FakeParallel.instances = []
    monkeypatch.setattr(execution, "RayExecutor", FakeRay)
    monkeypatch.setattr(execution, "ProcessExecutor", FakeProcesses)
    return FakeRay


def context() -> TournamentContext:
    bots = {
        bot_id: BotSpec(bot_id, f"{kind}@1", "koenigsgarten", BotSource(BUILTIN, kind))
        for bot_id, kind in ((1, "random"), (2, "greedy"))
    }
    return TournamentContext(tournament_id=1, game="koenigsgarten", options={}, seats=2, bots=bots)


def planned(count: int) -> list[PlannedGame]:
    return [PlannedGame(i, derive_seed(7, i), (1, 2) if i % 2 else (2, 1)) for i in range(count)]


def run(executor: AutoExecutor, games: list[PlannedGame], expected: int) -> list[int]:
    handled: list[int] = []

    def handle(result: ChunkResult) -> bool:
        handled.extend(game.index for game in result.games)
        return True

    try:
        executor.run(context(), games, handle, expected=expected)
    finally:
        executor.close()
    return handled


def test_parallel_play_pays_when_the_time_it_saves_exceeds_its_start() -> None:
    assert parallel_pays(60.0, cores=2, start_seconds=5.0)
    assert not parallel_pays(9.0, cores=2, start_seconds=5.0)  # saves 4.5 s, costs 5
    assert parallel_pays(11.0, cores=2, start_seconds=5.0)
    assert parallel_pays(6.0, cores=16, start_seconds=5.0)
    assert not parallel_pays(10**6, cores=1, start_seconds=5.0)
    assert parallel_pays(0.1, cores=2, start_seconds=0.0)  # a running Ray costs no start
    assert not parallel_pays(0.3, cores=2, start_seconds=0.2)  # saves 0.15 s, costs 0.2


def test_the_estimate_is_not_misled_by_a_slow_first_game() -> None:
    # The first game of a run loads its bots (and their imports and tables).
    assert estimated_seconds([2.0, 0.01, 0.012, 0.011], 100) == pytest.approx(1.15)
    assert estimated_seconds([0.5], 10) == 5.0
    assert estimated_seconds([], 10) == 0.0


def test_a_small_run_stays_local_and_says_why(
    fake_ray: type[FakeRay], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small: what the workers would save is less than their start (made 5 s, so that
    # a loaded machine's slow games cannot make 20 games worth it).
    monkeypatch.setattr(execution, "PROCESSES_START_SECONDS", 5.0)
    lines: list[str] = []
    games = planned(20)
    handled = run(AutoExecutor(workers=2, announce=lines.append), games, len(games))
    assert sorted(handled) == list(range(20))
    assert FakeParallel.instances == []
    assert len(lines) == 1 and lines[0].startswith("executor: local (auto: ")


def test_a_long_run_goes_to_worker_processes_after_the_probe_and_no_game_is_lost(
    fake_ray: type[FakeRay], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 40 games here stand for a long run: expected says a million are to come. The
    # probe is then one game.
    monkeypatch.setattr(execution, "PROBE_SECONDS", 0.0)
    monkeypatch.setattr(execution, "PROBE_GAMES", 1)
    monkeypatch.setattr(execution.os, "cpu_count", lambda: 4)
    lines: list[str] = []
    games = planned(40)
    handled = run(AutoExecutor(workers=2, announce=lines.append), games, 10**6)
    assert sorted(handled) == list(range(40))
    (processes,) = FakeParallel.instances
    assert isinstance(processes, FakeProcesses)
    assert handled[0] not in processes.played
    assert sorted(handled[1:]) == sorted(processes.played)
    assert processes.workers == 2
    assert len(lines) == 1
    assert lines[0].startswith("executor: processes (auto: 999999 more games")
    assert "worker processes" in lines[0] and "pay on 2 cores" in lines[0]


def test_the_probe_of_a_clearly_long_run_is_its_first_games_only(
    fake_ray: type[FakeRay], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A million games to come: after PROBE_GAMES games the parallel start pays many times
    # over, so the probe does not play on for its seconds. (A start of 2 s: the first
    # games take less even on a loaded machine, and without the early end the probe
    # would play on for PROBE_SECONDS, all 40 games of a few milliseconds each.)
    monkeypatch.setattr(execution, "PROCESSES_START_SECONDS", 2.0)
    monkeypatch.setattr(execution.os, "cpu_count", lambda: 2)
    handled = run(AutoExecutor(workers=2), planned(40), 10**6)
    (processes,) = FakeParallel.instances
    assert sorted(handled) == list(range(40))
    assert len(handled) - len(processes.played) == execution.PROBE_GAMES


def test_the_probe_plays_on_while_the_rest_pays_only_narrowly(
    fake_ray: type[FakeRay], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same start, but so long that no estimate of the 40 games clears it: the probe
    # plays every game (nothing is handed over).
    monkeypatch.setattr(execution, "PROCESSES_START_SECONDS", 1000.0)
    monkeypatch.setattr(execution.os, "cpu_count", lambda: 2)
    handled = run(AutoExecutor(workers=2), planned(40), 40)
    assert sorted(handled) == list(range(40))
    assert FakeParallel.instances == []


def test_a_running_ray_takes_a_long_run(
    fake_ray: type[FakeRay], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(execution, "_ray_running", lambda: True)
    monkeypatch.setattr(execution, "PROBE_SECONDS", 0.0)
    monkeypatch.setattr(execution, "PROBE_GAMES", 1)
    monkeypatch.setattr(execution.os, "cpu_count", lambda: 4)
    lines: list[str] = []
    handled = run(AutoExecutor(workers=2, announce=lines.append), planned(40), 10**6)
    assert sorted(handled) == list(range(40))
    (ray,) = FakeParallel.instances
    assert isinstance(ray, FakeRay) and ray.workers == 2
    assert len(lines) == 1 and lines[0].startswith("executor: ray (auto: ")
    assert "the running Ray pay on 2 cores" in lines[0]


def test_one_worker_is_local_and_a_cluster_address_is_ray(fake_ray: type[FakeRay]) -> None:
    lines: list[str] = []
    assert sorted(run(AutoExecutor(workers=1, announce=lines.append), planned(6), 10**6)) == (
        list(range(6))
    )
    assert FakeParallel.instances == [] and lines == ["executor: local (one worker)"]
    lines.clear()
    handled = run(AutoExecutor(address="head:6379", announce=lines.append), planned(6), 6)
    (ray,) = FakeParallel.instances
    assert isinstance(ray, FakeRay) and ray.address == "head:6379"
    assert sorted(ray.played) == sorted(handled) == list(range(6))
    assert lines == ["executor: ray (joining the Ray cluster at head:6379)"]


def test_make_executor_forces_a_kind_and_rejects_others() -> None:
    lines: list[str] = []
    assert isinstance(
        make_executor("local", workers=None, address=None, announce=lines.append), LocalExecutor
    )
    assert lines == ["executor: local (as asked)"]
    assert isinstance(make_executor("processes", workers=2, address=None), ProcessExecutor)
    assert isinstance(make_executor("auto", workers=None, address=None), AutoExecutor)
    with pytest.raises(ExecutionError, match="unknown executor 'dask'"):
        make_executor("dask", workers=None, address=None)


def test_a_small_tournament_runs_locally_by_default_and_reports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(execution, "PROCESSES_START_SECONDS", 5.0)  # as above
    db = str(tmp_path / "a.db")
    args = ["tournament", "run", "--game", "koenigsgarten", "-b", "random", "-b", "greedy"]
    result = runner.invoke(app, [*args, "--games", "20", "-f", "json", "--db", db])
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["status"] == "completed" and summary["stored"] == 20
    assert summary["executor"].startswith("local (auto: ")
    assert "executor: local (auto: " in result.stderr
