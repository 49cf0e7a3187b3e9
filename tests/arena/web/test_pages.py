"""The HTML pages: the same figures as the API, escaped, with a strict content policy."""

from __future__ import annotations

import pytest

from arena.store.db import session_scope
from arena.store.models import Tournament
from tests.arena.web.conftest import Web, play_tournament


def test_home_lists_games_and_latest_tournaments(web: Web) -> None:
    tournament_id = play_tournament(
        web.engine, game="koenigsgarten", bots=["random", "first-legal"]
    )
    page = web.client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    assert 'href="/games/koenigsgarten"' in html and "Kings in the Corner" in html
    assert f'href="/tournaments/{tournament_id}"' in html
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"


def test_the_leaderboard_page_shows_the_standings_and_the_plot(web: Web) -> None:
    play_tournament(web.engine, game="koenigsgarten", bots=["random", "first-legal", "greedy"])
    board = web.client.get("/api/leaderboards/koenigsgarten").json()
    html = web.client.get("/games/koenigsgarten").text
    assert 'id="leaderboard"' in html and 'src="/api/leaderboards/koenigsgarten/plot.png"' in html
    for line in board["bots"]:
        assert f'href="/bots/{line["bot"].replace("@", "%40")}"' in html
    assert html.index(board["bots"][0]["bot"]) < html.index(board["bots"][-1]["bot"])
    empty = web.client.get("/games/kardinal").text
    assert "no stored games of kardinal yet" in empty


def test_tournament_record_and_bot_pages(web: Web) -> None:
    tournament_id = play_tournament(
        web.engine, game="koenigsgarten", bots=["random", "first-legal"]
    )
    html = web.client.get(f"/tournaments/{tournament_id}").text
    assert 'data-live="false"' in html and "2 of 2 games stored" in html
    assert 'id="standings"' in html and html.count('href="/records/') == 2
    fragment = web.client.get(f"/tournaments/{tournament_id}/standings").text
    assert 'id="standings"' in fragment and "<html" not in fragment
    game = web.client.get(f"/api/tournaments/{tournament_id}/games").json()["items"][0]
    record = web.client.get(f"/records/{game['id']}").text
    assert f'data-game-id="{game["id"]}"' in record and "/static/replay.js" in record
    assert '<option value="1">seat 1: ' in record
    bot = web.client.get("/bots/random").text
    assert 'id="results"' in bot and f'href="/tournaments/{tournament_id}"' in bot


def test_a_queued_tournament_page_polls_and_names_are_escaped(web: Web) -> None:
    tournament_id = play_tournament(
        web.engine, game="koenigsgarten", bots=["random", "first-legal"]
    )
    with session_scope(web.engine) as session:
        row = session.get(Tournament, tournament_id)
        assert row is not None
        row.name = "<script>alert(1)</script>"
        row.status = "running"
        session.add(row)
    html = web.client.get(f"/tournaments/{tournament_id}").text
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert 'data-live="true"' in html and "/static/tournament.js" in html


@pytest.mark.slow
def test_missing_pages_are_html_404s(web: Web) -> None:
    for path, words in [
        ("/tournaments/7", "no tournament 7"),
        ("/records/7", "no stored game 7"),
        ("/games/chess", "unknown game"),
        ("/bots/nobody", "no bot"),
        ("/no/such/page", "no page"),
    ]:
        page = web.client.get(path)
        assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
        assert words in page.text, path


def test_static_files_are_served(web: Web) -> None:
    for name in ("arena.css", "cards.js", "replay.js", "tournament.js", "submit.js"):
        response = web.client.get(f"/static/{name}")
        assert response.status_code == 200 and response.text.strip(), name
    assert web.client.get("/static/../app.py").status_code == 404


def test_the_leaderboard_page_honours_the_time_class_as_the_api_does(web: Web) -> None:
    play_tournament(web.engine, game="koenigsgarten", bots=["random", "first-legal"], games=4)
    play_tournament(web.engine, game="koenigsgarten", bots=["greedy", "random"], time_per_move=0.5)
    blitz = web.client.get("/api/leaderboards/koenigsgarten?time=blitz").json()
    assert blitz["leaderboard"]["time_class"] == "blitz"
    assert {line["bot"] for line in blitz["bots"]} == {"greedy@1", "random@1"}
    html = web.client.get("/games/koenigsgarten?time=blitz").text
    assert "/bots/greedy%401" in html and "/bots/first-legal%401" not in html
    assert 'src="/api/leaderboards/koenigsgarten/plot.png?time=blitz"' in html
    unlimited = web.client.get("/games/koenigsgarten").text
    assert "/bots/first-legal%401" in unlimited and "/bots/greedy%401" not in unlimited


def test_the_leaderboard_page_shows_one_variant_and_links_the_others(web: Web) -> None:
    solitaire = {"game": "blumengarten", "format": "solitaire"}
    play_tournament(web.engine, **solitaire, bots=["greedy"], games=4)
    play_tournament(web.engine, **solitaire, bots=["random"], options={"sequences": True})
    board = web.client.get("/api/leaderboards/blumengarten").json()
    assert board["leaderboard"]["variant"] == "standard"
    assert [line["bot"] for line in board["bots"]] == ["greedy@1"]
    wild = web.client.get("/api/leaderboards/blumengarten?variant=sequences%3Dtrue").json()
    assert [line["bot"] for line in wild["bots"]] == ["random@1"]
    html = web.client.get("/games/blumengarten").text
    assert "/bots/greedy%401" in html and "/bots/random%401" not in html
    assert (
        'href="/games/blumengarten?seats=1&amp;time=unlimited&amp;variant=sequences%3Dtrue"' in html
    )
    other = web.client.get("/games/blumengarten?variant=sequences%3Dtrue").text
    assert "/bots/random%401" in other and "/bots/greedy%401" not in other
    assert "under the sequences=true rules" in other
