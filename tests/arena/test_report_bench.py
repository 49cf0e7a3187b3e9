"""`arena bench report` and `arena bench live` on small inputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bench.live import live_cost
from arena.bench.report import fill_tournament, time_command, time_format
from arena.cli import app
from arena.report.build import tournament_report
from arena.store.db import open_database

runner = CliRunner()


@pytest.mark.slow  # a benchmark's database fill
def test_the_filled_tournament_reports_like_a_played_one(tmp_path: Path) -> None:
    database = tmp_path / "bench.db"
    engine = open_database(str(database))
    tournament_id = fill_tournament(engine, games=600, bots=4)
    report = tournament_report(engine, tournament_id)
    assert report.stored == 600 and report.games + report.counted["host_fault"] == 600
    assert not report.notes  # every rotation is a pair: no statistics left out
    paired = sum(p.statistics.pentanomial.pairs for p in report.pairs)
    alone = sum(p.statistics.unpaired_games for p in report.pairs)
    # A pair is whole unless a built-in bot's timeout (a host fault) took a game out.
    assert 2 * paired + alone == report.games and alone <= report.counted["host_fault"]
    assert all(line.elo is not None for line in report.lines)
    assert time_format(engine, tournament_id, "csv", tmp_path) > 0
    assert (tmp_path / "report.csv").read_text().startswith("rank,bot,elo,")
    assert time_command(database, tournament_id, "md --plot", tmp_path) > 0
    assert (tmp_path / "command.png").read_bytes()[:4] == b"\x89PNG"


def test_live_statistics_refit_every_interval() -> None:
    cost = live_cost(games=400, bots=3, interval=50)
    assert cost.refits == 8 and cost.seconds > 0 and cost.last_refit_seconds > 0


def test_bench_commands_refuse_tiny_inputs_in_one_line() -> None:
    for command in ("report", "live"):
        result = runner.invoke(app, ["bench", command, "--bots", "1"])
        assert result.exit_code == 2
        assert result.stderr.startswith("error: --games and --bots must be at least 2")
