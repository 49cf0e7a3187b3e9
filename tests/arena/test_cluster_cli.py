"""`arena cluster start | stop | status`: a warm local Ray cluster that `--executor ray`
joins. The fast tests fake a cluster (a process naming its temp dir, a listening port);
the slow one starts Ray."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from arena.cli import app
from arena.store.db import open_database
from arena.tournament import cluster
from arena.tournament.execution import RayExecutor, make_executor
from tests.waiting import GENEROUS_SECONDS, wait_until

runner = CliRunner()


def arena(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The state dir of this test's warm cluster."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return cluster.state_dir()


@contextlib.contextmanager
def fake_head(temp_dir: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A process that looks like the head of a cluster with ``temp_dir`` (its command
    line names it) until it is killed."""
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)", f"--temp-dir={temp_dir}"]
    )
    marker = f"--temp-dir={temp_dir}".encode()
    command = Path(f"/proc/{process.pid}/cmdline")
    try:
        wait_until(lambda: marker in command.read_bytes(), what="the fake head's exec")
        yield process
    finally:
        process.kill()
        process.wait()


def record(temp_dir: Path, pid: int, address: str, python: str = sys.executable) -> None:
    cluster.state_dir().mkdir(parents=True, exist_ok=True)
    recorded = cluster.WarmCluster(address, pid, str(temp_dir), 2, 0.0, python)
    cluster.state_file().write_text(json.dumps(asdict(recorded)))


def test_status_and_stop_without_a_cluster(state: Path) -> None:
    code, out, _ = arena("cluster", "status")
    assert code == 1 and "not running: no warm local cluster" in out
    code, out, _ = arena("cluster", "stop")
    assert code == 0 and "no warm local cluster runs" in out
    assert cluster.live_address() is None


def test_a_stale_state_file_is_reported_and_stop_removes_it(state: Path) -> None:
    with fake_head(state / "ray") as head:
        pass  # ended: the state file outlives its cluster
    record(state / "ray", head.pid, f"127.0.0.1:{cluster.free_port()}")
    code, out, _ = arena("cluster", "status")
    assert code == 1
    assert f"is gone (pid {head.pid})" in out and "stale" in out
    assert "`arena cluster start` replaces it" in out
    assert cluster.live_address() is None
    code, out, _ = arena("cluster", "stop")
    assert code == 0 and "was gone already" in out
    assert not cluster.state_file().exists()


def test_stop_ends_the_processes_of_its_temp_dir_only(state: Path, tmp_path: Path) -> None:
    with (
        socket.create_server(("127.0.0.1", 0)) as server,
        fake_head(state / "ray") as head,
        fake_head(tmp_path / "another-ray") as other,
    ):
        address = f"127.0.0.1:{server.getsockname()[1]}"
        record(state / "ray", head.pid, address)
        code, out, _ = arena("cluster", "stop")
        assert code == 0 and f"stopped the warm local cluster at {address}" in out
        assert head.wait(timeout=GENEROUS_SECONDS) == -signal.SIGTERM
        assert other.poll() is None  # another cluster's process: left alone
        assert not cluster.state_file().exists()


def test_a_port_that_answers_without_the_head_is_not_the_cluster(state: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server, fake_head(state / "ray") as head:
        address = f"127.0.0.1:{server.getsockname()[1]}"
        record(state / "ray", head.pid, address)
        assert cluster.live_address() == address
        record(state / "ray", head.pid + 1_000_000, address)  # no such process
        assert cluster.live_address() is None


def test_executor_ray_joins_the_warm_cluster_when_it_runs(state: Path) -> None:
    announced: list[str] = []
    executor = make_executor("ray", workers=2, address=None, announce=announced.append)
    assert isinstance(executor, RayExecutor) and executor.address is None
    assert announced == ["executor: ray (as asked)"]
    with socket.create_server(("127.0.0.1", 0)) as server, fake_head(state / "ray") as head:
        address = f"127.0.0.1:{server.getsockname()[1]}"
        record(state / "ray", head.pid, address)
        announced.clear()
        executor = make_executor("ray", workers=2, address=None, announce=announced.append)
        assert isinstance(executor, RayExecutor) and executor.address == address
        assert announced == [f"executor: ray (the warm local cluster at {address})"]
        # A named cluster wins over the warm one.
        executor = make_executor("ray", workers=2, address="10.0.0.9:6379", announce=print)
        assert isinstance(executor, RayExecutor) and executor.address == "10.0.0.9:6379"
        # Another installation's cluster would play with its code: not joined.
        record(state / "ray", head.pid, address, python="/elsewhere/.venv/bin/python")
        announced.clear()
        executor = make_executor("ray", workers=2, address=None, announce=announced.append)
        assert isinstance(executor, RayExecutor) and executor.address is None
        assert announced == [
            f"executor: ray (as asked; not the warm local cluster at {address}: it runs "
            f"/elsewhere/.venv/bin/python, this is {sys.executable})"
        ]


def test_start_refuses_a_port_in_use_and_ray_worker_ports(state: Path) -> None:
    with socket.create_server(("", 0)) as server:
        port = server.getsockname()[1]
        code, _, err = arena("cluster", "start", "--port", str(port))
    assert code == 2 and f"port {port} is in use" in err and "--port 0" in err
    code, _, err = arena("cluster", "start", "--port", "12000")
    assert code == 2 and "port 12000 is among Ray's worker ports" in err
    assert not cluster.state_file().exists()


def test_start_without_ray_names_the_extra(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if it were not installed
    code, _, err = arena("cluster", "start")
    assert code == 2 and "Ray is not installed: pip install 'arena[ray]'" in err


def test_status_of_an_address_where_nothing_answers(state: Path) -> None:
    address = f"127.0.0.1:{cluster.free_port()}"
    code, out, _ = arena("cluster", "status", "--address", address)
    assert code == 1 and f"not running: nothing answers at {address}" in out


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
@pytest.mark.timeout(3 * GENEROUS_SECONDS)
def test_a_warm_cluster_serves_a_tournament_and_a_stale_one_is_replaced(tmp_path: Path) -> None:
    # Short: Ray's socket paths under the temp dir must stay within 107 bytes.
    home = Path(tempfile.mkdtemp(prefix="arena-st-"))
    env = {k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"}
    env["XDG_STATE_HOME"] = str(home)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena", *args],
            capture_output=True,
            text=True,
            timeout=2 * GENEROUS_SECONDS,
            env=env,
        )

    def recorded() -> cluster.WarmCluster:
        data = json.loads((home / "arena" / "cluster.json").read_text())
        return cluster.WarmCluster(**data)

    port = cluster.free_port()
    db = tmp_path / "arena.db"
    try:
        started = cli("cluster", "start", "--port", str(port), "--cpus", "2")
        assert started.returncode == 0, started.stdout + started.stderr
        assert "started the warm local cluster at" in started.stdout
        address = recorded().address
        assert address.endswith(f":{port}")
        again = cli("cluster", "start", "--port", str(port))
        assert again.returncode == 0 and f"runs already at {address}" in again.stdout

        status = cli("cluster", "status")
        assert status.returncode == 0, status.stderr
        assert f"running: the warm local cluster at {address}, up " in status.stdout
        assert "nodes: 1, CPUs: 2" in status.stdout
        node_id = re.findall(r"^\s+\S+\s+([0-9a-f]{40,})\s+2 CPUs$", status.stdout, re.M)
        assert len(node_id) == 1, status.stdout
        named = cli("cluster", "status", "--address", address)
        assert named.returncode == 0, named.stderr
        assert f"running: the Ray cluster at {address}" in named.stdout
        assert f"{node_id[0]}  2 CPUs" in named.stdout

        run = cli(
            "tournament", "run", "--game", "koenigsgarten", "-b", "random", "-b", "first-legal",
            "--games", "30", "--executor", "ray", "--db", str(db),
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert f"executor: ray (the warm local cluster at {address})" in run.stdout
        assert "completed, 30 of 30 games stored" in run.stdout
        with open_database(str(db)).connect() as connection:
            workers = connection.execute(sa.text("SELECT DISTINCT worker FROM game")).scalars()
            assert {worker.rpartition("/")[2] for worker in workers} == {node_id[0]}

        # The cluster dies behind the state file's back: every process of it killed.
        dead = recorded()
        for pid in dead.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not dead.processes(), what="the killed cluster's processes")
        stale = cli("cluster", "status")
        assert stale.returncode == 1 and "stale" in stale.stdout
        replaced = cli("cluster", "start", "--port", str(port), "--cpus", "1")
        assert replaced.returncode == 0, replaced.stdout + replaced.stderr
        assert "replacing the stale state" in replaced.stdout
        assert recorded().pid != dead.pid and recorded().cpus == 1

        live = recorded()
        stopped = cli("cluster", "stop")
        assert stopped.returncode == 0 and f"stopped the warm local cluster at {address}" in (
            stopped.stdout
        )
        assert not live.processes() and not Path(live.temp_dir).exists()
        after = cli("cluster", "status")
        assert after.returncode == 1 and "not running" in after.stdout
    finally:
        with contextlib.suppress(FileNotFoundError, ValueError):
            left = recorded()
            for pid in left.processes():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        shutil.rmtree(home, ignore_errors=True)
