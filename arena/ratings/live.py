"""Elo kept current game by game, for the live display of a running tournament.

:func:`arena.ratings.elo.fit_elo` costs one pass over every game, too much to repeat
every few games of a long run. :class:`LiveElo` keeps what the fit needs up to date
as games arrive: the win and draw totals per pair of players, and the sums from which
the clustered residual spread ``J`` of the sandwich interval follows for any
strengths. With ``S_cq`` the points of the lower-numbered player of pair ``q`` within
rotation ``c`` and ``n_cq`` their games there, the residual of the pair in the
rotation is ``S_cq − n_cq·p_q`` and

    J = Σ_q Σ_q' (A_qq' − p_q'·B_qq' − p_q·B_q'q + p_q·p_q'·N_qq') · d_q·d_q'ᵀ

with ``A_qq' = Σ_c S_cq·S_cq'``, ``B_qq' = Σ_c S_cq·n_cq'``, ``N_qq' = Σ_c n_cq·n_cq'``
and ``d_q`` the vector +1 at the pair's lower player, −1 at the other. A fit then
costs a few Newton steps on the players' matrices, whatever the number of games,
and gives exactly the ratings and intervals of ``fit_elo`` on the same games.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit

from arena.ratings.data import DRAW, LOSS, WIN, FloatArray, GroupId, PairCounts
from arena.ratings.elo import EloRatings, fit_with_fallback, hessian_fit
from arena.ratings.errors import RatingError

Pair = tuple[int, int]
"""Two player numbers, the lower first."""


@dataclass
class _Rotation:
    """What one rotation holds so far: per pair, the lower player's points and games."""

    points: dict[Pair, float] = field(default_factory=dict)
    games: dict[Pair, int] = field(default_factory=dict)


class LiveElo:
    """Bradley–Terry ratings with sandwich intervals, updated one game at a time.

    ``players`` fixes the names and their order. Adding a game costs a few dictionary
    updates per pair of seats; :meth:`fit` costs O(players³) plus the pairs that share
    rotations, independent of the number of games.
    """

    def __init__(self, players: Sequence[str]):
        self.players = tuple(players)
        self._number = {name: i for i, name in enumerate(self.players)}
        self._wins: Counter[Pair] = Counter()
        """Games (winner, loser); draws under (lower, higher) in ``_draws``."""
        self._draws: Counter[Pair] = Counter()
        self._rotations: dict[GroupId, _Rotation] = defaultdict(_Rotation)
        self._a: dict[tuple[Pair, Pair], float] = defaultdict(float)
        self._b: dict[tuple[Pair, Pair], float] = defaultdict(float)
        self._n: dict[tuple[Pair, Pair], float] = defaultdict(float)
        self.games = 0

    def add_game(self, players: Sequence[str], ranking: Sequence[int], group: GroupId) -> None:
        """A game of two or more seats, decomposed into one result per pair of seats
        held by different players (as :func:`arena.ratings.pairwise_games` does).

        Raises RatingError for an unknown player.
        """
        results = [
            (players[a], players[b], _score(ranking[a], ranking[b]))
            for a, b in itertools.combinations(range(len(players)), 2)
            if players[a] != players[b]
        ]
        self.add_results(results, group)

    def add_results(self, results: Sequence[tuple[str, str, float]], group: GroupId) -> None:
        """Two-player results ``(first, second, first's score)`` of one rotation.

        Raises RatingError for an unknown player or a score other than 0, ½ or 1.
        """
        if not results:
            return
        rotation = self._rotations[group]
        changed: dict[Pair, tuple[float, int]] = {}
        for first, second, score in results:
            i, j = self._index(first), self._index(second)
            if score not in (WIN, DRAW, LOSS):
                raise RatingError(f"score {score!r} is not 0, 0.5 or 1")
            pair = (i, j) if i < j else (j, i)
            if score == DRAW:
                self._draws[pair] += 1
            else:
                self._wins[(i, j) if score == WIN else (j, i)] += 1
            lower_points = score if i < j else 1.0 - score
            before = changed.get(pair, (0.0, 0))
            changed[pair] = (before[0] + lower_points, before[1] + 1)
            self.games += 1
        for pair, (points, games) in changed.items():
            self._move(rotation, pair, points, games)

    def _index(self, name: str) -> int:
        try:
            return self._number[name]
        except KeyError:
            raise RatingError(
                f"unknown player {name!r}; known: {', '.join(self.players)}"
            ) from None

    def _move(self, rotation: _Rotation, pair: Pair, points: float, games: int) -> None:
        """Add ``points`` and ``games`` to ``pair`` in ``rotation`` and update the sums
        over rotations of the products of its pairs' totals."""
        old_points = rotation.points.get(pair, 0.0)
        old_games = rotation.games.get(pair, 0)
        new_points, new_games = old_points + points, old_games + games
        for other in list(rotation.points):
            if other == pair:
                continue
            other_points, other_games = rotation.points[other], rotation.games[other]
            for key, first, second in (((pair, other), 0, 1), ((other, pair), 1, 0)):
                mine = ((new_points, new_games), (other_points, other_games))
                was = ((old_points, old_games), (other_points, other_games))
                self._a[key] += mine[first][0] * mine[second][0] - was[first][0] * was[second][0]
                self._b[key] += mine[first][0] * mine[second][1] - was[first][0] * was[second][1]
                self._n[key] += mine[first][1] * mine[second][1] - was[first][1] * was[second][1]
        key = (pair, pair)
        self._a[key] += new_points**2 - old_points**2
        self._b[key] += new_points * new_games - old_points * old_games
        self._n[key] += new_games**2 - old_games**2
        rotation.points[pair], rotation.games[pair] = new_points, new_games

    def counts(self) -> PairCounts:
        """The win and draw totals so far."""
        n = len(self.players)
        wins, draws = np.zeros((n, n)), np.zeros((n, n))
        for (winner, loser), count in self._wins.items():
            wins[winner, loser] = count
        for (i, j), count in self._draws.items():
            draws[i, j] = draws[j, i] = count
        return PairCounts.from_matrices(self.players, wins, draws)

    def spread(self, strengths: FloatArray) -> tuple[FloatArray, int]:
        """The clustered residual spread ``J`` at ``strengths`` and the rotation count,
        as :func:`arena.ratings.elo.cluster_spread` computes them from the games."""
        n = len(self.players)
        spread = np.zeros((n, n))
        if self._a:
            keys = list(self._a)
            first = np.array([key[0] for key in keys])
            second = np.array([key[1] for key in keys])
            p_first = expit(strengths[first[:, 0]] - strengths[first[:, 1]])
            p_second = expit(strengths[second[:, 0]] - strengths[second[:, 1]])
            a = np.array([self._a[key] for key in keys])
            b = np.array([self._b[key] for key in keys])
            b_swapped = np.array([self._b[(key[1], key[0])] for key in keys])
            n_both = np.array([self._n[key] for key in keys])
            weight = a - p_second * b - p_first * b_swapped + p_first * p_second * n_both
            for row, row_sign in ((first[:, 0], 1.0), (first[:, 1], -1.0)):
                for column, column_sign in ((second[:, 0], 1.0), (second[:, 1], -1.0)):
                    np.add.at(spread, (row, column), row_sign * column_sign * weight)
        return spread, len(self._rotations)

    def fit(self, *, confidence: float = 0.95) -> tuple[EloRatings, bool]:
        """The ratings of the games so far (mean 0) and whether virtual draws were
        needed because some bot won or lost every game (see
        :func:`arena.ratings.elo.fit_with_fallback`).

        Raises RatingError when there is nothing to rate yet (a bot without games,
        bots that never met).
        """
        counts = self.counts()
        return fit_with_fallback(
            lambda prior: hessian_fit(counts, self.spread, confidence=confidence, prior_draws=prior)
        )


def _score(mine: int, theirs: int) -> float:
    return WIN if mine < theirs else DRAW if mine == theirs else LOSS
