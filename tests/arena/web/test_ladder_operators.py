"""An operator starts and stops ladders over the API; other tokens are refused
(``arena users add NAME --operator``, ``arena users grant``)."""

from __future__ import annotations

import re
from pathlib import Path

from sqlmodel import Session, select
from typer.testing import CliRunner

from arena.cli import app
from arena.store.db import session_scope
from arena.store.models import Account, Ladder, Tournament
from arena.web.accounts import create_account
from tests.arena.web.conftest import Web

GAME = "koenigsgarten"


def operator(web: Web, name: str = "ops") -> dict[str, str]:
    with session_scope(web.engine) as session:
        _, token = create_account(session, name, operator=True)
    return {"Authorization": f"Bearer {token}"}


def ladder_status(web: Web, ladder_id: int) -> str:
    with Session(web.engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None
        tournament = session.get(Tournament, ladder.tournament_id)
        assert tournament is not None
        return str(tournament.status)


def test_an_operator_starts_stops_and_restarts_a_ladder(web: Web) -> None:
    ops = operator(web)
    body = {"game": GAME, "seats": 2, "time_control": "unlimited"}
    started = web.client.post("/api/ladders", json=body, headers=ops)
    assert started.status_code == 201, started.text
    ladder = started.json()
    assert (ladder["game"], ladder["seats"], ladder["time_class"], ladder["status"]) == (
        GAME,
        2,
        "unlimited",
        "running",
    )
    assert ladder_status(web, ladder["id"]) == "running"
    stopped = web.client.post(f"/api/ladders/{ladder['id']}/stop", headers=ops)
    assert stopped.status_code == 200, stopped.text
    assert stopped.json()["status"] == "stopped"
    assert ladder_status(web, ladder["id"]) == "stopped"
    again = web.client.post("/api/ladders", json=body, headers=ops)
    assert again.status_code == 200, again.text
    assert again.json()["id"] == ladder["id"] and again.json()["status"] == "running"
    shown = web.client.get(f"/api/ladders/{GAME}").json()
    assert [(item["id"], item["status"]) for item in shown] == [(ladder["id"], "running")]


def test_non_operators_and_missing_or_forged_tokens_are_refused(web: Web) -> None:
    ops = operator(web)
    body = {"game": GAME, "time_control": "blitz"}
    assert web.client.post("/api/ladders", json=body).status_code == 401
    forged = {"Authorization": "Bearer arena_not-a-real-token"}
    assert web.client.post("/api/ladders", json=body, headers=forged).status_code == 401
    refused = web.client.post("/api/ladders", json=body, headers=web.auth("bob"))
    assert refused.status_code == 403
    assert "only an operator may start a ladder" in refused.json()["detail"]
    with Session(web.engine) as session:
        assert session.exec(select(Ladder)).first() is None
    ladder_id = web.client.post("/api/ladders", json=body, headers=ops).json()["id"]
    url = f"/api/ladders/{ladder_id}/stop"
    assert web.client.post(url).status_code == 401
    assert web.client.post(url, headers=forged).status_code == 401
    assert web.client.post(url, headers=web.auth("carol")).status_code == 403
    assert ladder_status(web, ladder_id) == "running"
    assert web.client.post("/api/ladders/999/stop", headers=ops).status_code == 404


def test_bad_input_gets_the_command_lines_one_line_message(web: Web) -> None:
    ops = operator(web)
    cases = [
        ({"game": "nosuchgame"}, "nosuchgame"),
        ({"game": GAME, "seats": 9}, "9"),
        ({"game": GAME, "time_control": "sometimes"}, "sometimes"),
        ({"game": GAME, "speed": 3}, "speed"),
        ({"seats": 2}, "game"),
    ]
    for body, quoted in cases:
        answer = web.client.post("/api/ladders", json=body, headers=ops)
        assert answer.status_code == 422, (body, answer.text)
        detail = answer.json()["detail"]
        assert isinstance(detail, str) and "\n" not in detail and quoted in detail, body
    with Session(web.engine) as session:
        assert session.exec(select(Ladder)).first() is None


def test_the_write_rate_limit_applies(web: Web) -> None:
    ops = operator(web)
    body = {"game": GAME, "time_control": "unlimited"}
    answers = [web.client.post("/api/ladders", json=body, headers=ops) for _ in range(4)]
    assert [a.status_code for a in answers[:3]] == [201, 200, 200]  # TEST_SETTINGS: 3 a minute
    assert answers[3].status_code == 429 and "Retry-After" in answers[3].headers


def test_the_cli_grants_and_withdraws_the_operator_right(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    runner = CliRunner()
    added = runner.invoke(app, ["users", "add", "ops", "--operator", "--db", db])
    assert added.exit_code == 0, added.output
    assert runner.invoke(app, ["users", "add", "bob", "--db", db]).exit_code == 0
    listed = runner.invoke(app, ["users", "list", "--db", db])
    assert listed.exit_code == 0 and "operator" in listed.output

    def operators() -> dict[str, bool]:
        from arena.store.db import open_database

        engine = open_database(db)
        with Session(engine) as session:
            found = {a.name: a.operator for a in session.exec(select(Account))}
        engine.dispose()
        return found

    assert operators() == {"ops": True, "bob": False}
    granted = runner.invoke(app, ["users", "grant", "bob", "--operator", "--db", db])
    assert granted.exit_code == 0 and "'bob' is an operator" in granted.output
    withdrawn = runner.invoke(app, ["users", "grant", "ops", "--no-operator", "--db", db])
    assert withdrawn.exit_code == 0, withdrawn.output
    assert operators() == {"ops": False, "bob": True}
    missing = runner.invoke(app, ["users", "grant", "nobody", "--operator", "--db", db])
    assert missing.exit_code != 0 and "'nobody'" in missing.output
    assert "Traceback" not in missing.output


CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')


def signed_in(web: Web, token_header: dict[str, str]) -> str:
    """Sign the web client in with the token; returns the session's anti-CSRF token."""
    token = token_header["Authorization"].removeprefix("Bearer ")
    found = CSRF.search(web.client.get("/signin").text)
    assert found
    answer = web.client.post(
        "/signin", data={"token": token, "csrf": found[1], "next": f"/games/{GAME}"}
    )
    assert answer.status_code == 200
    found = CSRF.search(answer.text)
    assert found
    return found[1]


def test_the_game_page_has_the_operators_start_and_stop_forms(web: Web) -> None:
    csrf = signed_in(web, operator(web))
    page = web.client.get(f"/games/{GAME}").text
    assert 'id="ladder-start-form"' in page
    form = {"csrf": csrf, "seats": "2", "time_control": "unlimited"}
    started = web.client.post(f"/games/{GAME}/ladders", data=form, follow_redirects=False)
    assert (
        started.status_code == 303 and started.headers["location"] == f"/games/{GAME}#ladders-area"
    )
    (ladder,) = web.client.get(f"/api/ladders/{GAME}").json()
    assert (ladder["seats"], ladder["time_class"], ladder["status"]) == (2, "unlimited", "running")
    stop_url = f"/games/{GAME}/ladders/{ladder['id']}/stop"
    assert f'action="{stop_url}"' in web.client.get(f"/games/{GAME}").text
    for bad in ({}, {"csrf": "x" + csrf}):  # no or a wrong anti-CSRF token
        assert web.client.post(stop_url, data=bad).status_code == 403
    evil = web.client.post(stop_url, data={"csrf": csrf}, headers={"Origin": "http://evil.example"})
    assert evil.status_code == 403
    assert ladder_status(web, ladder["id"]) == "running"
    stopped = web.client.post(stop_url, data={"csrf": csrf}, follow_redirects=False)
    assert stopped.status_code == 303
    assert ladder_status(web, ladder["id"]) == "stopped"
    bad = web.client.post(f"/games/{GAME}/ladders", data={**form, "time_control": "sometimes"})
    assert bad.status_code == 422 and "sometimes" in bad.text


def test_a_signed_in_non_operator_gets_no_form_and_is_refused(web: Web) -> None:
    csrf = signed_in(web, web.auth("bob"))
    assert 'id="ladder-start-form"' not in web.client.get(f"/games/{GAME}").text
    form = {"csrf": csrf, "seats": "2", "time_control": "unlimited"}
    refused = web.client.post(f"/games/{GAME}/ladders", data=form)
    assert refused.status_code == 403 and "only an operator" in refused.text
    with Session(web.engine) as session:
        assert session.exec(select(Ladder)).first() is None
