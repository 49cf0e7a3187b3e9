"""``arena bench protocol``: what the bot protocol costs per move and per game.

A trivial Python bot (the SDK, answering the first legal action) runs in the full
sandbox, exactly as a submitted bot does. The per-move figure is the round trip of
one ``act`` as the runner sees it: encoding the observation and the legal actions,
the pipe both ways, thawing and freezing the bot, the bot decoding, choosing and
encoding, and the host reading, decoding and mapping the answer onto the engine's
action. The per-game figures are the start (sandbox, interpreter, handshake,
``new_game``) and the end (``game_over``, ``quit``, killing and reaping, cleaning up).

Where the microseconds go: the host and the bot take turns, so a round trip is about
the CPU both spend on it (the host's from ``getrusage``, the bot's as its cgroup counts
it), and the same moves with the bot never frozen (in alternating blocks, in one
process) show what freezing it off its turn costs.
"""

from __future__ import annotations

import dataclasses
import json
import resource
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.players.loader import PYTHON, BotSource, BotSpec, subprocess_bot
from arena.players.sandbox import DEFAULT_LIMITS, Isolation
from arena.players.subprocess_bot import SubprocessBot
from bots.base import GameInfo
from engines.core import Action
from engines.outcome import ForfeitReason
from engines.registry import get_game

TRIVIAL_BOT = """
class FirstLegal:
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
"""
WARM_UP_MOVES = 200
BLOCKS = 10
"""Blocks of moves, frozen and never frozen in turn (the load changes meanwhile)."""


@dataclass(frozen=True)
class ProtocolSpeed:
    game: str
    observation_bytes: int
    round_trips: list[float]
    """Seconds per ``act``, in order (the bot frozen off its turn, as always)."""
    never_frozen: list[float]
    """Seconds per ``act`` of the same bot never frozen (empty without a freezer)."""
    host_cpu: float
    """The host's CPU seconds per ``act`` of :attr:`round_trips`."""
    bot_cpu: float | None
    """The bot's CPU seconds per ``act`` of :attr:`round_trips` (None: not counted)."""
    starts: list[float]
    ends: list[float]
    isolation: Isolation

    @staticmethod
    def percentile(values: list[float], fraction: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    @property
    def median(self) -> float:
        return statistics.median(self.round_trips)

    @property
    def p90(self) -> float:
        return self.percentile(self.round_trips, 0.9)


def protocol_speed(*, game: str, moves: int, games: int, warm: bool = False) -> ProtocolSpeed:
    """Time ``moves`` round trips (after a warm-up), as many with the bot never frozen
    where it has a freezer, and ``games`` starts and ends; ``warm``: the bot is started
    once, each game a fork of it (``SandboxLimits.warm``).

    Raises:
        UnknownGameError: ``game`` is unknown.
        BotFault: the trivial bot failed (the sandbox does not work here).
    """
    engine = get_game(game)
    state = engine.new_initial_state(seed=0)
    seat = state.current_seat
    observation, legal = state.observation(seat), state.legal_actions()
    spec = BotSpec(0, "first-legal", engine.name, BotSource(PYTHON, "FirstLegal", {}, TRIVIAL_BOT))
    bot = subprocess_bot(spec, limits=dataclasses.replace(DEFAULT_LIMITS, warm=warm))
    info = GameInfo(engine, engine.options_to_dict(state.options), seat, state.num_seats, 0)
    outcome = engine.forfeit_outcome(state, seat, ForfeitReason.TIMEOUT)
    moves_timed = _MovesTimed()
    starts: list[float] = []
    ends: list[float] = []
    for played in range(max(1, games)):
        started = time.perf_counter()
        bot.new_game(info)
        starts.append(time.perf_counter() - started)
        if played == 0:
            _time_moves(bot, observation, legal, moves, moves_timed)
        started = time.perf_counter()
        bot.game_over(outcome)
        ends.append(time.perf_counter() - started)
    sandbox = bot.process or bot.last_process  # a zygote's stays until closed
    assert sandbox is not None
    bot.close()
    size = len(json.dumps(observation))
    timed = max(1, len(moves_timed.frozen))
    return ProtocolSpeed(
        game,
        size,
        moves_timed.frozen,
        moves_timed.never_frozen,
        moves_timed.host_cpu / timed,
        None if moves_timed.bot_cpu is None else moves_timed.bot_cpu / timed,
        starts,
        ends,
        sandbox.isolation,
    )


@dataclass
class _MovesTimed:
    frozen: list[float] = dataclasses.field(default_factory=list)
    never_frozen: list[float] = dataclasses.field(default_factory=list)
    host_cpu: float = 0.0
    bot_cpu: float | None = 0.0


def _time_moves(
    bot: SubprocessBot,
    observation: Mapping[str, Any],
    legal: Sequence[Action],
    moves: int,
    timed: _MovesTimed,
) -> None:
    """``moves`` round trips into ``timed`` after a warm-up, in :data:`BLOCKS` blocks,
    each followed by as many with the bot never frozen (where it has a freezer)."""
    for _ in range(WARM_UP_MOVES):
        bot.act(observation, legal, None)
    sandbox = bot.process
    assert sandbox is not None
    cgroup = sandbox.cgroup
    freezes = cgroup is not None and cgroup.thawing() is not None
    for block in range(BLOCKS):
        count = moves // BLOCKS + (block < moves % BLOCKS)
        bot_before = cgroup.cpu_seconds() if cgroup is not None else None
        host_before = _host_cpu()
        timed.frozen += _round_trips(bot, observation, legal, count)
        timed.host_cpu += _host_cpu() - host_before
        bot_after = cgroup.cpu_seconds() if cgroup is not None else None
        if timed.bot_cpu is not None and bot_before is not None and bot_after is not None:
            timed.bot_cpu += bot_after - bot_before
        else:
            timed.bot_cpu = None
        if freezes:
            assert cgroup is not None
            with cgroup.never_frozen():
                timed.never_frozen += _round_trips(bot, observation, legal, count)


def _round_trips(
    bot: SubprocessBot, observation: Mapping[str, Any], legal: Sequence[Action], count: int
) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        bot.act(observation, legal, None)
        times.append(time.perf_counter() - started)
    return times


def _host_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
