"""Bots for Königsgarten: a heuristic player (``greedy``) and the exact solver
(``solver``); the generic ``mcts`` plays it too."""

from __future__ import annotations

from typing import Final

from bots.koenigsgarten.greedy import GREEDY
from bots.koenigsgarten.solver import SOLVER

KINDS: Final = (GREEDY, SOLVER)
