"""A browser game's opponents: within the web's caps, on a clock, out of the web process.

Every bot a person plays in the browser (arena/web/humans.py) runs as a sandboxed
process, a :class:`~arena.players.subprocess_bot.SubprocessBot`, never in a thread of
the web server: a submitted bot as a tournament runs it, a built-in one through the
SDK, whose few lines of :data:`BUILTIN_IN_SANDBOX` build the built-in bot inside the
sandbox and hand it the engine's values as in process. A bot's search so costs the
web process only its messages, and the sandbox ends a move that runs over its clock.
An :class:`Opponent` tells its bot that the game is over only at its end
(:func:`return_opponent`), after the page has been shown the end. The bots come from
the web's :class:`~arena.players.live_bots.BotPool` and go back to it after a game
played to its end, so a version's warm bot (its zygote started once) serves game after
game, built-in ones too; they are lent and played in the web's game threads, which
outlive the games (a sandbox dies with the thread that started it).

The clock (:func:`opponent_control`): every opponent has at most ``bot_seconds`` per
move (``human_bot_seconds`` of the web's settings; a search bot is told so and plans
within it), and the game clock the person chose, if any. A built-in opponent's
parameters keep within the tournaments' caps (:class:`~arena.tournament.config.ConfigCaps`):
the reference as the person wrote it (:func:`~arena.tournament.config.check_reference_caps`,
before anything is registered) and the stored version's (:func:`check_version`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

from arena.errors import ConfigError
from arena.play.runner import TimeControl
from arena.players.live_bots import BotPool
from arena.players.loader import BUILTIN, PYTHON, BotLoadError, BotSource, BotSpec
from arena.players.subprocess_bot import SubprocessBot
from arena.store.models import BotVersion
from arena.tournament.config import ConfigCaps, check_bot_caps
from bots.base import Bot, GameInfo
from bots.registry import UnknownBotError, get_bot_kind
from engines.core import Action
from engines.outcome import Outcome

BUILTIN_IN_SANDBOX = '''"""The arena's built-in bot {kind!r} for {game!r}, played in the sandbox."""

from bots.base import Bot
from bots.registry import make_bot


class BuiltinBot(Bot):
    def __init__(self, **params):
        super().__init__()
        self.bot = make_bot({kind!r}, {game!r}, params)

    def new_game(self, info):
        self.bot.new_game(info)

    def act(self, observation, legal_actions, time_left):
        return self.bot.act(observation, legal_actions, time_left)

    def game_over(self, outcome):
        self.bot.game_over(outcome)
'''
"""The SDK bot that plays a built-in kind (its parameters come as the SDK's ``--params``)."""


def check_version(field: str, bot: BotVersion, caps: ConfigCaps) -> None:
    """Raises ConfigError, naming ``field`` and the version, for a stored built-in
    version whose parameters are over ``caps`` (one the operator registered)."""
    if bot.kind != BUILTIN:
        return
    try:
        kind = get_bot_kind(bot.entry, bot.game)
    except UnknownBotError as exc:  # a kind this arena no longer has
        raise ConfigError(f"field {field!r}: {bot.label}: {exc}") from None
    check_bot_caps(f"field {field!r}: {bot.label}", kind, dict(bot.params), caps)


def opponent_control(
    clock: TimeControl | None, bot_seconds: float, *, clock_left: float | None = None
) -> TimeControl:
    """An opponent's time control: ``bot_seconds`` a move, and the game's ``clock``
    (with ``clock_left`` of it left, when the game is under way) if it has one."""
    if clock is None:
        return TimeControl(per_move=bot_seconds)
    left = clock.per_game if clock_left is None else clock_left
    return TimeControl(per_game=left, per_move=bot_seconds, increment=clock.increment)


def in_sandbox(spec: BotSpec) -> BotSpec:
    """``spec`` as a bot that runs in the sandbox: a built-in kind becomes an SDK bot
    that plays it there; a submitted bot runs there already."""
    source = spec.source
    if source.kind != BUILTIN:
        return spec
    code = BUILTIN_IN_SANDBOX.format(kind=source.entry, game=spec.game)
    return BotSpec(
        spec.bot_id, spec.label, spec.game, BotSource(PYTHON, "BuiltinBot", source.params, code)
    )


class Opponent(Bot):
    """A sandboxed bot whose goodbye waits for :meth:`close`: the runner's
    ``game_over`` is kept, so the game's end reaches the page before the bot is told and
    its process ended (which may take its quit time)."""

    def __init__(self, bot: SubprocessBot) -> None:
        super().__init__()
        self.bot = bot
        self.name = bot.name
        self._outcome: Outcome | None = None

    def new_game(self, info: GameInfo) -> None:
        self._outcome = None
        self.bot.new_game(info)

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        return self.bot.act(observation, legal_actions, time_left)

    def game_over(self, outcome: Outcome) -> None:
        self._outcome = outcome

    def end_game(self) -> None:
        """Tell the bot how the game ended (when it ended; once)."""
        outcome, self._outcome = self._outcome, None
        if outcome is not None:
            self.bot.game_over(outcome)

    def close(self) -> None:
        """Tell the bot how the game ended (when it ended) and end its process."""
        self.end_game()
        self.bot.close()


def opponent_bot(pool: BotPool, spec: BotSpec, control: TimeControl) -> Opponent:
    """The sandboxed bot that plays ``spec`` under ``control``, lent by ``pool``: the
    version's idle warm bot (made for the same control) if it has one, else a new one.
    Hand it back with :func:`return_opponent`.

    Raises:
        BotLoadError: a bot of a kind that does not run as a process (a person).
    """
    bot = pool.lend(in_sandbox(spec), time_control=control)
    if not isinstance(bot, SubprocessBot):  # in_sandbox makes every kind a process
        bot.close()
        raise BotLoadError(f"bot {spec.label} does not run as a process")
    return Opponent(bot)


def return_opponent(pool: BotPool, opponent: Opponent, *, reuse: bool) -> None:
    """Tell ``opponent``'s bot how its game ended, then give it back to ``pool`` for
    the version's next game (``reuse``: its game ran to its end) or end its process
    (a game that failed or stopped half-way). Never raises: a bot that fails its
    goodbye is closed."""
    try:
        opponent.end_game()
    except Exception:  # a bot broken at the end is not lent again
        reuse = False
    if reuse:
        pool.give_back(opponent.bot)
    else:
        with contextlib.suppress(Exception):
            opponent.bot.close()
