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
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from arena.ratings.data import DRAW, LOSS, WIN, FloatArray, PairCounts
from arena.ratings.elo import EloRatings, fit_with_fallback, hessian_fit
from arena.ratings.errors import RatingError

Pair = tuple[int, int]
"""Two player numbers, the lower first."""
RotationKey = tuple[int, int, tuple[int, ...]] | str
"""A rotation: a tournament's deal at a table (tournament, seed, sorted seats), or
``"tournament:seed"`` (one seat: every bot on the deal)."""


def _no_sums() -> list[float]:
    """A pair of pairs' ``A``, ``B`` and ``N`` before any game."""
    return [0.0, 0.0, 0.0]


@dataclass(frozen=True)
class LiveEloState:
    """A :class:`LiveElo` as plain data (a driver stores it with each batch, as JSON):
    the players, the win and draw totals ``(i, j, games)``, the open rotations with
    their pairs' ``(i, j, points, games)``, the sums ``(i, j, k, l, A, B, N)`` of each
    pair of pairs ``((i, j), (k, l))``, the rotations closed and the games. Every
    mapping is a sequence of its items, in its order (the fit adds them in that order).
    """

    players: tuple[str, ...]
    wins: tuple[tuple[int, int, int], ...]
    draws: tuple[tuple[int, int, int], ...]
    rotations: tuple[tuple[RotationKey, tuple[tuple[int, int, float, float], ...]], ...]
    sums: tuple[tuple[int, int, int, int, float, float, float], ...]
    closed: int
    games: int

    def check(self) -> None:
        """Raises RatingError when a player number is out of range, a pair is not two
        players, the lower first, a count is negative or a sum not finite."""
        counts = [
            *(c for *_, c in self.wins),
            *(c for *_, c in self.draws),
            *(g for _, held in self.rotations for *_, g in held),
            self.closed,
            self.games,
        ]
        if any(c < 0 for c in counts):
            raise RatingError("a negative count of games or rotations")
        values = [
            *(v for _, held in self.rotations for _, _, *pg in held for v in pg),
            *(v for *_, a, b, n in self.sums for v in (a, b, n)),
        ]
        if not all(math.isfinite(v) for v in values):
            raise RatingError("a sum that is not a finite number")
        count = len(self.players)
        pairs = [
            *((i, j) for i, j, _ in self.draws),
            *((i, j) for _, held in self.rotations for i, j, _, _ in held),
            *((i, j) for i, j, *_ in self.sums),
            *((k, m) for _, _, k, m, *_ in self.sums),
        ]
        numbers = [*(n for i, j, _ in self.wins for n in (i, j)), *(n for p in pairs for n in p)]
        if any(not 0 <= n < count for n in numbers):
            raise RatingError(f"a player number out of range for {count} players")
        if any(i >= j for i, j in pairs) or any(i == j for i, j, _ in self.wins):
            raise RatingError("a pair of players that is not two players, the lower first")


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
        self._rotations: dict[RotationKey, dict[Pair, list[float]]] = defaultdict(dict)
        """Per rotation and pair: the lower player's points and the games."""
        self._sums: dict[tuple[Pair, Pair], list[float]] = defaultdict(_no_sums)
        """``A``, ``B`` and ``N`` of each pair of pairs (see the module's docstring)."""
        self._closed = 0
        """Rotations forgotten (:meth:`close`): counted, no longer held."""
        self.games = 0

    def add_game(self, players: Sequence[str], ranking: Sequence[int], group: RotationKey) -> None:
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

    def add_results(self, results: Sequence[tuple[str, str, float]], group: RotationKey) -> None:
        """Two-player results ``(first, second, first's score)`` of one rotation.

        Raises RatingError for an unknown player or a score other than 0, ½ or 1.
        """
        self.add_numbered(
            [(self._index(first), self._index(second), score) for first, second, score in results],
            group,
        )

    def number(self, name: str) -> int:
        """The player's number, as :meth:`add_numbered` takes it.

        Raises RatingError for an unknown player.
        """
        return self._index(name)

    def add_numbered(self, results: Sequence[tuple[int, int, float]], group: RotationKey) -> None:
        """:meth:`add_results` with the players by number (:meth:`number`): the driver
        adds a rotation's games this way, without looking names up for every game.

        Raises RatingError for a score other than 0, ½ or 1.
        """
        if not results:
            return
        rotation = self._rotations[group]
        changed: dict[Pair, tuple[float, int]] = {}
        for i, j, score in results:
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
        self.games += len(results)
        for pair, (points, games) in changed.items():
            self._move(rotation, pair, points, games)

    def add_rotations(self, rotations: Mapping[tuple[tuple[int, int, float], ...], int]) -> None:
        """Whole rotations at once: ``rotations[results]`` rotations, none added before,
        each with ``results`` (as :meth:`add_numbered` takes them) and closed at once.
        Exactly :meth:`add_numbered` and :meth:`close` for each: the sums of a rotation
        added whole are the products of its pairs' totals (what the moves add up to),
        and points are multiples of ½, so every product and sum is exact in any order.
        A run of random games repeats a few kinds of rotation: each is worked out once.

        Raises RatingError for a score other than 0, ½ or 1.
        """
        for results, count in rotations.items():
            if not results:  # its games rated nothing: nothing was held, nothing closes
                continue
            totals: dict[Pair, list[float]] = {}
            for i, j, score in results:
                if score not in (WIN, DRAW, LOSS):
                    raise RatingError(f"score {score!r} is not 0, 0.5 or 1")
                pair = (i, j) if i < j else (j, i)
                if score == DRAW:
                    self._draws[pair] += count
                else:
                    self._wins[(i, j) if score == WIN else (j, i)] += count
                held = totals.setdefault(pair, [0.0, 0.0])
                held[0] += score if i < j else 1.0 - score
                held[1] += 1
            for (pair, (points, games)), (other, (other_points, other_games)) in itertools.product(
                totals.items(), repeat=2
            ):
                sums = self._sums[(pair, other)]
                sums[0] += count * points * other_points
                sums[1] += count * points * other_games
                sums[2] += count * games * other_games
            self.games += count * len(results)
            self._closed += count

    def close(self, group: RotationKey) -> None:
        """``group`` has all its games: forget its totals (the sums keep what the fit
        needs), so memory holds the open rotations only, not every rotation so far."""
        if self._rotations.pop(group, None) is not None:
            self._closed += 1

    def running_state(self) -> LiveEloState:
        """Everything the ratings follow from, as data (:meth:`resumed` takes it up)."""
        sums = self._sums
        return LiveEloState(
            self.players,
            tuple((i, j, count) for (i, j), count in self._wins.items()),
            tuple((i, j, count) for (i, j), count in self._draws.items()),
            tuple(
                (group, tuple((i, j, held[0], held[1]) for (i, j), held in pairs.items()))
                for group, pairs in self._rotations.items()
            ),
            tuple((i, j, k, m, a, b, n) for ((i, j), (k, m)), (a, b, n) in sums.items()),
            self._closed,
            self.games,
        )

    @classmethod
    def resumed(cls, state: LiveEloState) -> LiveElo:
        """The :class:`LiveElo` whose :meth:`running_state` was ``state``.

        Raises RatingError for a state with a player number out of range or a pair of
        players not in order (a state of another program, or forged).
        """
        state.check()
        elo = cls(state.players)
        elo._wins.update({(i, j): count for i, j, count in state.wins})
        elo._draws.update({(i, j): count for i, j, count in state.draws})
        for group, held in state.rotations:
            elo._rotations[group] = {(i, j): [points, games] for i, j, points, games in held}
        for i, j, k, m, a, b, n in state.sums:
            elo._sums[((i, j), (k, m))] = [a, b, n]
        elo._closed, elo.games = state.closed, state.games
        return elo

    def _index(self, name: str) -> int:
        try:
            return self._number[name]
        except KeyError:
            raise RatingError(
                f"unknown player {name!r}; known: {', '.join(self.players)}"
            ) from None

    def _move(
        self, rotation: dict[Pair, list[float]], pair: Pair, points: float, games: int
    ) -> None:
        """Add ``points`` and ``games`` to ``pair`` in ``rotation`` and update the sums
        over rotations of the products of its pairs' totals."""
        held = rotation.get(pair)
        old_points, old_games = (held[0], held[1]) if held else (0.0, 0.0)
        new_points, new_games = old_points + points, old_games + games
        for other, (other_points, other_games) in rotation.items():
            if other == pair:
                continue
            for key, mine in (((pair, other), True), ((other, pair), False)):
                sums = self._sums[key]
                if mine:  # this pair first: A, B = S·n', N change with this pair's totals
                    sums[0] += (new_points - old_points) * other_points
                    sums[1] += (new_points - old_points) * other_games
                else:  # this pair second: B = S'·n changes with its games
                    sums[0] += other_points * (new_points - old_points)
                    sums[1] += other_points * (new_games - old_games)
                sums[2] += other_games * (new_games - old_games)
        sums = self._sums[(pair, pair)]
        sums[0] += new_points**2 - old_points**2
        sums[1] += new_points * new_games - old_points * old_games
        sums[2] += new_games**2 - old_games**2
        rotation[pair] = [new_points, new_games]

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
        if self._sums:
            keys = list(self._sums)
            first = np.array([key[0] for key in keys])
            second = np.array([key[1] for key in keys])
            p_first = expit(strengths[first[:, 0]] - strengths[first[:, 1]])
            p_second = expit(strengths[second[:, 0]] - strengths[second[:, 1]])
            a, b, n_both = np.array([self._sums[key] for key in keys]).T
            b_swapped = np.array([self._sums[(key[1], key[0])][1] for key in keys])
            weight = a - p_second * b - p_first * b_swapped + p_first * p_second * n_both
            for row, row_sign in ((first[:, 0], 1.0), (first[:, 1], -1.0)):
                for column, column_sign in ((second[:, 0], 1.0), (second[:, 1], -1.0)):
                    np.add.at(spread, (row, column), row_sign * column_sign * weight)
        return spread, len(self._rotations) + self._closed

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
