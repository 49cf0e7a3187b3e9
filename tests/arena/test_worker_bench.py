"""`arena bench worker` and the function behind it."""

from __future__ import annotations

from typer.testing import CliRunner

from arena.bench.worker import worker_cost
from arena.cli import app

runner = CliRunner()


def test_the_worker_cost_counts_every_game_in_both_loops() -> None:
    for game in ("koenigsgarten", "blumengarten"):
        cost = worker_cost(game=game, games=30, chunk=8)
        assert cost.games == 30
        assert cost.raw_seconds > 0 and cost.play_seconds > 0 and cost.pickle_seconds > 0
        assert cost.worker_micros == (cost.play_seconds + cost.pickle_seconds) / 30 * 1e6
        assert cost.ratio == (cost.play_seconds + cost.pickle_seconds) / cost.raw_seconds


def test_the_command_prints_a_round_a_row_and_names_a_bad_game() -> None:
    result = runner.invoke(app, ["bench", "worker", "--games", "40", "--rounds", "2"])
    assert result.exit_code == 0, result.output
    assert "worker / raw" in result.output and "│     2 │" in result.output
    result = runner.invoke(app, ["bench", "worker", "--game", "nope", "--games", "5"])
    assert result.exit_code != 0 and "unknown game 'nope'" in result.output
