"""Any game against fixed bots, as a Gymnasium environment for one learner.

The learner plays one seat of :class:`engines.envs.SingleAgentEnv`; the arena's bots
play the others. This lives in ``bots`` because the engines may not import bots.
Needs the optional extra ``rl`` (pettingzoo, gymnasium), so ``bots.builtin`` does not
import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bots.base import Bot, GameInfo
from bots.registry import make_bot, parse_bot_spec
from engines.core import JSON, Action, Game
from engines.envs import SingleAgentEnv
from engines.envs.illegal import IllegalActions
from engines.outcome import Outcome
from engines.registry import get_game


class BotPlayer:
    """A :class:`bots.base.Bot` as an :class:`engines.envs.FixedPlayer`."""

    def __init__(self, bot: Bot):
        self.bot = bot

    def start(self, *, game: Game, options: Any, seat: int, seats: int, seed: int) -> None:
        self.bot.new_game(GameInfo(game, game.options_to_dict(options), seat, seats, seed))

    def act(self, observation: JSON, legal_actions: Sequence[Action]) -> Action:
        return self.bot.act(observation, legal_actions, None)

    def finish(self, outcome: Outcome) -> None:
        self.bot.game_over(outcome)

    def __repr__(self) -> str:
        return f"BotPlayer({self.bot.name!r})"


def versus_bots_env(
    game: str | Game,
    opponents: Sequence[str | Bot],
    *,
    seats: int | None = None,
    options: Any = None,
    seat: int | None = None,
    render_mode: str | None = None,
    illegal_actions: IllegalActions = "forfeit",
) -> SingleAgentEnv:
    """``game`` for one learner against ``opponents`` (bots, or built-in kinds written
    as on the command line: ``"greedy"``, ``"mcts:iterations=50"``), one per other
    seat. ``seat`` is the learner's (None: it changes with the deal, see
    :class:`engines.envs.SingleAgentEnv`); seats default to the learner plus the
    opponents. ``illegal_actions`` is the policy of :mod:`engines.envs.illegal`.

    Raises:
        UnknownGameError, UnknownBotError: an unknown game or bot kind, or a bad
            parameter; SeatCountError, OptionError as SingleAgentEnv.
    """
    resolved = get_game(game) if isinstance(game, str) else game
    players = []
    for opponent in opponents:
        if isinstance(opponent, str):
            kind, params = parse_bot_spec(opponent)
            opponent = make_bot(kind, resolved.name, params)
        players.append(BotPlayer(opponent))
    return SingleAgentEnv(
        resolved,
        players=players,
        seats=seats,
        options=options,
        seat=seat,
        render_mode=render_mode,
        illegal_actions=illegal_actions,
    )
