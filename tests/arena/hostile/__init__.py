"""Hostile and scripted bots for the sandbox and protocol tests, and how to run them.

Files with one class run through the SDK (the ``python`` kind); ``raw_bot.py`` and
``scripted.py`` speak the protocol themselves (the ``command`` kind).
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.play.runner import TimeControl
from arena.players import zygote
from arena.players.loader import COMMAND, PYTHON, BotSource, BotSpec, bundle_files, subprocess_bot
from arena.players.sandbox import SandboxedProcess, SandboxLimits
from arena.players.subprocess_bot import UNTIMED, SubprocessBot

HERE = Path(__file__).resolve().parent

FAST = SandboxLimits(move_seconds=0.5, game_seconds=30, startup_seconds=15, quit_seconds=1.0)
"""Short moves, and room to start while other tests keep the cores busy."""


def python_source(file: str, cls: str) -> BotSource:
    """The stored form of class ``cls`` in ``HERE/file``, as `arena bots add` makes it."""
    return BotSource(PYTHON, cls, {}, (HERE / file).read_text())


def command_source(file: str, *args: str) -> BotSource:
    """``HERE/file`` run by the arena's Python as a ``command`` bot, stored with its file
    (as `arena bots add --cmd` and an uploaded archive store them): ``{code}/file``."""
    command = shlex.join([sys.executable, f"{{code}}/{file}", *args])
    return BotSource(COMMAND, command, {}, bundle_files({file: (HERE / file).read_text()}))


def raw_source(mode: str) -> BotSource:
    return command_source("raw_bot.py", mode)


def scripted_source(steps: Sequence[tuple[dict[str, Any], list[Any]]]) -> BotSource:
    return command_source("scripted.py", json.dumps(steps))


def make_bot(
    source: BotSource,
    game: str = "koenigsgarten",
    *,
    time_control: TimeControl = UNTIMED,
    **limits: Any,
) -> SubprocessBot:
    """A sandboxed bot with :data:`FAST` limits, changed by ``limits``."""
    spec = BotSpec(0, "hostile", game, source)
    chosen = dataclasses.replace(FAST, **limits)
    return subprocess_bot(spec, time_control=time_control, limits=chosen)


def start_script(file: str, *args: str, **limits: Any) -> SandboxedProcess:
    """``HERE/file`` run by the arena's Python straight in the sandbox (no protocol),
    stored as a command bot's code is (``{code}/file``); :data:`FAST` limits, changed
    by ``limits``."""
    return SandboxedProcess(
        [sys.executable, f"{{code}}/{file}", *args],
        limits=dataclasses.replace(FAST, **limits),
        cpu_seconds=60,
        files={file: (HERE / file).read_text()},
    )


def read_json_line(process: SandboxedProcess, seconds: float = 60.0) -> Any:
    """The next line the script writes on stdout, as JSON, waiting at most ``seconds``
    (a line that does not come is an AssertionError with the script's stderr)."""
    stdout, stderr = process.process.stdout, process.process.stderr
    assert stdout is not None and stderr is not None
    ready = select.select([stdout], [], [], seconds)[0]
    line = stdout.readline() if ready else b""
    if not line:
        process.kill()
        why = "the script ended" if ready else f"no line in {seconds} s"
        raise AssertionError(f"{why}; stderr: {stderr.read().decode()[-2000:]}")
    return json.loads(line)


def processes_of(uid: int, *, zombies: bool = True) -> list[int]:
    """PIDs of the processes of ``uid``; zombies count by default (they hold a PID and
    count against the user's process limit)."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid != uid:
                    continue
                with open(f"/proc/{entry.name}/stat") as stat:
                    state = stat.read().rpartition(")")[2].split()[0]
            except OSError:
                continue
            if zombies or state != "Z":
                found.append(int(entry.name))
    return found


def close_after_its_game(bot: SubprocessBot) -> None:
    """Close ``bot`` after a game. A warm bot keeps its zygote between games: its last
    game must have left no process but the zygote and its reaper (process 1), which
    closing it then ends."""
    process, pid = bot.process, bot.zygote_pid
    if process is not None and pid is not None:
        assert zygote.game_processes(process, pid) == set()
        if process.isolation.user:
            assert sorted(processes_of(process.uid)) == sorted({process.bot_pid, pid})
    bot.close()


def register_unchecked(db: str | Path, name: str, entry: str, code: str) -> None:
    """Register the Python bot ``entry`` of ``code`` for Königsgarten in the database
    ``db`` without the submission check, which refuses a bot that fails in its games
    (as `arena bots add` would store it otherwise): for tests of how the arena takes
    such a bot's faults."""
    from arena.store.bots import add_bot
    from arena.store.db import open_database, session_scope

    engine = open_database(str(db))
    with session_scope(engine) as session:
        add_bot(session, name=name, game="koenigsgarten", source=BotSource(PYTHON, entry, {}, code))
    engine.dispose()
