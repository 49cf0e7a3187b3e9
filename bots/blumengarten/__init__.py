"""Bots for Blumengarten: a greedy player (``greedy``) and an exact solver
(``solver``); the generic ``random`` bot plays Blumengarten as well."""

from __future__ import annotations

from typing import Final

from bots.blumengarten.players import GreedyBot, GreedyParams, SolverBot, SolverParams
from bots.registry import BotKind

GAMES: Final = frozenset({"blumengarten"})

KINDS: Final = (
    BotKind(
        "greedy",
        GreedyBot,
        "Blumengarten: safe foundation moves first, then the best-looking move one ply ahead",
        games=GAMES,
        params_type=GreedyParams,
    ),
    BotKind(
        "solver",
        SolverBot,
        "Blumengarten: plays the solver's winning line, or its best-scoring line",
        games=GAMES,
        params_type=SolverParams,
        renamed=(("time_limit", "seconds"),),
    ),
)
