"""Sessions that end (issue 30, point 3): a session cookie copied before signing out,
before a new token or before the account is removed is worth nothing afterwards, in
every web process over the database.

The victim's browser and the thief's are two clients of two apps over one database,
as two web processes behind one proxy would be.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from arena.cli import app
from arena.web.app import create_app
from arena.web.sessions import COOKIE
from tests.arena.web.conftest import SIGNED_IN, make_account, use_cookie
from tests.arena.web.test_play import csrf_of, sign_in, start


@pytest.fixture
def browsers(engine: Engine) -> Iterator[tuple[TestClient, TestClient]]:
    """The victim's browser on one web process, the thief's on another."""
    with TestClient(create_app(engine)) as victim, TestClient(create_app(engine)) as thief:
        yield victim, thief


def live_games(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.execute(sa.text("SELECT count(*) FROM live_game")).scalar_one())


def steal(victim: TestClient, thief: TestClient) -> str:
    """Copy the victim's cookie into the thief's browser, where it works (so far);
    returns the anti-CSRF token that goes with it."""
    use_cookie(thief, victim.cookies[COOKIE])
    assert SIGNED_IN in thief.get("/games/blumengarten").text
    return csrf_of(thief, "/games/blumengarten")


def test_a_cookie_copied_before_signing_out_is_signed_out_after_it(
    browsers: tuple[TestClient, TestClient], engine: Engine
) -> None:
    victim, thief = browsers
    csrf = sign_in(victim, make_account(engine, "alice"))
    game_id = start(victim, csrf, "blumengarten", seats="1", seat="0")
    stolen_csrf = steal(victim, thief)
    signed_out = victim.post("/signout", data={"csrf": csrf}, follow_redirects=False)
    assert signed_out.status_code == 303
    assert SIGNED_IN not in victim.get("/games/blumengarten").text

    assert SIGNED_IN not in thief.get("/games/blumengarten").text
    started = thief.post(
        "/games/blumengarten/play",
        data={"csrf": stolen_csrf, "seats": "1", "seat": "0"},
        follow_redirects=False,
    )
    assert started.status_code == 401, started.text
    assert live_games(engine) == 1  # the victim's own, nothing new
    assert thief.get(f"/play/{game_id}").status_code == 401
    move = thief.post(
        f"/play/{game_id}/move",
        json={"version": 0, "action": "resign"},
        headers={"X-CSRF-Token": stolen_csrf},
    )
    assert move.status_code == 401, move.text


def run(*arguments: str) -> str:
    result = CliRunner().invoke(app, list(arguments))
    assert result.exit_code == 0, result.output
    return str(result.stdout)


def test_a_new_token_or_removing_the_account_ends_every_session(
    browsers: tuple[TestClient, TestClient], engine: Engine, db_url: str
) -> None:
    victim, thief = browsers
    sign_in(victim, make_account(engine, "alice"))
    steal(victim, thief)
    token = run("users", "token", "alice", "--db", db_url).strip()
    for browser in browsers:
        assert SIGNED_IN not in browser.get("/games/blumengarten").text

    sign_in(victim, token)
    steal(victim, thief)
    assert "account 'alice' removed" in run("users", "remove", "alice", "--db", db_url)
    for browser in browsers:
        assert SIGNED_IN not in browser.get("/games/blumengarten").text
    again = victim.post("/signin", data={"token": token, "csrf": csrf_of(victim)})
    assert again.status_code == 401 and "unknown token" in again.text
    api = victim.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert api.status_code == 401
    with engine.connect() as connection:
        removed = connection.execute(sa.text("SELECT removed FROM account")).scalar_one()
    assert removed is not None and "alice" in run("users", "list", "--db", db_url)
    refused = CliRunner().invoke(app, ["users", "token", "alice", "--db", db_url])
    assert refused.exit_code == 2 and "account 'alice' was removed" in refused.output
