"""``arena serve`` for real: a live server whose worker runs a tournament queued over
HTTP, and stops cleanly with it."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import pytest

from arena.store.db import open_database
from tests.arena.web.conftest import free_port, make_account, server_process
from tests.waiting import wait_until

# A live server and its worker in processes of their own.
pytestmark = [pytest.mark.xdist_group("browser"), pytest.mark.slow]


def test_the_served_worker_runs_a_queued_tournament(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    engine = open_database(db)
    token = make_account(engine, "alice")
    engine.dispose()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with server_process(db, port, worker=True) as server:
        queued = httpx.post(
            f"{url}/api/tournaments",
            headers={"Authorization": f"Bearer {token}"},
            json={
                "game": "koenigsgarten",
                "bots": ["random", "first-legal"],
                "games": 4,
            },
        )
        assert queued.status_code == 202, queued.text
        tournament = f"{url}/api/tournaments/{queued.json()['id']}"
        wait_until(
            lambda: httpx.get(tournament).json()["status"] == "completed",
            what="the worker did not run the queued tournament",
        )
        assert httpx.get(tournament).json()["stored"] == 4
        server.send_signal(signal.SIGINT)
        server.wait(300)
    assert server.returncode == 0
    stderr = server.stderr.read().decode() if server.stderr else ""
    assert "worker: stopped after 1 tournament" in stderr
