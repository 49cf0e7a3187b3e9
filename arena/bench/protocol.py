"""``arena bench protocol``: what the bot protocol costs per move and per game.

A trivial Python bot (the SDK, answering the first legal action) runs in the full
sandbox, exactly as a submitted bot does. The per-move figure is the round trip of
one ``act`` as the runner sees it: encoding the observation and the legal actions,
the pipe both ways, the bot decoding, choosing and encoding, and the host reading,
decoding and mapping the answer onto the engine's action. The per-game figures are
the start (sandbox, interpreter, handshake, ``new_game``) and the end (``game_over``,
``quit``, killing and reaping, cleaning up).
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import time
from dataclasses import dataclass

from arena.players.loader import PYTHON, BotSource, BotSpec, subprocess_bot
from arena.players.sandbox import DEFAULT_LIMITS, Isolation
from bots.base import GameInfo
from engines.outcome import ForfeitReason
from engines.registry import get_game

TRIVIAL_BOT = """
class FirstLegal:
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
"""
WARM_UP_MOVES = 200


@dataclass(frozen=True)
class ProtocolSpeed:
    game: str
    observation_bytes: int
    round_trips: list[float]
    """Seconds per ``act``, in order."""
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
    """Time ``moves`` round trips (after a warm-up) and ``games`` starts and ends;
    ``warm``: the bot is started once, each game a fork of it (``SandboxLimits.warm``).

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
    round_trips: list[float] = []
    starts: list[float] = []
    ends: list[float] = []
    for played in range(max(1, games)):
        started = time.perf_counter()
        bot.new_game(info)
        starts.append(time.perf_counter() - started)
        if played == 0:
            for move in range(WARM_UP_MOVES + moves):
                started = time.perf_counter()
                bot.act(observation, legal, None)
                if move >= WARM_UP_MOVES:
                    round_trips.append(time.perf_counter() - started)
        started = time.perf_counter()
        bot.game_over(outcome)
        ends.append(time.perf_counter() - started)
    sandbox = bot.process or bot.last_process  # a zygote's stays until closed
    assert sandbox is not None
    bot.close()
    size = len(json.dumps(observation))
    return ProtocolSpeed(game, size, round_trips, starts, ends, sandbox.isolation)
