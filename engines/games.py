"""The built-in games, listed explicitly (as OpenSpiel's ``games/__init__.py`` lists
its own). Importing this module registers every one of them; adding a game is adding
its module under ``engines/`` and one entry here (``docs/engines.md``)."""

from __future__ import annotations

from typing import Final

from engines import blumengarten, kardinal, kings_corner, koenigsgarten
from engines.core import Game
from engines.registry import register

BUILTIN_GAMES: Final[tuple[Game, ...]] = (
    koenigsgarten.GAME,
    kings_corner.GAME,
    kardinal.GAME,
    blumengarten.GAME,
)
for _game in BUILTIN_GAMES:
    register(_game)
