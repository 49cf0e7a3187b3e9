"""The simplest players: uniformly random, and the first legal action."""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from hashlib import blake2b
from typing import Any, Final

from bots.base import Bot, GameInfo
from bots.registry import BotKind
from engines.core import Action


class RandomBot(Bot):
    """Picks a legal action uniformly at random (seeded).

    A game's draws are 64-bit words of BLAKE2b-512 digests keyed by the bot's seed, the
    game's seed and the seat (the text :func:`engines.seeding.derive_seed` hashes),
    eight words a block, block ``i`` salted with ``i``: a game replays the same in any
    order or process, and starting one costs one hash instead of seeding a Mersenne
    Twister (4 µs, a tenth of a random playout). A draw is mapped onto the legal actions
    by multiplying and shifting, so no action is favoured by more than
    ``len(legal_actions) / 2**64``."""

    name = "random"
    reads_observation = False

    def __init__(self, *, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self._key = str(seed).encode()
        self._draws: tuple[int, ...] = ()
        self._drawn = 0

    def new_game(self, info: GameInfo) -> None:
        self.info = info
        self._key = key = f"{self.seed}\x1f{info.seed}\x1f{info.seat}".encode()
        self._draws = _WORDS(blake2b(key).digest())
        self._drawn = 0

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        drawn = self._drawn
        draws = self._draws
        if drawn == len(draws):  # the next block of the stream
            draws = self._draws = draws + _block(self._key, drawn // BLOCK_WORDS)
        self._drawn = drawn + 1
        return legal_actions[draws[drawn] * len(legal_actions) >> 64]


BLOCK_WORDS: Final = 8
"""64-bit words in a BLAKE2b-512 digest."""
_WORDS = struct.Struct(f"<{BLOCK_WORDS}Q").unpack  # little-endian: alike on every machine


def _block(key: bytes, number: int) -> tuple[int, ...]:
    """Block ``number`` of ``key``'s draws (block 0: the digest without salt, which is
    the digest salted with zeros)."""
    return _WORDS(blake2b(key, salt=number.to_bytes(16, "little")).digest())


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
