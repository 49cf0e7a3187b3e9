"""Accounts: tokens (stored hashed), who may change what, the per-token rate limit."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from arena.cli import app
from arena.store.bots import add_bot, builtin_source
from arena.store.db import open_database, session_scope
from arena.store.models import WriteRequest, utcnow
from arena.web.accounts import SUBMIT_BOT, hash_token
from tests.arena.web.conftest import FIRST_LEGAL, Web, make_account

runner = CliRunner()


def test_users_add_prints_a_token_that_authenticates_and_only_its_hash_is_stored(
    tmp_path: Path,
) -> None:
    from fastapi.testclient import TestClient

    from arena.web.app import create_app

    db = str(tmp_path / "arena.db")
    result = runner.invoke(app, ["users", "add", "carol", "--db", db])
    assert result.exit_code == 0, result.stderr
    token = result.stdout.strip()
    assert token.startswith("arena_") and len(token) > 40
    again = runner.invoke(app, ["users", "add", "carol", "--db", db])
    assert again.exit_code == 2 and "an account named 'carol' exists already" in again.stderr
    engine = open_database(db)
    with engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT name, token_hash FROM account")).all()
    assert rows == [("carol", hash_token(token))]
    with TestClient(create_app(engine)) as client:
        assert client.get("/api/me", headers={"Authorization": f"Bearer {token}"}).json() == {
            "name": "carol"
        }
        renewed = runner.invoke(app, ["users", "token", "carol", "--db", db]).stdout.strip()
        old = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert old.status_code == 401
        new = client.get("/api/me", headers={"Authorization": f"Bearer {renewed}"})
        assert new.status_code == 200
    listing = runner.invoke(app, ["users", "list", "--db", db])
    assert listing.exit_code == 0 and "carol" in listing.stdout
    bad = runner.invoke(app, ["users", "add", "no spaces", "--db", db])
    assert bad.exit_code == 2 and "bad account name 'no spaces'" in bad.stderr


def test_writes_need_a_known_token_and_reads_need_none(web: Web) -> None:
    for headers in ({}, {"Authorization": "Bearer arena_nope"}, {"Authorization": "Basic eDp5"}):
        response = web.client.post(
            "/api/bots",
            headers=headers,
            data={"name": "x", "game": "koenigsgarten"},
            files={"file": ("x.py", FIRST_LEGAL.encode(), "text/x-python")},
        )
        assert response.status_code == 401, headers
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert web.client.post("/api/tournaments", headers=headers, json={}).status_code == 401
    assert web.client.get("/api/bots").status_code == 200


def test_a_token_changes_only_its_own_bots(web: Web) -> None:
    alice, bob = web.auth("alice"), web.auth("bob")
    with session_scope(web.engine) as session:
        add_bot(
            session,
            name="operators",
            game="koenigsgarten",
            source=builtin_source("random", "koenigsgarten"),
        )
    upload = {"file": ("x.py", FIRST_LEGAL.encode(), "text/x-python")}
    created = web.client.post(
        "/api/bots", headers=alice, data={"name": "alices", "game": "koenigsgarten"}, files=upload
    )
    assert created.status_code == 201
    for name in ("alices", "operators"):
        taken = web.client.post(
            "/api/bots", headers=bob, data={"name": name, "game": "koenigsgarten"}, files=upload
        )
        assert taken.status_code == 403 and "choose another name" in taken.json()["detail"]
        assert web.client.delete(f"/api/bots/{name}", headers=bob).status_code == 403
    assert web.client.get("/api/bots/alices@1/code", headers=bob).status_code == 403
    retired = web.client.delete("/api/bots/alices@1", headers=alice)
    assert retired.status_code == 200 and retired.json()[0]["retired"] is True
    assert web.client.get("/api/bots").json()[0]["label"] == "operators@1"


def fill_window(engine: Engine, token_owner: str, count: int) -> None:
    with engine.connect() as connection:
        account_id = connection.execute(
            sa.text("SELECT id FROM account WHERE name = :n"), {"n": token_owner}
        ).scalar_one()
    with session_scope(engine) as session:
        for _ in range(count):
            session.add(WriteRequest(account_id=account_id, action=SUBMIT_BOT, created=utcnow()))


def test_submissions_are_rate_limited_per_token_with_retry_after(web: Web) -> None:
    alice = {"Authorization": f"Bearer {make_account(web.engine, 'alice')}"}
    bob = web.auth("bob")
    fill_window(web.engine, "alice", 3)  # the test app admits 3 writes per minute
    malformed = web.client.post(
        "/api/tournaments", headers=alice, json={"game": "koenigsgarten", "bots": []}
    )
    assert malformed.status_code == 422  # validation comes first: costs nothing
    limited = web.client.post(
        "/api/tournaments",
        headers=alice,
        json={"game": "koenigsgarten", "bots": ["random", "first-legal"]},
    )
    assert limited.status_code == 429
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    assert "at most 3 submissions per 60 s" in limited.json()["detail"]
    other = web.client.post(
        "/api/tournaments",
        headers=bob,
        json={"game": "koenigsgarten", "bots": ["random", "first-legal"]},
    )
    assert other.status_code == 202
