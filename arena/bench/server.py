"""A live ``arena serve`` for the benchmarks that measure it from outside: a subprocess
on a free loopback port over a SQLite database, with the accounts and settings asked
for, stopped at the end."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from arena.errors import ArenaError

START_SECONDS = 120.0
STOP_SECONDS = 30.0
"""How long a server may take to stop once asked, before it is killed."""


class BenchError(ArenaError):
    """The benchmark cannot run here (no Chromium, no playwright, a server that fails)."""


@dataclass(frozen=True)
class LiveServer:
    url: str
    pid: int
    tokens: tuple[str, ...]
    """One bearer token for each account asked for, in order."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def live_server(
    folder: Path,
    *,
    accounts: Sequence[str] = ("bench",),
    settings: str = "",
    options: Sequence[str] = (),
    checkout: Path | None = None,
) -> Iterator[LiveServer]:
    """``arena serve --no-worker`` over a new database in ``folder``, with ``accounts``,
    the TOML ``settings`` and more command-line ``options``; yields it once it answers.
    With ``checkout``, the server runs that checkout of arena (its directory first on
    ``PYTHONPATH``, run from ``folder``, since ``-m`` puts the working directory before
    it): another version, for a before/after.

    Raises:
        BenchError: the server exits or does not answer within START_SECONDS.
    """
    from arena.store.db import open_database, session_scope
    from arena.web.accounts import create_account

    db = str(folder / "arena.db")
    engine = open_database(db)
    with session_scope(engine) as session:
        tokens = tuple(create_account(session, name)[1] for name in accounts)
    engine.dispose()
    settings_file = folder / "web.toml"
    settings_file.write_text(settings)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = ["serve", "--port", str(port), "--no-worker", "--db", db]
    command += ["--settings", str(settings_file), *options]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if checkout is not None:
        path = [str(checkout.resolve()), *filter(None, [os.environ.get("PYTHONPATH")])]
        env["PYTHONPATH"] = os.pathsep.join(path)
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=folder if checkout is not None else None,
    )
    try:
        _wait_up(server, url)
        yield LiveServer(url, server.pid, tokens)
    finally:
        server.terminate()
        try:
            server.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _wait_up(server: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise BenchError(f"arena serve exited with status {server.returncode}")
        try:
            if httpx.get(f"{url}/api/games", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise BenchError(f"arena serve did not answer within {START_SECONDS:g} s")
