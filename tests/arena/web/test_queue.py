"""Queueing tournaments over HTTP and the worker that runs them."""

from __future__ import annotations

import io
import os
import socket
import subprocess
from datetime import timedelta

import pytest
import sqlalchemy as sa
from rich.console import Console

import arena.tournament.driver
from arena.errors import StorageError
from arena.store.models import TournamentStatus, utcnow
from arena.tournament.driver import TournamentRunner
from arena.tournament.lease import STALE_SECONDS, read_holder
from arena.web.worker import (
    ORPHAN_MESSAGE,
    REQUEUED_MESSAGE,
    claim_next,
    requeue_orphans,
    run_claimed,
    run_worker,
)
from tests.arena.web.conftest import Web

QUIET = Console(file=io.StringIO())

TOML_CONFIG = """
name = "queued round robin"
game = "koenigsgarten"
bots = ["random", "first-legal", "greedy"]
games = 2
"""


def test_a_toml_config_is_queued_and_a_worker_runs_it(web: Web) -> None:
    alice = web.auth("alice")
    response = web.client.post(
        "/api/tournaments",
        headers={**alice, "Content-Type": "application/toml"},
        content=TOML_CONFIG,
    )
    assert response.status_code == 202, response.text
    queued = response.json()
    assert queued["status"] == TournamentStatus.QUEUED and queued["owner"] == "alice"
    assert queued["scheduled"] == 6 and queued["stored"] == 0
    assert response.headers["location"] == f"/api/tournaments/{queued['id']}"
    assert run_worker(web.engine, once=True, console=QUIET, executor="local") == 1
    done = web.client.get(f"/api/tournaments/{queued['id']}").json()
    assert done["status"] == "completed" and done["stored"] == 6
    assert web.client.get(f"/api/tournaments/{queued['id']}/report").status_code == 200
    assert run_worker(web.engine, once=True, console=QUIET, executor="local") == 0


def test_a_failure_while_queueing_leaves_nothing_behind(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(*args: object) -> None:
        raise StorageError("database error: the disk is full")

    # The schedule (a written one, or the count of a generated one) is the last thing
    # written: the tournament and its participants are in the transaction by then.
    monkeypatch.setattr(arena.tournament.driver, "schedule_games", failing)
    monkeypatch.setattr(arena.tournament.driver, "set_generated_schedule", failing)
    config = {"game": "koenigsgarten", "bots": ["random", "first-legal"]}
    response = web.client.post("/api/tournaments", headers=web.auth(), json=config)
    assert response.status_code == 503, response.text
    with web.engine.connect() as connection:
        for table in ("tournament", "participant", "scheduled_game"):
            count = connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar()
            assert count == 0, table
    assert web.client.get("/api/tournaments").json()["total"] == 0
    assert claim_next(web.engine) is None


def test_a_claimed_tournament_says_so(web: Web) -> None:
    config = {"game": "koenigsgarten", "bots": ["random", "first-legal"]}
    tournament_id = web.client.post("/api/tournaments", headers=web.auth(), json=config).json()[
        "id"
    ]
    assert claim_next(web.engine) == tournament_id
    claimed = web.client.get(f"/api/tournaments/{tournament_id}").json()
    assert claimed["status"] == TournamentStatus.CLAIMED == "claimed"
    listed = web.client.get("/api/tournaments", params={"status": "claimed"}).json()
    assert [t["id"] for t in listed["items"]] == [tournament_id]


def test_two_workers_never_claim_the_same_tournament(web: Web) -> None:
    config = {"game": "koenigsgarten", "bots": ["random", "first-legal"]}
    alice = web.auth()
    ids = [
        web.client.post("/api/tournaments", headers=alice, json=config).json()["id"] for _ in "ab"
    ]
    assert claim_next(web.engine) == ids[0]
    assert claim_next(web.engine) == ids[1]
    assert claim_next(web.engine) is None


def test_a_stopped_worker_puts_the_tournament_back_in_the_queue(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = {
        "game": "koenigsgarten",
        "bots": ["random", "first-legal"],
        "games": 4,
    }
    tournament_id = web.client.post("/api/tournaments", headers=web.auth(), json=config).json()[
        "id"
    ]
    original = TournamentRunner._play

    def interrupted(self: TournamentRunner, *args: object) -> str | None:
        raise KeyboardInterrupt  # what SIGTERM turns into while a tournament runs

    monkeypatch.setattr(TournamentRunner, "_play", interrupted)
    assert claim_next(web.engine) == tournament_id
    summary = run_claimed(web.engine, tournament_id, executor="local", console=QUIET)
    assert summary is not None and summary.status == "interrupted"
    requeued = web.client.get(f"/api/tournaments/{tournament_id}").json()
    assert requeued["status"] == TournamentStatus.QUEUED and requeued["message"] == REQUEUED_MESSAGE
    monkeypatch.setattr(TournamentRunner, "_play", original)
    assert run_worker(web.engine, once=True, console=QUIET, executor="local") == 1
    assert web.client.get(f"/api/tournaments/{tournament_id}").json()["stored"] == 4


def test_only_the_owner_cancels_and_a_cancelled_tournament_is_not_run(web: Web) -> None:
    alice, bob = web.auth("alice"), web.auth("bob")
    config = {"game": "koenigsgarten", "bots": ["random", "first-legal"]}
    tournament_id = web.client.post("/api/tournaments", headers=alice, json=config).json()["id"]
    refused = web.client.post(f"/api/tournaments/{tournament_id}/cancel", headers=bob)
    assert refused.status_code == 403
    cancelled = web.client.post(f"/api/tournaments/{tournament_id}/cancel", headers=alice)
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    twice = web.client.post(f"/api/tournaments/{tournament_id}/cancel", headers=alice)
    assert twice.status_code == 409 and "already cancelled" in twice.json()["detail"]
    assert run_worker(web.engine, once=True, console=QUIET, executor="local") == 0


@pytest.mark.parametrize(
    ("body", "content_type", "status", "words"),
    [
        (
            '{"game": "koenigsgarten", "bots": ["random", "first-legal"], "games": 0}',
            "application/json",
            422,
            "field 'games': Input should be greater than or equal to 1 (got 0)",
        ),
        (
            '{"game": "koenigsgarten", "bots": ["random", "nobody"]}',
            "application/json",
            422,
            "field 'bots': unknown bot 'nobody'",
        ),
        (
            '{"game": "koenigsgarten", "bots": ["random", "first-legal"], "colour": "red"}',
            "application/json",
            422,
            "unknown field 'colour'",
        ),
        (
            '{"game": "koenigsgarten", "bots": ["random", "first-legal"], '
            '"ray_address": "10.0.0.1:6379"}',
            "application/json",
            422,
            "field 'ray_address': not allowed over the web",
        ),
        (
            '{"game": "koenigsgarten", "bots": ["random", "first-legal"], "games": 20000}',
            "application/json",
            422,
            "field 'games': at most 10000 over the web (got 20000)",
        ),
        (
            '{"game": "koenigsgarten", "format": "elo", "bots": ["random", "first-legal"], '
            '"elo": {"max_games": 500000}}',
            "application/json",
            422,
            "schedules up to 500000 games",
        ),
        ('{"game": ', "application/json", 422, "the body is not valid JSON"),
        ("game = ", "application/toml", 422, "the body is not valid TOML"),
        ("[1, 2]", "application/json", 422, "a JSON object or TOML table"),
        ("game = 'koenigsgarten'", "text/html", 422, "Content-Type 'text/html'"),
        ("#" * 70_000, "application/toml", 413, "larger than 65536 bytes"),
    ],
)
def test_bad_configurations_are_refused_naming_the_field(
    web: Web, body: str, content_type: str, status: int, words: str
) -> None:
    response = web.client.post(
        "/api/tournaments",
        headers={**web.auth(), "Content-Type": content_type},
        content=body,
    )
    assert response.status_code == status, response.text
    assert words in response.json()["detail"]
    assert web.client.get("/api/tournaments").json()["total"] == 0


def dead_pid() -> int:
    """The pid of a process that ran and was reaped."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def set_lease(web: Web, tournament_id: int, **values: object) -> None:
    columns = ", ".join(f"lease_{name} = :{name}" for name in values)
    with web.engine.begin() as connection:
        connection.execute(
            sa.text(f"UPDATE tournament SET {columns} WHERE id = :id"),
            {**values, "id": tournament_id},
        )


def test_a_claim_names_its_worker_and_a_gone_workers_claim_is_requeued(web: Web) -> None:
    config = {"game": "koenigsgarten", "bots": ["random", "first-legal"]}
    tournament_id = web.client.post("/api/tournaments", headers=web.auth(), json=config).json()[
        "id"
    ]
    assert claim_next(web.engine) == tournament_id
    with web.engine.connect() as connection:
        host, pid = connection.execute(
            sa.text("SELECT lease_host, lease_pid FROM tournament WHERE id = :id"),
            {"id": tournament_id},
        ).one()
    assert (host, pid) == (socket.gethostname(), os.getpid())
    assert read_holder(web.engine, tournament_id) is None  # no driver holds it yet
    assert requeue_orphans(web.engine) == []  # its worker (this process) runs
    set_lease(web, tournament_id, pid=dead_pid())  # killed before its driver started
    assert requeue_orphans(web.engine) == [tournament_id]
    requeued = web.client.get(f"/api/tournaments/{tournament_id}").json()
    assert requeued["status"] == "queued" and requeued["message"].startswith(ORPHAN_MESSAGE)
    assert run_worker(web.engine, once=True, console=QUIET, executor="local") == 1
    assert web.client.get(f"/api/tournaments/{tournament_id}").json()["status"] == "completed"


def test_a_running_tournament_elsewhere_is_requeued_only_when_its_heartbeat_is_stale(
    web: Web,
) -> None:
    config = {"game": "koenigsgarten", "bots": ["random", "first-legal"]}
    tournament_id = web.client.post("/api/tournaments", headers=web.auth(), json=config).json()[
        "id"
    ]
    assert claim_next(web.engine) == tournament_id
    set_lease(web, tournament_id, token="t", host="elsewhere", pid=1, since=utcnow())
    with web.engine.begin() as connection:
        connection.execute(sa.text("UPDATE tournament SET status = 'running'"))
    set_lease(web, tournament_id, renewed=utcnow() - timedelta(seconds=STALE_SECONDS - 60))
    assert requeue_orphans(web.engine) == []
    set_lease(web, tournament_id, renewed=utcnow() - timedelta(seconds=STALE_SECONDS + 60))
    assert requeue_orphans(web.engine) == [tournament_id]
    assert read_holder(web.engine, tournament_id) is None
    assert claim_next(web.engine) == tournament_id
