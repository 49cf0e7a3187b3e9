"""Cancelling a tournament a real worker is running: its sandboxed bots die within
seconds, and it stays cancelled when the worker (or the server with it) stops."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from arena.players.loader import PYTHON, BotSource
from arena.store.bots import add_bot
from arena.store.db import session_scope
from arena.web.worker import run_worker
from tests.arena.web.conftest import Web
from tests.arena.web.test_queue import QUIET
from tests.waiting import wait_until

# Worker processes running sandboxed bots that stall.
pytestmark = [pytest.mark.xdist_group("worker"), pytest.mark.slow]

STALLER = """
import time

class {name}:
    def act(self, observation, legal_actions, time_left):
        time.sleep(600)
        return legal_actions[0]
"""


class Staller:
    """A bot whose every move takes 10 minutes, under a class name of its own, so that
    its processes can be told from any other test's."""

    def __init__(self) -> None:
        self.name = f"Staller{uuid.uuid4().hex}"
        self.source = BotSource(PYTHON, self.name, {}, STALLER.format(name=self.name))

    def processes(self) -> list[int]:
        """PIDs of its processes (their command line names its class)."""
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if self.name.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue  # it ended meanwhile
        return found


def start_worker(db_url: str, *options: str) -> subprocess.Popen[bytes]:
    environment = {key: value for key, value in os.environ.items() if key != "ARENA_DB"}
    return subprocess.Popen(
        [sys.executable, "-m", "arena", "worker", "--poll", "0.2", "--db", db_url, *options],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def end(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait()


@pytest.fixture
def worker(web: Web, db_url: str) -> Iterator[subprocess.Popen[bytes]]:
    process = start_worker(db_url)
    yield process
    end(process)


@pytest.fixture
def ray_worker(web: Web, db_url: str) -> Iterator[subprocess.Popen[bytes]]:
    """A worker its operator runs with Ray (a web user cannot ask for it)."""
    process = start_worker(db_url, "--executor", "ray")
    yield process
    end(process)


def start_stalling_tournament(
    web: Web, worker: subprocess.Popen[bytes], staller: Staller
) -> tuple[str, dict[str, str]]:
    """Queue a tournament whose first game waits on the staller; returns its URL and
    its owner's headers once the worker runs it and the staller's process is up."""
    with session_scope(web.engine) as session:  # straight in: the check would time out
        bot, _ = add_bot(session, name="staller", game="koenigsgarten", source=staller.source)
        label = bot.label
    config = {
        "game": "koenigsgarten",
        "bots": [label, "random"],
        "games": 4,
        "time_per_move": 60,
        "workers": 2,
    }
    owner = web.auth(f"owner-{staller.name[-12:]}")
    queued = web.client.post("/api/tournaments", headers=owner, json=config)
    assert queued.status_code == 202, queued.text
    url = f"/api/tournaments/{queued.json()['id']}"

    def staller_runs() -> bool:
        assert worker.poll() is None, worker.stderr.read() if worker.stderr else ""
        return bool(staller.processes())

    wait_until(staller_runs, what="the worker did not start the staller")
    assert web.client.get(url).json()["status"] == "running"
    return url, owner


def cancel(web: Web, url: str, owner: dict[str, str]) -> None:
    assert web.client.post(f"{url}/cancel", headers=web.auth("mallory")).status_code == 403
    response = web.client.post(f"{url}/cancel", headers=owner)
    assert response.status_code == 200, response.text


def stop(worker: subprocess.Popen[bytes]) -> None:
    worker.send_signal(signal.SIGTERM)
    worker.wait(300)
    assert worker.returncode == 0


def cancel_while_running(web: Web, worker: subprocess.Popen[bytes]) -> tuple[Staller, str]:
    """A staller's tournament, cancelled while the worker waits on the staller's move."""
    staller = Staller()
    url, owner = start_stalling_tournament(web, worker, staller)
    cancel(web, url, owner)
    return staller, url


def assert_stays_cancelled(web: Web, engine: Engine, url: str) -> None:
    assert web.client.get(url).json()["status"] == "cancelled"
    assert run_worker(engine, once=True, console=QUIET) == 0  # nobody runs it again
    assert web.client.get(url).json()["status"] == "cancelled"


def test_a_cancel_kills_the_bots_within_seconds_and_outlives_the_worker(
    web: Web, worker: subprocess.Popen[bytes], engine: Engine
) -> None:
    staller, url = cancel_while_running(web, worker)
    wait_until(lambda: not staller.processes(), what="the staller outlived the cancel")
    wait_until(
        lambda: web.client.get(url).json()["message"].startswith("cancelled after"),
        what="the worker did not record the cancel",
    )
    assert worker.poll() is None  # the worker goes on with the queue
    stop(worker)
    assert web.client.get(url).json()["stored"] == 0  # the game in progress was abandoned
    assert_stays_cancelled(web, engine, url)


def test_a_worker_stopped_just_after_a_cancel_leaves_it_cancelled(
    web: Web, worker: subprocess.Popen[bytes], engine: Engine
) -> None:
    staller, url = cancel_while_running(web, worker)
    stop(worker)  # at once: before its watch has seen the cancel, most likely
    wait_until(lambda: not staller.processes(), what="the staller outlived its worker")
    assert_stays_cancelled(web, engine, url)


@pytest.mark.slow  # starts Ray
def test_with_ray_a_cancel_kills_the_bots_and_a_stop_requeues(
    web: Web, ray_worker: subprocess.Popen[bytes], db_url: str
) -> None:
    if db_url.startswith("postgresql"):
        pytest.skip("Ray's start-up is slow: the database's part is the same as above")
    worker = ray_worker
    first = Staller()
    cancelled, owner = start_stalling_tournament(web, worker, first)
    cancel(web, cancelled, owner)
    wait_until(lambda: not first.processes(), what="Ray's staller outlived the cancel")
    assert worker.poll() is None
    second = Staller()
    stopped, _ = start_stalling_tournament(web, worker, second)
    stop(worker)  # exit code 0: not Ray's own exit in the middle of a write
    wait_until(lambda: not second.processes(), what="Ray's staller outlived its worker")
    assert web.client.get(cancelled).json()["status"] == "cancelled"
    requeued = web.client.get(stopped).json()
    assert requeued["status"] == "queued", requeued
