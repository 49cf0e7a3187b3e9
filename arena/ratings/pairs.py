"""Statistics of a two-player match played in rotations, as fastchess and fishtest
report them: trinomial (win/draw/loss) and pentanomial (results of game pairs) counts,
the logistic Elo difference and the normalised Elo, each with a 95% error and the LOS.

A pair is the two games of one rotation: the same deal with seats swapped. Luck of the
deal largely cancels within a pair, so the pair's total has less spread than two
independent games; the pentanomial statistics use that spread instead of assuming
independence.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from arena.ratings.data import GameResult, PairwiseGames
from arena.ratings.errors import RatingError
from arena.ratings.multiplayer import pairwise_games

NORMALISED_ELO_PER_T = 800.0 / math.log(10.0)
"""Normalised Elo per unit of t = (score − ½) / σ (per game); ≈ 347.4."""

CONFIDENCE_Z = float(ndtri(0.975))


@dataclass(frozen=True)
class Trinomial:
    """Wins, draws and losses of one player against another."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def frequencies(self) -> tuple[tuple[float, float], ...]:
        """(score, count) for a loss, a draw and a win."""
        return ((0.0, self.losses), (0.5, self.draws), (1.0, self.wins))


@dataclass(frozen=True)
class Pentanomial:
    """Game pairs by the player's two results: ``ld`` counts a loss and a draw in either
    order, and so on. A pair scores 0 (LL), ½ (LD), 1 (WL or DD), 1½ (WD) or 2 (WW);
    WL and DD score the same and are one category of the statistics, kept apart here
    for display (fastchess prints their ratio)."""

    ll: int = 0
    ld: int = 0
    wl: int = 0
    dd: int = 0
    wd: int = 0
    ww: int = 0

    @property
    def pairs(self) -> int:
        return self.ll + self.ld + self.wl + self.dd + self.wd + self.ww

    def counts(self) -> tuple[int, int, int, int, int]:
        """The five categories LL, LD, WL+DD, WD, WW, as fishtest and fastchess list them."""
        return (self.ll, self.ld, self.wl + self.dd, self.wd, self.ww)

    def frequencies(self) -> tuple[tuple[float, float], ...]:
        """(mean score per game of the pair, count) for the five categories."""
        return tuple(zip((0.0, 0.25, 0.5, 0.75, 1.0), self.counts(), strict=True))


Counts = Trinomial | Pentanomial


@dataclass(frozen=True)
class MatchStatistics:
    """Everything :func:`match_statistics` counts, from ``player``'s point of view.

    ``trinomial`` counts every game; ``pentanomial`` the completed pairs;
    ``unpaired_games`` the games whose rotation is incomplete or has no group.
    """

    player: str
    opponent: str
    trinomial: Trinomial
    pentanomial: Pentanomial
    unpaired_games: int

    @property
    def paired(self) -> bool:
        """True when some games form pairs: the pentanomial statistics then apply."""
        return self.pentanomial.pairs > 0

    def swapped(self) -> MatchStatistics:
        """The same match from the opponent's side."""
        tri, penta = self.trinomial, self.pentanomial
        return MatchStatistics(
            self.opponent,
            self.player,
            Trinomial(wins=tri.losses, draws=tri.draws, losses=tri.wins),
            Pentanomial(
                ll=penta.ww, ld=penta.wd, wl=penta.wl, dd=penta.dd, wd=penta.ld, ww=penta.ll
            ),
            self.unpaired_games,
        )

    def sequential_counts(self) -> Counts:
        """The counts a test should use: pentanomial where games are paired, else trinomial."""
        return self.pentanomial if self.paired else self.trinomial


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with the half-width of its 95% interval and the likelihood
    of superiority ``P(true difference > 0)``. ``elo`` is ±inf for a score of 1 or 0;
    ``error`` is NaN when the score's interval reaches past 0 or 1."""

    elo: float
    error: float
    los: float


PAIR_CATEGORIES = ("ll", "ld", "wl", "dd", "wd", "ww")
"""The fields of :class:`Pentanomial`, from the worst pair to the best."""

_PAIR_CATEGORY = {
    (0.0, 0.0): "ll",
    (0.0, 0.5): "ld",
    (0.0, 1.0): "wl",
    (0.5, 0.5): "dd",
    (0.5, 1.0): "wd",
    (1.0, 1.0): "ww",
}


def game_score(mine: int, theirs: int) -> float:
    """A player's score in a game from the two places: 1 ahead, ½ level, 0 behind."""
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def pair_category(first: float, second: float) -> str:
    """The pentanomial category (``"ll"`` … ``"ww"``) of a pair of game scores."""
    low, high = sorted((first, second))
    return _PAIR_CATEGORY[low, high]


def match_statistics(games: Iterable[GameResult], player: str, opponent: str) -> MatchStatistics:
    """Count ``player``'s results against ``opponent`` over the two-seat games between
    exactly these two; other games are skipped. Games sharing a group form a pair.

    Raises RatingError when ``player`` and ``opponent`` are the same, or a group holds
    more than two games between them.
    """
    if player == opponent:
        raise RatingError(f"a match needs two different players, got {player!r} twice")
    between = [g for g in games if len(g.players) == 2 and set(g.players) == {player, opponent}]
    sizes = Counter(g.group for g in between if g.group is not None)
    for group, size in sizes.items():
        if size > 2:
            raise RatingError(
                f"rotation {group!r} holds {size} games between {player!r} and "
                f"{opponent!r}; a pair is two"
            )
    found = paired_statistics(pairwise_games(between, (player, opponent)))
    return found.get((0, 1), MatchStatistics(player, opponent, Trinomial(), Pentanomial(), 0))


def paired_statistics(games: PairwiseGames) -> dict[tuple[int, int], MatchStatistics]:
    """:class:`MatchStatistics` of every two players who met, keyed by their numbers
    ``(i, j)`` with ``i < j`` and counted from ``i``'s side, all at once: ``games``
    holds two-player games (one row each); rows sharing a group form a pair.

    Raises RatingError when a group holds more than two games.
    """
    n = len(games.players)
    low = np.minimum(games.first, games.second)
    high = np.maximum(games.first, games.second)
    score = np.where(games.first == low, games.score, 1.0 - games.score)
    pair = low * n + high
    groups, group_of_game, sizes = np.unique(games.group, return_inverse=True, return_counts=True)
    if sizes.size and sizes.max() > 2:
        crowded = int(np.argmax(sizes))
        row = int(np.argmax(group_of_game == crowded))
        raise RatingError(
            f"a rotation holds {int(sizes[crowded])} games between "
            f"{games.players[low[row]]!r} and {games.players[high[row]]!r}; a pair is two"
        )
    group_pair = np.zeros(groups.size, dtype=np.int64)
    group_pair[group_of_game] = pair
    group_points = np.bincount(group_of_game, weights=score, minlength=groups.size)
    group_draws = np.bincount(group_of_game, weights=score == 0.5, minlength=groups.size)
    # A pair's category from its points (0, ½, 1, 1½, 2) and, at 1, its draws (WL or DD).
    doubled = np.rint(2.0 * group_points).astype(np.int64)
    category = np.select(
        [doubled == 0, doubled == 1, (doubled == 2) & (group_draws < 2), doubled == 2],
        [0, 1, 2, 3],
        default=doubled + 1,
    )
    paired = sizes == 2
    pentanomial = np.zeros((n * n, len(PAIR_CATEGORIES)), dtype=np.int64)
    np.add.at(pentanomial, (group_pair[paired], category[paired]), 1)
    unpaired = np.bincount(group_pair[~paired], minlength=n * n)
    results = np.zeros((n * n, 3), dtype=np.int64)  # losses, draws, wins
    np.add.at(results, (pair, np.rint(2.0 * score).astype(np.int64)), 1)
    found = {}
    for key in np.unique(pair):
        i, j = divmod(int(key), n)
        losses, draws, wins = (int(c) for c in results[key])
        found[(i, j)] = MatchStatistics(
            games.players[i],
            games.players[j],
            Trinomial(wins=wins, draws=draws, losses=losses),
            Pentanomial(**dict(zip(PAIR_CATEGORIES, map(int, pentanomial[key]), strict=True))),
            int(unpaired[key]),
        )
    return found


def mean_and_variance(frequencies: tuple[tuple[float, float], ...]) -> tuple[float, float]:
    """The mean and the (population) variance of a score distribution given by counts.

    Raises RatingError when there are no observations.
    """
    total = sum(count for _, count in frequencies)
    if total <= 0:
        raise RatingError("no games to compute statistics from")
    mean = sum(score * count for score, count in frequencies) / total
    variance = sum(count * (score - mean) ** 2 for score, count in frequencies) / total
    return mean, variance


def _per_game_sigma(counts: Counts, variance: float) -> float:
    """The spread per game: a pair's mean of two games, scaled back by √2."""
    return math.sqrt(2.0 * variance if isinstance(counts, Pentanomial) else variance)


def _observations(counts: Counts) -> int:
    return counts.pairs if isinstance(counts, Pentanomial) else counts.games


def _score_to_elo(score: float) -> float:
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def _los(mean: float, standard_error: float) -> float:
    if standard_error == 0.0:
        return 0.5 if mean == 0.5 else float(mean > 0.5)
    return float(ndtr((mean - 0.5) / standard_error))


def logistic_elo(counts: Counts) -> EloEstimate:
    """The Elo difference ``400·log10(s / (1 − s))`` of the mean score ``s``, with the
    half-width of the interval mapped from ``s ± 1.96·se`` (as fastchess reports it).

    Raises RatingError when there are no games (or pairs).
    """
    mean, variance = mean_and_variance(counts.frequencies())
    standard_error = math.sqrt(variance / _observations(counts))
    low = mean - CONFIDENCE_Z * standard_error
    high = mean + CONFIDENCE_Z * standard_error
    error = (
        (_score_to_elo(high) - _score_to_elo(low)) / 2.0 if low > 0.0 and high < 1.0 else math.nan
    )
    return EloEstimate(_score_to_elo(mean), error, _los(mean, standard_error))


def normalized_elo(counts: Counts) -> EloEstimate:
    """The normalised Elo ``(s − ½) / σ · 800 / ln 10`` with ``σ`` the standard deviation
    of one game's score (for pairs, that of the pair's mean times √2), as in fishtest
    and fastchess. Its interval half-width is ``1.96 · 800 / ln 10 / √games``.

    Raises RatingError when there are no games (or pairs) or every result is the same
    (the spread is zero and the normalised Elo undefined).
    """
    mean, variance = mean_and_variance(counts.frequencies())
    if variance == 0.0:
        raise RatingError(f"normalised Elo is undefined when every result is equal: {counts!r}")
    sigma = _per_game_sigma(counts, variance)
    observations = _observations(counts)
    elo = (mean - 0.5) / sigma * NORMALISED_ELO_PER_T
    standard_error = math.sqrt(variance / observations)
    error = CONFIDENCE_Z * standard_error / sigma * NORMALISED_ELO_PER_T
    return EloEstimate(elo, error, _los(mean, standard_error))
