"""Games of two or more seats: final rankings as pairwise results for the Elo fit, and
OpenSkill's Plackett–Luce ratings as a second view.

A game of ``k`` seats counts as ``k·(k−1)/2`` two-player results, one per pair of seats:
the better place wins, equal places draw. They share the game's rotation group, so the
intervals of :func:`arena.ratings.elo.fit_elo` treat them as dependent.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from openskill.models import PlackettLuce, PlackettLuceRating

from arena.ratings.data import (
    DRAW,
    LOSS,
    WIN,
    FloatArray,
    GameResult,
    GroupId,
    IntArray,
    PairwiseGames,
)
from arena.ratings.errors import RatingError


def pairwise_games(
    results: Iterable[GameResult], players: Sequence[str] | None = None
) -> PairwiseGames:
    """Decompose every game into one result per pair of seats held by different players.

    Args:
        results: the games, of any seat count from two up.
        players: the names in the order the ratings should use; by default every
            player seen, sorted.

    Seats held by the same player give no result against each other. Games without a
    group each form a group of their own.

    Raises RatingError when a game names a player missing from ``players``.
    """
    games = list(results)
    names = (
        tuple(players)
        if players is not None
        else tuple(sorted({name for game in games for name in game.players}))
    )
    number_of = {name: i for i, name in enumerate(names)}
    group_numbers: dict[tuple[bool, GroupId | int], int] = {}
    by_seats: dict[int, tuple[list[list[int]], list[tuple[int, ...]], list[int]]] = {}
    for index, game in enumerate(games):
        key = (False, index) if game.group is None else (True, game.group)
        try:
            seated = [number_of[name] for name in game.players]
        except KeyError as missing:
            raise RatingError(f"game {game!r} names unknown player {missing.args[0]!r}") from None
        seats, rankings, groups = by_seats.setdefault(len(seated), ([], [], []))
        seats.append(seated)
        rankings.append(game.ranking)
        groups.append(group_numbers.setdefault(key, len(group_numbers)))
    parts = [
        seated_pairs(len(names), np.array(seats), np.array(rankings), np.array(groups))
        for seats, rankings, groups in by_seats.values()
    ]
    return PairwiseGames.from_arrays(
        names,
        np.concatenate([part[0] for part in parts]) if parts else [],
        np.concatenate([part[1] for part in parts]) if parts else [],
        np.concatenate([part[2] for part in parts]) if parts else [],
        np.concatenate([part[3] for part in parts]) if parts else [],
    )


def seated_pairs(
    players: int, seats: IntArray, ranking: IntArray, group: IntArray
) -> tuple[IntArray, IntArray, FloatArray, IntArray]:
    """Games of one seat count as arrays (player numbers and places, one row per game,
    one column per seat; the group of each game) decomposed into pairwise results:
    ``first``, ``second``, ``score`` (first's) and ``group`` arrays for
    :meth:`PairwiseGames.from_arrays`, pair of seats by pair of seats. Equal seats give
    no result."""
    pairs = list(itertools.combinations(range(seats.shape[1]), 2)) if seats.ndim == 2 else []
    if not pairs or not seats.size:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0), empty
    left = np.array([a for a, _ in pairs])
    right = np.array([b for _, b in pairs])
    # Game by game, pair of seats by pair of seats (row-major), as results read.
    first, second = seats[:, left].ravel(), seats[:, right].ravel()
    place_a, place_b = ranking[:, left].ravel(), ranking[:, right].ravel()
    score = np.where(place_a < place_b, WIN, np.where(place_a == place_b, DRAW, LOSS))
    groups = np.repeat(group, len(pairs))
    different = first != second
    return first[different], second[different], score[different], groups[different]


@dataclass(frozen=True)
class OpenSkillRating:
    """A player's Plackett–Luce rating: the mean ``mu`` and its uncertainty ``sigma``
    (OpenSkill's scale, starting at 25 ± 25/3), and the games it rests on."""

    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        """The conservative estimate ``mu − 3·sigma`` that OpenSkill ranks by."""
        return self.mu - 3.0 * self.sigma


@dataclass(frozen=True)
class OpenSkillView:
    """Ratings from :func:`openskill_ratings`, best ``ordinal`` first, and the number
    of games left out because one player held several seats."""

    ratings: dict[str, OpenSkillRating]
    skipped_games: int


def openskill_ratings(results: Iterable[GameResult]) -> OpenSkillView:
    """Update OpenSkill's Plackett–Luce model game by game, in the order given.

    Unlike the Elo fit this is an online method: the result depends on the order of
    the games (slightly, once ratings settle). Each seat is a team of one; equal
    places are ties. A game in which one player holds several seats is skipped, since
    the model cannot rate a player against itself.
    """
    model = PlackettLuce()
    current: dict[str, PlackettLuceRating] = {}
    games_played: dict[str, int] = {}
    skipped = 0
    for game in results:
        if len(set(game.players)) != len(game.players):
            skipped += 1
            continue
        teams = [[current.get(name) or model.rating(name=name)] for name in game.players]
        updated = model.rate(teams, ranks=[float(place) for place in game.ranking])
        for name, (rating,) in zip(game.players, updated, strict=True):
            current[name] = rating
            games_played[name] = games_played.get(name, 0) + 1
    ratings = {
        name: OpenSkillRating(float(r.mu), float(r.sigma), games_played[name])
        for name, r in current.items()
    }
    ordered = dict(sorted(ratings.items(), key=lambda item: (-item[1].ordinal, item[0])))
    return OpenSkillView(ordered, skipped)
