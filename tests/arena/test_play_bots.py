"""Your own bot everywhere: `arena play` with registered bots and files, bot
parameters reaching Python and command bots, `arena bots kinds`."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()

PICKER = """
class Picker:
    def __init__(self, seed=0, pick=0):
        self.pick = pick

    def act(self, observation, legal_actions, time_left):
        return legal_actions[self.pick % len(legal_actions)]
"""

PLAIN = """
class Plain:
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
"""

PARAMS_ECHO = """
import json, sys

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"type": "hello", "protocol": 1, "name": "echo", "games": ["*"]}
    elif kind == "new_game":
        params = message.get("params")
        print("params:", json.dumps(params, sort_keys=True), file=sys.stderr, flush=True)
        if params != {"pick": 2, "style": "bold"}:
            reply = {"type": "error", "message": "missing params: " + json.dumps(params)}
        else:
            reply = {"type": "ready"}
    elif kind == "act":
        reply = {"type": "action", "action": message["legal_actions"][0]}
    elif kind == "quit":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
"""


def arena(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    # Rich wraps long lines at the terminal's width: compare words, not lines.
    return result.exit_code, " ".join(result.stdout.split()), " ".join(result.stderr.split())


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "picker.py").write_text(PICKER)
    (tmp_path / "plain.py").write_text(PLAIN)
    (tmp_path / "echo.py").write_text(PARAMS_ECHO)
    return tmp_path


def test_play_runs_a_python_file_with_its_parameters(files: Path) -> None:
    bot = f"{files / 'picker.py'}:Picker"
    code, out, err = arena(
        "play", "koenigsgarten", "-b", "random", "--python", bot, "-p", "pick=2", "--seed", "3"
    )
    assert code == 0, err
    assert "random vs picker.py:Picker" in out and "forfeit" not in out


def test_a_parameter_the_class_does_not_take_is_refused_by_name(files: Path) -> None:
    code, out, err = arena(
        "play", "koenigsgarten", "-b", "random", "--python", str(files / "plain.py"), "-p", "x=1"
    )
    assert code == 0, err
    assert "forfeit" in out and "Plain takes no parameter 'x'" in out


def test_play_runs_a_command_which_gets_its_parameters_in_new_game(files: Path) -> None:
    command = shlex.join([sys.executable, str(files / "echo.py")])
    params = ["-p", "pick=2", "-p", "style=bold"]
    code, out, err = arena("play", "koenigsgarten", "-b", "random", "--cmd", command, *params)
    assert code == 0, err
    assert "forfeit" not in out


def test_a_command_without_the_parameters_it_wants_forfeits(files: Path) -> None:
    command = shlex.join([sys.executable, str(files / "echo.py")])
    code, out, err = arena("play", "koenigsgarten", "-b", "random", "--cmd", command)
    assert code == 0, err
    assert "forfeit" in out and "missing params: {}" in out


def test_play_takes_registered_bots_by_name_and_version(files: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    picker = f"{files / 'picker.py'}:Picker"
    add = ["bots", "add", "mine", "-g", "koenigsgarten", "--db", db]
    assert arena(*add, "--python", picker)[0] == 0
    assert arena(*add, "--python", picker, "-p", "pick=1")[0] == 0
    code, out, err = arena(
        "play", "koenigsgarten", "-b", "mine@1", "-b", "mine", "--db", db, "--show"
    )
    assert code == 0, err
    assert "mine@1 vs mine" in out and "forfeit" not in out
    code, _, err = arena("play", "koenigsgarten", "-b", "mine", "-b", "yours", "--db", db)
    assert code == 2 and "unknown bot: 'yours'" in err and "built-in kinds" in err
    assert "no bot 'yours' for koenigsgarten" in err


def test_param_goes_with_file_bots_only() -> None:
    code, _, err = arena("play", "koenigsgarten", "-b", "random", "-b", "greedy", "-p", "x=1")
    assert code == 2 and "--param goes with --python and --cmd" in err


def test_registration_refuses_parameters_a_python_bot_cannot_take(
    files: Path, tmp_path: Path
) -> None:
    db = str(tmp_path / "arena.db")
    add = ["bots", "add", "mine", "-g", "koenigsgarten", "--db", db]
    code, _, err = arena(*add, "--python", str(files / "plain.py"), "-p", "depth=3")
    assert code == 2 and "Plain takes no parameter 'depth'" in err
    assert "mine@" not in arena("bots", "list", "--all", "--db", db)[1]
    code, out, err = arena(*add, "--python", f"{files / 'picker.py'}:Picker", "-p", "pick=3")
    assert code == 0, err
    code, out, _ = arena("bots", "show", "mine", "--db", db)
    assert "'pick': 3" in out


def test_a_command_bot_is_registered_with_parameters(files: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    command = shlex.join([sys.executable, str(files / "echo.py")])
    add = ["bots", "add", "echo", "-g", "koenigsgarten", "--db", db, "--cmd", command]
    code, _, err = arena(*add, "-p", "pick=2", "-p", "style=bold")
    assert code == 0, err
    _, out, _ = arena("bots", "show", "echo", "--db", db)
    assert "'pick': 2" in out and "'style': 'bold'" in out
    code, out, err = arena("play", "koenigsgarten", "-b", "echo", "-b", "random", "--db", db)
    assert code == 0 and "forfeit" not in out, out + err


def test_bots_kinds_lists_every_parameter_with_one_spelling() -> None:
    code, out, _ = arena("bots", "kinds", "blumengarten")
    assert code == 0
    assert "solver:" in out and "seconds" in out and "node_limit" in out
    assert "old name 'time_limit'" in out
    code, out, _ = arena("bots", "kinds", "kardinal")
    assert "ismcts:" in out and "iterations" in out and "default 200" in out
    code, _, err = arena("bots", "kinds", "chess")
    assert code == 2 and "unknown game 'chess'" in err


def test_the_old_parameter_name_still_plays() -> None:
    code, _, err = arena(
        "play", "blumengarten", "-b", "solver:time_limit=1,node_limit=2000", "--seed", "1"
    )
    assert code == 0, err
    code, _, err = arena("play", "blumengarten", "-b", "solver:time_limit=1,seconds=2")
    assert code == 2 and "given twice" in err


SLEEPER = """
import time


class Sleeper:
    def act(self, observation, legal_actions, time_left):
        time.sleep(0.3)
        return legal_actions[0]
"""


@pytest.mark.slow
def test_play_keeps_time_controls_for_every_bot_or_one(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    add = ["bots", "add", "sleeper", "-g", "koenigsgarten", "--db", db]
    assert arena(*add, "--python", str(tmp_path / "sleeper.py"))[0] == 0
    # The same bot in both seats: one sandboxed process each; 0.3 s a move over st=0.1.
    play = ["play", "koenigsgarten", "--seed", "1", "--db", db]
    code, out, err = arena(*play, "-b", "sleeper", "-b", "sleeper@1", "--each", "st=0.1")
    assert code == 0, err
    assert "forfeit by seat 0 (sleeper): timeout" in out  # the sandbox cut it off
    # Its own clock of 0.5 s runs out; greedy, without a limit, never does.
    code, out, err = arena(*play, "-b", "greedy", "-b", "sleeper tc=0.5")
    assert code == 0, err
    assert "forfeit by seat 1 (sleeper): timeout" in out
    # Time enough: the game ends normally.
    code, out, err = arena(*play, "-b", "sleeper tc=1+2", "-b", "sleeper@1", "--each", "st=5")
    assert code == 0 and "forfeit" not in out, out + err
    code, _, err = arena(*play, "-b", "greedy tc=fast", "-b", "random")
    assert code == 2 and "bad time 'fast'" in err
