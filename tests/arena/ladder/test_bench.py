"""`arena bench ladder-rating` and `ladder-placement`: run small, refuse bad options."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from arena.bench.ladder import placement_games, rating_lag
from arena.cli import app

runner = CliRunner()


def test_rating_lag_counts_every_game_and_recovers_the_strengths() -> None:
    lag = rating_lag(bots=5, games=20_000, rate=2_000.0, interval=0.5, seed=1)
    assert lag.games == 20_000 and lag.refits >= 20
    assert 0 < lag.mean_lag <= lag.max_lag
    assert lag.max_error < 40.0


def test_rating_lag_of_four_seat_rotations_counts_every_pair_and_the_state() -> None:
    lag = rating_lag(bots=8, games=8_000, rate=2_000.0, interval=0.5, seats=4, seed=2)
    assert (lag.games, lag.seats, lag.results) == (8_000, 4, 8_000 * 6)
    assert lag.refits >= 8 and 0 < lag.mean_lag <= lag.max_lag
    assert lag.max_error < 60.0
    assert 0 < lag.state_bytes < lag.memory_bytes


def test_placement_counts_games_until_the_target() -> None:
    found = placement_games(bots=6, owners=2, versions=2, target=80.0, settle_games=2_000)
    assert found.settle_games >= 2_000
    assert len(found.games) == 2 and all(g > 0 for g in found.games)
    assert all(0 < own <= g for own, g in zip(found.own_games, found.games, strict=True))


@pytest.mark.slow  # a simulated ladder and 600 matchmaking calls
def test_the_commands_print_their_tables() -> None:
    result = runner.invoke(app, ["bench", "ladder-rating", "--bots", "4", "--games", "4000"])
    assert result.exit_code == 0, result.stderr
    assert "4,000 games of 4 bots" in result.stdout
    assert "MiB in memory" in result.stdout
    args = ["--bots", "6", "--owners", "3", "--versions", "1", "--settle-games", "1000"]
    result = runner.invoke(app, ["bench", "ladder-placement", *args, "--target", "90"])
    assert result.exit_code == 0, result.stderr
    assert "±90 Elo" in result.stdout and "next_pairings" in result.stdout


def test_bad_options_are_one_line_errors() -> None:
    result = runner.invoke(app, ["bench", "ladder-rating", "--bots", "1"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: need 2+ bots and games and a positive rate and interval, got bots 1, "
        "games 1000000, rate 2000.0, interval 0.25"
    ]
    result = runner.invoke(app, ["bench", "ladder-rating", "--bots", "3", "--seats", "4"])
    assert result.exit_code == 2
    assert "got seats 4, bots 3" in result.stderr
    result = runner.invoke(app, ["bench", "ladder-placement", "--owners", "0"])
    assert result.exit_code == 2
    assert "owners 0" in result.stderr
