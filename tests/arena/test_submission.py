"""`arena bots add` checks a submitted bot before anything is stored."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from arena.cli import app
from arena.play.runner import play_game
from arena.players.loader import BotSource, command_files, instantiate
from arena.players.sandbox import SandboxLimits, detect_isolation
from arena.players.submission import SubmissionRejected, check_submission
from arena.store.bots import find_bot, spec_of
from arena.store.db import open_database, session_scope
from bots.simple import RandomBot
from engines.registry import get_game
from tests.arena.hostile import HERE, python_source, raw_source

runner = CliRunner()
SDK = Path(__file__).resolve().parents[2] / "bots" / "sdk" / "runtime.py"
EXAMPLES = SDK.parents[1] / "examples"


def add(db: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["bots", "add", *args, "--db", str(db)])
    return result.exit_code, result.stdout + result.stderr


def stored(db: Path) -> list[str]:
    if not db.exists():
        return []
    with open_database(str(db)).connect() as connection:
        return [row[0] for row in connection.execute(sa.text("SELECT name FROM bot"))]


def sdk_command(file: Path, cls: str) -> str:
    return shlex.join([sys.executable, str(SDK), f"{file}:{cls}"])


def raw_command(mode: str) -> str:
    """The raw bot as a user would name it on the command line (by its path)."""
    return shlex.join([sys.executable, str(HERE / "raw_bot.py"), mode])


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "arena.db"


def test_a_syntax_error_is_rejected_and_nothing_is_stored(db: Path, tmp_path: Path) -> None:
    file = tmp_path / "bot.py"
    file.write_text("class Bot:\n    def act(self, o, l, t)\n        return l[0]\n")
    code, out = add(db, "broken", "-g", "koenigsgarten", "--python", str(file))
    assert code == 2 and "syntax error at line 2" in out
    assert stored(db) == []


def test_a_syntax_error_behind_a_command_is_rejected(db: Path, tmp_path: Path) -> None:
    file = tmp_path / "bot.py"
    file.write_text("class Bot:\n    def act(self, o, l, t)\n        return l[0]\n")
    code, out = add(db, "broken", "-g", "koenigsgarten", "--cmd", sdk_command(file, "Bot"))
    assert code == 2 and "bot rejected: crash" in out and "syntax error at line 2" in out
    assert len(out.strip().splitlines()) == 1  # one line, however much the bot wrote
    assert stored(db) == []


def test_a_missing_class_is_rejected(db: Path) -> None:
    file = HERE / "illegal.py"
    code, out = add(db, "nobody", "-g", "koenigsgarten", "--python", f"{file}:Nobody")
    assert code == 2 and "no class 'Nobody'" in out
    code, out = add(db, "nobody", "-g", "koenigsgarten", "--cmd", sdk_command(file, "Nobody"))
    assert code == 2 and "no class 'Nobody'" in out
    assert stored(db) == []


def test_the_wrong_protocol_version_is_rejected(db: Path) -> None:
    command = raw_command("wrong_version")
    code, out = add(db, "future", "-g", "koenigsgarten", "--cmd", command)
    assert code == 2 and "bot rejected: wrong protocol version" in out
    assert "speaks protocol version 2" in out
    assert stored(db) == []


def test_a_bot_that_does_not_answer_in_time_is_rejected(db: Path) -> None:
    file = HERE / "sleeper.py"
    code, out = add(db, "slow", "-g", "koenigsgarten", "--python", str(file), "--check-time", "0.5")
    assert code == 2 and "bot rejected: timeout" in out
    command = raw_command("mute")
    code, out = add(db, "mute", "-g", "koenigsgarten", "--cmd", command, "--check-time", "0.5")
    assert code == 2 and "bot rejected: timeout" in out and "while starting" in out
    assert stored(db) == []


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (python_source("illegal.py", "Illegal"), "illegal action"),
        (raw_source("garbage"), "malformed output"),
        (raw_source("peek"), "protocol violation"),
        (python_source("fork_bomb.py", "ForkBomb"), "timeout"),
    ],
)
def test_a_bad_first_move_is_rejected(source: BotSource, reason: str) -> None:
    limits = SandboxLimits(move_seconds=0.5, startup_seconds=15)
    where = r"in game 1 of 2 \(2 seats, seat 0, seed 1\), its move 1"
    with pytest.raises(SubmissionRejected, match=f"^bot rejected: {reason} {where}: "):
        check_submission(source, "koenigsgarten", limits=limits)


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_a_bot_for_another_game_is_rejected(db: Path) -> None:
    command = shlex.join(["node", str(EXAMPLES / "js_bot.js")])
    code, out = add(db, "js", "-g", "blumengarten", "--cmd", command)
    assert code == 2 and "does not play blumengarten" in out


def test_a_bot_whose_move_raises_is_rejected(db: Path) -> None:
    # A tournament forfeits its games as crashes: it would lose every one.
    code, out = add(db, "raiser", "-g", "koenigsgarten", "--python", str(HERE / "raising.py"))
    assert code == 2 and "bot rejected: crash in game 1 of 2" in out
    assert "its move 1: reported an error: act raised RuntimeError('boom')" in out
    assert stored(db) == []


def test_a_good_bot_is_checked_then_registered(db: Path) -> None:
    example = EXAMPLES / "python_bot.py"
    code, out = add(db, "example", "-g", "kardinal", "--python", str(example))
    assert code == 0, out
    assert "checked: example-python speaks protocol 1 and played 4 whole games" in out
    assert "move times: median " in out
    whole_bot = detect_isolation().cgroups.enforced.memory
    assert f"sandbox: memory 2 GiB {'for the whole bot' if whole_bot else 'per process'}" in out
    assert "registered example@1" in out
    assert stored(db) == ["example"]


def test_the_check_time_must_be_positive(db: Path) -> None:
    example = EXAMPLES / "python_bot.py"
    code, out = add(db, "e", "-g", "kardinal", "--python", str(example), "--check-time", "0")
    assert code == 2 and "--check-time" in out


MAIN = """
import json
import sys

from helper import choose

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = {"type": "hello", "protocol": 1, "name": "mine", "games": ["*"]}
    elif message["type"] == "new_game":
        answer = {"type": "ready"}
    elif message["type"] == "act":
        answer = {"type": "action", "action": choose(message["legal_actions"])}
    else:
        continue
    print(json.dumps(answer), flush=True)
"""


def stored_command(db: Path, name: str) -> tuple[str, dict[str, str]]:
    with open_database(str(db)).connect() as connection:
        entry, code = connection.execute(
            sa.text("SELECT entry, code FROM bot WHERE name = :name"), {"name": name}
        ).one()
    return entry, command_files(code)


def plays_a_game(db: Path, name: str) -> bool:
    with session_scope(open_database(str(db))) as session:
        spec = spec_of(find_bot(session, name))
    state = get_game("koenigsgarten").new_initial_state(seed=5)
    outcome = play_game(state, [instantiate(spec), RandomBot(seed=5)]).outcome
    return outcome.get("offender") is None


@pytest.mark.slow
def test_a_command_bot_is_stored_with_its_files_and_plays_without_them(
    db: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "me" / "bot"
    folder.mkdir(parents=True)
    (folder / "main.py").write_text(MAIN)
    (folder / "helper.py").write_text("def choose(legal):\n    return legal[-1]\n")
    command = shlex.join(["python3", str(folder / "main.py")])
    code, out = add(db, "mine", "-g", "koenigsgarten", "--cmd", command)
    assert code == 2 and "No module named 'helper'" in out  # the check runs the stored copy
    twin = tmp_path / "other" / "main.py"
    twin.parent.mkdir()
    twin.write_text(MAIN)
    code, out = add(db, "mine", "-g", "koenigsgarten", "--cmd", command, "--file", str(twin))
    assert code == 2 and "two files or folders named 'main.py'" in out
    helper = str(folder / "helper.py")
    code, out = add(db, "mine", "-g", "koenigsgarten", "--cmd", command, "--file", helper)
    assert code == 0, out
    assert "stored with it: helper.py, main.py" in out
    shutil.rmtree(tmp_path / "me")  # tournaments run the stored copy, never the user's files
    entry, files = stored_command(db, "mine")
    assert entry == "python3 {code}/main.py" and set(files) == {"main.py", "helper.py"}
    assert plays_a_game(db, "mine")


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_a_javascript_bot_named_by_path_is_stored_and_plays(db: Path, tmp_path: Path) -> None:
    mine = tmp_path / "js_bot.js"
    shutil.copy(EXAMPLES / "js_bot.js", mine)
    code, out = add(db, "js", "-g", "koenigsgarten", "--cmd", f"node {mine}")
    assert code == 0, out
    mine.unlink()
    assert stored_command(db, "js")[0] == "node {code}/js_bot.js"
    assert plays_a_game(db, "js")


def test_a_compiled_program_named_by_path_is_refused_clearly(db: Path, tmp_path: Path) -> None:
    program = tmp_path / "mybot"
    program.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
    code, out = add(db, "compiled", "-g", "koenigsgarten", "--cmd", str(program))
    assert code == 2 and "is not UTF-8 text" in out and "/usr/local/bin" in out
    assert stored(db) == []
