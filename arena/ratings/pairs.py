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
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from scipy.stats import norm

from arena.ratings.data import GameResult, GroupId
from arena.ratings.errors import RatingError

NORMALISED_ELO_PER_T = 800.0 / math.log(10.0)
"""Normalised Elo per unit of t = (score − ½) / σ (per game); ≈ 347.4."""

CONFIDENCE_Z = float(norm.ppf(0.975))


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


_PAIR_CATEGORY = {
    (0.0, 0.0): "ll",
    (0.0, 0.5): "ld",
    (0.0, 1.0): "wl",
    (0.5, 0.5): "dd",
    (0.5, 1.0): "wd",
    (1.0, 1.0): "ww",
}


def match_statistics(games: Iterable[GameResult], player: str, opponent: str) -> MatchStatistics:
    """Count ``player``'s results against ``opponent`` over the two-seat games between
    exactly these two; other games are skipped. Games sharing a group form a pair.

    Raises RatingError when ``player`` and ``opponent`` are the same, or a group holds
    more than two games between them.
    """
    if player == opponent:
        raise RatingError(f"a match needs two different players, got {player!r} twice")
    by_group: dict[GroupId, list[float]] = defaultdict(list)
    ungrouped: list[float] = []
    for game in games:
        if len(game.players) != 2 or set(game.players) != {player, opponent}:
            continue
        seat = game.players.index(player)
        mine, theirs = game.ranking[seat], game.ranking[1 - seat]
        score = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        if game.group is None:
            ungrouped.append(score)
        else:
            by_group[game.group].append(score)
    pair_counts = dict.fromkeys(_PAIR_CATEGORY.values(), 0)
    unpaired = len(ungrouped)
    for group, scores in by_group.items():
        if len(scores) > 2:
            raise RatingError(
                f"rotation {group!r} holds {len(scores)} games between {player!r} and "
                f"{opponent!r}; a pair is two"
            )
        if len(scores) == 2:
            low, high = sorted(scores)
            pair_counts[_PAIR_CATEGORY[low, high]] += 1
        else:
            unpaired += 1
    every_score = ungrouped + [s for scores in by_group.values() for s in scores]
    trinomial = Trinomial(
        wins=every_score.count(1.0), draws=every_score.count(0.5), losses=every_score.count(0.0)
    )
    return MatchStatistics(player, opponent, trinomial, Pentanomial(**pair_counts), unpaired)


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
    return float(norm.cdf((mean - 0.5) / standard_error))


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
