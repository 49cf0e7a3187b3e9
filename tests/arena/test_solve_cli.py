"""`arena solve blumengarten` and `arena bench solver`: output, exit codes, bad deal files."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from engines.blumengarten import GAME
from engines.cards import DECK
from engines.outcome import Termination
from engines.seeding import derive_seed

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def one_line_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected a one-line error, got {stderr!r}"
    assert "Traceback" not in stderr
    return lines[0]


def low_cards_first() -> dict[str, Any]:
    order = sorted(DECK, key=lambda c: (c.rank, "SHDC".index(c.suit)))
    columns: list[list[str]] = [[] for _ in range(6)]
    for index, card in enumerate(order[16:]):
        columns[index % 6].insert(0, str(card))
    return {"columns": columns, "bouquet": [str(c) for c in order[:16]]}


def stuck_after_spades() -> dict[str, Any]:
    exposed = ["KS", "KH", "KD", "KC", "9S", "9H"]
    bouquet = ["AS", "2S", "3S", "4S", "5S", "2H", "3H", "4H", "5H"]
    bouquet += ["2D", "3D", "4D", "5D", "2C", "3C", "4C"]
    buried = [str(c) for c in DECK if str(c) not in set(exposed) | set(bouquet)]
    columns = [[*buried[i * 5 : i * 5 + 5], exposed[i]] for i in range(6)]
    return {"columns": columns, "bouquet": bouquet}


def write(tmp_path: Path, data: Any, name: str = "deal.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def replay_line(deal: dict[str, Any], line: list[str], options: dict[str, Any]) -> str | None:
    state = GAME.state_from_deal(deal, seats=1, options=options)
    for text in line:
        state.apply_action(GAME.parse_action(text))
    outcome = state.outcome()
    return None if outcome is None else outcome.termination


def test_a_won_deal_file_prints_won_and_a_line_that_wins(tmp_path: Path) -> None:
    deal = low_cards_first()
    code, out, _ = run("solve", "blumengarten", "--deal", str(write(tmp_path, deal)))
    assert code == 0, out
    first, *rest = out.splitlines()
    assert first.startswith("won in 52 moves") and "nodes searched" in first
    line = " ".join(rest).split()
    assert replay_line(deal, line, {}) == Termination.WON


def test_a_lost_deal_prints_lost(tmp_path: Path) -> None:
    code, out, _ = run(
        "solve", "blumengarten", "--deal", str(write(tmp_path, stuck_after_spades()))
    )
    assert code == 0
    assert out.startswith("lost") and "nodes searched" in out and "best score 5" in out


def test_a_seed_is_solved_or_reported(tmp_path: Path) -> None:
    code, out, _ = run("solve", "blumengarten", "--seed", "3", "--timeout", "5")
    assert code == 0
    status = out.split()[0].rstrip(":")
    assert status in {"won", "lost", "unknown"}
    if status == "won":
        deal = GAME.new_initial_state(seed=3).deal()
        line = " ".join(out.splitlines()[1:]).split()
        assert replay_line(dict(deal), line, {}) == Termination.WON


def test_a_tiny_budget_prints_unknown() -> None:
    """A deal without a win whose proof takes far longer than the budget."""
    seed = derive_seed(0, 28)
    code, out, _ = run("solve", "blumengarten", "--seed", str(seed), "--timeout", "0.001")
    assert code == 0
    assert out.startswith("unknown") and "nodes searched" in out


@pytest.mark.parametrize("variant", ["sequences", "garden_7x5"])
def test_variants_are_solved_with_their_rules(variant: str) -> None:
    code, out, _ = run(
        "solve", "blumengarten", "--seed", "4", "--variant", variant, "--timeout", "3"
    )
    assert code == 0
    if out.startswith("won"):
        deal = GAME.new_initial_state(seed=4, options={variant: True}).deal()
        line = " ".join(out.splitlines()[1:]).split()
        assert replay_line(dict(deal), line, {variant: True}) == Termination.WON


def test_a_seven_column_deal_needs_the_variant(tmp_path: Path) -> None:
    deal = GAME.new_initial_state(seed=2, options={"garden_7x5": True}).deal()
    path = write(tmp_path, deal)
    code, _, err = run("solve", "blumengarten", "--deal", str(path))
    assert code == 2 and "6 columns" in one_line_error(err)
    code, out, _ = run(
        "solve", "blumengarten", "--deal", str(path), "--variant", "garden_7x5", "--timeout", "1"
    )
    assert code == 0 and out.split()[0].rstrip(":") in {"won", "lost", "unknown"}


def _deal_with(change: Any) -> dict[str, Any]:
    deal = json.loads(json.dumps(GAME.new_initial_state(seed=9).deal()))
    change(deal)
    return dict(deal)


@pytest.mark.parametrize(
    ("deal", "expected"),
    [
        (_deal_with(lambda d: d["columns"][1].__setitem__(2, "1X")), "'1X'"),
        (_deal_with(lambda d: d["bouquet"].__setitem__(0, d["columns"][0][0])), "appears"),
        (_deal_with(lambda d: d["columns"][4].pop()), "column 5 has 5 cards"),
        (_deal_with(lambda d: d["bouquet"].pop()), "missing from the deal"),
        (_deal_with(lambda d: d["columns"][0].append(d["bouquet"].pop())), "column 1 has 7"),
        ({"columns": []}, "'columns' and 'bouquet'"),
    ],
)
def test_bad_deal_files_name_the_card_or_column(
    tmp_path: Path, deal: dict[str, Any], expected: str
) -> None:
    code, out, err = run("solve", "blumengarten", "--deal", str(write(tmp_path, deal)))
    assert code == 2, out
    assert expected in one_line_error(err)


def test_unreadable_or_malformed_deal_files(tmp_path: Path) -> None:
    code, _, err = run("solve", "blumengarten", "--deal", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read deal file" in one_line_error(err)
    code, _, err = run("solve", "blumengarten", "--deal", str(write(tmp_path, "{not json")))
    assert code == 2 and "not valid JSON" in one_line_error(err)
    code, _, err = run("solve", "blumengarten", "--deal", str(write(tmp_path, "[1, 2]")))
    assert code == 2 and "JSON object" in one_line_error(err)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), "exactly one of --seed"),
        (("--seed", "1", "--deal", "x.json"), "exactly one of --seed"),
        (("--seed", "1", "--variant", "spider"), "unknown variant 'spider'"),
        (("--seed", "1", "--timeout", "0"), "--timeout must be positive"),
    ],
)
def test_bad_arguments(args: tuple[str, ...], expected: str) -> None:
    code, _, err = run("solve", "blumengarten", *args)
    assert code == 2
    assert expected in one_line_error(err)


@pytest.mark.slow  # a benchmark run
def test_bench_solver_reports_shares_and_times() -> None:
    code, out, _ = run(
        "bench", "solver", "blumengarten", "--deals", "3", "--timeout", "1", "--jobs", "1"
    )
    assert code == 0, out
    summary = out.splitlines()[-1]
    assert re.fullmatch(
        r"won \d \(.*%\), proved lost \d \(.*%\), unknown \d \(.*%\); median time of a won deal .*",
        summary,
    )
    counts = [int(n) for n in re.findall(r"(\d) \(", summary)]
    assert sum(counts) == 3


def test_bench_solver_rejects_games_without_a_solver() -> None:
    code, _, err = run("bench", "solver", "kings_corner", "--deals", "1")
    assert code == 2 and "no solver" in one_line_error(err)
