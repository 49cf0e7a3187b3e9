"""The simplest players: uniformly random, and the first legal action."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from bots.base import Bot, GameInfo
from bots.registry import BotKind
from engines.core import Action
from engines.seeding import derive_seed


class RandomBot(Bot):
    """Picks a legal action uniformly at random (seeded)."""

    name = "random"
    reads_observation = False

    def new_game(self, info: GameInfo) -> None:
        """As :meth:`Bot.new_game`, reseeding :attr:`rng` in place: the same numbers as
        a fresh ``Random`` of that seed, without building one each game (this bot's
        ``act`` is its only user)."""
        self.info = info
        self.rng.seed(derive_seed(self.seed, info.seed, info.seat))

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        return legal_actions[self.rng.randrange(len(legal_actions))]


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
