"""`arena bench tournament`: every round's runs, and the medians over rounds."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.console import console

runner = CliRunner()


def test_rounds_give_a_row_per_run_and_round_and_a_median_per_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The console's width is fixed when it is first used: widen it for the whole table.
    monkeypatch.setattr(console, "_width", 250)
    result = runner.invoke(
        app,
        [
            "bench", "tournament", "--games", "12", "--executor", "local",
            "--workers", "1", "--rounds", "2", "--no-raw",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [line.split("│") for line in result.output.splitlines() if line.startswith("│")]
    first_cells = [row[1].strip() for row in rows]
    assert first_cells == ["1", "2", "median"]
    assert all(row[5].strip() == "12" for row in rows[:2])  # every game stored, both rounds
    assert rows[2][10].strip() == "1.00×"  # the baseline's own speed-up
    assert rows[2][11].strip().endswith("×")  # the median of × loop
    out = " ".join(result.output.split())
    assert "hand-written loop: 12 games at" in out and " · " in out


def test_rounds_must_be_positive() -> None:
    result = runner.invoke(app, ["bench", "tournament", "--rounds", "0"])
    assert result.exit_code == 2
    assert "rounds" in result.output
