"""The simplest players: uniformly random, and the first legal action."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping, Sequence
from typing import Any, Final

from bots.base import Bot, GameInfo
from bots.registry import BotKind
from engines.core import Action


class RandomBot(Bot):
    """Picks a legal action uniformly at random (seeded).

    Each game's draws are a stream of SHAKE-256 output keyed by the bot's seed, the
    game's seed and the seat (the text :func:`engines.seeding.derive_seed` hashes): a
    game replays the same in any order or process, and starting a game costs one hash
    instead of seeding a Mersenne Twister (4 µs, a tenth of a random playout). A draw
    is 64 bits, mapped onto the legal actions by multiplying and shifting, so no action
    is favoured by more than ``len(legal_actions) / 2**64``."""

    name = "random"
    reads_observation = False

    FIRST_DRAWS: Final = 16
    """Draws made when a game starts; a longer game doubles them as it needs."""

    def __init__(self, *, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self._key = str(seed).encode()
        self._draws: tuple[int, ...] = ()
        self._drawn = 0

    def new_game(self, info: GameInfo) -> None:
        self.info = info
        self._key = key = f"{self.seed}\x1f{info.seed}\x1f{info.seat}".encode()
        self._draws = _draws(key, self.FIRST_DRAWS)
        self._drawn = 0

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        drawn = self._drawn
        draws = self._draws
        if drawn == len(draws):  # the stream goes on where it stopped
            draws = self._draws = _draws(self._key, 2 * max(drawn, self.FIRST_DRAWS // 2))
        self._drawn = drawn + 1
        return legal_actions[draws[drawn] * len(legal_actions) >> 64]


def _draws(key: bytes, count: int) -> tuple[int, ...]:
    """The first ``count`` 64-bit draws of ``key``'s stream (little-endian words of its
    SHAKE-256 output, so the same on every machine); a longer count repeats the first."""
    return struct.unpack(f"<{count}Q", hashlib.shake_256(key).digest(8 * count))


class FirstLegalBot(Bot):
    """Always takes the first legal action in the engine's order: its whole policy, a
    baseline that plays every game and repeats itself exactly."""

    name = "first-legal"
    reads_observation = False

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        return legal_actions[0]


RANDOM: Final = BotKind("random", RandomBot, "uniformly random legal actions (seeded)")
FIRST_LEGAL: Final = BotKind("first-legal", FirstLegalBot, "always the first legal action")
