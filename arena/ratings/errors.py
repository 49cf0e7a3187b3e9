"""The ratings package's error type."""

from __future__ import annotations

from arena.errors import ArenaError


class RatingError(ArenaError):
    """Games or settings from which no rating or test can be computed.

    Raised for malformed input (an unknown player, a score outside 0..1, a bad
    anchor or SPRT setting) and for data that admits no finite maximum-likelihood
    rating (a player who won or lost every game, groups of players who never met).
    """
