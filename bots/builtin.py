"""The built-in bot kinds and what each game lends the search bots, listed explicitly
(as OpenSpiel lists its games). Importing this module registers them; adding a bot is
adding its module and its entry here (``docs/engines.md``)."""

from __future__ import annotations

from typing import Final

from bots import blumengarten, ismcts, kardinal, kings_corner, koenigsgarten, mcts, simple
from bots.registry import BotKind, register_bot_kind
from bots.search import GameSearch, register_game_search

BUILTIN_KINDS: Final[tuple[BotKind, ...]] = (
    simple.RANDOM,
    simple.FIRST_LEGAL,
    mcts.KIND,
    ismcts.KIND,
    *blumengarten.KINDS,
    *kardinal.KINDS,
    *kings_corner.KINDS,
    *koenigsgarten.KINDS,
)
GAME_SEARCH: Final[dict[str, GameSearch]] = {
    "kings_corner": kings_corner.SEARCH,
    "kardinal": kardinal.SEARCH,
}

for _kind in BUILTIN_KINDS:
    register_bot_kind(_kind)
for _game, _search in GAME_SEARCH.items():
    register_game_search(_game, _search)
