"""Deal files: `arena deals make`, and tournaments that play a file's deals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()


def arena(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, " ".join(result.stdout.split()), " ".join(result.stderr.split())


def make(path: Path, game: str = "koenigsgarten", count: int = 2, *extra: str) -> list[dict]:
    code, _, err = arena("deals", "make", game, "-n", str(count), "-o", str(path), *extra)
    assert code == 0, err
    return [json.loads(line) for line in path.read_text().splitlines()]


def played_deals(db: Path, tournament: int = 1) -> list[dict]:
    """The deal of every stored game, in game order."""
    out = db.parent / f"export-{tournament}.jsonl"
    code, _, err = arena("tournament", "export", str(tournament), "-o", str(out), "--db", str(db))
    assert code == 0, err
    return [json.loads(line)["deal"] for line in out.read_text().splitlines()]


def run(db: Path, *args: str) -> None:
    code, out, err = arena(
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "--executor",
        "local",
        "--db",
        str(db),
        *args,
    )
    assert code == 0, out + err


def test_deals_make_writes_one_deal_a_line(tmp_path: Path) -> None:
    lines = make(tmp_path / "deals.jsonl", "kardinal", 3, "--seats", "3", "--seed", "7")
    assert len(lines) == 3
    assert all(line["game"] == "kardinal" and line["seats"] == 3 for line in lines)
    assert len({json.dumps(line["deal"]) for line in lines}) == 3
    again = make(tmp_path / "again.jsonl", "kardinal", 3, "--seats", "3", "--seed", "7")
    assert again == lines  # a seed makes the same deals


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["chess", "-n", "2"], "unknown game 'chess'"),
        (["koenigsgarten", "-n", "2", "--seats", "5"], "koenigsgarten"),
        (["kardinal", "-n", "2", "--option", "nosuch=1"], "unknown option 'nosuch'"),
    ],
)
def test_deals_make_refuses_bad_input_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    code, _, err = arena("deals", "make", *args, "-o", str(tmp_path / "d.jsonl"))
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.slow
def test_two_runs_with_one_deal_file_play_the_same_deals(tmp_path: Path) -> None:
    deals = make(tmp_path / "deals.jsonl", count=3)
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    run(
        first,
        "-b",
        "random",
        "-b",
        "greedy",
        "--games",
        "6",
        "--seed",
        "1",
        "--deals",
        str(tmp_path / "deals.jsonl"),
    )
    run(
        second,
        "-b",
        "first-legal",
        "-b",
        "solver",
        "--games",
        "6",
        "--seed",
        "99",
        "--deals",
        str(tmp_path / "deals.jsonl"),
    )
    played = played_deals(first)
    assert played == played_deals(second)
    # Sequential: round r plays deal r, both seatings of a round the same deal.
    assert played == [deals[0]["deal"]] * 2 + [deals[1]["deal"]] * 2 + [deals[2]["deal"]] * 2
    # Without the file the seeds shuffle other deals.
    third = tmp_path / "third.db"
    run(third, "-b", "random", "-b", "greedy", "--games", "6", "--seed", "99")
    assert played_deals(third) != played


@pytest.mark.slow
def test_sequential_order_wraps_and_random_order_draws_from_the_file(tmp_path: Path) -> None:
    deals = [line["deal"] for line in make(tmp_path / "deals.jsonl", count=2)]
    sequential = tmp_path / "sequential.db"
    run(
        sequential,
        "-b",
        "random",
        "-b",
        "greedy",
        "--games",
        "6",
        "--deals",
        str(tmp_path / "deals.jsonl"),
    )
    assert played_deals(sequential)[::2] == [deals[0], deals[1], deals[0]]
    drawn = []
    for seed in ("1", "2"):
        db = tmp_path / f"random-{seed}.db"
        run(
            db,
            "-b",
            "random",
            "-b",
            "greedy",
            "--games",
            "20",
            "--seed",
            seed,
            "--deals",
            str(tmp_path / "deals.jsonl"),
            "--deal-order",
            "random",
        )
        drawn.append(played_deals(db))
        assert all(deal in deals for deal in drawn[-1])
        assert drawn[-1][::2] != [deals[i % 2] for i in range(10)]  # not the file's order
    assert drawn[0] != drawn[1]


def test_a_config_file_names_its_deal_file_relative_to_itself(tmp_path: Path) -> None:
    folder = tmp_path / "ladder"
    folder.mkdir()
    deals = make(folder / "deals.jsonl", count=1)
    config = folder / "t.toml"
    config.write_text(
        'game = "koenigsgarten"\nbots = ["random", "greedy"]\ngames = 2\n'
        'executor = "local"\ndeals = "deals.jsonl"\n'
    )
    db = tmp_path / "arena.db"
    code, out, err = arena("tournament", "run", str(config), "--db", str(db))
    assert code == 0, out + err
    assert played_deals(db) == [deals[0]["deal"]] * 2


def test_bad_deal_files_name_the_file_and_the_line(tmp_path: Path) -> None:
    path = tmp_path / "deals.jsonl"
    good = make(path, count=2)
    bad_card = json.loads(json.dumps(good[1]))
    bad_card["deal"]["layout"][0] = "ZZ"
    cases = {
        "not json": "line 2: not JSON",
        json.dumps({**good[1], "game": "kardinal"}): "line 2: a deal of 'kardinal'",
        json.dumps({**good[1], "seats": 3}): "line 2: a deal for 3 seats",
        json.dumps(bad_card): "line 2:",
        "[1, 2]": "line 2: a JSON object per line, not list",
    }
    db = tmp_path / "arena.db"
    for second_line, message in cases.items():
        path.write_text(json.dumps(good[0]) + "\n" + second_line + "\n")
        code, err = refused(db, path)
        assert code == 2 and f"deal file {str(path)!r}, {message}" in err, err
        assert "Traceback" not in err
    code, err = refused(db, tmp_path / "missing.jsonl")
    assert code == 2 and "cannot read deal file" in err
    path.write_text("\n")
    code, err = refused(db, path)
    assert code == 2 and "holds no deals" in err


def refused(db: Path, deals: Path) -> tuple[int, str]:
    """Exit code and stderr of a tournament with the deal file ``deals``."""
    code, _, err = arena(
        "tournament", "run", "--game", "koenigsgarten", "-b", "random", "-b", "greedy",
        "--deals", str(deals), "--db", str(db),
    )  # fmt: skip
    return code, err


def test_only_a_config_file_or_the_command_line_reads_a_deal_file(tmp_path: Path) -> None:
    """A configuration from elsewhere (the web) names no file on this machine; it may
    give the deals themselves, which are checked."""
    from arena.errors import ConfigError
    from arena.tournament.config import validate_config

    base = {"game": "koenigsgarten", "bots": ["random", "greedy"]}
    with pytest.raises(ConfigError, match="'deals' names a file"):
        validate_config({**base, "deals": "/etc/passwd"})
    deals = [line["deal"] for line in make(tmp_path / "deals.jsonl", count=2)]
    assert validate_config({**base, "deals": deals}).deals == deals
    with pytest.raises(ConfigError, match="deal 2 of 'deals'"):
        validate_config({**base, "deals": [deals[0], {"layout": ["AS"]}]})


def test_a_solver_deal_file_is_a_deal_file_of_one_deal(tmp_path: Path) -> None:
    """`arena solve blumengarten --deal FILE` reads one deal written over several
    lines; a solitaire tournament takes the same file."""
    deal = make(tmp_path / "one.jsonl", "blumengarten", 1)[0]["deal"]
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(deal, indent=2))
    db = tmp_path / "arena.db"
    code, out, err = arena(
        "tournament", "run", "--game", "blumengarten", "--type", "solitaire", "-b", "greedy",
        "-b", "random", "--games", "2", "--deals", str(path), "--executor", "local",
        "--db", str(db),
    )  # fmt: skip
    assert code == 0, out + err
    assert played_deals(db) == [deal] * 4
