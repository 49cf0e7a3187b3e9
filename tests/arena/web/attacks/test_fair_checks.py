"""Fair upload checks (issue 30, point 4): one account sending eight slow bots at once,
within its rate limit, cannot keep another account's upload waiting until it fails;
the other account's check runs as soon as a slot frees.

The uploads are real requests through the app; the check itself (a child process
playing sample games for up to 15 s of the bot's time) is replaced by one that holds
its slot until the test lets it finish, so the order in which checks get their slots
is seen exactly, on any machine.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine

import arena.web.api
from arena.players.loader import PYTHON, BotSource
from arena.web.accounts import RateLimit
from arena.web.app import WebSettings, create_app
from arena.web.checker import Submission, Verdict
from tests.arena.web.conftest import FIRST_LEGAL, make_account
from tests.waiting import GENEROUS_SECONDS, wait_until


class SlowChecks:
    """Stands in for the checker's child process: each check holds its slot until
    :meth:`finish` names its bot, and the bots whose checks started are listed in order."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self._finished: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def __call__(self, submission: Submission) -> Verdict:
        with self._lock:
            self.started.append(submission.name)
            finished = self._finished.setdefault(submission.name, threading.Event())
        assert finished.wait(GENEROUS_SECONDS), f"{submission.name}'s check was never finished"
        return Verdict(BotSource(PYTHON, "FirstLegal", {}, FIRST_LEGAL))

    def finish(self, *names: str) -> None:
        """Let these bots' checks end (now or, for one not started yet, at once)."""
        with self._lock:
            for name in names:
                self._finished.setdefault(name, threading.Event()).set()


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    """The uploads' threads: mallory's eight and bob's one."""
    with ThreadPoolExecutor(9) as threads:
        yield threads


@pytest.fixture
def slow_checks(monkeypatch: pytest.MonkeyPatch, pool: ThreadPoolExecutor) -> Iterator[SlowChecks]:
    checks = SlowChecks()
    monkeypatch.setattr(arena.web.api, "run_check", checks)
    yield checks
    checks.finish(*checks.started)  # a failed test leaves no upload waiting on its check


@pytest.fixture
def client(engine: Engine) -> Iterator[TestClient]:
    # The defaults (2 slots, a 60 s wait) but a rate limit that lets 8 uploads through.
    settings = WebSettings(rate_limit=RateLimit(20, 60.0), allow_weak_sandbox=True)
    with TestClient(create_app(engine, settings=settings)) as client:
        yield client


def upload(client: TestClient, token: str, name: str) -> httpx.Response:
    return client.post(
        "/api/bots",
        headers={"Authorization": f"Bearer {token}"},
        data={"name": name, "game": "koenigsgarten"},
        files={"file": ("bot.py", FIRST_LEGAL.encode(), "text/x-python")},
    )


def test_one_accounts_slow_bots_do_not_starve_anothers_upload(
    client: TestClient, engine: Engine, pool: ThreadPoolExecutor, slow_checks: SlowChecks
) -> None:
    mallory, bob = make_account(engine, "mallory"), make_account(engine, "bob")
    slow = [f"slow{index}" for index in range(8)]
    flood = [pool.submit(upload, client, mallory, name) for name in slow]
    wait_until(lambda: len(slow_checks.started) == 2, what="mallory's first two checks")

    def answered() -> list[Future[httpx.Response]]:
        return [sent for sent in flood if sent.done()]

    # Two checks of one account run or wait at once: the other six are refused now.
    wait_until(lambda: len(answered()) == 6, what="mallory's six other uploads answered")
    for refused in answered():
        answer = refused.result()
        assert answer.status_code == 429, answer.text
        assert int(answer.headers["Retry-After"]) > 0
        assert "an account may have 2 submission checks running or waiting" in answer.text
    bobs = pool.submit(upload, client, bob, "honest")
    slow_checks.finish(slow_checks.started[0])
    wait_until(lambda: len(slow_checks.started) == 3, what="the next check")
    assert slow_checks.started[2] == "honest"  # bob's, ahead of anything of mallory's
    slow_checks.finish(*slow, "honest")
    assert bobs.result().status_code == 201, bobs.result().text
    assert sorted(sent.result().status_code for sent in flood) == [201] * 2 + [429] * 6
