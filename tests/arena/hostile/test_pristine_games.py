"""Every game from a pristine bot (docs/protocol.md, "Every game from a pristine bot").

With ``SandboxLimits.warm`` a Python bot is loaded once (its zygote) and each game is
played by a fresh fork of it; a command bot runs one process per game. Either way
nothing game N leaves behind reaches game N+1: ``remembers.py`` leaves a module
global, a class attribute, an environment variable, files in /tmp, /dev/shm and its
working directory, a thread and a child process that keep running, an abstract
socket, SysV IPC objects, a POSIX message queue and a key, and reports in the next
game what it finds. A design that reused the bot's process would show the global,
the class attribute, the environment variable and the thread; one that reused its
sandbox without renewing it, the files, the process, the IPC objects, another PID or
another inode number.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
from typing import Any

import pytest

from arena.play.runner import play_game
from arena.players.loader import COMMAND, PYTHON, SDK_RUNTIME, BotSource, bundle_files
from arena.players.sandbox import detect_isolation
from arena.players.subprocess_bot import SubprocessBot
from bots.simple import RandomBot
from engines.registry import get_game
from tests.arena.hostile import HERE, make_bot, python_source

ISOLATION = detect_isolation()
needs_zygotes = pytest.mark.skipif(
    not (ISOLATION.cgroups.parents and ISOLATION.pids and ISOLATION.filesystem),
    reason="a zygote needs cgroups and PID and mount namespaces",
)
pytestmark = [pytest.mark.slow]
NOTHING = {
    "global": None,
    "class": None,
    "env": None,
    "files": [],
    "threads": [],
    "tasks": 1,
    "children": 0,
    "socket": False,
    "shm": False,
    "msg": False,
    "sem": False,
    "mq": False,
}


def play_against_random(bot: SubprocessBot, seed: int, seat: int = 0) -> dict[str, Any]:
    """The outcome of a Königsgarten game of ``bot`` in ``seat`` against a random bot."""
    state = get_game("koenigsgarten").new_initial_state(seed=seed)
    bots = [RandomBot(seed=seed)]
    bots.insert(seat, bot)
    outcome: dict[str, Any] = play_game(state, bots).outcome
    return outcome


def reports(bot: SubprocessBot, kind: str) -> dict[str, Any]:
    """The bot's ``FOUND``/``PLANTED`` report of its last game (its stderr)."""
    for line in bot.last_stderr.decode().splitlines():
        if line.startswith(kind + " "):
            return dict(json.loads(line.partition(" ")[2]))
    raise AssertionError(f"no {kind} report in {bot.last_stderr!r}")


def play_games(bot: SubprocessBot, games: int) -> list[dict[str, Any]]:
    """Each game's ``FOUND`` report (each also checked to have left something)."""
    found = []
    for seed in range(games):
        outcome = play_against_random(bot, seed)
        assert outcome["termination"] != "forfeit", outcome
        found.append(reports(bot, "FOUND"))
        planted = reports(bot, "PLANTED")
        assert planted["files"] and planted["children"] and planted["socket"], planted
    return found


@needs_zygotes
def test_nothing_of_a_warm_game_reaches_the_next() -> None:
    bot = make_bot(python_source("remembers.py", "Remembers"), warm=True)
    try:
        found = play_games(bot, 3)
        assert bot.cold_reason is None
    finally:
        bot.close()
    for report in found:
        assert {key: report[key] for key in NOTHING} == NOTHING
    # Every game's first file has the same inode number, and no game sees process 1
    # (nor the zygote, nor the warden): a game cannot count the last one's files or
    # moves. Its process ids are drawn afresh for each game (the warden's secret last
    # PID), so they say nothing of the processes the last game started.
    assert len({report["inode"] for report in found}) == 1
    assert all(report["process 1"] is None for report in found)
    assert len({report["pid"] for report in found}) == len(found)


def test_nothing_of_a_command_bots_game_reaches_the_next() -> None:
    # A command bot is single-game: one process, one sandbox per game.
    command = shlex.join([sys.executable, "-S", str(SDK_RUNTIME), "{code}/remembers.py:Remembers"])
    files = bundle_files({"remembers.py": (HERE / "remembers.py").read_text()})
    bot = make_bot(BotSource(COMMAND, command, {}, files), warm=True)
    try:
        found = play_games(bot, 2)
        assert bot.zygote_pid is None and bot.cold_reason is None
    finally:
        bot.close()
    for report in found:
        assert {key: report[key] for key in NOTHING if key != "shm"} == {
            key: value for key, value in NOTHING.items() if key != "shm"
        }


@needs_zygotes
def test_a_command_bot_that_forks_its_games_plays_warm_from_its_second_game() -> None:
    # Its hello says "zygote": true (the SDK's --zygote, run as a command): the first
    # game is single-game, the next ones forks of one zygote, and nothing carries over.
    command = shlex.join(
        [sys.executable, "-S", str(SDK_RUNTIME), "--zygote", "{code}/remembers.py:Remembers"]
    )
    files = bundle_files({"remembers.py": (HERE / "remembers.py").read_text()})
    bot = make_bot(BotSource(COMMAND, command, {}, files), warm=True)
    try:
        found = play_games(bot, 1)
        assert bot.zygote_pid is None  # single-game: its sandbox ended with it
        found += play_games(bot, 3)
        assert bot.cold_reason is None and bot.zygote_pid is not None
    finally:
        bot.close()
    for report in found:
        assert {key: report[key] for key in NOTHING} == NOTHING


@needs_zygotes
def test_the_warm_path_is_warm() -> None:
    bot = make_bot(python_source("first_legal.py", "FirstLegal"), warm=True)
    try:
        zygotes, games = set(), set()
        for seed in range(3):
            assert play_against_random(bot, seed)["termination"] != "forfeit"
            zygotes.add(bot.zygote_pid)
            games.add(bot.game_pid)
        assert bot.cold_reason is None
        assert len(zygotes) == 1 and None not in zygotes
        assert len(games) == 3
    finally:
        bot.close()


@needs_zygotes
def test_a_bot_of_the_engines_plays_warm() -> None:
    # Its games import the engines (from a checkout below /tmp too, renewed each game).
    code = (
        "from bots.base import Bot\n\n\nclass EngineFirst(Bot):\n"
        "    def act(self, observation, legal_actions, time_left):\n"
        "        return legal_actions[0]\n"
    )
    bot = make_bot(BotSource(PYTHON, "EngineFirst", {}, code), warm=True)
    try:
        for seed in range(3):
            assert play_against_random(bot, seed)["termination"] != "forfeit"
        assert bot.cold_reason is None and bot.zygote_pid is not None
    finally:
        bot.close()


@needs_zygotes
@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("thread", "2 threads"),
        ("file", "open files"),
        ("shared", "shared memory mappings"),
        ("process", "processes besides its reaper"),
    ],
)
def test_a_bot_whose_import_leaves_state_behind_is_played_cold(mode: str, reason: str) -> None:
    code = (HERE / "pristine_imports.py").read_text().replace('MODE = "thread"', f"MODE = {mode!r}")
    bot = make_bot(BotSource(PYTHON, "Leftover", {}, code), warm=True)
    try:
        for seed in range(2):
            assert play_against_random(bot, seed)["termination"] != "forfeit"
        assert bot.cold_reason is not None and reason in bot.cold_reason, bot.cold_reason
        assert bot.zygote_pid is None
    finally:
        bot.close()


@needs_zygotes
@pytest.mark.parametrize(
    ("how", "reason"),
    [("raise", "crash"), ("exit", "crash"), ("sleep", "timeout"), ("illegal", "illegal_action")],
)
def test_a_fault_in_one_game_forfeits_it_and_the_next_game_plays(how: str, reason: str) -> None:
    code = (HERE / "faulty_seat.py").read_text()
    bot = make_bot(BotSource(PYTHON, "FaultySeat", {"how": how}, code), warm=True)
    try:
        faulty = play_against_random(bot, 1)  # seat 0
        assert faulty["termination"] == "forfeit" and faulty["reason"] == reason, faulty
        assert bot.zygote_pid is None  # a fault ends the zygote with the game
        for seed in (2, 3):
            assert play_against_random(bot, seed, seat=1)["termination"] != "forfeit"
        assert bot.cold_reason is None and bot.zygote_pid is not None
    finally:
        bot.close()


@needs_zygotes
@pytest.mark.parametrize("how", ["nice", "limit", "affinity", "wake", "flags"])
def test_a_game_that_changes_its_zygote_leaves_the_bot_cold(how: str) -> None:
    if how == "affinity" and len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: the affinity cannot change")
    # A change is seen when the game ends (the zygote ran) or, at the latest, when the
    # next game starts, before that game's first move: from then on the bot is cold.
    code = (HERE / "tamper.py").read_text()
    bot = make_bot(BotSource(PYTHON, "Tamper", {"how": how}, code), warm=True)
    try:
        assert play_against_random(bot, 1)["termination"] != "forfeit"
        assert play_against_random(bot, 2)["termination"] != "forfeit"
        assert bot.cold_reason is not None and "zygote ran" in bot.cold_reason, bot.cold_reason
        assert bot.zygote_pid is None
        assert play_against_random(bot, 3)["termination"] != "forfeit"  # cold
    finally:
        bot.close()


@needs_zygotes
def test_a_signal_left_pending_on_the_zygote_costs_it_no_game() -> None:
    # SIGUSR1 sent to the stopped zygote ends it when the next game continues it
    # (no handler: nothing of the signal reaches a game); that game is played cold,
    # the one after by a new zygote.
    code = (HERE / "tamper.py").read_text()
    bot = make_bot(BotSource(PYTHON, "Tamper", {"how": "signal"}, code), warm=True)
    try:
        assert play_against_random(bot, 1)["termination"] != "forfeit"
        first = bot.zygote_pid
        assert play_against_random(bot, 2)["termination"] != "forfeit"
        assert play_against_random(bot, 3)["termination"] != "forfeit"
        assert bot.cold_reason is None and bot.zygote_pid not in (None, first)
    finally:
        bot.close()


@needs_zygotes
def test_a_zygote_killed_between_games_is_started_again() -> None:
    bot = make_bot(python_source("first_legal.py", "FirstLegal"), warm=True)
    try:
        assert play_against_random(bot, 1)["termination"] != "forfeit"
        first = bot.zygote_pid
        assert first is not None
        os.kill(first, signal.SIGKILL)  # it dies when it runs again (thawed)
        assert play_against_random(bot, 2)["termination"] != "forfeit"  # played cold
        assert bot.zygote_pid is None and bot.cold_reason is None
        assert play_against_random(bot, 3)["termination"] != "forfeit"
        assert bot.zygote_pid not in (None, first)
    finally:
        bot.close()
