"""The per-account write limit covers every mutating route: starting a game in the
browser, stopping a bot's regression tests, retiring a bot and cancelling a tournament
too."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from tests.arena.web.conftest import Web, make_account
from tests.arena.web.test_accounts import fill_window
from tests.arena.web.test_play import sign_in


def writes(engine: Engine, action: str) -> int:
    with engine.connect() as connection:
        count = connection.execute(
            sa.text("SELECT count(*) FROM write_request WHERE action = :a"), {"a": action}
        ).scalar_one()
    return int(count)


def assert_limited(answer: object, text: str) -> None:
    status = getattr(answer, "status_code", None)
    assert status == 429, getattr(answer, "text", "")
    assert "Retry-After" in getattr(answer, "headers", {})
    assert "at most 3 submissions per 60 s" in text and "games started" in text


def test_cancelling_a_tournament_is_rate_limited(web: Web) -> None:
    alice = {"Authorization": f"Bearer {make_account(web.engine, 'alice')}"}
    missing = web.client.post("/api/tournaments/999/cancel", headers=alice)
    assert missing.status_code == 404  # the attempt counts all the same
    assert writes(web.engine, "cancel_tournament") == 1
    fill_window(web.engine, "alice", 2)  # the test app admits 3 writes per minute
    limited = web.client.post("/api/tournaments/999/cancel", headers=alice)
    assert_limited(limited, limited.json()["detail"])


def test_retiring_a_bot_is_rate_limited(web: Web) -> None:
    alice = {"Authorization": f"Bearer {make_account(web.engine, 'alice')}"}
    assert web.client.delete("/api/bots/nobody@1", headers=alice).status_code == 404
    assert writes(web.engine, "retire_bot") == 1
    fill_window(web.engine, "alice", 2)
    limited = web.client.delete("/api/bots/nobody@1", headers=alice)
    assert_limited(limited, limited.json()["detail"])


def test_stopping_regression_tests_is_rate_limited(web: Web) -> None:
    alice = {"Authorization": f"Bearer {make_account(web.engine, 'alice')}"}
    url = "/api/bots/nobody@1/regression-tests/stop"
    assert web.client.post(url, headers=alice).status_code == 404
    assert writes(web.engine, "stop_regression_tests") == 1
    fill_window(web.engine, "alice", 2)
    limited = web.client.post(url, headers=alice)
    assert_limited(limited, limited.json()["detail"])


def test_starting_a_game_in_the_browser_is_rate_limited(web: Web) -> None:
    csrf = sign_in(web.client, make_account(web.engine, "alice"))
    fill_window(web.engine, "alice", 3)
    limited = web.client.post(
        "/games/blumengarten/play",
        data={"csrf": csrf, "seats": "1", "seat": "0"},
        follow_redirects=False,
    )
    assert_limited(limited, limited.text)
    assert writes(web.engine, "start_human_game") == 0
    with web.engine.connect() as connection:  # no game was started
        assert connection.execute(sa.text("SELECT count(*) FROM live_game")).scalar_one() == 0
