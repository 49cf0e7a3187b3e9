"""The built-in games. Importing this module registers every one of them.

Every module of the ``engines`` package that is not part of the shared core is a
game and registers itself when imported, so adding a game is adding its module.
"""

from __future__ import annotations

import importlib
import pkgutil

import engines

CORE_MODULES = frozenset(
    {"cards", "core", "errors", "games", "match", "outcome", "registry", "seeding"}
)
NOT_GAMES = CORE_MODULES | {"envs"}
"""Also skipped: ``envs``, the learning environments (an optional extra) built on the games."""


def load_games() -> None:
    for module in pkgutil.iter_modules(engines.__path__):
        if module.name not in NOT_GAMES and not module.name.startswith("_"):
            importlib.import_module(f"engines.{module.name}")


load_games()
