"""Bots for Kardinal & König, and what the game lends the generic search bots.

* :mod:`bots.kardinal.evaluation`: the greedy player's evaluation of a position;
* :mod:`bots.kardinal.planner`: the take planner the greedy player follows;
* :mod:`bots.kardinal.greedy`: the greedy player (``greedy``);
* :mod:`bots.kardinal.policies`: the fast simulation policy and evaluation;
* :mod:`bots.kardinal.turn_search`: the search over whole take plans that
  ``ismcts`` uses here by default;
* :mod:`bots.kardinal.move_bench`: time per move of every built-in bot on a deck.
"""

from __future__ import annotations

from typing import Final

from bots.kardinal.greedy import GREEDY
from bots.kardinal.policies import HEURISTIC, kardinal_tree_actions
from bots.kardinal.turn_search import GREEDY_SIMULATION, search_turns
from bots.search import GameSearch

KINDS: Final = (GREEDY,)
SEARCH: Final = GameSearch(
    simulations={"heuristic": HEURISTIC, "greedy": GREEDY_SIMULATION},
    tree_actions=kardinal_tree_actions,
    turn_search=search_turns,
)
