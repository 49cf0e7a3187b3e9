"""People playing bots through the web (arena/web/play.py, humans.py, sessions.py),
driven with the test client: sign-in, CSRF, owners, a game to its end and its storage."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.errors import NotFoundError
from arena.report.build import ReportError, game_leaderboard
from arena.store.bots import (
    BotRegistryError,
    add_bot,
    builtin_source,
    python_source,
    resolve_bot,
)
from arena.store.db import session_scope
from arena.store.models import BotVersion, Tournament
from arena.store.tally import HUMAN_FORMAT
from arena.web.accounts import AccountError, create_account
from arena.web.app import WebSettings, create_app
from arena.web.play import local_path
from arena.web.sessions import COOKIE, BrowserSession, SessionKeys
from tests.arena.web.conftest import FIRST_LEGAL, make_account, play_tournament
from tests.waiting import wait_until

CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')


@pytest.fixture
def client(engine: Engine) -> Iterator[TestClient]:
    settings = WebSettings(human_games_per_account=1, human_idle_seconds=60.0)
    with TestClient(create_app(engine, settings=settings)) as client:
        yield client


def csrf_of(client: TestClient, path: str = "/signin") -> str:
    page = client.get(path)
    found = CSRF.search(page.text)
    assert found, page.text[:300]
    return found[1]


def sign_in(client: TestClient, token: str) -> str:
    """Sign ``client`` in; returns the session's anti-CSRF token."""
    answer = client.post(
        "/signin", data={"token": token, "csrf": csrf_of(client), "next": "/games/blumengarten"}
    )
    assert answer.status_code == 200 and answer.url.path == "/games/blumengarten"
    return csrf_of(client, "/games/blumengarten")


def start(client: TestClient, csrf: str, game: str, **fields: str) -> str:
    answer = client.post(
        f"/games/{game}/play", data={"csrf": csrf, **fields}, follow_redirects=False
    )
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"]).removeprefix("/play/")


def state(client: TestClient, game_id: str) -> dict[str, Any]:
    answer = client.get(f"/play/{game_id}/state")
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def play_first_legal(client: TestClient, csrf: str, game_id: str) -> dict[str, Any]:
    """Play the first legal action on every turn; the final view."""
    while True:
        wait_until(
            lambda: state(client, game_id).get("legal") or state(client, game_id).get("over"),
            what="the seat's turn or the end",
        )
        view = state(client, game_id)
        if view["over"]:
            return view
        answer = client.post(
            f"/play/{game_id}/move",
            json={"version": view["version"], "action": view["legal"][0]},
            headers={"X-CSRF-Token": csrf},
        )
        assert answer.status_code == 202, answer.text
        wait_until(
            lambda moved=view["version"]: state(client, game_id)["version"] > moved,
            what="the move",
        )


def test_a_signed_in_person_plays_a_game_to_its_stored_replay(
    client: TestClient, engine: Engine
) -> None:
    csrf = sign_in(client, make_account(engine, "alice"))
    game_id = start(
        client, csrf, "koenigsgarten", seats="2", seat="1", opponent1="random", clock="none"
    )
    first = state(client, game_id)
    assert first["players"][1] == "alice@1" and first["seat"] == 1
    assert set(first) >= {"text", "observation", "legal", "moves"}
    final = play_first_legal(client, csrf, game_id)
    assert final["result"] and final["record_id"] is not None
    replay = client.get(f"/api/records/{final['record_id']}/replay?seat=1").json()
    assert replay["players"] == ["random@1", "alice@1"]
    # What the page was shown is the seat's view, exactly as the replay has it.
    assert final["text"] == replay["steps"][-1]["text"]
    assert final["observation"] == replay["steps"][-1]["observation"]
    record = client.get(f"/api/records/{final['record_id']}").json()["record"]
    assert final["moves"] == record["actions"]
    with Session(engine) as session:
        human = session.exec(select(BotVersion).where(BotVersion.name == "alice")).one()
        tournament = session.exec(select(Tournament).where(Tournament.format == HUMAN_FORMAT)).one()
    assert human.kind == "human" and tournament.owner_id == human.owner_id
    listed = client.get(f"/tournaments/{tournament.id}")
    assert listed.status_code == 200 and "humans" in listed.text
    page = client.get("/games/koenigsgarten/humans")
    assert page.status_code == 200 and "alice@1" in page.text
    # The bots' leaderboard never sees the game: there is none yet.
    assert "no stored games of koenigsgarten" in client.get("/games/koenigsgarten").text
    with pytest.raises(ReportError, match="no stored games"):
        game_leaderboard(engine, "koenigsgarten")
    humans = game_leaderboard(engine, "koenigsgarten", humans=True)
    assert sorted(line.label for line in humans.lines) == ["alice@1", "random@1"]
    data = client.get("/api/leaderboards/koenigsgarten/humans").json()
    assert "alice@1" in str(data) and client.get("/bots/alice@1").status_code == 200
    assert client.get("/api/leaderboards/koenigsgarten").status_code == 404


def test_human_games_leave_the_bots_leaderboard_as_it_was(
    client: TestClient, engine: Engine
) -> None:
    play_tournament(engine, game="koenigsgarten", bots=["random", "first-legal"])
    before = game_leaderboard(engine, "koenigsgarten")
    csrf = sign_in(client, make_account(engine, "carol"))
    game_id = start(client, csrf, "koenigsgarten", seats="2", seat="0", opponent1="random")
    play_first_legal(client, csrf, game_id)
    after = game_leaderboard(engine, "koenigsgarten")
    assert [(line.label, line.games, line.elo) for line in after.lines] == [
        (line.label, line.games, line.elo) for line in before.lines
    ]


def test_another_account_gets_404_and_a_forged_move_403(client: TestClient, engine: Engine) -> None:
    csrf = sign_in(client, make_account(engine, "alice"))
    game_id = start(client, csrf, "blumengarten", seats="1", seat="0")
    wait_until(lambda: state(client, game_id).get("legal"), what="alice's turn")
    view = state(client, game_id)
    move = {"version": view["version"], "action": view["legal"][0]}
    # No anti-CSRF header, a wrong one, another site's Origin: refused, nothing moves.
    assert client.post(f"/play/{game_id}/move", json=move).status_code == 403
    assert (
        client.post(
            f"/play/{game_id}/move", json=move, headers={"X-CSRF-Token": "x" + csrf}
        ).status_code
        == 403
    )
    evil = {"X-CSRF-Token": csrf, "Origin": "http://evil.example"}
    assert client.post(f"/play/{game_id}/move", json=move, headers=evil).status_code == 403
    assert state(client, game_id)["version"] == view["version"]
    # A form posted from elsewhere cannot start a game either.
    forged = client.post("/games/blumengarten/play", data={"seats": "1", "seat": "0"})
    assert forged.status_code == 403
    # Another browser on the same server (not a second run of the app: its end would
    # stop the server's games).
    other = TestClient(client.app)
    assert other.get(f"/play/{game_id}").status_code == 401  # signed out
    other_csrf = sign_in(other, make_account(engine, "mallory"))
    for path in (f"/play/{game_id}", f"/play/{game_id}/state", f"/play/{game_id}/events"):
        assert other.get(path).status_code == 404, path
    answer = other.post(f"/play/{game_id}/move", json=move, headers={"X-CSRF-Token": other_csrf})
    assert answer.status_code == 404
    # A stale position or an illegal action is refused with the reason.
    stale = client.post(
        f"/play/{game_id}/move",
        json={"version": view["version"] + 5, "action": move["action"]},
        headers={"X-CSRF-Token": csrf},
    )
    assert stale.status_code == 409 and "not your move" in stale.json()["detail"]
    illegal = client.post(
        f"/play/{game_id}/move",
        json={"version": view["version"], "action": "nonsense"},
        headers={"X-CSRF-Token": csrf},
    )
    assert illegal.status_code == 422 and "'nonsense'" in illegal.json()["detail"]


def test_a_forged_or_stale_cookie_is_no_session(client: TestClient, engine: Engine) -> None:
    token = make_account(engine, "alice")
    sign_in(client, token)
    cookie = client.cookies[COOKIE]
    assert client.get("/games/blumengarten").text.count('id="signed-in"') == 1
    _, rest = cookie.split(".", 1)
    client.cookies.set(COOKIE, "2." + rest)  # another account id, the same signature
    assert 'id="signed-in"' not in client.get("/games/blumengarten").text
    client.cookies.set(COOKIE, cookie)
    assert 'id="signed-in"' in client.get("/games/blumengarten").text
    from arena.web.accounts import new_token

    with session_scope(engine) as session:
        new_token(session, "alice")  # a new token ends the old sessions
    assert 'id="signed-in"' not in client.get("/games/blumengarten").text


def test_sign_in_needs_the_forms_csrf_token_and_a_known_token(
    client: TestClient, engine: Engine
) -> None:
    token = make_account(engine, "alice")
    assert client.post("/signin", data={"token": token}).status_code == 403
    wrong = client.post("/signin", data={"token": "arena_nope", "csrf": csrf_of(client)})
    assert wrong.status_code == 401 and "unknown token" in wrong.text
    before = client.cookies[COOKIE]
    answer = client.post(
        "/signin",
        data={"token": token, "csrf": csrf_of(client), "next": "//evil.example/x"},
        follow_redirects=False,
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/"
    for elsewhere in ("/\\evil.example", "/\t/evil.example", "https://evil.example", "/ok\n"):
        assert local_path(elsewhere) == "/", elsewhere
    assert local_path("/games/kardinal?seats=3") == "/games/kardinal?seats=3"
    assert client.cookies[COOKIE] != before  # a new session, not the planted one
    set_cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in set_cookie and "samesite=strict" in set_cookie


def test_caps_and_bad_fields_are_clear_errors(client: TestClient, engine: Engine) -> None:
    csrf = sign_in(client, make_account(engine, "alice"))
    bad = client.post("/games/kings_corner/play", data={"csrf": csrf, "seats": "9", "seat": "0"})
    assert bad.status_code == 422 and "&#39;seats&#39;: a number from 2 to 4" in bad.text
    unknown = client.post(
        "/games/kings_corner/play",
        data={"csrf": csrf, "seats": "2", "seat": "0", "opponent1": "nobody@3"},
    )
    assert unknown.status_code == 404 and "nobody@3" in unknown.text
    start(client, csrf, "blumengarten", seats="1", seat="0")
    again = client.post("/games/blumengarten/play", data={"csrf": csrf, "seats": "1", "seat": "0"})
    assert again.status_code == 429 and "at most 1" in again.text


def test_account_and_bot_names_reserve_each_other(engine: Engine) -> None:
    random_bot = builtin_source("random", "koenigsgarten")
    with session_scope(engine) as session:
        create_account(session, "alice")
    with (
        session_scope(engine) as session,
        pytest.raises(BotRegistryError, match="account 'alice'"),
    ):
        add_bot(session, name="Alice", game="koenigsgarten", source=random_bot)
    with session_scope(engine) as session:
        add_bot(session, name="zed", game="koenigsgarten", source=random_bot)
    with session_scope(engine) as session, pytest.raises(AccountError, match="zed@1"):
        create_account(session, "Zed")


def test_a_tournament_cannot_seat_a_person(client: TestClient, engine: Engine) -> None:
    csrf = sign_in(client, make_account(engine, "alice"))
    game_id = start(client, csrf, "koenigsgarten", seats="2", seat="0", opponent1="random")
    play_first_legal(client, csrf, game_id)
    with (
        session_scope(engine) as session,
        pytest.raises(NotFoundError, match="person playing in the browser"),
    ):
        resolve_bot(session, "alice@1", "koenigsgarten")


def events(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    for line in lines:
        if line.startswith("data:"):
            yield json.loads(line.removeprefix("data:"))


def test_the_events_follow_the_game_to_its_end(client: TestClient, engine: Engine) -> None:
    csrf = sign_in(client, make_account(engine, "alice"))
    game_id = start(client, csrf, "blumengarten", seats="1", seat="0")
    wait_until(lambda: state(client, game_id).get("legal"), what="alice's turn")
    with client.stream("GET", f"/play/{game_id}/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        views = events(stream.iter_lines())
        first = next(views)
        assert "resign" in first["legal"] and not first["over"]
        answer = client.post(
            f"/play/{game_id}/move",
            json={"version": first["version"], "action": "resign"},
            headers={"X-CSRF-Token": csrf},
        )
        assert answer.status_code == 202
        rest = list(views)  # the stream ends after the game's last view
    assert rest[-1]["over"] and rest[-1]["record_id"] is not None
    assert rest[-1]["moves"] == [[0, "resign"]]
    assert all(view["version"] > first["version"] for view in rest)


def test_the_clock_is_shown_and_an_idle_person_forfeits(engine: Engine) -> None:
    settings = WebSettings(human_idle_seconds=0.5)
    with TestClient(create_app(engine, settings=settings)) as client:
        csrf = sign_in(client, make_account(engine, "alice"))
        game_id = start(
            client, csrf, "koenigsgarten", seats="2", seat="0", opponent1="random", clock="5+3"
        )
        wait_until(lambda: state(client, game_id).get("over"), what="the idle forfeit")
        final = state(client, game_id)
        assert 0 < final["clock"] <= 300
        assert "forfeit by seat 0 (alice@1): timeout" in final["result"]
        stored = client.get(f"/api/records/{final['record_id']}").json()
        assert stored["offender"] == 0 and stored["reason"] == "timeout"


def test_a_submitted_bot_plays_from_the_sandbox(
    client: TestClient, engine: Engine, tmp_path: Path
) -> None:
    code = tmp_path / "picker.py"
    code.write_text(FIRST_LEGAL)
    with session_scope(engine) as session:
        bot, _ = add_bot(
            session, name="picker", game="kings_corner", source=python_source(str(code))
        )
        assert bot.kind == "python"
    csrf = sign_in(client, make_account(engine, "alice"))
    game_id = start(client, csrf, "kings_corner", seats="2", seat="1", opponent1="picker@1")
    final = play_first_legal(client, csrf, game_id)
    assert final["record_id"] is not None and final["players"] == ["picker@1", "alice@1"]
    stored = client.get(f"/api/records/{final['record_id']}").json()
    assert stored["termination"] != "error" and stored["offender"] is None, stored


SLEEPER = """
import time

class Sleeper:
    def act(self, observation, legal_actions, time_left):
        time.sleep(3)
        return legal_actions[0]
"""


def test_a_bot_past_its_time_per_move_forfeits_on_time(engine: Engine, tmp_path: Path) -> None:
    code = tmp_path / "sleeper.py"
    code.write_text(SLEEPER)
    with session_scope(engine) as session:
        add_bot(session, name="sleeper", game="koenigsgarten", source=python_source(str(code)))
    settings = WebSettings(human_bot_seconds=0.5)
    with TestClient(create_app(engine, settings=settings)) as client:
        csrf = sign_in(client, make_account(engine, "mallory"))
        game_id = start(client, csrf, "koenigsgarten", seats="2", seat="1", opponent1="sleeper@1")
        wait_until(lambda: state(client, game_id)["over"], what="the end")
        final = state(client, game_id)
        assert "forfeit by seat 0 (sleeper@1): timeout" in final["result"], final


def test_a_session_cookie_expires_and_cannot_be_altered() -> None:
    keys = SessionKeys(b"k" * 32, max_age=60)
    fresh = BrowserSession(7, "abc", int(time.time()), "nonce")
    assert keys.read(keys.sign(fresh)) == fresh
    old = BrowserSession(7, "abc", int(time.time()) - 61, "nonce")
    assert keys.read(keys.sign(old)) is None
    signed = keys.sign(fresh)
    assert keys.read(signed.replace("7.", "8.", 1)) is None
    assert SessionKeys(b"x" * 32).read(signed) is None  # another server's secret
    assert keys.read("garbage") is None and keys.read("a" * 1000) is None
    assert keys.csrf_token(fresh) != keys.csrf_token(BrowserSession(7, "abc", 0, "other"))
