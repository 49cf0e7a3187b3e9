"""Which sandbox started each game of a submitted bot, seen from the host: a probe for
the tests that show a path plays warm (tests/arena/test_warm_paths.py).

:func:`recording` wraps :meth:`SubprocessBot.new_game` to append a line per game to a
file: the process, the bot instance, its name, its zygote's PID and why it is cold.
Worker processes forked from the test's process inherit the wrapper; Ray's workers
install it at their start (:func:`install_from_environment`)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.players.subprocess_bot import SubprocessBot
from bots.base import GameInfo

PROBE_FILE = "ARENA_TEST_WARM_PROBE"
"""The environment variable naming the probe's file (for Ray's workers)."""

NewGame = Callable[[SubprocessBot, GameInfo], None]


@dataclass(frozen=True)
class GameStart:
    process: int
    instance: int
    name: str
    zygote: int | None
    cold_reason: str | None


def recording(new_game: NewGame, path: Path) -> NewGame:
    """``new_game``, appending each game's start to ``path``."""

    def recorded(bot: SubprocessBot, info: GameInfo) -> None:
        new_game(bot, info)
        line = [os.getpid(), id(bot), bot.name, bot.zygote_pid, bot.cold_reason]
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")  # one write: workers append at once

    return recorded


def install_from_environment() -> None:
    """Ray's ``worker_process_setup_hook``: record into the file :data:`PROBE_FILE` names."""
    path = Path(os.environ[PROBE_FILE])
    SubprocessBot.new_game = recording(SubprocessBot.new_game, path)  # type: ignore[method-assign]


def game_starts(path: Path) -> list[GameStart]:
    if not path.exists():
        return []
    return [GameStart(*json.loads(line)) for line in path.read_text().splitlines()]


def assert_served_warm(path: Path, *, games: int, processes: int = 1) -> list[GameStart]:
    """At least ``games`` games were started in ``processes`` processes or more, none
    cold, and each bot instance's games by one zygote, at least one of which served
    two games or more; the games' starts."""
    starts = game_starts(path)
    assert len(starts) >= games, starts
    assert all(start.cold_reason is None and start.zygote is not None for start in starts), starts
    assert len({start.process for start in starts}) >= processes, starts
    zygotes: dict[tuple[int, int], set[int | None]] = {}
    for start in starts:
        zygotes.setdefault((start.process, start.instance), set()).add(start.zygote)
    assert all(len(found) == 1 for found in zygotes.values()), zygotes
    served = [start.zygote for start in starts]
    assert any(served.count(zygote) >= 2 for zygote in served), starts
    return starts
