"""Hostile bots: each ends as a forfeit with the right reason, nothing hangs, nothing
is left behind, and a tournament full of them is stored to the last game; and the
escapes of issue 14: files left in host folders, IPC between games, host paths named
by a command, memory spread over processes (tests/arena/test_sandbox.py checks the
rest of what a bot sees and its cgroup)."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import json
import os
import resource
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

import bots.examples
from arena.cli import app
from arena.play.runner import play_game
from arena.players.loader import PYTHON, BotSource
from arena.players.sandbox import MIB, detect_isolation
from arena.players.sandbox.runtime import WORK_DIR
from arena.players.submission import SubmissionRejected, check_submission
from arena.players.subprocess_bot import SubprocessBot
from arena.store.bots import add_bot
from arena.store.db import open_database, session_scope
from bots.simple import RandomBot
from engines.registry import get_game
from tests.arena.hostile import (
    FAST,
    close_after_its_game,
    command_source,
    make_bot,
    processes_of,
    python_source,
    raw_source,
    read_json_line,
    start_script,
)

ISOLATION = detect_isolation()
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
    close_after_its_game(bot)
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
    not (ISOLATION.pids or ISOLATION.user),
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


@pytest.mark.slow  # fault injection: a tournament of hostile bots
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


# -- escapes: what a bot must not keep, share or see (issue 14) --------------------------


@pytest.mark.skipif(
    not ISOLATION.filesystem,
    reason="no fresh root here: a bot can leave files in world-writable host folders",
)
def test_nothing_a_bot_writes_is_seen_by_the_host_or_outlives_its_game() -> None:
    marker = f"arena-left-behind-{os.getpid()}-{time.monotonic_ns()}"
    sandbox = start_script("leave_files.py", marker)
    try:
        created = read_json_line(sandbox)
        seen_meanwhile = [path for path in created if os.path.lexists(path)]
    finally:
        sandbox.close()
    left = [path for path in created if os.path.lexists(path)]
    for path in {*seen_meanwhile, *left}:  # what a weaker sandbox let through (/run/lock)
        with contextlib.suppress(OSError):
            os.remove(path)
    assert (seen_meanwhile, left) == ([], [])
    # It could write only to its own tmpfs, which vanish with its mount namespace.
    assert {os.path.dirname(path) for path in created} == {WORK_DIR, "/tmp", "/dev/shm"}


IPC_KEY = 0x4152454E  # tests/arena/hostile/ipc_channel.py
IPC_QUEUE = b"/arena-channel"
NOTHING = {"shm": None, "msg": None, "sem": None, "mq": None}


def read_from_another_game() -> Any:
    reader = start_script("ipc_channel.py", "read")
    try:
        return read_json_line(reader)
    finally:
        reader.close()


def host_ipc_objects(key: int) -> list[str]:
    """The host's SysV IPC objects with ``key`` (/proc/sysvipc: shared memory, message
    queues, semaphore sets)."""
    found = []
    for kind in ("shm", "msg", "sem"):
        lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        found += [f"{kind} {line.split()[1]}" for line in lines if int(line.split()[0]) == key]
    return found


def remove_host_ipc_objects(key: int, queue: bytes) -> None:
    """Clean up after a weaker sandbox: the host's objects with ``key``, its POSIX
    message queue ``queue``."""
    if host_ipc_objects(key) and shutil.which("ipcrm"):
        for flag in ("-M", "-Q", "-S"):
            subprocess.run(["ipcrm", flag, str(key)], capture_output=True, check=False)
    ctypes.CDLL(ctypes.util.find_library("rt")).mq_unlink(queue)


@pytest.mark.skipif(not ISOLATION.ipc, reason="no IPC namespace here")
def test_games_cannot_pass_messages_through_ipc_and_nothing_of_it_survives() -> None:
    writer = start_script("ipc_channel.py", "write", "my hand: AH KH QH")
    try:
        assert read_json_line(writer) == "written"
        at_the_same_time = read_from_another_game()
    finally:
        writer.close()
    afterwards = read_from_another_game()
    left = host_ipc_objects(IPC_KEY)
    remove_host_ipc_objects(IPC_KEY, IPC_QUEUE)
    assert (at_the_same_time, afterwards, left) == (NOTHING, NOTHING, [])


def test_a_command_naming_a_host_path_does_not_start_and_reads_nothing(tmp_path: Path) -> None:
    private = tmp_path / "server"
    private.mkdir(mode=0o700)
    database = private / "arena.db"
    database.write_text("SECRET-ROW")
    source = command_source("raw_bot.py", "read", str(database))
    bot = make_bot(source)
    outcome = play_against_random(bot)
    assert (outcome.get("offender"), outcome.get("reason")) == (0, "crash")
    message = outcome["details"]["message"]
    assert f"names {str(database)!r}, which is outside the sandbox" in message
    assert "SECRET-ROW" not in message + bot.last_stderr.decode()
    assert bot.last_process is None  # it never started
    with pytest.raises(SubmissionRejected, match="outside the sandbox"):
        check_submission(source, "koenigsgarten", limits=FAST)


@pytest.mark.skipif(
    not ISOLATION.cgroups.enforced.memory, reason="no cgroup memory controller here"
)
def test_memory_is_limited_for_the_whole_bot_not_per_process() -> None:
    # Four processes of 96 MiB each, every one far below the 256 MiB of address space a
    # process may have: together they pass the bot's 256 MiB.
    sandbox = start_script("memory_split.py", "4", "96", "2", memory_bytes=256 * MIB)
    try:
        report = read_json_line(sandbox)
        assert report["accounted"] == 4 and report["holding"] <= 2, report
        ending = sandbox.describe_end(sandbox.kill())
    finally:
        sandbox.close()
    assert "reached its memory limit, 256 MiB for all its processes" in ending
