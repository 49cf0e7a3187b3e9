"""Time controls per bot: cutechess's tc=BASE+INC and st=SECONDS, for every bot or
one bot, kept by the runner and shown in reports."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.errors import ConfigError
from arena.play.runner import TimeControl, play_game
from arena.play.time_control import (
    TimeClass,
    TimeControlError,
    config_time_class,
    describe_config,
    parse_time_control,
)
from arena.tournament.config import ConfigCaps, check_caps, validate_config
from bots.base import Bot
from engines.core import Action
from engines.registry import get_game

runner = CliRunner()

SLEEPER = """
import time


class Sleeper:
    def act(self, observation, legal_actions, time_left):
        time.sleep({seconds})
        return legal_actions[0]
"""


class SleepyBot(Bot):
    """First legal action after sleeping ``seconds``: never faster than that."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.clocks: list[float | None] = []

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        self.clocks.append(time_left)
        time.sleep(self.seconds)
        return legal_actions[0]


@pytest.mark.parametrize(
    ("text", "control"),
    [
        ("tc=60+0.5", TimeControl(per_game=60, increment=0.5)),
        ("tc=60", TimeControl(per_game=60)),
        ("st=1", TimeControl(per_move=1)),
        ("tc=5+0.1 st=0.5", TimeControl(per_game=5, per_move=0.5, increment=0.1)),
        ("st=0.5, tc=5", TimeControl(per_game=5, per_move=0.5)),
    ],
)
def test_time_controls_read_as_cutechess_writes_them(text: str, control: TimeControl) -> None:
    assert parse_time_control(text) == control


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty time control"),
        ("60+0.5", "bad time control '60+0.5': write tc=SECONDS[+INCREMENT]"),
        ("st=1+1", "bad time control"),
        ("tc=1 tc=2", "bad time control"),
        ("tc=0", "bad time '0' in time control 'tc=0': positive seconds"),
        ("tc=5+-1", "bad time '-1'"),
        ("st=inf", "bad time 'inf'"),
        ("tc=x", "bad time 'x'"),
    ],
)
def test_bad_time_controls_are_named(text: str, message: str) -> None:
    with pytest.raises(TimeControlError) as error:
        parse_time_control(text)
    assert message in str(error.value)


@pytest.mark.slow
def test_the_increment_keeps_a_clock_going_and_its_absence_forfeits_on_time() -> None:
    game = get_game("koenigsgarten")
    # 0.2 s a move on a 1 s clock: out of time by the sixth move at the latest.
    sleepy = SleepyBot(0.2)
    record = play_game(
        game.new_initial_state(seed=1),
        [sleepy, SleepyBot(0)],
        time_control=[TimeControl(per_game=1.0), TimeControl()],
    )
    assert record.outcome["offender"] == 0 and record.outcome["reason"] == "timeout"
    assert "on its clock" in record.outcome["details"]["message"]
    # The same with 2 s added after each move: its clock only grows.
    sleepy = SleepyBot(0.2)
    record = play_game(
        game.new_initial_state(seed=1),
        [sleepy, SleepyBot(0)],
        time_control=[TimeControl(per_game=1.0, increment=2.0), TimeControl()],
    )
    assert record.outcome.get("offender") is None, record.outcome
    clocks = [c for c in sleepy.clocks if c is not None]
    assert len(clocks) >= 3 and clocks[0] == 1.0 and clocks[-1] > clocks[0]
    # The other seat had no limit at all.
    assert record.outcome["termination"] != "forfeit"


def test_a_per_move_limit_forfeits_the_slow_move() -> None:
    game = get_game("koenigsgarten")
    record = play_game(
        game.new_initial_state(seed=1),
        [SleepyBot(0), SleepyBot(0.3)],
        time_control=[TimeControl(), TimeControl(per_move=0.1)],
    )
    assert record.outcome["offender"] == 1 and record.outcome["reason"] == "timeout"
    assert "of at most 0.1 s per move" in record.outcome["details"]["message"]


def config(**fields: Any) -> dict[str, Any]:
    return {"game": "koenigsgarten", "bots": ["random", "greedy"], **fields}


def test_a_bot_takes_its_time_control_in_bots_or_time_controls() -> None:
    written = validate_config(config(bots=["random", "greedy tc=5+0.1"], each="st=1"))
    assert written.bots == ["random", "greedy"]
    assert written.time_controls == {"greedy": "tc=5+0.1"}
    assert describe_config(written.model_dump()) == (
        "1 s per move; greedy: 5+0.1 s per game (blitz)"
    )
    assert config_time_class(written.model_dump()) == TimeClass.BLITZ
    table = validate_config(config(time_controls={"greedy": "tc=5+0.1"}))
    assert table.time_controls == written.time_controls


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"each": "tc=5", "time_per_move": 1.0}, "'each' is the time control of every bot"),
        ({"time_controls": {"mcts": "st=1"}}, "time control for 'mcts', which does not take part"),
        ({"each": "tc=five"}, "bad time 'five'"),
        ({"bots": ["random tc=1", "greedy", "random tc=2"]}, "two time controls"),
    ],
)
def test_bad_time_control_settings_are_one_error(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as error:
        validate_config(config(**fields))
    assert message in str(error.value)


def test_time_controls_from_the_web_keep_within_the_caps() -> None:
    caps = ConfigCaps()
    check_caps(validate_config(config(each="tc=60+0.5 st=1")), caps)
    with pytest.raises(ConfigError, match=r"field 'time_controls\.greedy': st at most 60"):
        check_caps(validate_config(config(time_controls={"greedy": "st=100"})), caps)
    with pytest.raises(ConfigError, match=r"field 'each': tc .* at most 3600"):
        check_caps(validate_config(config(each="tc=60+10")), caps)


def arena(db: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--db", str(db)])
    return result.exit_code, " ".join(result.stdout.split()), " ".join(result.stderr.split())


@pytest.mark.slow
def test_a_sandboxed_bot_out_of_its_own_clock_forfeits_on_time(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    # Every Königsgarten game gives each seat at least three moves (no game ends before
    # the seventh), so 0.5 s a move runs out a 1 s clock in every game, whatever the deal.
    (tmp_path / "sleeper.py").write_text(SLEEPER.format(seconds=0.5))
    code, _, err = arena(
        db,
        "bots",
        "add",
        "sleeper",
        "-g",
        "koenigsgarten",
        "--python",
        str(tmp_path / "sleeper.py"),
    )
    assert code == 0, err
    run = ["tournament", "run", "--game", "koenigsgarten", "--executor", "local", "--games", "2"]
    # Its own clock of 1 s runs out within the game; greedy has no limit.
    code, out, err = arena(db, *run, "-b", "sleeper tc=1", "-b", "greedy")
    assert code == 0, out + err
    code, out, _ = arena(db, "tournament", "games", "1", "--reason", "timeout")
    assert out.count("sleeper@1 forfeit") == 2 and "(timeout by seat" in out
    code, out, _ = arena(db, "report", "1")
    assert "no limit; sleeper: 1 s per game (bullet)" in out
    # With an increment of 2 s its clock never runs out (3 s to start with: 2.5 s of
    # margin on its first move, which a loaded machine cannot eat), while everyone else
    # has st=5.
    code, out, err = arena(db, *run, "-b", "sleeper tc=3+2", "-b", "greedy", "--each", "st=5")
    assert code == 0, out + err
    _, out, _ = arena(db, "tournament", "games", "2", "--result", "forfeit")
    assert "no stored games match" in out
    _, out, _ = arena(db, "report", "2")
    assert "5 s per move; sleeper: 3+2 s per game" in out
