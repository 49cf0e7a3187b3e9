"""The read side of the JSON API: the same data the command line shows."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from arena.cli import app
from arena.report.build import game_leaderboard, tournament_report
from arena.report.format import to_json
from tests.arena.web.conftest import Web, play_tournament

runner = CliRunner()


def test_games_list_every_engine_with_stored_counts(web: Web) -> None:
    tournament_id = play_tournament(
        web.engine, game="koenigsgarten", bots=["random", "first-legal"]
    )
    games = {g["name"]: g for g in web.client.get("/api/games").json()}
    assert set(games) == {"koenigsgarten", "kings_corner", "kardinal", "blumengarten"}
    assert games["koenigsgarten"]["games_stored"] == 2
    assert games["koenigsgarten"]["tournaments"] == 1
    assert games["kings_corner"]["games_stored"] == 0
    assert "random" in games["koenigsgarten"]["bots"]
    one = web.client.get("/api/games/KOENIGSGARTEN").json()
    assert one["name"] == "koenigsgarten" and one["max_seats"] == 2
    assert tournament_id == 1


def test_reports_and_leaderboards_equal_the_command_lines(web: Web) -> None:
    tournament_id = play_tournament(
        web.engine, game="koenigsgarten", bots=["random", "first-legal", "greedy"], games=4
    )
    report = web.client.get(f"/api/tournaments/{tournament_id}/report")
    assert report.status_code == 200
    data = report.json()
    expected = json.loads(to_json(tournament_report(web.engine, tournament_id)))
    assert data.pop("as_of") == {"last_game_id": data_last_id(web, tournament_id)}
    assert data == expected
    board = web.client.get("/api/leaderboards/koenigsgarten")
    assert board.headers["x-report-current"] == "true"
    board_data = board.json()
    board_data.pop("as_of")
    assert board_data == json.loads(to_json(game_leaderboard(web.engine, "koenigsgarten")))
    assert [line["bot"] for line in board_data["bots"]] == [
        line.label for line in game_leaderboard(web.engine, "koenigsgarten").lines
    ]


def data_last_id(web: Web, tournament_id: int) -> int:
    games = web.client.get(f"/api/tournaments/{tournament_id}/games?limit=1000").json()["items"]
    return max(game["id"] for game in games)


def test_plots_are_png_and_revalidate_by_etag(web: Web) -> None:
    play_tournament(web.engine, game="koenigsgarten", bots=["random", "first-legal"])
    plot = web.client.get("/api/leaderboards/koenigsgarten/plot.png")
    assert plot.status_code == 200 and plot.headers["content-type"] == "image/png"
    assert plot.content.startswith(b"\x89PNG")
    again = web.client.get(
        "/api/leaderboards/koenigsgarten/plot.png",
        headers={"If-None-Match": plot.headers["etag"]},
    )
    assert again.status_code == 304 and again.content == b""


def test_tournaments_their_games_and_records(web: Web) -> None:
    first = play_tournament(web.engine, game="koenigsgarten", bots=["random", "first-legal"])
    second = play_tournament(web.engine, game="koenigsgarten", bots=["random", "greedy"], games=6)
    listing = web.client.get("/api/tournaments").json()
    assert [t["id"] for t in listing["items"]] == [second, first]
    assert listing["items"][0]["stored"] == 6 and listing["items"][0]["status"] == "completed"
    assert web.client.get("/api/tournaments?limit=1&offset=1").json()["items"][0]["id"] == first
    detail = web.client.get(f"/api/tournaments/{second}").json()
    assert [p["bot"] for p in detail["participants"]] == ["random@1", "greedy@1"]
    assert detail["config"]["games"] == 6
    page = web.client.get(f"/api/tournaments/{second}/games?offset=2&limit=2").json()
    assert page["total"] == 6 and [g["index"] for g in page["items"]] == [2, 3]
    game = page["items"][0]
    record = web.client.get(f"/api/records/{game['id']}").json()
    assert record["record"]["format"] == "arena-record/1"
    assert record["record"]["players"] == game["players"]
    assert record["ranking"] == record["record"]["outcome"]["ranking"]


def test_bots_list_and_detail_with_results_and_forfeits(web: Web) -> None:
    play_tournament(web.engine, game="koenigsgarten", bots=["random", "first-legal"], games=6)
    bots = web.client.get("/api/bots?game=koenigsgarten").json()
    assert [b["label"] for b in bots] == ["first-legal@1", "random@1"]
    assert all(b["owner"] is None for b in bots)
    detail = web.client.get("/api/bots/random").json()
    (version,) = detail["versions"]
    (result,) = version["results"]
    assert version["games"] == result["games"] == 6
    assert result["wins"] + result["draws"] + result["losses"] == 6
    assert version["forfeits"] == {}
    assert version["rating"] is not None and version["rating"]["games"] == 6
    assert (version["rating"]["time_class"], version["rating"]["variant"]) == (
        "unlimited",
        "standard",
    )
    report = tournament_report(web.engine, 1)
    line = next(line for line in report.lines if line.label == "random@1")
    assert result["score_percent"] == line.tally.score_percent
    assert (result["wins"], result["draws"], result["losses"]) == (
        line.tally.wins,
        line.tally.draws,
        line.tally.losses,
    )


def test_unknown_things_are_404_with_a_detail(web: Web) -> None:
    for path, words in [
        ("/api/tournaments/99", "no tournament 99"),
        ("/api/tournaments/99/report", "no tournament 99"),
        ("/api/records/5", "no stored game 5"),
        ("/api/bots/nobody", "no bot 'nobody'"),
        ("/api/games/chess", "unknown game 'chess'"),
        ("/api/leaderboards/chess", "unknown game 'chess'"),
        ("/api/leaderboards/kardinal", "no stored games of kardinal"),
    ]:
        response = web.client.get(path)
        assert response.status_code == 404, path
        assert words in response.json()["detail"], path


def test_bad_parameters_are_422_naming_the_parameter_and_value(web: Web) -> None:
    response = web.client.get("/api/tournaments?limit=0")
    assert response.status_code == 422
    assert response.json()["detail"].startswith("query parameter 'limit'")
    assert "(got '0')" in response.json()["detail"]
    response = web.client.get("/api/tournaments/abc")
    assert response.status_code == 422 and "path parameter 'tournament_id'" in response.text
    response = web.client.get("/api/tournaments?status=sleeping")
    assert response.status_code == 422 and "'sleeping'" in response.json()["detail"]


def test_the_openapi_schema_describes_the_api(web: Web) -> None:
    schema = web.client.get("/api/openapi.json").json()
    paths = schema["paths"]
    for path in (
        "/api/games",
        "/api/leaderboards/{game}",
        "/api/bots",
        "/api/tournaments",
        "/api/tournaments/{tournament_id}/games",
        "/api/tournaments/{tournament_id}/report",
        "/api/records/{game_id}/replay",
    ):
        assert path in paths, path
    assert "post" in paths["/api/bots"] and "post" in paths["/api/tournaments"]
    assert "application/toml" in paths["/api/tournaments"]["post"]["requestBody"]["content"]
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    assert not any(path.startswith("/tournaments") for path in paths)


def test_serve_and_worker_refuse_bad_options(tmp_path: object) -> None:
    result = runner.invoke(app, ["serve", "--port", "0", "--db", f"{tmp_path}/a.db"])
    assert result.exit_code == 2 and "--port must be between 1 and 65535" in result.stderr
    result = runner.invoke(app, ["worker", "--executor", "dask", "--db", f"{tmp_path}/a.db"])
    assert (
        result.exit_code == 2
        and "--executor must be one of auto, processes, ray, local, not 'dask'" in result.stderr
    )
