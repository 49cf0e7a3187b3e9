"""`arena solitaire`: the same deals for every bot, Wilson intervals, bad input."""

from __future__ import annotations

import re

import pytest
from scipy.stats import binomtest
from typer.testing import CliRunner

from arena.cli import app
from arena.play.runner import play_game
from arena.play.solitaire import BotTally, deal_seed
from bots.registry import make_bot
from engines.blumengarten import GAME

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def one_line_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected a one-line error, got {stderr!r}"
    return lines[0]


def row(out: str, name: str) -> list[str]:
    for line in out.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃|]", line) if c.strip()]
        if cells and cells[0] == name:
            return cells
    raise AssertionError(f"no row for {name!r} in\n{out}")


def test_every_bot_plays_the_same_deals_and_gets_a_row() -> None:
    code, out, _ = run(
        "solitaire",
        "blumengarten",
        "--bot",
        "random",
        "--bot",
        "greedy",
        "--deals",
        "4",
        "--seed",
        "7",
    )
    assert code == 0, out
    for name in ("random", "greedy"):
        cells = row(out, name)
        wins, deals = (int(x) for x in cells[1].split("/"))
        assert deals == 4
        # the mean score is the mean of the same deals played here directly
        scores = []
        for index in range(4):
            state = GAME.new_initial_state(seed=deal_seed(7, index))
            scores.append(
                play_game(state, [make_bot(name, "blumengarten")]).outcome_value.returns[0]
            )
        assert float(cells[4]) == round(sum(scores) / 4, 2)
        low, high = BotTally(name, 4, wins, 0).wilson_interval()
        assert cells[3] == f"{low:.1%} – {high:.1%}"


def test_wilson_interval_is_scipys() -> None:
    tally = BotTally("x", 200, 151, 0)
    interval = binomtest(151, 200).proportion_ci(method="wilson")
    assert tally.wilson_interval() == (interval.low, interval.high)
    assert tally.win_rate == 151 / 200


@pytest.mark.slow
def test_a_solver_row_with_bot_parameters() -> None:
    code, out, _ = run(
        "solitaire", "blumengarten", "--bot", "solver:node_limit=20000", "--deals", "2"
    )
    assert code == 0, out
    assert row(out, "solver:node_limit=20000")[1].endswith("/2")


def test_the_same_bot_twice_gets_two_rows() -> None:
    code, out, _ = run(
        "solitaire", "blumengarten", "--bot", "random", "--bot", "random", "--deals", "1"
    )
    assert code == 0
    assert row(out, "random") and row(out, "random#2")


def test_options_reach_the_game() -> None:
    code, out, _ = run(
        "solitaire",
        "blumengarten",
        "--bot",
        "greedy",
        "--deals",
        "2",
        "--option",
        "garden_7x5=true",
    )
    assert code == 0, out


def test_bad_input_is_one_line_exit_2() -> None:
    cases = [
        (("koenigsgarten", "--bot", "random"), "not a one-player game"),
        (("blumengarten", "--bot", "nosuchbot"), "unknown bot"),
        (("blumengarten", "--bot", "random", "--deals", "0"), "at least 1"),
        (("blumengarten", "--bot", "random", "--option", "colour=red"), "unknown option"),
        (("blumengarten", "--bot", "solver:speed=9"), "unknown parameter"),
        (("nosuchgame", "--bot", "random"), "unknown game"),
    ]
    for args, expected in cases:
        code, _, err = run("solitaire", *args)
        assert code == 2, args
        assert expected in one_line_error(err), args
