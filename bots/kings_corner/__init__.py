"""Bots for Kings in the Corner, and what the game lends the generic search bots.

* :mod:`bots.kings_corner.greedy`: the greedy player (``greedy``);
* :mod:`bots.kings_corner.policies`: the fast simulation policy and evaluation.
"""

from __future__ import annotations

from typing import Final

from bots.kings_corner.greedy import GREEDY
from bots.kings_corner.policies import HEURISTIC
from bots.search import GameSearch

KINDS: Final = (GREEDY,)
SEARCH: Final = GameSearch(simulations={"heuristic": HEURISTIC})
