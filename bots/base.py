"""The bot protocol: a bot sees its observation and its legal actions, never the state.

The host calls :meth:`Bot.new_game` once per game, then :meth:`Bot.act` whenever the
bot's seat is to move, then :meth:`Bot.game_over`. Every ``act`` carries the whole
observation, so a bot may keep no memory between calls.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from engines.core import Action, Game
from engines.errors import GameError, InvalidStateError
from engines.outcome import ForfeitReason, Outcome
from engines.seeding import derive_seed


@dataclass(frozen=True)
class GameInfo:
    """What a bot is told when a game starts."""

    game: Game
    options: Mapping[str, Any]
    seat: int
    num_seats: int
    seed: int
    """A seed for the bot's own randomness, which it derives from this and its seat. In
    process (built-in bots, trusted code) it is the deal's seed, so a game replays; a
    submitted bot in the sandbox is handed a seed of its own instead, independent of the
    deal (docs/protocol.md, "What a bot receives")."""

    @classmethod
    def of(
        cls, game: Game, options: Mapping[str, Any], seat: int, num_seats: int, seed: int
    ) -> GameInfo:
        """The same as ``GameInfo(game, options, seat, num_seats, seed)`` at half the
        cost: the host tells every bot of every game (a frozen dataclass's ``__init__``
        sets each field through ``object.__setattr__``)."""
        info = object.__new__(cls)
        info.__dict__.update(game=game, options=options, seat=seat, num_seats=num_seats, seed=seed)
        return info


class BotFault(Exception):
    """A bot failed in a way that forfeits the game; ``reason`` is stored with it."""

    reason: ForfeitReason = ForfeitReason.CRASH


class BotTimeout(BotFault):
    """The bot did not answer within its time."""

    reason = ForfeitReason.TIMEOUT


class BotCrash(BotFault):
    """The bot raised, exited or was killed."""

    reason = ForfeitReason.CRASH


class BotProtocolError(BotFault):
    """The bot broke the protocol (a wrong message type or fields)."""

    reason = ForfeitReason.PROTOCOL_VIOLATION


class BotMalformedOutput(BotFault):
    """The bot wrote output that is not a message at all (not JSON, an over-long line)."""

    reason = ForfeitReason.MALFORMED_OUTPUT


class BotIllegalAction(BotFault):
    """The bot answered with an action that is not legal here."""

    reason = ForfeitReason.ILLEGAL_ACTION


class GameNotStartedError(GameError, RuntimeError):
    """A bot was asked to act before :meth:`Bot.new_game` told it which game it plays,
    so it cannot read its observation."""


NO_OBSERVATION: Mapping[str, Any] = MappingProxyType({})
"""What a bot that reads no observation is given instead of one."""


class Bot(ABC):
    """A player. Subclasses implement :meth:`act`; the rest is optional."""

    name: str = "bot"
    reads_observation: ClassVar[bool] = True
    """False for a bot whose :meth:`act` chooses from the legal actions alone: the host
    then builds no observation and passes :data:`NO_OBSERVATION`. A subclass that
    defines its own ``act`` reads observations again unless it says otherwise."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "act" in cls.__dict__ and "reads_observation" not in cls.__dict__:
            cls.reads_observation = True

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.info: GameInfo | None = None

    def new_game(self, info: GameInfo) -> None:
        """A game starts. The default reseeds :attr:`rng` from the bot's seed, the
        game's seed and the seat, so a game replays the same in any order or process."""
        self.info = info
        self.rng = random.Random(derive_seed(self.seed, info.seed, info.seat))

    def game_info(self, observation: Mapping[str, Any]) -> GameInfo:
        """What :meth:`new_game` told the bot, for reading ``observation``.

        Raises:
            GameNotStartedError: ``new_game`` was not called; the message names the bot
                and the observation's fields.
        """
        if self.info is None:
            fields = ", ".join(sorted(map(str, observation))[:8]) or "none"
            raise GameNotStartedError(
                f"bot {self.name!r} has no GameInfo to read the observation with (fields: "
                f"{fields}): the host must call new_game() before act()"
            )
        return self.info

    def observed_game(self, observation: Mapping[str, Any]) -> Game:
        """The game ``observation`` belongs to, checked before the bot acts, even on a
        single legal action: a bot that reads positions never answers one it was not
        shown.

        Raises:
            GameNotStartedError: ``new_game`` was not called.
            InvalidStateError: ``observation`` is empty.
        """
        game = self.game_info(observation).game
        if not observation:
            raise InvalidStateError(
                f"bot {self.name!r} was given no observation of {game.name} to act on "
                f"(observation: {observation!r})"
            )
        return game

    @abstractmethod
    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        """Choose one of ``legal_actions``; ``time_left`` is this game's remaining
        budget in seconds (None: unlimited)."""

    def game_over(self, outcome: Outcome) -> None:  # noqa: B027  (optional hook)
        """The game ended (also after a forfeit)."""

    def close(self) -> None:  # noqa: B027  (optional hook)
        """Release resources (processes, files); the bot is not used again."""
