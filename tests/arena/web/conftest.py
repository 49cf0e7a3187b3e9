"""Fixtures of the web tests: a database with real played games, an app, accounts."""

from __future__ import annotations

import contextlib
import io
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi.testclient import TestClient
from rich.console import Console
from sqlalchemy.engine import Engine

from arena.report.build import record_final_ratings
from arena.store.db import open_database, session_scope
from arena.tournament.config import validate_config
from arena.tournament.driver import TournamentRunner, create_tournament
from arena.web.accounts import RateLimit, create_account
from arena.web.app import WebSettings, create_app
from arena.web.sessions import COOKIE
from tests.waiting import wait_until

FIRST_LEGAL = """
class FirstLegal:
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
"""


def play_tournament(engine: Engine, **config: object) -> int:
    """Create and run a tournament with the local executor; returns its id."""
    settings = {"executor": "local", "games": 2, "seed": 3, **config}
    with session_scope(engine) as session:
        tournament_id = create_tournament(session, validate_config(settings, "test"))
    TournamentRunner(
        engine,
        tournament_id,
        console=Console(file=io.StringIO()),
        on_completed=record_final_ratings,
    ).run()
    return tournament_id


def make_account(engine: Engine, name: str) -> str:
    """A new account's bearer header value."""
    with session_scope(engine) as session:
        _, token = create_account(session, name)
    return token


SIGNED_IN = 'id="signed-in"'
"""On a page only while it is shown to a signed-in session."""


def use_cookie(client: TestClient, cookie: str) -> None:
    """Send the session cookie ``cookie`` from now on, and no other one (as a thief who
    copied it would)."""
    client.cookies.clear()
    client.cookies.set(COOKIE, cookie)


@dataclass
class Web:
    engine: Engine
    client: TestClient

    def auth(self, name: str = "alice") -> dict[str, str]:
        return {"Authorization": f"Bearer {make_account(self.engine, name)}"}


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = open_database(db_url)
    yield engine
    engine.dispose()


TEST_SETTINGS = WebSettings(rate_limit=RateLimit(requests=3, seconds=60.0), check_seconds=10.0)


@pytest.fixture
def web(engine: Engine) -> Iterator[Web]:
    with TestClient(create_app(engine, settings=TEST_SETTINGS)) as client:
        yield Web(engine, client)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def live_server(db: str) -> Iterator[str]:
    """``arena serve --no-worker`` over ``db`` on a free port; yields its URL once it
    answers, and stops it at the end."""
    port = free_port()
    with server_process(db, port):
        yield f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def server_process(
    db: str, port: int, *, worker: bool = False
) -> Iterator[subprocess.Popen[bytes]]:
    """``arena serve`` over ``db`` on ``port`` (``--no-worker`` unless ``worker``);
    yields the process once it answers, and stops it at the end (if it still runs)."""
    command = [sys.executable, "-m", "arena", "serve", "--port", str(port), "--db", db]
    environment = {key: value for key, value in os.environ.items() if key != "ARENA_DB"}
    server = subprocess.Popen(
        command if worker else [*command, "--no-worker"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**environment, "PYTHONUNBUFFERED": "1"},
    )
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        try:
            return httpx.get(f"{url}/api/games", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_until(up, what="arena serve did not start")
        yield server
    finally:
        server.terminate()
        server.wait(10)
