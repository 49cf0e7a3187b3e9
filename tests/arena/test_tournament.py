"""Tournaments end to end: formats, storage, bad configs, the stored code running."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from arena.cli import app
from arena.play.records import GameRecord, replay
from arena.store.db import open_database
from arena.tournament.config import read_config_file, validate_config
from tests.arena.hostile import register_unchecked

runner = CliRunner()
CONFIGS = Path(__file__).resolve().parents[2] / "configs"

SLEEPY_FIRST_LEGAL = """
import time
from bots.base import Bot


class Slow(Bot):
    def act(self, observation, legal_actions, time_left):
        time.sleep({delay})
        return legal_actions[0]
"""

CRASHING = """
class Crash:
    def act(self, observation, legal_actions, time_left):
        raise RuntimeError("boom")
"""


def arena(db: str | Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--db", str(db)])
    return result.exit_code, result.stdout, result.stderr


def rows(db: str | Path, sql: str) -> list[tuple[object, ...]]:
    engine = open_database(str(db))
    with engine.connect() as connection:
        return [tuple(r) for r in connection.execute(sa.text(sql))]


@pytest.fixture
def db(db_url: str) -> str:
    """The database of a test: SQLite, and PostgreSQL when the suite has one."""
    return db_url


def test_round_robin_stores_every_scheduled_game_once(db: str) -> None:
    code, out, err = arena(
        db,
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "-b",
        "random",
        "-b",
        "first-legal",
        "-b",
        "random:seed=4",
        "--games",
        "10",
        "--executor",
        "local",
        "--seed",
        "9",
    )
    assert code == 0, err
    assert "completed, 30 of 30 games stored" in out
    assert rows(db, "SELECT scheduled, status FROM tournament") == [(30, "completed")]
    indexes = [r[0] for r in rows(db, 'SELECT "index" FROM game ORDER BY "index"')]
    assert indexes == list(range(30))
    assert rows(db, "SELECT count(*) FROM game_seat") == [(60,)]
    for (record,) in rows(db, "SELECT record FROM game"):
        parsed = GameRecord.model_validate_json(str(record))
        replay(parsed)  # every stored record re-validates
        assert parsed.seats == 2 and all("@" in p for p in parsed.players)


def test_tournament_show_and_list(db: str) -> None:
    arena(
        db,
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "-b",
        "random",
        "-b",
        "first-legal",
        "--games",
        "4",
        "--executor",
        "local",
        "--name",
        "tiny",
    )
    code, out, _ = arena(db, "tournament", "list")
    assert code == 0 and "tiny" in out and "4/4" in out
    code, out, _ = arena(db, "tournament", "show", "1")
    assert code == 0 and "random@1" in out and "first-legal@1" in out and "completed" in out
    code, _, err = arena(db, "tournament", "show", "7")
    assert code == 2 and "no tournament 7" in err


def test_the_same_seed_replays_the_same_tournament(tmp_path: Path) -> None:
    records = []
    for name in ("a.db", "b.db"):
        db = tmp_path / name
        arena(
            db,
            "tournament",
            "run",
            "--game",
            "koenigsgarten",
            "-b",
            "random",
            "-b",
            "random:seed=1",
            "--games",
            "6",
            "--executor",
            "local",
            "--seed",
            "77",
        )
        records.append(
            [
                {k: v for k, v in json.loads(str(r[0])).items() if k != "duration"}
                for r in rows(db, 'SELECT record FROM game ORDER BY "index"')
            ]
        )
    assert records[0] == records[1]


@pytest.mark.slow
def test_the_stored_code_runs_not_the_file(db: str, tmp_path: Path) -> None:
    file = tmp_path / "bot.py"
    file.write_text(SLEEPY_FIRST_LEGAL.format(delay=0))
    assert arena(db, "bots", "add", "mine", "-g", "koenigsgarten", "--python", str(file))[0] == 0
    file.write_text(CRASHING)  # changing the file afterwards changes nothing
    code, _, err = arena(
        db,
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "-b",
        "mine",
        "-b",
        "random",
        "--games",
        "4",
        "--executor",
        "local",
    )
    assert code == 0, err
    assert rows(db, "SELECT count(*) FROM game WHERE status = 'forfeit'") == [(0,)]


def test_a_crashing_bot_forfeits_and_the_tournament_goes_on(db: str, tmp_path: Path) -> None:
    register_unchecked(db, "crash", "Crash", CRASHING)  # the check refuses it
    code, out, _ = arena(
        db,
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "-b",
        "crash",
        "-b",
        "random",
        "--games",
        "4",
        "--executor",
        "local",
    )
    assert code == 0 and "4 of 4 games stored" in out
    forfeits = rows(db, "SELECT seats, offender, reason FROM game")
    assert len(forfeits) == 4
    for seats, offender, reason in forfeits:
        crash_id = rows(db, "SELECT id FROM bot WHERE name = 'crash'")[0][0]
        assert json.loads(str(seats))[int(str(offender))] == crash_id and reason == "crash"


def test_gauntlet_from_the_example_config(db: str) -> None:
    code, _, err = arena(
        db,
        "tournament",
        "run",
        str(CONFIGS / "gauntlet.toml"),
        "--executor",
        "local",
        "--games",
        "4",
    )
    assert code == 0, err
    tables = {tuple(json.loads(str(r[0]))) for r in rows(db, "SELECT seats FROM game")}
    first_legal = rows(db, "SELECT id FROM bot WHERE name = 'first-legal'")[0][0]
    assert all(first_legal in t for t in tables)
    assert len(tables) == 4  # 2 opponents × 2 seatings


def test_every_example_config_is_valid() -> None:
    for path in CONFIGS.glob("*.toml"):
        config = validate_config(read_config_file(path), path.name)
        assert config.game


@pytest.mark.slow
@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            'game = "koenigsgarten"\nbots = ["random", "first-legal"]\ncolour = "red"\n',
            "unknown field 'colour'",
        ),
        (
            'game = "koenigsgarten"\nbots = ["random", "first-legal"]\ngames = -3\n',
            "field 'games': Input should be greater than or equal to 1 (got -3)",
        ),
        (
            'game = "koenigsgarten"\nbots = ["random", "first-legal"]\nformat = "swiss"\n',
            "field 'format'",
        ),
        ('game = "koenigsgarten"\nbots = ["random", "nobody"]\n', "unknown bot 'nobody'"),
        ('game = "go"\nbots = ["random", "first-legal"]\n', "unknown game 'go'"),
        ('game = "koenigsgarten"\nbots = ["random"]\n', "needs at least 2 bots"),
        (
            'game = "koenigsgarten"\nbots = ["random", "first-legal"]\n[options]\nsize = 5\n',
            "unknown option 'size'",
        ),
        ('game = "koenigsgarten"\nbots = [\n', "not valid TOML"),
    ],
)
def test_bad_configs_name_file_field_and_value_and_write_nothing(
    db: str, tmp_path: Path, config: str, message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(config)
    code, _, err = arena(db, "tournament", "run", str(path), "--executor", "local")
    assert code == 2
    assert message in err and "bad.toml" in err and "Traceback" not in err
    # one line of error (beside the notice of a database just created, when it was)
    said = [line for line in err.strip().splitlines() if "created a new database" not in line]
    assert len(said) == 1
    assert rows(db, "SELECT count(*) FROM tournament") == [(0,)]
    assert rows(db, "SELECT count(*) FROM bot") == [(0,)]


@pytest.mark.slow  # starts Ray
def test_ray_executor_with_two_workers(db: str) -> None:
    code, out, err = arena(
        db,
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "-b",
        "random",
        "-b",
        "first-legal",
        "--games",
        "200",
        "--workers",
        "2",
        "--executor",
        "ray",
    )
    assert code == 0, err
    assert "completed, 200 of 200 games stored" in out
    workers = {r[0] for r in rows(db, "SELECT worker FROM game")}
    assert workers and all(":" in str(w) for w in workers)
    assert rows(db, 'SELECT count(DISTINCT "index") FROM game') == [(200,)]


def test_the_demo_config_file_matches_the_embedded_demo() -> None:
    from arena.cli.demo import DEMO_CONFIG

    assert read_config_file(CONFIGS / "demo.toml") == DEMO_CONFIG


@pytest.mark.slow
def test_a_bot_over_the_crash_rate_is_suspended_and_every_game_is_still_stored(
    db: str, tmp_path: Path
) -> None:
    register_unchecked(db, "crash", "Crash", CRASHING)  # the check refuses it
    code, out, err = arena(
        db,
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "-b",
        "crash",
        "-b",
        "random",
        "-b",
        "first-legal",
        "--games",
        "40",
        "--executor",
        "local",
    )
    assert code == 0, err
    assert "suspended crash@1" in out and "120 of 120 games stored" in out
    reasons = dict(rows(db, "SELECT reason, count(*) FROM game GROUP BY reason"))
    assert reasons["crash"] >= 10 and reasons["suspended"] > 0
    assert reasons["crash"] + reasons["suspended"] == 80  # every game of the crashing bot
    assert rows(
        db,
        "SELECT suspended FROM participant p JOIN bot b ON b.id = p.bot_id WHERE b.name = 'crash'",
    ) == [(1,)]
    report = json.loads(arena(db, "report", "1", "-f", "json")[1])
    crash = next(b for b in report["bots"] if b["bot"] == "crash@1")
    # Games never played count for nobody: they are the crashing bot's unplayed games.
    assert crash["forfeits"] == {"crash": reasons["crash"]}
    assert crash["unplayed"] == reasons["suspended"] and crash["games"] == reasons["crash"]
    # A game forfeited before its first move is a record like any other (new_record).
    for (record,) in rows(db, "SELECT record FROM game WHERE reason = 'suspended'"):
        parsed = GameRecord.model_validate_json(str(record))
        replay(parsed)
        assert parsed.actions == [] and parsed.players[parsed.outcome["offender"]] == "crash@1"
        assert "crash@1 is suspended" in parsed.outcome["details"]["message"]


def test_a_built_in_bot_out_of_time_is_never_suspended(db: str) -> None:
    """A built-in bot's timeouts are host faults (issue: mcts was suspended after 10
    of 10, its other games left unplayed): it plays every game, none is a forfeit
    for suspension, and the games count for nobody."""
    code, out, err = arena(
        db,
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        "-b",
        "random",
        "-b",
        "mcts:iterations=3000",
        "--games",
        "12",
        "--seed",
        "31",
        "--time-per-move",
        "0.001",
        "--executor",
        "local",
    )
    assert code == 0, err
    assert "suspended" not in out and "12 of 12 games stored" in out
    reasons = dict(rows(db, "SELECT reason, count(*) FROM game GROUP BY reason"))
    assert "suspended" not in reasons and reasons.get("timeout", 0) >= 10
    assert rows(db, "SELECT suspended FROM participant") == [(0,), (0,)]
