"""The plain data the rating functions work on.

A :class:`GameResult` is one finished game as the ratings see it (who sat where, the
places, the rotation). :class:`PairwiseGames` holds two-player results as parallel
numpy arrays, the input of the Elo fit; :class:`PairCounts` is their aggregate, one
win and one draw matrix, on which the fit itself runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from arena.ratings.errors import RatingError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

GroupId = str | int
"""Names a rotation: the games dealt from one seed, one per seat arrangement."""

WIN, DRAW, LOSS = 1.0, 0.5, 0.0
"""The first player's score in a two-player result."""


@dataclass(frozen=True)
class GameResult:
    """A finished game of two or more seats, reduced to what the ratings need.

    Attributes:
        players: the bot in each seat.
        ranking: the place of each seat, 1 is best; equal places are shared, as in
            :attr:`engines.outcome.Outcome.ranking`.
        group: the rotation the game belongs to (games dealt from the same seed).
            Games of one group are treated as dependent by the intervals and form the
            pairs of the pentanomial statistics; ``None`` makes the game a group alone.

    Raises RatingError when the seats and places differ in number, there are fewer
    than two seats, or a place is below 1.
    """

    players: tuple[str, ...]
    ranking: tuple[int, ...]
    group: GroupId | None = None

    def __post_init__(self) -> None:
        if len(self.players) != len(self.ranking):
            raise RatingError(
                f"players {self.players!r} and ranking {self.ranking!r} differ in length"
            )
        if len(self.players) < 2:
            raise RatingError(f"a rated game needs two or more seats, got {self.players!r}")
        if min(self.ranking) < 1:
            raise RatingError(f"places start at 1, got ranking {self.ranking!r}")


def player_index(players: Sequence[str], name: str) -> int:
    """The position of ``name`` in ``players``; raises RatingError when it is absent."""
    try:
        return list(players).index(name)
    except ValueError:
        raise RatingError(f"unknown player {name!r}; known: {', '.join(players)}") from None


def frozen_floats(values: npt.ArrayLike) -> FloatArray:
    """A read-only float64 copy of ``values``."""
    copy = np.array(values, dtype=np.float64, copy=True)
    copy.setflags(write=False)
    return copy


def frozen_ints(values: npt.ArrayLike) -> IntArray:
    """A read-only int64 copy of ``values``."""
    copy = np.array(values, dtype=np.int64, copy=True)
    copy.setflags(write=False)
    return copy


@dataclass(frozen=True, eq=False)
class PairwiseGames:
    """Two-player results as parallel arrays, one row per game (or per pair of seats
    of a multiplayer game): ``players[first[k]]`` scored ``score[k]`` (1 win, 0.5 draw,
    0 loss) against ``players[second[k]]`` in rotation ``group[k]``.

    Build it with :meth:`from_arrays`, which checks the arrays, or with
    :func:`arena.ratings.multiplayer.pairwise_games` from :class:`GameResult` values.
    The arrays are read-only.
    """

    players: tuple[str, ...]
    first: IntArray
    second: IntArray
    score: FloatArray
    group: IntArray

    @classmethod
    def from_arrays(
        cls,
        players: Sequence[str],
        first: npt.ArrayLike,
        second: npt.ArrayLike,
        score: npt.ArrayLike,
        group: npt.ArrayLike | None = None,
    ) -> PairwiseGames:
        """Check and copy per-game arrays; ``group=None`` puts every game in a group alone.

        Raises RatingError when the arrays differ in length or are not flat, a player
        index is outside ``players`` or meets itself, a score is not 0, 0.5 or 1, or a
        player name repeats.
        """
        names = tuple(players)
        if len(set(names)) != len(names):
            raise RatingError(f"player names repeat: {names!r}")
        first_array = frozen_ints(first)
        second_array = frozen_ints(second)
        score_array = frozen_floats(score)
        group_array = frozen_ints(np.arange(first_array.size) if group is None else group)
        arrays = (first_array, second_array, score_array, group_array)
        if any(a.ndim != 1 for a in arrays) or len({a.size for a in arrays}) != 1:
            raise RatingError(
                "first, second, score and group must be flat arrays of one length, got shapes "
                + ", ".join(str(a.shape) for a in arrays)
            )
        for side in (first_array, second_array):
            if side.size and (side.min() < 0 or side.max() >= len(names)):
                bad = side[(side < 0) | (side >= len(names))][0]
                raise RatingError(f"player index {int(bad)} outside 0..{len(names) - 1}")
        if np.any(first_array == second_array):
            row = int(np.argmax(first_array == second_array))
            raise RatingError(f"game {row} pits {names[first_array[row]]!r} against itself")
        valid = (score_array == WIN) | (score_array == DRAW) | (score_array == LOSS)
        if not np.all(valid):
            bad_score = score_array[~valid][0]
            raise RatingError(f"score {float(bad_score)!r} is not 0, 0.5 or 1")
        return cls(names, first_array, second_array, score_array, group_array)

    def __len__(self) -> int:
        return int(self.first.size)

    def aggregate(self) -> PairCounts:
        """Wins and draws per ordered pair of players, counted with ``numpy.bincount``."""
        n = len(self.players)
        decisive = self.score != DRAW
        first_won = self.score[decisive] == WIN
        winner = np.where(first_won, self.first[decisive], self.second[decisive])
        loser = np.where(first_won, self.second[decisive], self.first[decisive])
        wins = np.bincount(winner * n + loser, minlength=n * n).reshape(n, n)
        drawn = ~decisive
        one_way = np.bincount(self.first[drawn] * n + self.second[drawn], minlength=n * n).reshape(
            n, n
        )
        return PairCounts.from_matrices(self.players, wins, one_way + one_way.T)


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Results aggregated per pair of players: the sufficient statistics of the fit.

    Attributes:
        players: the names, in matrix order.
        wins: ``wins[i, j]`` is the number of games ``i`` won against ``j``.
        draws: ``draws[i, j]`` is the number of games drawn between ``i`` and ``j``
            (symmetric).
    """

    players: tuple[str, ...]
    wins: FloatArray
    draws: FloatArray

    @classmethod
    def from_matrices(
        cls, players: Sequence[str], wins: npt.ArrayLike, draws: npt.ArrayLike
    ) -> PairCounts:
        """Raises RatingError when the matrices are not square of the players' size,
        hold negative counts, or the draw matrix is not symmetric."""
        names = tuple(players)
        win_matrix = frozen_floats(wins)
        draw_matrix = frozen_floats(draws)
        shape = (len(names), len(names))
        if win_matrix.shape != shape or draw_matrix.shape != shape:
            raise RatingError(
                f"count matrices must be {shape}, got {win_matrix.shape} and {draw_matrix.shape}"
            )
        if np.any(win_matrix < 0) or np.any(draw_matrix < 0):
            raise RatingError("counts must not be negative")
        if not np.array_equal(draw_matrix, draw_matrix.T):
            raise RatingError("the draw matrix must be symmetric")
        return cls(names, win_matrix, draw_matrix)

    @property
    def losses(self) -> FloatArray:
        """``losses[i, j]``: games ``i`` lost against ``j``."""
        return self.wins.T

    @property
    def games(self) -> FloatArray:
        """``games[i, j]``: games between ``i`` and ``j`` (symmetric)."""
        result: FloatArray = self.wins + self.wins.T + self.draws
        return result

    @property
    def points(self) -> FloatArray:
        """``points[i, j]``: what ``i`` scored against ``j``, a draw counting half."""
        result: FloatArray = self.wins + 0.5 * self.draws
        return result

    def games_played(self) -> FloatArray:
        """Games per player."""
        result: FloatArray = self.games.sum(axis=1)
        return result

    def score_rate(self) -> FloatArray:
        """Each player's points divided by games (NaN for a player without games)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            result: FloatArray = self.points.sum(axis=1) / self.games_played()
        return result

    def record(self, player: str) -> tuple[int, int, int]:
        """Wins, draws and losses of ``player`` against everyone.

        Raises RatingError for an unknown name.
        """
        i = player_index(self.players, player)
        return int(self.wins[i].sum()), int(self.draws[i].sum()), int(self.wins[:, i].sum())

    def head_to_head(self, player: str, opponent: str) -> tuple[int, int, int]:
        """Wins, draws and losses of ``player`` against ``opponent``.

        Raises RatingError for an unknown name.
        """
        i, j = player_index(self.players, player), player_index(self.players, opponent)
        return int(self.wins[i, j]), int(self.draws[i, j]), int(self.wins[j, i])
