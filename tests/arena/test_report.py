"""`arena report`, `arena leaderboard` and `arena tournament show`: numbers checked
against the stored games, the same in every format and every command."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from arena.cli import app
from arena.ratings import Pentanomial, log_likelihood_ratio
from arena.ratings.pairs import game_score, pair_category
from arena.report.build import build_report
from arena.report.format import to_csv, to_data, to_html, to_markdown, to_text
from arena.store.db import open_database
from arena.store.tally import BotNames, StoredGame

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


@dataclass(frozen=True)
class Played:
    db: Path
    log: str
    """What `arena tournament run` printed (not a terminal: the piped log)."""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """A round robin of 90 games in which ``flaky`` crashes, is suspended after 10
    games and forfeits the rest unplayed."""
    db = tmp_path_factory.mktemp("report") / "arena.db"
    bot = db.parent / "flaky.py"
    bot.write_text(CRASH_SOMETIMES)
    assert arena(db, "bots", "add", "flaky", "-g", "koenigsgarten", "--python", str(bot))[0] == 0
    code, out, err = arena(
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
        "--rating-interval",
        "10",
    )
    assert code == 0, err
    return Played(db, out)


def stored_counts(db: Path, tournaments: str = "1") -> dict[str, dict[str, int]]:
    """Each bot's rated games, W/D/L, unplayed games and forfeits by reason, counted
    here from the rows of the game table."""
    labels = dict(rows(db, "SELECT id, name || '@' || version FROM bot"))
    counts: dict[str, dict[str, int]] = {}
    query = (
        "SELECT seats, ranking, offender, reason, status FROM game "
        f"WHERE tournament_id IN ({tournaments})"
    )
    for seats_text, ranking_text, offender, reason, status in rows(db, query):
        seats, ranking = json.loads(str(seats_text)), json.loads(str(ranking_text))
        for seat, bot in enumerate(seats):
            mine = counts.setdefault(
                labels[bot],
                {"games": 0, "wins": 0, "draws": 0, "losses": 0, "unplayed": 0, "crash": 0},
            )
            if reason == "suspended":
                mine["unplayed"] += 1
                continue
            assert status != "error"
            mine["games"] += 1
            other = ranking[1 - seat]
            mine["wins"] += ranking[seat] < other
            mine["draws"] += ranking[seat] == other
            mine["losses"] += ranking[seat] > other
            mine["crash"] += offender == seat and reason == "crash"
    return counts


def test_json_report_counts_the_games_that_were_played(played: Played) -> None:
    code, out, _ = arena(played.db, "report", "1", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["stored"] == 90 and data["tournament"]["scheduled"] == 90
    assert data["tournament"]["status"] == "completed"
    expected = stored_counts(played.db)
    assert data["games"] + data["unplayed"] == 90 and data["unplayed"] > 0
    for bot in data["bots"]:
        mine = expected[bot["bot"]]
        assert (bot["games"], bot["wins"], bot["draws"], bot["losses"]) == (
            mine["games"],
            mine["wins"],
            mine["draws"],
            mine["losses"],
        )
        assert bot["unplayed"] == mine["unplayed"]
        assert bot["elo_low"] < bot["elo"] < bot["elo_high"]
    elos = [bot["elo"] for bot in data["bots"]]
    assert elos == sorted(elos, reverse=True)
    assert abs(sum(elos)) < 1e-6  # the default anchoring: mean 0


def test_unplayed_games_are_not_forfeits(played: Played) -> None:
    data = json.loads(arena(played.db, "report", "1", "-f", "json")[1])
    expected = stored_counts(played.db)
    flaky = next(b for b in data["bots"] if b["bot"] == "flaky@1")
    assert flaky["forfeits"] == {"crash": expected["flaky@1"]["crash"]}
    assert flaky["forfeits_crash"] == expected["flaky@1"]["crash"] > 0
    assert flaky["suspended"] is True and flaky["unplayed"] == expected["flaky@1"]["unplayed"]
    assert all(b["forfeits"] == {} for b in data["bots"] if b["bot"] != "flaky@1")


def test_tournament_show_counts_as_the_report(played: Played) -> None:
    data = json.loads(arena(played.db, "report", "1", "-f", "json")[1])
    code, out, err = arena(played.db, "tournament", "show", "1")
    assert code == 0, err
    standings = {
        match.group(1): line
        for line in out.splitlines()
        if (match := re.match(r"\s*\d+\s+(\S+)", line))
    }
    for bot in data["bots"]:
        line = standings[bot["bot"]]
        assert f"{bot['wins']}-{bot['draws']}-{bot['losses']}" in line
        assert f" {bot['games']} " in line
    crashes = next(b for b in data["bots"] if b["bot"] == "flaky@1")["forfeits_crash"]
    assert f"{crashes} crash" in standings["flaky@1"] and "seed 5" in out


def test_text_report_fits_80_columns_without_cutting_names(played: Played) -> None:
    code, out, _ = arena(played.db, "report", "1")
    assert code == 0
    assert "standings" in out and "head to head" in out and "pentanomial" in out
    table_lines = [line for line in out.splitlines() if "│" in line or "─" in line]
    assert table_lines and max(len(line) for line in out.splitlines()) <= 80
    assert "…" not in out
    for label in ("first-legal@1", "random@1", "flaky@1 (suspended)"):
        assert label in out
    assert "Elo: Bradley–Terry" in out  # what the rating means


def test_text_report_can_be_written_to_a_file(played: Played, tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    code, _, err = arena(played.db, "report", "1", "-o", str(target))
    assert code == 0, err
    text = target.read_text()
    assert "standings" in text and "first-legal@1" in text and "\x1b[" not in text


def test_anchor_fixes_a_bot_at_the_given_elo(played: Played) -> None:
    data = json.loads(arena(played.db, "report", "1", "-f", "json", "--anchor", "random@1=100")[1])
    random_bot = next(b for b in data["bots"] if b["bot"] == "random@1")
    assert random_bot["elo"] == pytest.approx(100.0)
    code, _, err = arena(played.db, "report", "1", "--anchor", "nobody=0")
    assert code == 2 and "names no bot" in err


def test_json_names_the_tournament_its_configuration_seed_and_time_control(
    played: Played,
) -> None:
    tournament = json.loads(arena(played.db, "report", "1", "-f", "json")[1])["tournament"]
    assert tournament["type"] == "round-robin" and tournament["game"] == "koenigsgarten"
    assert tournament["seed"] == 5 and tournament["config"]["games"] == 30
    assert tournament["time_control"] == {
        "per_move": None,
        "per_game": None,
        "each": None,
        "per_bot": {},
        "text": "no limit (unlimited)",
        "class": "unlimited",
    }
    assert [b["bot"] for b in tournament["bots"]] == ["random@1", "first-legal@1", "flaky@1"]
    assert tournament["created"] and tournament["finished"]


def test_csv_holds_numbers_only(played: Played) -> None:
    code, out, _ = arena(played.db, "report", "1", "-f", "csv")
    assert code == 0 and "±" not in out
    table = list(csv.DictReader(io.StringIO(out)))
    assert len(table) == 3
    data = json.loads(arena(played.db, "report", "1", "-f", "json")[1])
    for record, bot in zip(table, data["bots"], strict=True):
        assert record["bot"] == bot["bot"]
        assert float(record["elo"]) == pytest.approx(bot["elo"], rel=1e-5)
        assert float(record["elo_low"]) < float(record["elo"]) < float(record["elo_high"])
        assert int(record["games"]) == bot["games"] and int(record["wins"]) == bot["wins"]
        assert int(record["forfeits_crash"]) == bot["forfeits_crash"]
        assert int(record["unplayed"]) == bot["unplayed"]


@pytest.mark.slow
def test_markdown_and_html_state_the_configuration_and_align_numbers(
    played: Played, tmp_path: Path
) -> None:
    code, out, _ = arena(played.db, "report", "1", "-f", "md")
    assert code == 0 and out.startswith("# tournament 1")
    assert "| # | bot |" in out and "|---:|:---|" in out and "seed 5" in out
    html_file, png = tmp_path / "r.html", tmp_path / "r.png"
    code, _, err = arena(
        played.db, "report", "1", "-f", "html", "-o", str(html_file), "--plot", str(png)
    )
    assert code == 0, err
    page = html_file.read_text()
    assert '<img src="data:image/png;base64,' in page
    assert "seed 5" in page and "time control no limit (unlimited)" in page and "created" in page
    assert '<td class="left">first-legal@1</td>' in page and '<td class="right">' in page
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_live_elo_lines_in_the_piped_log_end_at_the_reports_elo(played: Played) -> None:
    lines = [line for line in played.log.splitlines() if "Elo after" in line]
    counts = [int(re.search(r"Elo after (\d+) rated", line).group(1)) for line in lines]  # type: ignore[union-attr]
    assert counts[:3] == [10, 20, 30] and counts == sorted(counts)
    data = json.loads(arena(played.db, "report", "1", "-f", "json")[1])
    assert counts[-1] == data["games"]
    for bot in data["bots"]:
        half = (bot["elo_high"] - bot["elo_low"]) / 2
        assert f"{bot['bot']} {bot['elo']:+.0f} ± {half:.0f}" in lines[-1]


def test_the_web_counts_a_bots_games_as_the_report(played: Played) -> None:
    from arena.web.queries import bot_detail

    data = json.loads(arena(played.db, "report", "1", "-f", "json")[1])
    detail = bot_detail(open_database(str(played.db)), "flaky", lambda game: {})
    (version,) = detail.versions
    (result,) = version.results
    flaky = next(b for b in data["bots"] if b["bot"] == "flaky@1")
    assert (result.games, result.wins, result.draws, result.losses) == (
        flaky["games"],
        flaky["wins"],
        flaky["draws"],
        flaky["losses"],
    )
    assert result.forfeits == flaky["forfeits_crash"] and version.forfeits == flaky["forfeits"]


def test_bootstrap_intervals(played: Played) -> None:
    data = json.loads(arena(played.db, "report", "1", "-f", "json", "--interval", "bootstrap")[1])
    assert all(b["elo_low"] < b["elo_high"] for b in data["bots"])


def test_ratings_are_snapshotted_when_a_tournament_completes(played: Played) -> None:
    data = json.loads(arena(played.db, "report", "1", "-f", "json")[1])
    labels = dict(rows(played.db, "SELECT id, name || '@' || version FROM bot"))
    snapshots = {
        labels[bot]: games
        for bot, games in rows(
            played.db, "SELECT bot_id, games FROM rating_snapshot WHERE tournament_id = 1"
        )
    }
    assert snapshots == {b["bot"]: b["games"] for b in data["bots"]}


def test_report_of_a_missing_tournament(played: Played) -> None:
    code, _, err = arena(played.db, "report", "99")
    assert code == 2 and "no tournament 99" in err


def test_leaderboard_spans_tournaments_and_skips_unplayed_games(played: Played) -> None:
    code, _, err = arena(
        played.db,
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
    data = json.loads(arena(played.db, "leaderboard", "koenigsgarten", "-f", "json")[1])
    expected = stored_counts(played.db, "1, 2")
    for bot in data["bots"]:
        assert bot["games"] == expected[bot["bot"]]["games"]
        assert bot["wins"] == expected[bot["bot"]]["wins"]
    assert data["leaderboard"]["time_class"] == "unlimited"
    assert data["leaderboard"]["tournaments"] == [1, 2]
    code, _, err = arena(played.db, "leaderboard", "kings_corner")
    assert code == 2 and "no stored games of kings_corner" in err


# -- orderings within the noise, and two ratings that disagree --------------------------


def three_seat_games(first_wins: int) -> list[StoredGame]:
    """40 deals of 3 seats, rotated: ``a`` first in the first ``first_wins`` deals, ``b``
    in the others, ``c`` always last."""
    games = []
    for deal in range(40):
        order = {1: 1, 2: 2, 3: 3} if deal < first_wins else {1: 2, 2: 1, 3: 3}
        for turn, seats in enumerate(((1, 2, 3), (2, 3, 1), (3, 1, 2))):
            ranking = tuple(order[bot] for bot in seats)
            games.append(
                StoredGame(
                    1, 3 * deal + turn, deal, seats, ranking, (0.0,) * 3, "end", None, None, "ok"
                )
            )
    return games


def test_orders_within_the_noise_are_marked_in_every_format() -> None:
    names = BotNames({1: "a", 2: "b", 3: "c"}, frozenset())
    report = build_report(
        three_seat_games(22), names, title="t", game_name="kings_corner", type_name="elo"
    )
    top, second, _ = report.lines
    assert (top.label, second.label) == ("a", "b")
    assert top.within_noise and not second.within_noise  # c lost every game
    assert "73% ≈" in to_text(report) and "73% ≈" in to_markdown(report)
    assert "73% ≈" in to_html(report)
    records = list(csv.DictReader(io.StringIO(to_csv(report))))
    assert [r["within_noise"] for r in records] == ["true", "false", ""]
    assert [b["within_noise"] for b in to_data(report)["bots"]] == [True, False, None]


def test_elo_and_openskill_disagreeing_is_explained() -> None:
    # a wins the early deals, b the later ones: Elo (order-free) puts a ahead, the
    # online OpenSkill b.
    names = BotNames({1: "a", 2: "b", 3: "c"}, frozenset())
    report = build_report(
        three_seat_games(22), names, title="t", game_name="kings_corner", type_name="elo"
    )
    (note,) = report.disagreements
    assert "Elo puts a above b (LOS 73%)" in note and "within the noise" in note
    assert note in to_text(report) and note in to_data(report)["disagreements"]
    assert "OpenSkill μ ± σ: a second opinion" in to_text(report)


# -- SPRT --------------------------------------------------------------------------------


@pytest.mark.slow
def test_sprt_report_is_the_candidates_test_in_every_format(tmp_path: Path) -> None:
    # The candidate, listed first, has the name that sorts last.
    db, config = tmp_path / "s.db", tmp_path / "sprt.toml"
    config.write_text(
        'game = "koenigsgarten"\nformat = "sprt"\nbots = ["random", "first-legal"]\n'
        "[sprt]\nelo0 = 0.0\nelo1 = 150.0\nbatch = 40\n"
    )
    code, log, err = arena(
        db, "tournament", "run", str(config), "--executor", "local", "--rating-interval", "4"
    )
    assert code == 0, err
    data = json.loads(arena(db, "report", "1", "-f", "json")[1])
    test = data["sprt"]
    # The same test computed here: pairs in schedule order, from random's side, checked
    # after each pair until the first crossing.
    random_id = dict(rows(db, "SELECT name, id FROM bot"))["random"]
    games = rows(db, 'SELECT seats, ranking FROM game ORDER BY "index"')
    counts = dict.fromkeys(("ll", "ld", "wl", "dd", "wd", "ww"), 0)
    llr, pairs = 0.0, 0
    for first, second in zip(games[::2], games[1::2], strict=False):
        scores = []
        for seats_text, ranking_text in (first, second):
            seats, ranking = json.loads(str(seats_text)), json.loads(str(ranking_text))
            seat = seats.index(random_id)
            scores.append(game_score(ranking[seat], ranking[1 - seat]))
        counts[pair_category(*scores)] += 1
        pairs += 1
        llr = log_likelihood_ratio(Pentanomial(**counts), 0.0, 150.0)
        if not test["lower_bound"] < llr < test["upper_bound"]:
            break
    assert test["llr"] == pytest.approx(llr, abs=1e-6) and test["pairs"] == pairs
    assert (test["candidate"], test["baseline"]) == ("random@1", "first-legal@1")
    summary = test["summary"]
    assert f"LLR {llr:.2f}" in summary and f"{test['decision']} accepted" in summary
    assert data["tournament"]["message"] == summary
    # The piped log showed the LLR against its bounds as it went, ending at the decision.
    live = [line for line in log.splitlines() if re.match(r"(\[\d+/\d+\] )?SPRT", line)]
    assert len(live) >= 2 and all("in [" in line for line in live)
    assert live[-1].endswith(summary)
    for fmt in ("text", "md", "html"):
        out = arena(db, "report", "1", "-f", fmt)[1]
        assert out.count("LLR ") == 1 and f"LLR {llr:.2f}" in out, fmt
    # The games scheduled after the decision were dropped, not left unplayed.
    assert data["stored"] == data["tournament"]["scheduled"]


def test_format_is_the_output_format_and_type_the_tournament_type(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["tournament", "run", "--format", "sprt", "--db", str(tmp_path / "x.db")]
    )
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: --format is the output format (text, json); the tournament type is --type sprt"
    ]
    assert "Traceback" not in result.output


def test_sprt_settings_in_cutechess_form_and_type_in_a_config_file(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    config = tmp_path / "sprt.toml"
    config.write_text(
        'game = "koenigsgarten"\ntype = "sprt"\nbots = ["random", "first-legal"]\n'
        "[sprt]\nbatch = 10\nmax_games = 20\n"
    )
    code, out, err = arena(
        db,
        "tournament",
        "run",
        str(config),
        "--sprt",
        "elo0=-10",
        "elo1=200",
        "alpha=0.1",
        "beta=0.2",
        "--executor",
        "local",
        "--format",
        "json",
    )
    assert code == 0, err
    assert json.loads(out)["tournament_id"] == 1
    (stored,) = rows(db, "SELECT config FROM tournament")
    settings = json.loads(str(stored[0]))
    assert settings["format"] == "sprt"
    assert settings["sprt"] == {
        "elo0": -10.0,
        "elo1": 200.0,
        "alpha": 0.1,
        "beta": 0.2,
        "batch": 10,
        "max_games": 20,
    }
    code, _, err = arena(db, "tournament", "run", str(config), "--sprt", "elo2=5")
    assert code == 2 and "bad --sprt setting 'elo2=5'" in err
    code, _, err = arena(db, "tournament", "run", str(config), "elo1=5")
    assert code == 2 and "SPRT settings follow --sprt" in err


@pytest.mark.slow
def test_solitaire_report_plots_win_rates_and_explains_the_mean_score(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    code, _, err = arena(
        db,
        "tournament",
        "run",
        "--game",
        "blumengarten",
        "--type",
        "solitaire",
        "-b",
        "random",
        "-b",
        "first-legal",
        "--games",
        "6",
        "--executor",
        "local",
    )
    assert code == 0, err
    text = " ".join(arena(db, "report", "1")[1].split())  # lines wrapped at 80 joined
    assert "mean score: the average score per deal (cards on the foundations" in text
    assert "dup. Elo" in text and "Wilson" in text
    assert re.search(r"\d+(\.\d)?%?[–,] ?\d+(\.\d)?%", text)  # the win rate's interval
    png = tmp_path / "p.png"
    assert arena(db, "report", "1", "-f", "json", "--plot", str(png))[0] == 0
    width = int.from_bytes(png.read_bytes()[16:20], "big")  # the PNG header's width
    assert width == 13 * 110  # two panels: duplicate Elo and win rate with its interval


def test_tournament_show_prints_the_head_to_head_numbers_of_the_report(played: Played) -> None:
    data = json.loads(arena(played.db, "report", "1", "-f", "json")[1])
    code, out, err = arena(played.db, "tournament", "show", "1")
    assert code == 0, err
    table = out[out.index("head to head") :].splitlines()
    assert data["head_to_head"]
    for cell in data["head_to_head"]:
        row = next(
            line for line in table if re.match(rf"\s*\d+\. {re.escape(cell['bot'])}\s", line)
        )
        assert f"{100 * cell['points'] / cell['games']:.0f}% ({cell['games']})" in row


def test_the_paired_games_table_names_the_bots_and_aligns_the_pentanomial(
    played: Played,
) -> None:
    data = json.loads(arena(played.db, "report", "1", "-f", "json")[1])
    out = arena(played.db, "report", "1")[1]
    lines = out[out.index("paired games") :].splitlines()
    header = next(line for line in lines if "pairing" in line)
    categories = ("LL", "LD", "WL+DD", "WD", "WW")
    ends = [header.index(f" {name} ") + len(name) + 1 for name in categories]
    assert data["pairs"]
    for pair in data["pairs"]:
        name = f"{pair['first']} vs {pair['second']}"
        row = next(line for line in lines if line.lstrip().startswith(name + " "))
        counts = [
            row[end - len(str(c)) : end] for end, c in zip(ends, pair["pentanomial"], strict=True)
        ]
        assert counts == [str(c) for c in pair["pentanomial"]]
        assert all(row[end] == " " for end in ends)
