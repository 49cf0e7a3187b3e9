"""Bots for Blumengarten: a greedy player and an exact solver.

Importing the package registers both kinds (``greedy`` and ``solver``); the generic
``random`` bot plays Blumengarten as well.
"""

from bots.blumengarten.players import GreedyBot, GreedyParams, SolverBot, SolverParams
from bots.registry import BotKind, register_bot_kind

GAMES = frozenset({"blumengarten"})

register_bot_kind(
    BotKind(
        "greedy",
        GreedyBot,
        "Blumengarten: safe foundation moves first, then the best-looking move one ply ahead",
        games=GAMES,
        params_type=GreedyParams,
    )
)
register_bot_kind(
    BotKind(
        "solver",
        SolverBot,
        "Blumengarten: plays the solver's winning line, or its best-scoring line",
        games=GAMES,
        params_type=SolverParams,
    )
)

__all__ = ["GreedyBot", "SolverBot"]
