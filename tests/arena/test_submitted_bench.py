"""`arena bench submitted` (arena/bench/submitted.py): the line-ups, the ratio, and a
short run of both in turn through the command line."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from arena.bench import submitted as bench
from arena.bench.service import TournamentSpeed
from arena.cli import app
from arena.cli.console import console
from arena.players.loader import COMMAND, PYTHON

runner = CliRunner()


def test_the_submitted_bot_takes_first_legals_place_against_the_same_opponents() -> None:
    builtin, submitted = bench.lineups("koenigsgarten")
    assert builtin.bots == ("first-legal", "random") and builtin.submitted == {}
    assert submitted.bots == ("submitted", "random")
    assert [source.kind for source in submitted.submitted.values()] == [PYTHON]
    builtin, sandboxed = bench.lineups("kings_corner", 4, sandboxed=True)
    assert builtin.bots == ("first-legal", "random", "random:seed=1", "random:seed=2")
    assert sandboxed.bots[0] == "submitted" and set(sandboxed.bots[1:]) < set(sandboxed.submitted)
    assert len({source.code_hash for source in sandboxed.submitted.values()}) == 4
    with pytest.raises(bench.BenchError, match="played alone"):
        bench.lineups("blumengarten")


def test_the_node_bot_is_a_command_bot_or_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/node")
    _, node = bench.lineups("koenigsgarten", kind=bench.SubmittedKind.NODE)
    assert node.submitted["submitted"].kind == COMMAND
    assert "js_bot.js" in node.submitted["submitted"].entry
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(bench.BenchError, match="`node`"):
        bench.lineups("koenigsgarten", kind=bench.SubmittedKind.NODE)


def test_the_ratio_is_submitted_over_built_in_games_per_second_start_up_included() -> None:
    def speed(seconds: float) -> TournamentSpeed:
        return TournamentSpeed(100, 100, "processes", 2, 0.5, seconds - 0.5, 0.0)

    finished = bench.Round(1, builtin=speed(1.0), submitted=speed(8.0), load=(1.0, 2.0))
    assert finished.ratio == pytest.approx(0.125)


def test_the_command_plays_both_line_ups_each_round_and_prints_the_median_ratio(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(console, "_width", 200)
    arguments = ["bench", "submitted", "--games", "4", "--rounds", "2"]
    result = runner.invoke(app, [*arguments, "--workers", "1", "--executor", "local"])
    assert result.exit_code == 0, result.output
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in result.output.splitlines()]
    rows = [row for row in rows if row]
    assert [row[:2] for row in rows] == [
        ["1", "built-in"],
        ["1", "submitted (python)"],
        ["2", "built-in"],
        ["2", "submitted (python)"],
        ["median", ""],
    ]
    assert all(row[2:4] == ["4", "4"] for row in rows[:4])  # every game played and stored
    assert rows[1][6].endswith("%") and rows[4][6].endswith("%")
    assert "–" in rows[0][7]  # the load average at the round's start and end


def test_an_unknown_bot_is_one_line() -> None:
    result = runner.invoke(app, ["bench", "submitted", "--bot", "pyton"])
    assert result.exit_code == 2
    assert "did you mean 'python'?" in result.output
