"""One-seat games (patience): win rate with a Wilson interval, mean score, and a
duplicate Elo from comparing bots deal by deal.

On a shared deal the luck of the cards is the same for every bot, so the bot that
scores higher on it has played better: each pair of bots that played a deal counts as
one game, won by the higher score and drawn on equal scores. Those games, grouped by
deal, go into the ordinary Elo fit (:func:`arena.ratings.elo.fit_elo`).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from arena.ratings.data import DRAW, LOSS, WIN, GroupId, PairwiseGames
from arena.ratings.errors import RatingError


@dataclass(frozen=True)
class SolitaireResult:
    """One bot's game on one deal: ``score`` (cards on the foundations) and ``won``."""

    player: str
    deal: GroupId
    score: float
    won: bool


@dataclass(frozen=True)
class SolitaireSummary:
    """A bot's record over its games.

    Attributes:
        win_rate: wins over games.
        win_rate_low, win_rate_high: the Wilson score interval of the win rate at
            ``confidence``.
        mean_score: the average score.
        score_stderr: the standard error of the mean score (0 with one game).
    """

    player: str
    games: int
    wins: int
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    mean_score: float
    score_stderr: float
    confidence: float


def wilson_interval(wins: int, games: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of the win rate ``wins / games`` (scipy's
    ``binomtest(...).proportion_ci(method="wilson")``, imported when first needed: it
    takes a second to import)."""
    from scipy.stats import binomtest

    interval = binomtest(wins, games).proportion_ci(confidence_level=confidence, method="wilson")
    return float(interval.low), float(interval.high)


def solitaire_summaries(
    results: Iterable[SolitaireResult], *, confidence: float = 0.95
) -> dict[str, SolitaireSummary]:
    """One summary per bot, by bot name.

    Raises RatingError unless ``0 < confidence < 1``.
    """
    if not 0.0 < confidence < 1.0:
        raise RatingError(f"confidence {confidence!r} must lie between 0 and 1")
    scores: dict[str, list[float]] = defaultdict(list)
    wins: dict[str, int] = defaultdict(int)
    for result in results:
        scores[result.player].append(result.score)
        wins[result.player] += result.won
    summaries = {}
    for player in sorted(scores):
        games = len(scores[player])
        low, high = wilson_interval(wins[player], games, confidence)
        mean = sum(scores[player]) / games
        spread = (
            math.sqrt(sum((s - mean) ** 2 for s in scores[player]) / (games - 1) / games)
            if games > 1
            else 0.0
        )
        summaries[player] = SolitaireSummary(
            player=player,
            games=games,
            wins=wins[player],
            win_rate=wins[player] / games,
            win_rate_low=low,
            win_rate_high=high,
            mean_score=mean,
            score_stderr=spread,
            confidence=confidence,
        )
    return summaries


def duplicate_games(results: Iterable[SolitaireResult]) -> PairwiseGames:
    """Deal-by-deal comparisons of every two bots that played the same deal, grouped by
    deal: the higher score wins, equal scores draw. A bot that played a deal more than
    once enters with its mean score on it. Players are sorted by name.

    Fit them with :func:`arena.ratings.elo.fit_elo` for the duplicate Elo.
    """
    totals: dict[GroupId, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        totals[result.deal][result.player].append(result.score)
    names = tuple(sorted({player for deal in totals.values() for player in deal}))
    number_of = {name: i for i, name in enumerate(names)}
    first: list[int] = []
    second: list[int] = []
    score: list[float] = []
    group: list[int] = []
    for deal_number, by_player in enumerate(totals.values()):
        means = {p: sum(s) / len(s) for p, s in by_player.items()}
        for a, b in itertools.combinations(sorted(means), 2):
            first.append(number_of[a])
            second.append(number_of[b])
            score.append(WIN if means[a] > means[b] else DRAW if means[a] == means[b] else LOSS)
            group.append(deal_number)
    return PairwiseGames.from_arrays(names, first, second, score, group)
