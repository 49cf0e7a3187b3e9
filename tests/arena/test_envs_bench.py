"""`arena bench envs` and the loops behind it: the environment is driven as a learner
drives it, beside the engine's own playouts."""

from __future__ import annotations

from typer.testing import CliRunner

from arena.bench.envs import bare_playouts, env_playouts, env_speed
from arena.cli import app
from engines.koenigsgarten import GAME as KOENIGSGARTEN

runner = CliRunner()


def test_every_loop_plays_games_to_the_end() -> None:
    for text in (False, True):
        assert env_playouts(KOENIGSGARTEN, 2, 0.02, text_observations=text) > 0
    assert bare_playouts(KOENIGSGARTEN, 2, 0.02) > 0
    speed = env_speed(KOENIGSGARTEN, 2, seconds=0.02, rounds=2)
    assert len(speed.engine_rates) == len(speed.env_rates) == len(speed.bare_rates) == 2
    assert not speed.text_observations  # the environment's default
    assert speed.ratio == speed.env / speed.engine > 0


def test_the_command_reports_the_default_first_and_the_load() -> None:
    result = runner.invoke(
        app, ["bench", "envs", "-g", "koenigsgarten", "--seconds", "0.02", "--rounds", "1"]
    )
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "koenigsg" in line]
    assert len(rows) == 2 and " no │" in rows[0] and " yes │" in rows[1]
    assert "load average at the start" in result.output


def test_bad_rounds_or_seconds_are_refused() -> None:
    result = runner.invoke(app, ["bench", "envs", "--rounds", "0"])
    assert result.exit_code != 0 and "--rounds must be at least 1" in result.output
