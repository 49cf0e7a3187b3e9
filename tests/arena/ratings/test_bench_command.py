"""`arena bench ratings`: runs on a small simulation and refuses bad options."""

from __future__ import annotations

from typer.testing import CliRunner

from arena.bench.engines import rating_fit_speed
from arena.cli import app

runner = CliRunner()


def test_bench_ratings_prints_the_fit_time() -> None:
    result = runner.invoke(app, ["bench", "ratings", "--games", "4000", "--bots", "5"])
    assert result.exit_code == 0, result.stderr
    assert "4,000" in result.stdout and "hessian" in result.stdout


def test_bench_ratings_bootstrap_names_its_samples() -> None:
    args = ["bench", "ratings", "--games", "2000", "--bots", "4", "--interval", "bootstrap"]
    result = runner.invoke(app, [*args, "--samples", "20"])
    assert result.exit_code == 0, result.stderr
    assert "bootstrap ×20" in result.stdout


def test_bench_ratings_refuses_an_unknown_interval_in_one_line() -> None:
    result = runner.invoke(app, ["bench", "ratings", "--interval", "guess"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: --interval 'guess' is not 'hessian' or 'bootstrap'"
    ]


def test_rating_fit_speed_recovers_the_simulated_strengths() -> None:
    speed = rating_fit_speed(20_000, 6, seed=3)
    assert speed.games == 20_000 and speed.bots == 6
    assert speed.seconds > 0
    assert speed.max_error < 3 * speed.mean_half_width
