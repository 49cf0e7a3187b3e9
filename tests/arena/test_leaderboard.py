"""The permanent leaderboard: one per seat count and time-control class; games the host
spoiled or never played count for nobody."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from arena.cli import app
from arena.store.db import open_database

runner = CliRunner()


def arena(db: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--db", str(db)])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.slow
def test_a_bot_out_of_a_too_short_move_time_is_not_ranked_below_random(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    common = ("--game", "koenigsgarten", "--executor", "local")
    code, _, err = arena(
        db, "tournament", "run", *common, "-b", "random", "-b", "first-legal", "--games", "30"
    )
    assert code == 0, err
    # A built-in search bot given 5 ms a move runs out of time at once: host faults,
    # never its own, so it is not suspended and plays every game.
    code, _, err = arena(
        db,
        "tournament",
        "run",
        *common,
        "-b",
        "mcts",
        "-b",
        "random",
        "-b",
        "first-legal",
        "--games",
        "10",
        "--time-per-move",
        "0.005",
    )
    assert code == 0, err
    with open_database(str(db)).connect() as connection:
        names = dict(connection.execute(sa.text("SELECT id, name FROM bot")).all())
        stored = connection.execute(
            sa.text("SELECT seats, reason FROM game WHERE tournament_id = 2")
        ).all()
    host_faults: Counter[str] = Counter()
    unplayed: Counter[str] = Counter()
    for seats, reason in stored:
        for bot in json.loads(str(seats)):
            host_faults[names[bot]] += reason == "timeout"  # every bot here is built in
            unplayed[names[bot]] += reason == "suspended"
    assert host_faults["mcts"] > 0 and unplayed["mcts"] == 0

    default = json.loads(arena(db, "leaderboard", "koenigsgarten", "-f", "json")[1])
    assert default["leaderboard"]["time_class"] == "unlimited"
    assert default["leaderboard"]["tournaments"] == [1]
    assert {b["bot"] for b in default["bots"]} == {"random@1", "first-legal@1"}
    assert default["leaderboard"]["others"][0]["time_class"] == "bullet"

    code, out, err = arena(
        db, "leaderboard", "koenigsgarten", "--time-class", "bullet", "-f", "json"
    )
    assert code == 0, err
    bullet = {b["bot"]: b for b in json.loads(out)["bots"]}
    mcts = bullet["mcts@1"]
    assert (mcts["host_faults"], mcts["unplayed"]) == (host_faults["mcts"], unplayed["mcts"])
    assert mcts["forfeits"] == {} and mcts["losses"] == 0 and mcts["elo"] is None
    assert mcts["games"] == 2 * 10 - host_faults["mcts"] - unplayed["mcts"]
    assert bullet["random@1"]["games"] >= 10  # its games against first-legal count
    text = arena(db, "leaderboard", "koenigsgarten", "--time-class", "bullet")[1]
    assert "bullet time" in text and "host faults" in text

    code, _, err = arena(db, "leaderboard", "koenigsgarten", "--time-class", "hyperbullet")
    assert code == 2 and "unknown time class 'hyperbullet'" in err


def test_rule_variants_are_ranked_apart_and_named(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    common = ("--game", "blumengarten", "--type", "solitaire", "--executor", "local", "--seed", "4")
    code, _, err = arena(db, "tournament", "run", *common, "-b", "greedy", "--games", "6")
    assert code == 0, err
    code, _, err = arena(
        db, "tournament", "run", *common, "-b", "random", "--games", "4", "-O", "sequences=true"
    )
    assert code == 0, err
    # Options at their default value are no variant: this one ranks with the first.
    code, _, err = arena(
        db, "tournament", "run", *common, "-b", "greedy", "--games", "2", "-O", "sequences=false"
    )
    assert code == 0, err

    standard = json.loads(arena(db, "leaderboard", "blumengarten", "-f", "json")[1])
    assert standard["leaderboard"]["variant"] == "standard"
    assert standard["leaderboard"]["tournaments"] == [1, 3]
    assert [(b["bot"], b["games"]) for b in standard["bots"]] == [("greedy@1", 8)]
    assert standard["leaderboard"]["others"] == [
        {"seats": 1, "time_class": "unlimited", "variant": "sequences=true", "games": 4}
    ]
    assert "standard rules" in standard["title"]

    code, out, err = arena(
        db, "leaderboard", "blumengarten", "--variant", "sequences=true", "-f", "json"
    )
    assert code == 0, err
    wild = json.loads(out)
    assert wild["leaderboard"]["tournaments"] == [2]
    assert [(b["bot"], b["games"]) for b in wild["bots"]] == [("random@1", 4)]

    code, out, _ = arena(db, "leaderboard", "blumengarten")
    assert "under the standard rules" in out and "--variant sequences=true" in out
    code, _, err = arena(db, "leaderboard", "blumengarten", "--variant", "garden_7x5=true")
    assert code != 0 and "variants: sequences=true, standard" in err
    code, out, _ = arena(db, "report", "2")
    assert code == 0 and "game blumengarten (sequences=true rules)" in out
    code, out, _ = arena(db, "report", "3")
    assert code == 0 and "game blumengarten (standard rules)" in out
