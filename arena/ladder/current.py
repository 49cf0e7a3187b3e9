"""A ladder's ratings as they stand: the fit of its kept rating state, games as games.

The rating state (:class:`arena.ladder.rating.IncrementalElo`) rates pairs of seats: a
game of ``s`` seats gives each of its bots ``s − 1`` pair results. What a ladder shows
and what its placement phase counts are games, as ``arena tournament show`` counts them.
The history rows (``ladder_rating``) are written only when a refit moves a rating far
enough; what a ladder shows now is the fit of the kept state, refitted on reading.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from arena.ladder.errors import LadderError
from arena.ladder.rating import IncrementalElo
from arena.store.models import Ladder

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CurrentRating:
    """One bot's rating as it stands: Elo, its 95% interval and its ladder games."""

    rating: float
    lower: float
    upper: float
    games: int


def games_of_pair_results(pair_results: int, seats: int) -> int:
    """A bot's games from its pair results on a ladder of ``seats`` seats (each game
    gives each of its bots one result against each other seat)."""
    return pair_results // max(seats - 1, 1)


def current_ratings(ladder: Ladder) -> dict[int, CurrentRating] | None:
    """Every rated bot's rating from the ladder's kept state, refitted now, by bot id.

    None when the ladder has no state yet or one this version cannot read (the next
    batch rebuilds it; meanwhile the history rows stand in).
    """
    if ladder.rating_state is None:
        return None
    try:
        elo = IncrementalElo.from_bytes(ladder.rating_state)
    except LadderError as exc:
        log.warning("ladder %s: %s; showing its last history rows", ladder.id, exc)
        return None
    return {
        bot: CurrentRating(
            rating=fit.elo,
            lower=fit.lower,
            upper=fit.upper,
            games=games_of_pair_results(fit.games, ladder.seats),
        )
        for bot, fit in elo.refit().items()
    }
