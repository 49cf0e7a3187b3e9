"""Hostile bots: each ends as a forfeit with the right reason, nothing hangs, nothing
is left behind, and a tournament full of them is stored to the last game."""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

import bots.examples
from arena.botloader import PYTHON, BotSource
from arena.botstore import add_bot
from arena.cli import app
from arena.db import open_database, session_scope
from arena.runner import play_game
from arena.sandbox import detect_isolation
from arena.subprocess_bot import SubprocessBot
from bots.simple import RandomBot
from engines.registry import get_game
from tests.arena.hostile import make_bot, processes_of, python_source, raw_source

HOSTILE = {
    "endless loop": (python_source("endless_loop.py", "EndlessLoop"), "timeout", "in time"),
    "sleeping forever": (python_source("sleeper.py", "Sleeper"), "timeout", "in time"),
    "allocating 10 GB": (python_source("memory_hog.py", "MemoryHog"), "crash", "MemoryError"),
    "fork bomb": (python_source("fork_bomb.py", "ForkBomb"), "timeout", "in time"),
    "1 GB on stdout": (raw_source("flood"), "malformed_output", "longer than"),
    "exiting mid-game": (
        python_source("exit_midgame.py", "ExitMidgame"),
        "crash",
        "exited with status 3",
    ),
    "garbage output": (raw_source("garbage"), "malformed_output", "not JSON"),
    "illegal action": (python_source("illegal.py", "Illegal"), "illegal_action", "'ZZ'"),
    "asking for other seats' cards": (raw_source("peek"), "protocol_violation", "'observe'"),
    "raising in act": (python_source("raising.py", "Raising"), "crash", "RuntimeError('boom')"),
}


def play_against_random(bot: SubprocessBot, seed: int = 7) -> dict[str, Any]:
    state = get_game("koenigsgarten").new_initial_state(seed=seed)
    return play_game(state, [bot, RandomBot(seed=seed)]).outcome


def assert_nothing_left(bot: SubprocessBot) -> None:
    sandbox = bot.last_process
    assert sandbox is not None and bot.process is None
    with pytest.raises(ProcessLookupError):
        os.killpg(sandbox.pgid, 0)
    if sandbox.isolation.user:
        assert processes_of(sandbox.uid) == []
    assert not sandbox.base.exists()


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_bot_forfeits_with_the_right_reason_and_leaves_nothing(case: str) -> None:
    source, reason, clue = HOSTILE[case]
    bot = make_bot(source)
    host_memory = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    outcome = play_against_random(bot)
    assert time.monotonic() - started < 10
    assert (outcome["termination"], outcome["offender"], outcome["reason"]) == (
        "forfeit",
        0,
        reason,
    )
    assert clue in outcome["details"]["message"]
    assert_nothing_left(bot)
    # The host read at most a line's worth of whatever the bot wrote (KiB here).
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - host_memory < 100 * 1024


@pytest.mark.skipif(
    not (detect_isolation().pids or detect_isolation().user),
    reason="needs a PID namespace or a user id of the bot's own",
)
def test_a_process_that_leaves_the_group_is_killed_too() -> None:
    bot = make_bot(python_source("escaper.py", "Escaper"))
    outcome = play_against_random(bot)
    assert outcome.get("offender") is None  # it played the game to the end
    assert_nothing_left(bot)


def test_a_bot_that_never_shakes_hands_times_out_at_start() -> None:
    bot = make_bot(raw_source("mute"), startup_seconds=0.5)
    started = time.monotonic()
    outcome = play_against_random(bot)
    assert time.monotonic() - started < 5
    assert (outcome["offender"], outcome["reason"]) == (0, "timeout")
    assert "while starting" in outcome["details"]["message"]
    assert_nothing_left(bot)


def test_the_host_plays_on_normally_after_the_hostile_bots() -> None:
    bot = make_bot(python_source("illegal.py", "Illegal"))
    play_against_random(bot)
    example = Path(bots.examples.__file__).with_name("python_bot.py").read_text()
    friendly = make_bot(BotSource(PYTHON, "ExampleBot", {}, example))
    for seed in range(3):
        assert play_against_random(friendly, seed).get("offender") is None


# -- a tournament of hostile bots ------------------------------------------------------

TOURNAMENT_BOTS = {
    "sleeper": (python_source("sleeper.py", "Sleeper"), "timeout"),
    "garbage": (raw_source("garbage"), "malformed_output"),
    "peeker": (raw_source("peek"), "protocol_violation"),
    "illegal": (python_source("illegal.py", "Illegal"), "illegal_action"),
    "quitter": (python_source("exit_midgame.py", "ExitMidgame"), "crash"),
}


def register(db: Path, name: str, source: BotSource) -> None:
    # Straight into the registry: `arena bots add` would (rightly) reject them.
    with session_scope(open_database(str(db))) as session:
        add_bot(session, name=name, game="koenigsgarten", source=source)


def test_a_tournament_of_hostile_bots_stores_every_game_with_the_reasons(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    for name, (source, _) in TOURNAMENT_BOTS.items():
        register(db, name, source)
    candidates = [arg for name in TOURNAMENT_BOTS for arg in ("--candidate", name)]
    result = CliRunner().invoke(
        app,
        [
            "tournament",
            "run",
            "--game",
            "koenigsgarten",
            "--type",
            "gauntlet",
            *candidates,
            "--opponent",
            "random",
            "--games",
            "2",
            "--executor",
            "local",
            "--time-per-game",
            "1",
            "--db",
            str(db),
        ],
    )
    assert result.exit_code == 0, result.stderr
    assert "10 of 10 games stored" in result.stdout
    with open_database(str(db)).connect() as connection:
        names = dict(connection.execute(sa.text("SELECT id, name FROM bot")).all())
        games = connection.execute(sa.text("SELECT seats, offender, reason FROM game")).all()
    assert len(games) == 10
    reasons: dict[str, list[str]] = {name: [] for name in TOURNAMENT_BOTS}
    for seats, offender, reason in games:
        assert offender is not None  # every hostile bot forfeits every game
        reasons[names[json.loads(seats)[offender]]].append(reason)
    assert reasons == {name: [reason] * 2 for name, (_, reason) in TOURNAMENT_BOTS.items()}
