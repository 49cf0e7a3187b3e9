"""`arena bots add | list | show | remove` and the versioning of stored code."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()

FIRST_LEGAL_BOT = """
from bots.base import Bot


class Picker(Bot):
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
"""


def arena(db: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--db", str(db)])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "arena.db"


def test_builtin_bots_version_by_parameters(db: Path) -> None:
    code, out, _ = arena(db, "bots", "add", "rnd", "--game", "koenigsgarten", "--builtin", "random")
    assert code == 0 and "registered rnd@1" in out
    code, out, _ = arena(db, "bots", "add", "rnd", "--game", "koenigsgarten", "--builtin", "random")
    assert code == 0 and "unchanged: rnd@1" in out
    code, out, _ = arena(
        db, "bots", "add", "rnd", "-g", "koenigsgarten", "--builtin", "random", "--param", "seed=9"
    )
    assert code == 0 and "registered rnd@2" in out
    code, out, _ = arena(db, "bots", "list")
    assert "rnd@1" in out and "rnd@2" in out
    code, out, _ = arena(db, "bots", "show", "rnd@2")
    assert code == 0 and "'seed': 9" in out


@pytest.mark.slow
def test_changed_python_code_is_a_new_version_and_the_stored_code_is_shown(
    db: Path, tmp_path: Path
) -> None:
    file = tmp_path / "mybot.py"
    file.write_text(FIRST_LEGAL_BOT)
    code, out, _ = arena(db, "bots", "add", "mine", "-g", "koenigsgarten", "--python", str(file))
    assert code == 0 and "registered mine@1" in out and "Picker" in out
    file.write_text(FIRST_LEGAL_BOT.replace("[0]", "[-1]"))
    code, out, _ = arena(
        db, "bots", "add", "mine", "-g", "koenigsgarten", "--python", f"{file}:Picker"
    )
    assert code == 0 and "registered mine@2" in out
    code, out, _ = arena(db, "bots", "show", "mine@1", "--code")
    assert "legal_actions[0]" in out and "legal_actions[-1]" not in out


@pytest.mark.slow
def test_remove_retires_but_keeps_history(db: Path) -> None:
    arena(db, "bots", "add", "rnd", "-g", "koenigsgarten", "--builtin", "random")
    code, out, _ = arena(db, "bots", "remove", "rnd")
    assert code == 0 and "retired rnd@1" in out
    _, out, _ = arena(db, "bots", "list")
    assert "rnd@1" not in out
    _, out, _ = arena(db, "bots", "list", "--all")
    assert "rnd@1 (retired)" in out
    code, _, err = arena(db, "bots", "show", "rnd")
    assert code == 2 and "no bot 'rnd'" in err
    assert arena(db, "bots", "show", "rnd@1")[0] == 0


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ["-g", "koenigsgarten", "--builtin", "alphazero"], "unknown bot: 'alphazero'"),
        (None, ["-g", "chess", "--builtin", "random"], "unknown game 'chess'"),
        (None, ["-g", "koenigsgarten"], "give exactly one of"),
        (None, ["-g", "koenigsgarten", "--builtin", "random", "--cmd", "x"], "exactly one"),
        (
            None,
            ["-g", "koenigsgarten", "--cmd", "python3 bot.py 2> log.txt"],
            "'>' is shell syntax, and no shell runs a bot's command",
        ),
        (
            None,
            ["-g", "koenigsgarten", "--builtin", "random", "-p", "depth=2"],
            "unknown parameter 'depth'",
        ),
        ("def broken(:\n", ["-g", "koenigsgarten", "--python", "{file}"], "syntax error at line 1"),
        ("x = 1\n", ["-g", "koenigsgarten", "--python", "{file}"], "classes with act(): none"),
        (FIRST_LEGAL_BOT, ["-g", "koenigsgarten", "--python", "{file}:Nope"], "no class 'Nope'"),
        (None, ["-g", "koenigsgarten", "--python", "/no/such/file.py"], "cannot read bot file"),
    ],
)
def test_bad_bots_are_rejected_and_nothing_is_stored(
    db: Path, tmp_path: Path, setup: str | None, args: list[str], message: str
) -> None:
    file = tmp_path / "bot.py"
    if setup is not None:
        file.write_text(setup)
    args = [a.replace("{file}", str(file)) for a in args]
    code, _, err = arena(db, "bots", "add", "x", *args)
    assert code == 2 and message in err and "Traceback" not in err
    _, out, _ = arena(db, "bots", "list", "--all")
    assert "x@" not in out


def test_bad_names_are_rejected(db: Path) -> None:
    code, _, err = arena(db, "bots", "add", "9lives", "-g", "koenigsgarten", "--builtin", "random")
    assert code == 2 and "bad bot name '9lives'" in err


def test_names_are_per_game(db: Path) -> None:
    arena(db, "bots", "add", "rnd", "-g", "koenigsgarten", "--builtin", "random")
    code, out, _ = arena(db, "bots", "add", "rnd", "-g", "blumengarten", "--builtin", "random")
    assert code == 0 and "registered rnd@1" in out
    code, _, err = arena(db, "bots", "show", "rnd")
    assert code == 2 and "blumengarten, koenigsgarten: name the game" in err
    code, out, _ = arena(db, "bots", "show", "rnd", "--game", "blumengarten")
    assert code == 0 and "blumengarten" in out
    code, out, _ = arena(db, "bots", "remove", "rnd", "-g", "koenigsgarten")
    assert code == 0
    _, out, _ = arena(db, "bots", "list", "--game", "blumengarten")
    assert "rnd@1" in out


def test_a_missing_version_lists_the_versions_that_exist(db: Path) -> None:
    arena(db, "bots", "add", "rnd", "--game", "koenigsgarten", "--builtin", "random")
    add = ("bots", "add", "rnd", "-g", "koenigsgarten", "--builtin", "random")
    arena(db, *add, "--param", "seed=9")
    code, out, err = arena(db, "bots", "show", "rnd@9")
    assert code != 0
    assert "rnd has versions 1, 2" in out + err
