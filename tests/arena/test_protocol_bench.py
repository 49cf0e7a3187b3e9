"""`arena bench protocol` and the function behind it: a trivial SDK bot in the sandbox."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from arena.bench.protocol import protocol_speed
from arena.cli import app

runner = CliRunner()


def test_the_moves_are_timed_frozen_and_never_frozen_with_the_cpu_of_both_sides() -> None:
    speed = protocol_speed(game="koenigsgarten", moves=25, games=2)
    assert len(speed.round_trips) == 25 and len(speed.starts) == len(speed.ends) == 2
    assert len(speed.never_frozen) in (0, 25)  # 0: this machine has no freezer
    assert speed.isolation.cgroups.enforced.freeze == bool(speed.never_frozen)
    assert speed.host_cpu > 0
    assert speed.bot_cpu is None or speed.bot_cpu >= 0
    assert speed.median <= speed.p90


def test_the_command_prints_the_figures_and_the_load() -> None:
    result = runner.invoke(app, ["bench", "protocol", "--moves", "20", "--games", "1"])
    assert result.exit_code == 0, result.output
    assert "never frozen: the median of as many moves" in result.output
    assert re.search(r"│ +20 │", result.output)  # the moves timed
    assert "load average" in result.output
