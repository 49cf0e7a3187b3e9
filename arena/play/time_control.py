"""Time-control classes: tournaments whose bots had comparable time are rated together.

A search bot plays better with more time, and a bot may not finish a move at all in
a tight one, so ratings from a 50 ms tournament and from an unlimited one measure
different things. Each tournament falls in one class by the tighter of its two limits
(``docs/ratings.md``, "Time controls"):

=========== ================== ===================
class       seconds per move   seconds per game
=========== ================== ===================
bullet      below 0.1          below 3
blitz       0.1 to below 1     3 to below 30
rapid       1 to below 10      30 to below 300
classical   10 or more         300 or more
unlimited   no limit           no limit
=========== ================== ===================

The per-game bounds are the per-move ones times 30, about the moves a bot makes in
a long game of the arena's card games.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any


class TimeClass(StrEnum):
    BULLET = "bullet"
    BLITZ = "blitz"
    RAPID = "rapid"
    CLASSICAL = "classical"
    UNLIMITED = "unlimited"


MOVE_BOUNDS = ((0.1, TimeClass.BULLET), (1.0, TimeClass.BLITZ), (10.0, TimeClass.RAPID))
"""The seconds per move below which each class starts (tightest first)."""
MOVES_PER_GAME = 30
"""A game limit counts as this many moves' worth of the move limit."""
ORDER = tuple(TimeClass)


def time_class(per_move: float | None, per_game: float | None) -> TimeClass:
    """The class of a time control (seconds; None: no limit)."""
    candidates = [TimeClass.UNLIMITED]
    for limit, scale in ((per_move, 1.0), (per_game, float(MOVES_PER_GAME))):
        if limit is None:
            continue
        found = next(
            (name for bound, name in MOVE_BOUNDS if limit < bound * scale), TimeClass.CLASSICAL
        )
        candidates.append(found)
    return min(candidates, key=ORDER.index)


def config_time_class(config: Mapping[str, Any]) -> TimeClass:
    """The class of a stored tournament configuration."""
    return time_class(config.get("time_per_move"), config.get("time_per_game"))


def describe(per_move: float | None, per_game: float | None) -> str:
    """``"0.05 s per move (bullet)"``, ``"no limit (unlimited)"`` …"""
    parts = []
    if per_move is not None:
        parts.append(f"{per_move:g} s per move")
    if per_game is not None:
        parts.append(f"{per_game:g} s per game")
    return f"{', '.join(parts) or 'no limit'} ({time_class(per_move, per_game)})"
