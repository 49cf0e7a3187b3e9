"""`arena report` and `arena leaderboard`: numbers checked against the stored games."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from arena.cli import app
from arena.db import open_database

runner = CliRunner()

CRASH_SOMETIMES = """
from bots.base import Bot


class Flaky(Bot):
    def act(self, observation, legal_actions, time_left):
        if len(legal_actions) == 2:
            raise RuntimeError("two choices confuse me")
        return legal_actions[0]
"""


def arena(db: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--db", str(db)])
    return result.exit_code, result.stdout, result.stderr


def rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with open_database(str(db)).connect() as connection:
        return [tuple(r) for r in connection.execute(sa.text(sql))]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("report") / "arena.db"
    bot = db.parent / "flaky.py"
    bot.write_text(CRASH_SOMETIMES)
    assert arena(db, "bots", "add", "flaky", "-g", "koenigsgarten", "--python", str(bot))[0] == 0
    code, _, err = arena(
        db,
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "-b",
        "random",
        "-b",
        "first-legal",
        "-b",
        "flaky",
        "--games",
        "30",
        "--executor",
        "local",
        "--seed",
        "5",
    )
    assert code == 0, err
    return db


def test_json_report_matches_the_stored_games(played: Path) -> None:
    code, out, _ = arena(played, "report", "1", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 90 and data["scheduled"] == 90 and data["status"] == "completed"
    ids = dict(rows(played, "SELECT name || '@' || version, id FROM bot"))
    for bot in data["bots"]:
        bot_id = ids[bot["bot"]]
        wins = draws = losses = 0
        for seats, ranking in rows(played, "SELECT seats, ranking FROM game"):
            seat_list, places = json.loads(str(seats)), json.loads(str(ranking))
            if bot_id in seat_list:
                mine = places[seat_list.index(bot_id)]
                other = places[1 - seat_list.index(bot_id)]
                wins += mine < other
                draws += mine == other
                losses += mine > other
        assert (bot["wins"], bot["draws"], bot["losses"]) == (wins, draws, losses)
        assert bot["games"] == 60
        assert bot["elo_low"] < bot["elo"] < bot["elo_high"]
    elos = [bot["elo"] for bot in data["bots"]]
    assert elos == sorted(elos, reverse=True)
    assert abs(sum(elos)) < 1e-6  # the default anchoring: mean 0


def test_forfeits_are_counted_by_reason(played: Path) -> None:
    data = json.loads(arena(played, "report", "1", "-f", "json")[1])
    flaky = next(b for b in data["bots"] if b["bot"] == "flaky@1")
    expected = dict(
        rows(played, "SELECT reason, count(*) FROM game WHERE offender IS NOT NULL GROUP BY reason")
    )
    assert expected.get("crash") and flaky["forfeits"] == expected
    others = [b for b in data["bots"] if b["bot"] != "flaky@1"]
    assert all(b["forfeits"] == {} for b in others)
    code, out, _ = arena(played, "report", "1")
    assert code == 0 and f"{expected['crash']} crash" in out


def test_text_report_has_standings_and_cross_table(played: Path) -> None:
    code, out, _ = arena(played, "report", "1")
    assert code == 0
    assert "standings" in out and "head to head" in out and "pentanomial" in out
    assert "first-legal@1" in out and "random@1" in out


def test_anchor_fixes_a_bot_at_the_given_elo(played: Path) -> None:
    data = json.loads(arena(played, "report", "1", "-f", "json", "--anchor", "random@1=100")[1])
    random_bot = next(b for b in data["bots"] if b["bot"] == "random@1")
    assert random_bot["elo"] == pytest.approx(100.0)
    code, _, err = arena(played, "report", "1", "--anchor", "nobody=0")
    assert code == 2 and "names no bot" in err


def test_markdown_html_csv_and_plot(played: Path, tmp_path: Path) -> None:
    code, out, _ = arena(played, "report", "1", "-f", "md")
    assert code == 0 and out.startswith("# tournament 1") and "| # | bot |" in out
    html_file, png = tmp_path / "r.html", tmp_path / "r.png"
    code, _, _ = arena(
        played, "report", "1", "-f", "html", "-o", str(html_file), "--plot", str(png)
    )
    assert code == 0
    assert "<table>" in html_file.read_text() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, _ = arena(played, "report", "1", "-f", "csv")
    table = list(csv.reader(io.StringIO(out)))
    assert table[0][:3] == ["#", "bot", "Elo (95%)"] and len(table) == 4


def test_bootstrap_intervals(played: Path) -> None:
    data = json.loads(arena(played, "report", "1", "-f", "json", "--interval", "bootstrap")[1])
    assert all(b["elo_low"] < b["elo_high"] for b in data["bots"])


def test_leaderboard_spans_tournaments(played: Path) -> None:
    code, _, err = arena(
        played,
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "-b",
        "random",
        "-b",
        "first-legal",
        "--games",
        "10",
        "--executor",
        "local",
    )
    assert code == 0, err
    data = json.loads(arena(played, "leaderboard", "koenigsgarten", "-f", "json")[1])
    random_bot = next(b for b in data["bots"] if b["bot"] == "random@1")
    assert random_bot["games"] == 70
    code, _, err = arena(played, "leaderboard", "kings_corner")
    assert code == 2 and "no stored games of kings_corner" in err


def test_ratings_are_snapshotted_when_a_tournament_completes(played: Path) -> None:
    snapshots = rows(
        played, "SELECT bot_id, rating, games FROM rating_snapshot WHERE tournament_id = 1"
    )
    assert len(snapshots) == 3 and all(games == 60 for _, _, games in snapshots)


def test_report_of_a_missing_tournament(played: Path) -> None:
    code, _, err = arena(played, "report", "99")
    assert code == 2 and "no tournament 99" in err


def test_sprt_report_shows_llr_and_bounds(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    code, _, err = arena(
        db,
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "--format",
        "sprt",
        "-b",
        "first-legal",
        "-b",
        "random",
        "--executor",
        "local",
    )
    assert code == 0, err
    data = json.loads(arena(db, "report", "1", "-f", "json")[1])
    assert data["sprt"]["decision"] in ("H0", "H1")
    assert data["sprt"]["lower_bound"] < 0 < data["sprt"]["upper_bound"]
    llr = data["sprt"]["llr"]
    assert llr >= data["sprt"]["upper_bound"] or llr <= data["sprt"]["lower_bound"]
    assert "SPRT accepted" in data["message"]
