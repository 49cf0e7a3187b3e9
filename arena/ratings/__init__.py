"""Rating mathematics on plain data: no database, no I/O.

* :mod:`~arena.ratings.data`: the inputs (:class:`GameResult`, :class:`PairwiseGames`,
  :class:`PairCounts`).
* :mod:`~arena.ratings.elo`: Bradley–Terry Elo by maximum likelihood, intervals
  (Hessian sandwich or bootstrap over rotations), anchors, likelihood of superiority.
* :mod:`~arena.ratings.pairs`: trinomial and pentanomial counts, logistic and
  normalised Elo of a two-player match.
* :mod:`~arena.ratings.sprt`: the generalised SPRT on normalised Elo.
* :mod:`~arena.ratings.multiplayer`: rankings of k-player games as pairwise results;
  OpenSkill Plackett–Luce ratings.
* :mod:`~arena.ratings.solitaire`: win rate (Wilson interval), mean score, duplicate Elo.
* :mod:`~arena.ratings.adaptive`: which pairs an adaptive tournament should play next.
* :mod:`~arena.ratings.simulate`: synthetic games from known ratings.

``docs/ratings.md`` explains the methods and formulas.
"""

from arena.ratings.adaptive import (
    NeighbourPair,
    all_neighbours_separated,
    neighbour_pairs,
    pairs_to_schedule,
)
from arena.ratings.data import GameResult, GroupId, PairCounts, PairwiseGames
from arena.ratings.elo import (
    Anchor,
    EloRatings,
    IntervalMethod,
    elo_difference,
    expected_score,
    fit_elo,
    parse_anchor,
)
from arena.ratings.errors import RatingError
from arena.ratings.multiplayer import (
    OpenSkillRating,
    OpenSkillView,
    openskill_ratings,
    pairwise_games,
)
from arena.ratings.pairs import (
    EloEstimate,
    MatchStatistics,
    Pentanomial,
    Trinomial,
    logistic_elo,
    match_statistics,
    normalized_elo,
)
from arena.ratings.solitaire import (
    SolitaireResult,
    SolitaireSummary,
    duplicate_games,
    solitaire_summaries,
)
from arena.ratings.sprt import (
    SprtDecision,
    SprtResult,
    SprtSettings,
    log_likelihood_ratio,
    sprt,
)

__all__ = [
    "Anchor",
    "EloEstimate",
    "EloRatings",
    "GameResult",
    "GroupId",
    "IntervalMethod",
    "MatchStatistics",
    "NeighbourPair",
    "OpenSkillRating",
    "OpenSkillView",
    "PairCounts",
    "PairwiseGames",
    "Pentanomial",
    "RatingError",
    "SolitaireResult",
    "SolitaireSummary",
    "SprtDecision",
    "SprtResult",
    "SprtSettings",
    "Trinomial",
    "all_neighbours_separated",
    "duplicate_games",
    "elo_difference",
    "expected_score",
    "fit_elo",
    "log_likelihood_ratio",
    "logistic_elo",
    "match_statistics",
    "neighbour_pairs",
    "normalized_elo",
    "openskill_ratings",
    "pairs_to_schedule",
    "pairwise_games",
    "parse_anchor",
    "solitaire_summaries",
    "sprt",
]
