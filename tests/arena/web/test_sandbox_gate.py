"""`arena serve` states the sandbox's isolation, and takes bots from the web only when
every fence the docs promise is in force (or the operator allows less)."""

from __future__ import annotations

import dataclasses
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

from arena.players.sandbox import NO_ISOLATION, detect_isolation
from arena.store.db import open_database
from arena.web.app import create_app
from tests.arena.web.conftest import FIRST_LEGAL, TEST_SETTINGS, Web
from tests.arena.web.test_submit import stored, submit_python

CHECKOUT = Path(__file__).resolve().parents[3]


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    """SQLite only: the database plays no part in the gate."""
    engine = open_database(str(tmp_path / "arena.db"))
    yield engine
    engine.dispose()


@pytest.fixture
def weak_web(engine: Engine) -> Iterator[Web]:
    """A server on a machine whose sandbox has none of the promised isolation."""
    with TestClient(create_app(engine, settings=TEST_SETTINGS, isolation=NO_ISOLATION)) as client:
        yield Web(engine, client)


def test_uploads_are_refused_where_the_sandbox_is_weak(weak_web: Web) -> None:
    response = submit_python(weak_web, weak_web.auth(), "picker", FIRST_LEGAL)
    assert response.status_code == 503
    detail = response.json()["detail"]
    assert "does not take bots from the web" in detail and "--allow-weak-sandbox" in detail
    for missing in NO_ISOLATION.missing():
        assert missing in detail
    assert stored(weak_web) == []


@pytest.mark.slow
def test_the_operator_can_allow_uploads_into_a_weak_sandbox(engine: Engine) -> None:
    settings = dataclasses.replace(TEST_SETTINGS, allow_weak_sandbox=True)
    with TestClient(create_app(engine, settings=settings, isolation=NO_ISOLATION)) as client:
        web = Web(engine, client)
        response = submit_python(web, web.auth(), "picker", FIRST_LEGAL)
    assert response.status_code == 201, response.text
    assert [bot.name for bot in stored(web)] == ["picker"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve_statement(tmp_path: Path, *flags: str) -> str:
    """What `arena serve` prints before it serves (it is stopped once it does)."""
    command = [sys.executable, "-m", "arena", "serve", "--no-worker", "--port", str(free_port())]
    server = subprocess.Popen(
        [*command, "--db", str(tmp_path / "arena.db"), *flags],
        cwd=CHECKOUT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "COLUMNS": "500"},
        text=True,
    )
    assert server.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 120
    try:
        while not any("serving http" in line for line in lines):
            assert time.monotonic() < deadline, lines
            if select.select([server.stdout], [], [], 1.0)[0]:
                line = server.stdout.readline()
                assert line, f"arena serve ended: {lines}"
                lines.append(line)
    finally:
        server.terminate()
        server.wait(60)
    return " ".join(line.strip() for line in lines)


@pytest.mark.slow  # starts `arena serve` twice
def test_serve_states_the_isolation_and_its_upload_policy(tmp_path: Path) -> None:
    isolation = detect_isolation()
    text = serve_statement(tmp_path)
    assert f"sandbox: {isolation.describe()}" in text
    if isolation.missing():
        assert "Bot uploads: refused" in text and "--allow-weak-sandbox" in text
    else:
        assert "Bot uploads: accepted (every promised fence is in force)" in text
