"""Browser games outlive their web process: each is written to ``live_game`` as it goes
and rebuilt by another process (or the restarted one) from the row; the session secret
is kept in the database, so sign-ins survive too (arena/web/humans.py, sessions.py)."""

from __future__ import annotations

import json
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.store.bots import add_bot, python_source
from arena.store.db import session_scope
from arena.store.models import GameResult, LiveGame, utcnow
from arena.web.app import WebSettings, create_app
from arena.web.humans import HumanGames, HumanLimits
from arena.web.sessions import COOKIE, BrowserSession, SessionKeys, stored_secret
from tests.arena.web.conftest import FIRST_LEGAL, make_account
from tests.arena.web.test_play import play_first_legal, sign_in, start, state
from tests.waiting import wait_until

SETTINGS = WebSettings(human_games_per_account=1, human_idle_seconds=120.0)


def live_row(engine: Engine, game_id: str) -> LiveGame | None:
    with Session(engine) as session:
        return session.get(LiveGame, game_id)


def view_of(client: TestClient, game_id: str) -> dict[str, Any]:
    """The page's view once there is one (a game rebuilt in its thread shows none, its
    version -1, until the thread has replayed it)."""
    wait_until(lambda: state(client, game_id)["version"] >= 0, what="the game's view")
    return state(client, game_id)


def your_turn(client: TestClient, game_id: str) -> dict[str, Any]:
    wait_until(lambda: state(client, game_id).get("legal"), what="the person's turn")
    return state(client, game_id)


def play_move(client: TestClient, csrf: str, game_id: str) -> dict[str, Any]:
    """Play the first legal action on the person's next turn; the view it was played on."""
    view = your_turn(client, game_id)
    answer = client.post(
        f"/play/{game_id}/move",
        json={"version": view["version"], "action": view["legal"][0]},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.status_code == 202, answer.text
    wait_until(lambda: state(client, game_id)["version"] > view["version"], what="the move")
    return view


def humans_of(client: TestClient) -> HumanGames:
    humans: HumanGames = client.app.state.arena.humans  # type: ignore[attr-defined]
    return humans


def kill_copies(client: TestClient) -> None:
    """What a dead process leaves behind: no copy of its games plays on (each copy,
    woken where it waits for the person, stops without writing)."""
    copies = list(humans_of(client)._games.values())
    for live in copies:
        live.abandon()
    wait_until(lambda: all(live.over for live in copies), what="the copies stop")


def test_a_live_game_survives_a_restart_and_is_stored_once(engine: Engine) -> None:
    with TestClient(create_app(engine, settings=SETTINGS)) as before:
        csrf = sign_in(before, make_account(engine, "alice"))
        game_id = start(
            before, csrf, "koenigsgarten", seats="2", seat="0", opponent1="random", clock="5+3"
        )
        play_move(before, csrf, game_id)
        play_move(before, csrf, game_id)
        shown = your_turn(before, game_id)
        cookie = before.cookies[COOKIE]
        row = live_row(engine, game_id)
        assert row is not None and row.moves == len(shown["moves"]) >= 2
        assert row.actions == [action for _, action in shown["moves"]]
        assert row.clocks is not None and 0 < row.clocks[0] <= 300 + 3 * 2
        kill_copies(before)  # the process dies: its memory is gone
        assert live_row(engine, game_id) == row  # stopping wrote nothing
    with TestClient(create_app(engine, settings=SETTINGS)) as after:
        after.cookies.set(COOKIE, cookie)  # the same browser: still signed in
        assert after.get(f"/play/{game_id}").status_code == 200
        again = your_turn(after, game_id)
        for key in ("text", "observation", "moves", "legal", "players", "seat"):
            assert again[key] == shown[key], key
        assert again["version"] > shown["version"]  # a page's Last-Event-ID stays older
        assert again["clock"] == row.clocks[0]  # the downtime is charged to nobody
        final = play_first_legal(after, csrf, game_id)  # the form's old anti-CSRF token
    assert final["record_id"] is not None and final["result"]
    with Session(engine) as session:
        stored = session.exec(select(GameResult)).all()
        assert [game.id for game in stored] == [final["record_id"]]
        assert session.exec(select(LiveGame)).all() == []
    record = TestClient(create_app(engine, settings=SETTINGS)).get(
        f"/api/records/{final['record_id']}"
    )
    assert record.json()["record"]["actions"][: len(shown["moves"])] == shown["moves"]


def test_two_processes_never_both_advance_one_game(engine: Engine) -> None:
    with (
        TestClient(create_app(engine, settings=SETTINGS)) as first,
        TestClient(create_app(engine, settings=SETTINGS)) as second,
    ):
        csrf = sign_in(first, make_account(engine, "alice"))
        game_id = start(first, csrf, "blumengarten", seats="1", seat="0")
        shown = your_turn(first, game_id)
        stale_copy = humans_of(first)._games[game_id]
        second.cookies.set(COOKIE, first.cookies[COOKIE])
        play_move(second, csrf, game_id)  # the second process rebuilds it and plays on
        row = live_row(engine, game_id)
        assert row is not None and row.moves == 1
        # The first process's copy takes a move at the old position (a request that got
        # past the freshness check just before the other write): the guard refuses it.
        stale_copy.move(shown["version"], shown["legal"][-1])
        wait_until(lambda: stale_copy.over, what="the stale copy stops")
        assert stale_copy.latest is not None and "went on elsewhere" in str(stale_copy.latest.error)
        assert live_row(engine, game_id) == row  # its action was not written
        # Opened again there, the game is rebuilt from the row, one move further.
        assert view_of(first, game_id)["moves"] == view_of(second, game_id)["moves"]
        view = your_turn(second, game_id)
        resigned = second.post(
            f"/play/{game_id}/move",
            json={"version": view["version"], "action": "resign"},
            headers={"X-CSRF-Token": csrf},
        )
        assert resigned.status_code == 202, resigned.text
        wait_until(lambda: view_of(second, game_id)["over"], what="the end")
        final = state(second, game_id)
        assert final["record_id"] is not None and final["moves"][-1] == [0, "resign"]
        gone = first.get(f"/play/{game_id}/state")
        assert gone.status_code == 404  # stored: no live game any more, in either process
    with Session(engine) as session:
        assert len(session.exec(select(GameResult)).all()) == 1


def test_the_session_secret_is_made_once_and_shared(engine: Engine) -> None:
    secret = stored_secret(engine)
    assert stored_secret(engine) == secret and len(secret) == 32
    with engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT count(*) FROM server_secret")).scalar_one()
    assert rows == 1
    with (
        TestClient(create_app(engine, settings=SETTINGS)) as one,
        TestClient(create_app(engine, settings=SETTINGS)) as two,
    ):
        sign_in(one, make_account(engine, "alice"))
        cookie = one.cookies[COOKIE]
        two.cookies.set(COOKIE, cookie)
        assert 'id="signed-in"' in two.get("/games/blumengarten").text
        _, rest = cookie.split(".", 1)
        two.cookies.set(COOKIE, "2." + rest)  # another account, the same signature
        assert 'id="signed-in"' not in two.get("/games/blumengarten").text
        session = BrowserSession(1, cookie.split(".")[1], int(time.time()), "nonce")
        two.cookies.set(COOKIE, SessionKeys(b"x" * 32).sign(session))  # another secret
        assert 'id="signed-in"' not in two.get("/games/blumengarten").text


def test_a_game_whose_server_died_before_storing_it_is_stored_when_opened(
    engine: Engine,
) -> None:
    with TestClient(create_app(engine, settings=SETTINGS)) as client:
        csrf = sign_in(client, make_account(engine, "alice"))
        game_id = start(client, csrf, "blumengarten", seats="1", seat="0")
        your_turn(client, game_id)
        kill_copies(client)
        # The dead server had written the last action (a resignation), not the game.
        with engine.begin() as connection:
            connection.execute(
                sa.text("UPDATE live_game SET actions = :a, moves = 1 WHERE id = :i"),
                {"a": '["resign"]', "i": game_id},
            )
        wait_until(lambda: view_of(client, game_id)["over"], what="the stored end")
        final = state(client, game_id)
        assert final["record_id"] is not None and final["moves"] == [[0, "resign"]]
    with Session(engine) as session:
        assert [game.id for game in session.exec(select(GameResult))] == [final["record_id"]]
        assert session.exec(select(LiveGame)).all() == []


def rewrite_row(engine: Engine, game_id: str, actions: str, *, age_seconds: float) -> None:
    """What a dead server left: the row at ``actions`` (JSON), unwritten for a while."""
    with engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE live_game SET actions = :a, moves = :m, updated = :t WHERE id = :i"),
            {
                "a": actions,
                "m": len(json.loads(actions)),
                "t": utcnow() - timedelta(seconds=age_seconds),
                "i": game_id,
            },
        )


def test_the_sweeper_ends_abandoned_games_without_a_request(engine: Engine) -> None:
    with TestClient(create_app(engine, settings=SETTINGS)) as client:
        csrf = sign_in(client, make_account(engine, "alice"))
        game_id = start(client, csrf, "koenigsgarten", seats="2", seat="1", opponent1="random")
        your_turn(client, game_id)
        kill_copies(client)
    # The server died with the bot to move: nobody's fault but the host's.
    rewrite_row(engine, game_id, "[]", age_seconds=3600)
    humans = HumanGames(engine, HumanLimits(sweep_seconds=0.05))
    humans.start_sweeping()
    try:
        wait_until(lambda: live_row(engine, game_id) is None, what="the sweep")
    finally:
        humans.close()
    with Session(engine) as session:
        stored = session.exec(select(GameResult)).one()
    assert stored.status == "error" and stored.offender is None
    assert "the server stopped while random@1 was to move" in stored.record


def test_an_abandoned_game_opened_again_has_ended(engine: Engine) -> None:
    with TestClient(create_app(engine, settings=SETTINGS)) as client:
        csrf = sign_in(client, make_account(engine, "alice"))
        game_id = start(client, csrf, "blumengarten", seats="1", seat="0")
        your_turn(client, game_id)
        kill_copies(client)
        # Its last action (a resignation) was written, the game never stored.
        rewrite_row(engine, game_id, '["resign"]', age_seconds=3600)
        answer = client.get(f"/play/{game_id}/state")
        assert answer.status_code == 404 and "has ended: its record is /records/" in answer.text
        record_id = int(answer.json()["detail"].rpartition("/")[2])
        record = client.get(f"/api/records/{record_id}").json()
    assert record["termination"] != "error" and record["record"]["actions"] == [[0, "resign"]]
    assert live_row(engine, game_id) is None


def bot_processes(marker: str) -> list[int]:
    """PIDs of the processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue  # it ended meanwhile
    return found


def test_a_stopping_server_ends_its_games_and_their_bots_processes(
    engine: Engine, tmp_path: Path
) -> None:
    name = f"Picker{uuid.uuid4().hex}"  # its processes' command lines name it
    code = tmp_path / "picker.py"
    code.write_text(FIRST_LEGAL.replace("class FirstLegal", f"class {name}"))
    with session_scope(engine) as session:
        add_bot(session, name="picker", game="koenigsgarten", source=python_source(str(code)))
    with TestClient(create_app(engine, settings=SETTINGS)) as client:
        csrf = sign_in(client, make_account(engine, "alice"))
        game_id = start(client, csrf, "koenigsgarten", seats="2", seat="1", opponent1="picker@1")
        shown = your_turn(client, game_id)  # the bot moved: its process waits for the next
        assert bot_processes(name)
        live = humans_of(client)._games[game_id]
    wait_until(lambda: not bot_processes(name), what="the bot outlived its server")
    assert live.latest is not None and "the server stopped" in str(live.latest.error)
    row = live_row(engine, game_id)
    assert row is not None and row.moves == len(shown["moves"])  # it goes on when opened
