"""`arena bench mcts` and `arena bench opening-solve`, and the functions behind them."""

from __future__ import annotations

import random

import pytest
from typer.testing import CliRunner

from arena.bench.search import opening_solves, sample_positions, search_speed
from arena.cli import app
from bots.koenigsgarten.solver import LOSS, Position, Solver
from bots.registry import UnknownBotError
from engines.kings_corner import GAME as KINGS_CORNER
from engines.koenigsgarten import GAME as KOENIGSGARTEN
from engines.koenigsgarten import GARDEN_CARDS
from engines.seeding import derive_seed

runner = CliRunner()


def test_sampled_positions_offer_a_choice_and_are_reproducible() -> None:
    first = sample_positions(KINGS_CORNER, 3, 5, seed=2)
    again = sample_positions(KINGS_CORNER, 3, 5, seed=2)
    assert [s.to_dict() for s in first] == [s.to_dict() for s in again]
    assert all(not s.is_terminal() and len(s.legal_actions()) > 1 for s in first)
    assert len({len(s.history) for s in first}) > 1


def test_search_speed_counts_the_iterations_of_a_timed_search() -> None:
    speed = search_speed(KINGS_CORNER, 2, "ismcts", positions=2, seconds=0.05)
    assert speed.positions == 2 and len(speed.per_position) == 2
    assert speed.iterations > 0 and speed.seconds >= 0.1
    assert speed.iterations_per_second == pytest.approx(speed.iterations / speed.seconds)


def test_search_speed_refuses_a_bot_that_does_not_search() -> None:
    with pytest.raises(UnknownBotError, match="greedy"):
        search_speed(KINGS_CORNER, 2, "greedy", positions=1, seconds=0.01)


@pytest.mark.slow  # solves whole openings
def test_opening_solves_agree_with_the_solver_and_never_lose() -> None:
    result = opening_solves(2, seed=9)
    assert len(result.seconds) == len(result.values) == 2
    assert LOSS not in result.values
    assert result.positions > 0
    again = opening_solves(2, seed=9)
    assert again.values == result.values and again.positions == result.positions
    # Layout 0 of seed 9, solved independently here.
    layout = list(GARDEN_CARDS)
    random.Random(derive_seed(9, 0)).shuffle(layout)
    values = Solver(layout).action_values(Position(0, 0, -1))
    assert result.values[0] == max(values.values())


@pytest.mark.slow  # benchmark runs
def test_the_bench_commands_print_their_tables() -> None:
    result = runner.invoke(app, ["bench", "opening-solve", "--layouts", "2"])
    assert result.exit_code == 0, result.output
    assert "opening solve" in result.stdout and "median s" in result.stdout
    result = runner.invoke(
        app,
        ["bench", "mcts", "--game", KOENIGSGARTEN.name, "--positions", "2", "--seconds", "0.05"],
    )
    assert result.exit_code == 0, result.output
    assert "koenigsgarten" in result.stdout and "mcts" in result.stdout


def test_bad_bench_input_is_a_one_line_error() -> None:
    for args in (
        ["bench", "opening-solve", "--layouts", "0"],
        ["bench", "mcts", "--positions", "0"],
        ["bench", "mcts", "--game", "koenigsgarten", "--bot", "random"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args
        assert len([line for line in result.stderr.splitlines() if line.strip()]) == 1
