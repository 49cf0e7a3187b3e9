"""The built-in bot kinds. Importing this module registers them.

The game-independent kinds are registered here; every other module of the ``bots``
package may register kinds of its own with ``register_bot_kind`` and is imported
here, so adding a bot is adding its module.
"""

from __future__ import annotations

import importlib
import pkgutil

import bots
from bots.registry import BotKind, register_bot_kind
from bots.simple import FirstLegalBot, RandomBot

register_bot_kind(BotKind("random", RandomBot, "uniformly random legal actions (seeded)"))
register_bot_kind(BotKind("first-legal", FirstLegalBot, "always the first legal action"))

INFRASTRUCTURE = frozenset({"base", "builtin", "registry", "simple", "sdk", "examples", "envs"})
"""Not bot kinds: shared code, the SDK, examples and ``envs`` (an optional extra)."""


def load_bot_modules() -> None:
    for module in pkgutil.iter_modules(bots.__path__):
        if module.name not in INFRASTRUCTURE and not module.name.startswith("_"):
            importlib.import_module(f"bots.{module.name}")


load_bot_modules()
