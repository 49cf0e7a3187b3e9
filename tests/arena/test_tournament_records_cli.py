"""Records and diagnostics from the command line: `arena tournament games`,
`arena tournament export` and the forfeits in `arena bots show`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlmodel import Session
from typer.testing import CliRunner

from arena.cli import app
from arena.play.records import GameRecord, replay
from arena.store.db import open_database
from arena.store.listing import iter_records
from tests.arena.hostile import register_unchecked

runner = CliRunner()

MUTTERING_CRASH = """
import os
import sys


class Mutter:
    moves = 0

    def act(self, observation, legal_actions, time_left):
        self.moves += 1
        if self.moves == 1:
            return legal_actions[0]
        print("thinking about", len(legal_actions), "cards", file=sys.stderr, flush=True)
        os._exit(3)
"""


def arena(db: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--db", str(db)])
    return result.exit_code, " ".join(result.stdout.split()), " ".join(result.stderr.split())


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament (id 1) of random, greedy and a bot that always crashes: 18 games."""
    tmp = tmp_path_factory.mktemp("records")
    db = tmp / "arena.db"
    register_unchecked(db, "mutter", "Mutter", MUTTERING_CRASH)  # the check refuses it
    bots = ["-b", "random", "-b", "greedy", "-b", "mutter"]
    code, out, err = arena(
        db,
        "tournament",
        "run",
        "--game",
        "koenigsgarten",
        *bots,
        "--games",
        "6",
        "--executor",
        "local",
        "--seed",
        "5",
    )
    assert code == 0, out + err
    return db


def test_games_lists_every_stored_game(played: Path) -> None:
    code, out, err = arena(played, "tournament", "games", "1", "--limit", "0")
    assert code == 0, err
    assert out.count("#") == 18
    assert "random@1" in out and "greedy@1" in out and "mutter@1" in out


def test_games_filters_by_bot_result_and_reason(played: Path) -> None:
    code, out, _ = arena(
        played, "tournament", "games", "1", "--bot", "mutter", "--result", "forfeit"
    )
    assert code == 0 and out.count("#") == 12  # mutter plays 12 games and forfeits each
    assert out.count("mutter@1 forfeit") == 12
    _, out, _ = arena(played, "tournament", "games", "1", "--bot", "random", "--result", "win")
    wins = out.count("random@1 win")
    assert wins == out.count("#") and wins >= 6  # random beats mutter at least
    _, out, _ = arena(played, "tournament", "games", "1", "--reason", "crash")
    assert out.count("#") >= 1 and out.count("(crash by seat") == out.count("#")
    _, out, _ = arena(played, "tournament", "games", "1", "--reason", "timeout")
    assert "no stored games match" in out
    _, out, _ = arena(played, "tournament", "games", "1", "--limit", "2")
    assert out.count("#") == 2 and "raise --limit" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--result", "win"], "--result win needs --bot"),
        (["--result", "victory"], "unknown result 'victory' (results: win, loss, draw, forfeit)"),
        (["--bot", "nobody"], "no bot 'nobody'"),
    ],
)
def test_bad_filters_are_one_line(played: Path, args: list[str], message: str) -> None:
    code, _, err = arena(played, "tournament", "games", "1", *args)
    assert code == 2 and message in err and "Traceback" not in err


def test_export_writes_every_record_as_json_lines(played: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "games.jsonl"
    code, out, err = arena(played, "tournament", "export", "1", "-o", str(out_file))
    assert code == 0, err
    assert f"wrote 18 records to {out_file}" in out
    lines = out_file.read_text().splitlines()
    assert len(lines) == 18
    for line in lines:
        replay(GameRecord.model_validate(json.loads(line)))  # every line is a full record
    engine = open_database(str(played))
    # Paging by index yields each record once, in order, whatever the page size.
    with Session(engine) as session:
        assert list(iter_records(session, 1, page=4)) == list(iter_records(session, 1, page=1000))
    code, _, err = arena(played, "tournament", "export", "7", "-o", str(out_file))
    assert code == 2 and "no tournament 7" in err


def test_bots_show_lists_forfeits_by_reason_with_the_stderr_tail(played: Path) -> None:
    code, out, err = arena(played, "bots", "show", "mutter")
    assert code == 0, err
    assert "forfeits: 12 (" in out and "crash" in out
    assert "latest: tournament 1 game #" in out and "exit" in out
    assert "stderr (the end kept with its latest forfeit):" in out
    assert "thinking about" in out
    _, out, _ = arena(played, "bots", "show", "random")
    assert "forfeits: none" in out
