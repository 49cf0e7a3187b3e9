"""The built-in bot kinds. Importing this module registers them."""

from bots.registry import BotKind, register_bot_kind
from bots.simple import FirstLegalBot, RandomBot

register_bot_kind(BotKind("random", RandomBot, "uniformly random legal actions (seeded)"))
register_bot_kind(BotKind("first-legal", FirstLegalBot, "always the first legal action"))
