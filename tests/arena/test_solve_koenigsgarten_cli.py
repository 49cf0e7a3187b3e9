"""`arena solve koenigsgarten`: the value of a position and of every legal card, and
one-line errors for bad layouts and actions."""

from __future__ import annotations

from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()

LAYOUT = "AS KS JS QC  AH KH QH JH  AD KD QD JD  AC KC JC QS"


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["solve", "koenigsgarten", *args])
    return result.exit_code, result.stdout, result.stderr


def one_line_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected a one-line error, got {stderr!r}"
    assert "Traceback" not in stderr
    return lines[0]


def value_lines(out: str) -> dict[str, tuple[str, str]]:
    """card → (cell, value) from the listing under the summary line."""
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in ("win", "draw", "loss"):
            rows[parts[0]] = (parts[1], parts[2])
    return rows


def test_a_position_after_some_moves_lists_every_legal_card() -> None:
    # Worked out by hand in tests/bots/koenigsgarten/test_solver.py: QS leaves the
    # opponent no card; JH lets it complete column c.
    moves = "AS JS JD QD QC KC KS KD AD AH KH QH"
    code, out, _ = run("--layout", f"{LAYOUT} {moves}")
    assert code == 0
    assert "seat 0 to move: win" in out
    assert value_lines(out) == {"JH": ("d2", "loss"), "QS": ("d4", "win")}


def test_the_opening_lists_the_twelve_edge_cards() -> None:
    code, out, _ = run("--layout", LAYOUT.replace("  ", ", "))
    assert code == 0
    rows = value_lines(out)
    assert sorted(cell for cell, _ in rows.values()) == sorted(
        "a1 b1 c1 d1 a2 d2 a3 d3 a4 b4 c4 d4".split()
    )
    best = max(rows.values(), key=lambda row: ("loss", "draw", "win").index(row[1]))[1]
    assert f"seat 0 to move: {best}" in out


def test_a_short_layout_is_a_one_line_error() -> None:
    code, _, err = run("--layout", "AS KS JS QC AH KH QH JH AD KD QD JD AC KC JC")
    assert code == 2
    assert "16 cards" in one_line_error(err)


def test_a_card_outside_the_garden_is_a_one_line_error() -> None:
    code, _, err = run("--layout", LAYOUT.replace("QS", "TS"))
    assert code == 2
    assert "'TS'" in one_line_error(err)


def test_an_illegal_action_is_a_one_line_error() -> None:
    code, _, err = run("--layout", f"{LAYOUT} KH")
    assert code == 2
    assert "'KH' is not legal" in one_line_error(err)


def test_a_malformed_action_is_a_one_line_error() -> None:
    code, _, err = run("--layout", f"{LAYOUT} ZZ")
    assert code == 2
    assert "'ZZ'" in one_line_error(err)


def test_a_finished_game_is_a_one_line_error() -> None:
    code, _, err = run("--layout", f"{LAYOUT} AS JS JD QD QC KC KS KD AD AH KH QH QS")
    assert code == 2
    assert "game is over" in one_line_error(err)
