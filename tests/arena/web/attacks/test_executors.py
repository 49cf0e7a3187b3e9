"""A web user cannot choose how or where tournaments run: ``executor = "ray"`` in a
queued configuration made the worker start a Ray instance listening on every
interface. Executors and clusters are the operator's (``arena worker --executor``)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from sqlalchemy.engine import Engine

import arena.tournament.execution
from arena.store.db import session_scope
from arena.store.models import TournamentStatus
from arena.tournament.config import validate_config
from arena.tournament.driver import create_tournament
from arena.web.accounts import create_account
from arena.web.worker import claim_next, run_claimed
from tests.arena.web.conftest import Web

BASE = {"game": "koenigsgarten", "bots": ["random", "first-legal"], "games": 2}


def test_a_configuration_names_no_executor_and_no_cluster(web: Web) -> None:
    alice = web.auth()
    for field, value in (("executor", "ray"), ("executor", "local"), ("ray_address", "auto")):
        response = web.client.post("/api/tournaments", headers=alice, json={**BASE, field: value})
        assert response.status_code == 422, response.text
        detail = response.json()["detail"]
        assert f"field {field!r}: not allowed over the web" in detail and "operator" in detail
    toml = 'game = "koenigsgarten"\nbots = ["random", "first-legal"]\nexecutor = "ray"\n'
    response = web.client.post(
        "/api/tournaments", headers={**alice, "Content-Type": "application/toml"}, content=toml
    )
    assert response.status_code == 422 and "field 'executor'" in response.json()["detail"]
    assert web.client.get("/api/tournaments").json()["total"] == 0
    schema = web.client.get("/api/openapi.json").text
    assert '"ray_address"' not in schema


def test_the_worker_never_runs_a_queued_tournament_with_its_configurations_executor(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_cluster(*args: object, **kwargs: object) -> None:
        raise AssertionError("the worker started Ray for a web user")

    monkeypatch.setattr(arena.tournament.execution, "RayExecutor", no_cluster)
    with session_scope(engine) as session:  # queued before the web refused the field
        account, _ = create_account(session, "alice")
        tournament_id = create_tournament(
            session,
            validate_config({**BASE, "executor": "ray"}),
            status=TournamentStatus.QUEUED,
            owner_id=account.id,
            sealed=True,
        )
    assert claim_next(engine) == tournament_id
    summary = run_claimed(engine, tournament_id, executor=None, console=Console(file=io.StringIO()))
    assert summary is not None and summary.status == "completed", summary
    assert summary.executor is not None and not summary.executor.startswith("ray")
