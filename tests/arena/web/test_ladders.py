"""The ladders on the web: the game page's tables, a bot's history and tests, the JSON
API, and an owner stopping a test."""

from __future__ import annotations

from arena.ladder.service import LadderSettings, start_ladder
from arena.ladder.worker import LadderPlayer
from arena.store.bots import add_bot, builtin_source, resolve_bot
from arena.store.db import session_scope
from arena.web.accounts import create_account
from tests.arena.web.conftest import Web

GAME = "koenigsgarten"


def played_ladder(web: Web, owner: int | None = None) -> None:
    """An unlimited ladder of random, greedy and mine@1, mine@2 (owned by ``owner``),
    one batch played."""
    with session_scope(web.engine) as session:
        for kind in ("random", "greedy"):
            resolve_bot(session, kind, GAME)
        ladder, _ = start_ladder(session, GAME, time_control="unlimited", settings=LadderSettings())
        for kind in ("random", "first-legal"):
            bot, _ = add_bot(session, name="mine", game=GAME, source=builtin_source(kind, GAME))
            bot.owner_id = owner
            session.add(bot)
        ladder_id = ladder.id
    assert ladder_id is not None
    with LadderPlayer(web.engine, executor="local", tables=6, seed=1) as player:
        assert player.play_batch(ladder_id) is not None


def test_the_api_lists_and_shows_ladders_and_a_bots_history(web: Web) -> None:
    played_ladder(web)
    listed = web.client.get("/api/ladders").json()
    assert [(x["game"], x["seats"], x["time_class"], x["status"]) for x in listed] == [
        (GAME, 2, "unlimited", "running")
    ]
    assert listed[0]["rated_games"] == 12
    table = web.client.get(f"/api/ladders/{GAME}", params={"time_control": "unlimited"}).json()
    assert {line["bot"] for line in table["standings"]} == {
        "random@1",
        "greedy@1",
        "mine@1",
        "mine@2",
    }
    assert sum(line["games"] for line in table["standings"]) == 24
    (test,) = table["tests"]
    assert (test["candidate"], test["baseline"], test["status"]) == ("mine@2", "mine@1", "running")
    history = web.client.get("/api/bots/mine@2/ladder").json()
    assert history["bot"] == "mine@2" and history["tests"][0]["id"] == test["id"]
    points = history["ladders"][0]["history"]
    assert points and points[-1]["lower"] <= points[-1]["elo"] <= points[-1]["upper"]
    plot = web.client.get("/api/bots/mine@2/ladder.png")
    assert plot.status_code == 200 and plot.content.startswith(b"\x89PNG")
    missing = web.client.get(f"/api/ladders/{GAME}")  # the blitz ladder was never started
    assert missing.status_code == 404
    assert "no blitz ladder of koenigsgarten at 2 seats" in missing.json()["detail"]


def test_the_game_and_bot_pages_show_the_ladder(web: Web) -> None:
    played_ladder(web)
    page = web.client.get(f"/games/{GAME}").text
    assert "<h2>Ladders</h2>" in page and "2 seats, unlimited (no time limit): running" in page
    assert '<a href="/bots/greedy@1">greedy@1</a>' in page and "mine@2" in page
    bot = web.client.get("/bots/mine").text
    assert (
        "mine@2 on the ladders" in bot and "/api/bots/mine@2/ladder.png?game=koenigsgarten" in bot
    )
    assert "Regression tests" in bot


def test_only_the_owner_stops_a_regression_test(web: Web) -> None:
    with session_scope(web.engine) as session:
        account, token = create_account(session, "alice")
        owner = account.id
    alice = {"Authorization": f"Bearer {token}"}
    played_ladder(web, owner=owner)
    url = "/api/bots/mine@2/regression-tests/stop"
    assert web.client.post(url).status_code == 401
    assert web.client.post(url, headers=web.auth("bob")).status_code == 403
    stopped = web.client.post(url, headers=alice)
    assert stopped.status_code == 200, stopped.text
    (test,) = stopped.json()
    assert test["status"] == "stopped" and test["message"] == "stopped by its owner alice"
    again = web.client.post(url, headers=alice)
    assert again.status_code == 422 and "no running regression test" in again.json()["detail"]
