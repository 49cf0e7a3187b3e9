"""Bots: the protocol every player implements, and the built-in players."""

from bots.base import Bot, BotCrash, BotFault, BotProtocolError, BotTimeout, GameInfo
from bots.registry import BotKind, UnknownBotError, all_bot_kinds, make_bot, parse_bot_spec

__all__ = [
    "Bot",
    "BotCrash",
    "BotFault",
    "BotKind",
    "BotProtocolError",
    "BotTimeout",
    "GameInfo",
    "UnknownBotError",
    "all_bot_kinds",
    "make_bot",
    "parse_bot_spec",
]
