"""Joining an existing Ray cluster (`ray start --head`) with --ray-address."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from arena.store.db import open_database
from tests.waiting import GENEROUS_SECONDS

# Starts a Ray cluster.
pytestmark = [pytest.mark.xdist_group("ray"), pytest.mark.slow]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_tournament_joins_a_running_cluster(tmp_path: Path) -> None:
    port = free_port()
    ray = Path(sys.executable).with_name("ray")
    head = subprocess.Popen(
        [
            str(ray),
            "start",
            "--head",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            "--block",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"},
    )
    db = tmp_path / "arena.db"
    try:
        deadline = time.monotonic() + GENEROUS_SECONDS
        result = None
        while time.monotonic() < deadline:
            result = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "arena",
                    "tournament",
                    "run",
                    "--game",
                    "koenigsgarten",
                    "-b",
                    "random",
                    "-b",
                    "first-legal",
                    "--games",
                    "50",
                    "--ray-address",
                    f"127.0.0.1:{port}",
                    "--db",
                    str(db),
                ],
                capture_output=True,
                text=True,
                timeout=GENEROUS_SECONDS,
                env={k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"},
            )
            if result.returncode == 0 or "cannot start the Ray cluster" not in result.stderr:
                break
            time.sleep(2)  # the head is still starting
        assert result is not None and result.returncode == 0, result.stderr
        assert "completed, 50 of 50 games stored" in result.stdout
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
    with open_database(str(db)).connect() as connection:
        stored = connection.execute(sa.text('SELECT count(DISTINCT "index") FROM game')).scalar()
    assert stored == 50
