"""The ladder on the web (issue 18): standings and running version tests on the game's
page and in the API, a bot's rating history, plot and tests on its page."""

from __future__ import annotations

from sqlmodel import Session

from arena.ladder.service import LadderSettings, start_ladder
from arena.ladder.worker import LadderPlayer
from arena.store.bots import add_bot, builtin_source, resolve_bot
from arena.store.db import session_scope
from arena.store.ladders import regression_tests
from tests.arena.web.conftest import Web

GAME = "koenigsgarten"


def played_ladder(web: Web) -> int:
    """A started ladder of random, greedy and mine@1 → mine@2 (a version test that is
    still running), three batches played."""
    with session_scope(web.engine) as session:
        for bot in ("random", "greedy"):
            resolve_bot(session, bot, GAME)
        ladder, _ = start_ladder(
            session,
            GAME,
            time_control="unlimited",
            # Bounds 10 Elo apart: a test of two equal random bots cannot end within the
            # few games played here, however a loaded machine sizes the batches.
            settings=LadderSettings(elo0=0.0, elo1=10.0),
        )
        assert ladder.id is not None
        ladder_id = ladder.id
        add_bot(session, name="mine", game=GAME, source=builtin_source("random", GAME))
        add_bot(session, name="mine", game=GAME, source=builtin_source("random", GAME, {"seed": 1}))
    with LadderPlayer(web.engine, executor="local", tables=4, seed=5) as player:
        for _ in range(3):
            player.play_batch(ladder_id)
    return ladder_id


def test_the_game_page_and_api_show_the_ladder_and_its_running_tests(web: Web) -> None:
    ladder_id = played_ladder(web)
    with Session(web.engine) as session:
        (test,) = regression_tests(session, ladder_id=ladder_id)
    response = web.client.get(f"/api/ladders/{GAME}")
    assert response.status_code == 200
    (ladder,) = response.json()
    assert (ladder["id"], ladder["seats"], ladder["status"]) == (ladder_id, 2, "running")
    assert ladder["games"] > 0
    labels = [line["label"] for line in ladder["standings"]]
    assert set(labels) == {"random@1", "greedy@1", "mine@1", "mine@2"}
    rated = [line for line in ladder["standings"] if line["rating"] is not None]
    assert rated and all(r["lower"] <= r["rating"] <= r["upper"] for r in rated)
    ratings = [r["rating"] for r in rated]
    assert ratings == sorted(ratings, reverse=True)
    (shown,) = ladder["tests"]
    shown_test = (shown["candidate"], shown["baseline"], shown["status"])
    assert shown_test == ("mine@2", "mine@1", "running")
    assert shown["games"] == test.games and shown["llr"] == test.llr

    page = web.client.get(f"/games/{GAME}")
    assert page.status_code == 200
    assert f'id="ladder-{ladder_id}"' in page.text and "<h2>Ladders</h2>" in page.text
    assert 'href="/bots/mine%402"' in page.text and f'id="ladder-{ladder_id}-tests"' in page.text
    # A running ladder: the page reloads the section (a fragment) as workers store games.
    assert 'id="ladders-area" data-game="koenigsgarten" data-live="true"' in page.text
    assert '<script src="/static/ladder.js"></script>' in page.text
    fragment = web.client.get(f"/games/{GAME}/ladders")
    assert fragment.status_code == 200 and f'id="ladder-{ladder_id}"' in fragment.text
    assert "<html" not in fragment.text


def test_the_bot_page_and_api_show_its_history_plot_and_tests(web: Web) -> None:
    played_ladder(web)
    data = web.client.get("/api/bots/mine/ladder").json()
    assert data["name"] == "mine"
    histories = {h["bot"]: h for h in data["histories"]}
    assert set(histories) <= {"mine@1", "mine@2"} and histories
    for history in histories.values():
        assert history["ladder"] == f"{GAME} unlimited, 2 seats"
        games = [point["games"] for point in history["points"]]
        assert games == sorted(games) and games[-1] > 0
    (test,) = data["tests"]
    assert test["candidate"] == "mine@2" and len(test["pentanomial"]) == 6

    page = web.client.get("/bots/mine")
    assert page.status_code == 200
    assert 'id="ladder-ratings"' in page.text and 'id="version-tests"' in page.text
    assert 'src="/api/bots/mine/ladder.png"' in page.text
    plot = web.client.get("/api/bots/mine/ladder.png")
    assert plot.status_code == 200 and plot.content.startswith(b"\x89PNG")


def test_pages_without_ladders_are_unchanged_and_unknown_names_are_404(web: Web) -> None:
    page = web.client.get(f"/games/{GAME}")
    assert page.status_code == 200 and "Ladders" not in page.text
    assert web.client.get(f"/api/ladders/{GAME}").json() == []
    missing = web.client.get("/api/bots/nobody/ladder")
    assert missing.status_code == 404 and "nobody" in missing.json()["detail"]
    assert web.client.get("/api/bots/nobody/ladder.png").status_code == 404
    assert web.client.get("/api/ladders/nogame").status_code == 404
    assert web.client.get("/games/nogame/ladders").status_code == 404
