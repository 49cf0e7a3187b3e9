"""The continuous ladder's algorithms, on plain data: no database, no tournament.

* :mod:`~arena.ladder.rating`: :class:`IncrementalElo`, the maximum-likelihood Elo of
  every ladder game, refitted in milliseconds as games arrive.
* :mod:`~arena.ladder.matchmaking`: :func:`next_pairings`, who plays next (placement,
  uncertain pairs, a floor share per bot, a fair share per owner, budgets).
* :mod:`~arena.ladder.regression`: :class:`VersionTest`, the pentanomial SPRT of a new
  version against its predecessor.
* :mod:`~arena.ladder.simulation`: ladders and version tests on simulated games, for
  the tests and ``arena bench ladder-*``.

and the service that runs them on the store (these import the database layer and the
executors; the modules above only plain data):

* :mod:`~arena.ladder.service`: start, stop and read ladders; stop regression tests.
* :mod:`~arena.ladder.worker`: play a batch of a ladder and store it with the ratings.

``docs/ladder.md`` describes the ladder as a whole.
"""

from arena.ladder.errors import LadderError
from arena.ladder.matchmaking import LadderBot, LadderView, next_pairings
from arena.ladder.rating import IncrementalElo, LadderRating
from arena.ladder.regression import VersionTest

__all__ = [
    "IncrementalElo",
    "LadderBot",
    "LadderError",
    "LadderRating",
    "LadderView",
    "VersionTest",
    "next_pairings",
]
