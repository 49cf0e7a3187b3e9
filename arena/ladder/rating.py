"""The ladder's ratings: maximum-likelihood Elo of every ladder game, kept current.

A ladder never stops, so refitting from the stored games after every batch would cost
more and more. :class:`IncrementalElo` keeps what the fit needs instead: the wins and
draws of every pair (arrays indexed by bot that grow when a bot appears) and the sums
behind the clustered spread ``J = Σ_c g_c·g_cᵀ`` of the sandwich interval, where
``g_c = Σ_q (S_qc − n_qc·p_q)·e_q`` sums over the pairs ``q`` of bots that met in
rotation ``c`` (``S`` the points of the pair's lower-numbered bot there, ``n`` its
games, ``p`` its expected score, ``e_q`` +1 at the lower bot and −1 at the higher).
Expanded, ``J`` needs for every two pairs ``q``, ``r`` that met in one rotation the
sums over rotations of ``S_q·S_r``, ``S_q·n_r``, ``n_q·S_r`` and ``n_q·n_r``: for
``q = r`` these are ``A = Σ S²``, ``B = Σ S·n``, ``N = Σ n²`` in dense bots × bots
arrays; the cross terms ``q ≠ r`` (rotations of three or more seats) are kept sparse,
as sorted int64 keys of pairs of pairs and a 4 × K array, merged per call with numpy
(a two-seat ladder has none). ``J`` then follows for any strengths (see
``arena/ratings/live.py`` for the same expansion). A refit is
:func:`arena.ratings.elo.hessian_fit` on these aggregates, warm-started from the
previous strengths: a few Newton steps on bots × bots matrices plus one pass over the
cross terms, whatever the number of games, with exactly the ratings and intervals
``fit_elo`` gives on the same games decomposed into pairs of seats, each rotation one
cluster, as the tournament report rates games of any seat count.

A rotation's games must come in one call: its cross terms are products of its totals.
"""

from __future__ import annotations

import io
import math
import zipfile
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import sparse
from scipy.sparse import csgraph
from scipy.special import expit

from arena.ladder.errors import LadderError
from arena.ratings.data import DRAW, LOSS, WIN, FloatArray, IntArray, PairCounts
from arena.ratings.elo import ELO_PER_LOGIT, Anchor, fit_with_fallback, hessian_fit

GameTriple = tuple[int, int, float]
"""Bot ids ``a`` and ``b`` and ``a``'s score: 1 win, 0.5 draw, 0 loss."""

_STATE_VERSION = 2
"""Version 1 had no cross terms; such a state does not load (the ladder worker then
rebuilds it from the stored games)."""

_CODE_RANGE = 2**31
"""Pair codes lie below this, so a pair of pairs fits one int64 key."""

MAX_BOTS = 65_536
"""The most bots one state rates: their pair codes stay below :data:`_CODE_RANGE`."""


@dataclass(frozen=True)
class LadderRating:
    """One bot's rating: Elo, its interval (95% by default) and its games."""

    elo: float
    lower: float
    upper: float
    games: int

    @property
    def half_width(self) -> float:
        """Half the interval's width: the ``±`` of ``elo ± half_width``."""
        return (self.upper - self.lower) / 2.0


class IncrementalElo:
    """Bradley–Terry ratings with sandwich intervals over all games added so far.

    Args:
        confidence: the intervals' coverage.
        anchor: a bot id whose rating is fixed at ``anchor_elo`` while it is rated;
            otherwise (and by default) the rated bots average ``anchor_elo``, as
            :func:`arena.ratings.elo.fit_elo` averages 0.
        anchor_elo: the anchored bot's rating, or the mean without an anchor.

    Raises LadderError for a confidence outside (0, 1).
    """

    def __init__(
        self, *, confidence: float = 0.95, anchor: int | None = None, anchor_elo: float = 0.0
    ) -> None:
        if not 0.0 < confidence < 1.0 or not math.isfinite(anchor_elo):
            raise LadderError(
                f"confidence {confidence!r} must lie in (0, 1) and anchor_elo "
                f"{anchor_elo!r} be finite"
            )
        self.confidence = confidence
        self.anchor = anchor
        self.anchor_elo = anchor_elo
        self._ids: list[int] = []
        self._index: dict[int, int] = {}
        self._wins = np.zeros((0, 0))
        """``wins[i, j]``: games bot number ``i`` won against ``j``."""
        self._draws = np.zeros((0, 0))
        """Symmetric: games drawn between ``i`` and ``j``."""
        self._sums = np.zeros((3, 0, 0))
        """``A``, ``B``, ``N`` of pair ``(i, j)`` at ``[:, i, j]``, ``i < j``."""
        self._cross_keys = np.zeros(0, dtype=np.int64)
        """Sorted: the pairs of pairs ``q < r`` that met in a rotation, as
        ``code(q)·2³¹ + code(r)`` (see :func:`_pair_code`)."""
        self._cross = np.zeros((4, 0))
        """Per key ``(q, r)``: ``Σ S_q·S_r``, ``Σ S_q·n_r``, ``Σ n_q·S_r``, ``Σ n_q·n_r``
        over rotations (``S`` the lower bot's points of a pair there, ``n`` its games)."""
        self._strengths = np.zeros(0)
        """The last fit's logits per bot number (0 before a bot's first fit)."""
        self._rotations_at = np.zeros(0, dtype=np.int64)
        """Per bot number: the rotations whose lowest-numbered bot it is. A rotation's
        bots stay in one connected group, so the rated group's rotations are the sum
        over its bots (the small-sample factor of the interval counts those)."""
        self._rotation_names = np.zeros(0, dtype=np.int64)
        """Sorted: the hashes of the rotation names added through this object (not
        saved by :meth:`to_bytes`), to refuse a rotation split across two calls."""
        self.clusters = 0
        """Rotations added (a game added alone is a rotation of its own)."""
        self.games = 0

    @property
    def bots(self) -> tuple[int, ...]:
        """Every bot id seen, in order of appearance."""
        return tuple(self._ids)

    @property
    def nbytes(self) -> int:
        """The bytes of the state's arrays in memory."""
        arrays = (self._wins, self._draws, self._sums, self._strengths)
        return sum(a.nbytes for a in (*arrays, self._cross_keys, self._cross))

    def add_games(
        self, games: Iterable[GameTriple], rotations: Sequence[Hashable] | None = None
    ) -> None:
        """Games ``(a, b, score of a)``; bots appear on their first game.

        ``rotations`` names each game's rotation (one deal played in every seat
        order): games of one rotation are correlated, and the interval counts them as
        one cluster. A rotation's games must come in one call: a name this object was
        given in an earlier call is refused (the names are not part of the saved
        state, so a state loaded by :meth:`from_bytes` checks only the names given to
        it since). Without ``rotations`` every game is a rotation of its own.

        Raises LadderError for a bot playing itself, a score other than 0, ½ or 1,
        ``rotations`` of another length than ``games``, or a rotation name given in an
        earlier call; then nothing is added.
        """
        triples = list(games)
        if rotations is not None and len(rotations) != len(triples):
            raise LadderError(
                f"{len(rotations)} rotation names for {len(triples)} games; need one per game"
            )
        named = self._new_rotation_names(rotations or ())
        self._add(triples, rotations)
        self._rotation_names = np.union1d(self._rotation_names, named)

    def _add(self, triples: list[GameTriple], rotations: Sequence[Hashable] | None) -> None:
        """:meth:`add_games` once its names are checked."""
        first, second, score = self._arrays(triples)
        if score.size == 0:
            return
        if rotations is None:
            cluster = np.arange(score.size)
        else:
            numbers: dict[Hashable, int] = {}
            cluster = np.array([numbers.setdefault(r, len(numbers)) for r in rotations])
        lower, higher, lower_points = _by_lower(first, second, score)
        self._count(first, second, score)
        size = len(self._ids)
        entries, entry_of_game = np.unique(
            cluster * (size * size) + lower * size + higher, return_inverse=True
        )
        points = np.bincount(entry_of_game, weights=lower_points)
        played = np.bincount(entry_of_game).astype(np.float64)
        rows, columns = np.divmod(entries % (size * size), size)
        np.add.at(self._sums[0], (rows, columns), points**2)
        np.add.at(self._sums[1], (rows, columns), points * played)
        np.add.at(self._sums[2], (rows, columns), played**2)
        entry_cluster = entries // (size * size)  # sorted, lowest bot first per rotation
        opens = np.flatnonzero(np.diff(entry_cluster, prepend=-1))
        self._rotations_at += np.bincount(rows[opens], minlength=size)
        if entries.size > opens.size:  # some rotation holds several pairs: cross terms
            keys, sums = _cross_terms(
                entry_cluster,
                _pair_code(rows, columns),
                points.astype(np.float64, copy=False),
                played,
            )
            self._merge_cross(keys, sums)
        self.clusters += int(opens.size)

    def _new_rotation_names(self, rotations: Sequence[Hashable]) -> IntArray:
        """The sorted distinct hashes of ``rotations``.

        Raises LadderError when one of them was added in an earlier call."""
        distinct = list(dict.fromkeys(rotations))
        hashes = np.array([hash(name) for name in distinct], dtype=np.int64)
        seen = np.isin(hashes, self._rotation_names)
        if seen.any():
            name = distinct[int(np.flatnonzero(seen)[0])]
            raise LadderError(
                f"rotation {name!r} was added in an earlier call: a rotation's games "
                "must come in one call (its games are correlated and form one cluster)"
            )
        return np.unique(hashes)

    def _merge_cross(self, keys: IntArray, sums: FloatArray) -> None:
        """Add the cross sums of sorted, distinct ``keys`` into the kept ones."""
        position = np.searchsorted(self._cross_keys, keys)
        kept = self._cross_keys.size
        found = position < kept
        found[found] = self._cross_keys[position[found]] == keys[found]
        self._cross[:, position[found]] += sums[:, found]
        new = ~found
        if new.any():
            self._cross_keys = np.insert(self._cross_keys, position[new], keys[new])
            self._cross = np.insert(self._cross, position[new], sums[:, new], axis=1)

    def add_rotation(self, games: Iterable[GameTriple]) -> None:
        """The games of one rotation: ``add_games`` with one rotation name for all.

        Raises LadderError as :meth:`add_games` does.
        """
        triples = list(games)
        if len(triples) > 0:
            self._add(triples, [0] * len(triples))

    def _arrays(self, triples: list[GameTriple]) -> tuple[IntArray, IntArray, FloatArray]:
        """Bot numbers and scores of ``triples``, adding new bots; checks first."""
        for a, b, points in triples:
            if a == b:
                raise LadderError(f"game {(a, b, points)!r} pits bot {a!r} against itself")
            if points not in (WIN, DRAW, LOSS):
                raise LadderError(f"game {(a, b, points)!r}: score {points!r} is not 0, 0.5 or 1")
        new = {bot for a, b, _ in triples for bot in (a, b)} - self._index.keys()
        if len(self._ids) + len(new) > MAX_BOTS:
            raise LadderError(
                f"{len(new)} new bots on top of {len(self._ids)}: more than {MAX_BOTS:,} bots"
            )
        for a, b, _ in triples:
            for bot in (a, b):
                if bot not in self._index:
                    self._add_bot(bot)
        first = np.array([self._index[a] for a, _, _ in triples], dtype=np.int64)
        second = np.array([self._index[b] for _, b, _ in triples], dtype=np.int64)
        score = np.array([s for _, _, s in triples], dtype=np.float64)
        return first, second, score

    def _add_bot(self, bot: int) -> None:
        self._index[bot] = len(self._ids)
        self._ids.append(bot)
        self._wins = np.pad(self._wins, ((0, 1), (0, 1)))
        self._draws = np.pad(self._draws, ((0, 1), (0, 1)))
        self._sums = np.pad(self._sums, ((0, 0), (0, 1), (0, 1)))
        self._strengths = np.append(self._strengths, 0.0)
        self._rotations_at = np.append(self._rotations_at, 0)

    def _count(self, first: IntArray, second: IntArray, score: FloatArray) -> None:
        won, lost = score == WIN, score == LOSS
        drawn = ~(won | lost)
        np.add.at(self._wins, (first[won], second[won]), 1.0)
        np.add.at(self._wins, (second[lost], first[lost]), 1.0)
        np.add.at(self._draws, (first[drawn], second[drawn]), 1.0)
        np.add.at(self._draws, (second[drawn], first[drawn]), 1.0)
        self.games += int(score.size)

    def games_of(self, bot: int) -> int:
        """The games ``bot`` played (0 for a bot never seen)."""
        i = self._index.get(bot)
        if i is None:
            return 0
        return int(self._wins[i].sum() + self._wins[:, i].sum() + self._draws[i].sum())

    def refit(self) -> dict[int, LadderRating]:
        """The ratings of every bot that can be rated, by bot id.

        Rated are the bots of the largest group connected by games (most bots, then
        most games); the others (no games yet, or only against bots of another group)
        are left out until a game connects them. When some bot won or lost every game
        the fit adds virtual draws as :func:`arena.ratings.elo.fit_with_fallback` does.
        """
        rated = self._rated_numbers()
        if rated.size < 2:
            return {}
        names = tuple(str(self._ids[i]) for i in rated)
        counts = PairCounts.from_matrices(
            names, self._wins[np.ix_(rated, rated)], self._draws[np.ix_(rated, rated)]
        )
        sums = self._sums[:, rated][:, :, rated]
        cross = self._rated_cross(rated)
        rotations = int(self._rotations_at[rated].sum())

        def spread(strengths: FloatArray) -> tuple[FloatArray, int]:
            result = _pair_spread(sums, strengths)
            if cross is not None:
                result += _cross_spread(*cross, strengths)
            return result, rotations

        anchor = (
            Anchor(str(self.anchor), self.anchor_elo)
            if self.anchor is not None and str(self.anchor) in names
            else None
        )
        start = self._strengths[rated]
        ratings, _ = fit_with_fallback(
            lambda prior: hessian_fit(
                counts,
                spread,
                anchor=anchor,
                confidence=self.confidence,
                prior_draws=prior,
                start=start,
            )
        )
        self._strengths[rated] = ratings.elo / ELO_PER_LOGIT
        played = counts.games_played()
        return {
            self._ids[number]: LadderRating(
                elo=float(ratings.elo[k]) + (0.0 if anchor else self.anchor_elo),
                lower=float(ratings.lower[k]) + (0.0 if anchor else self.anchor_elo),
                upper=float(ratings.upper[k]) + (0.0 if anchor else self.anchor_elo),
                games=int(played[k]),
            )
            for k, number in enumerate(rated)
        }

    def _rated_cross(self, rated: IntArray) -> tuple[IntArray, FloatArray] | None:
        """The cross terms among ``rated`` bots: per pair of pairs the positions in
        ``rated`` of ``q``'s lower and higher and ``r``'s lower and higher bot (4 × K),
        and the four sums; None when there are none."""
        if self._cross_keys.size == 0:
            return None
        first, second = np.divmod(self._cross_keys, _CODE_RANGE)
        bots = np.concatenate([_pair_of_code(first), _pair_of_code(second)])
        if rated.size == len(self._ids):  # every bot (rated is sorted): numbers are positions
            return bots, self._cross
        position = np.full(len(self._ids), -1, dtype=np.int64)
        position[rated] = np.arange(rated.size)
        bots = position[bots]
        inside = (bots >= 0).all(axis=0)
        if not inside.any():
            return None
        return bots[:, inside], self._cross[:, inside]

    def _rated_numbers(self) -> IntArray:
        played = self._wins + self._wins.T + self._draws
        if played.shape[0] < 2:
            return np.zeros(0, dtype=np.int64)
        parts, label = csgraph.connected_components(sparse.csr_matrix(played > 0), directed=False)
        size = np.bincount(label, minlength=parts)
        games = np.bincount(label, weights=played.sum(axis=1), minlength=parts)
        best = max(range(parts), key=lambda part: (size[part], games[part], -part))
        result: IntArray = np.flatnonzero(label == best)
        return result

    def to_bytes(self) -> bytes:
        """The whole state as a NumPy ``.npz`` archive (arrays only, no pickle).

        The cross sums, the bulk of a 3+-seat state, go in compact exact form: the
        keys as steps from the previous key and the sums in quarters (all are
        multiples of ¼), each in the smallest unsigned type that holds it; and the
        archive is deflated at level 1, several times faster than NumPy's default
        for little more size (a ladder worker saves the state every batch)."""
        arrays = {
            "version": np.array([_STATE_VERSION]),
            "ids": np.array(self._ids, dtype=np.int64),
            "wins": self._wins,
            "draws": self._draws,
            "sums": self._sums,
            "cross_key_steps": _smallest_unsigned(np.diff(self._cross_keys, prepend=0)),
            "cross_quarters": _smallest_unsigned(np.rint(4.0 * self._cross).astype(np.int64)),
            "strengths": self._strengths,
            "rotations_at": self._rotations_at,
            "totals": np.array([self.clusters, self.games], dtype=np.int64),
            "settings": np.array(
                [
                    self.confidence,
                    self.anchor_elo,
                    math.nan if self.anchor is None else float(self.anchor),
                ]
            ),
        }
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
            for name, array in arrays.items():
                with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> IncrementalElo:
        """The state :meth:`to_bytes` wrote.

        Raises LadderError when ``data`` is not such a state.
        """
        try:
            if not data.startswith(b"PK"):
                raise ValueError("not a NumPy .npz archive")
            with np.load(io.BytesIO(data), allow_pickle=False) as archive:
                arrays = {name: archive[name] for name in archive.files}
            version = int(arrays["version"][0])
            if version != _STATE_VERSION:
                raise LadderError(
                    f"ladder rating state of version {version!r}, need {_STATE_VERSION} "
                    "(version 1 lacks the cross terms of 3+-seat rotations)"
                )
            confidence, anchor_elo, anchor = (float(x) for x in arrays["settings"])
            result = cls(
                confidence=confidence,
                anchor=None if math.isnan(anchor) else int(anchor),
                anchor_elo=anchor_elo,
            )
            ids = [int(bot) for bot in arrays["ids"]]
            n = len(ids)
            shapes = {
                "wins": (n, n),
                "draws": (n, n),
                "sums": (3, n, n),
                "strengths": (n,),
                "rotations_at": (n,),
                "cross_quarters": (4, arrays["cross_key_steps"].size),
                "cross_key_steps": (arrays["cross_key_steps"].size,),
            }
            for name, shape in shapes.items():
                if arrays[name].shape != shape:
                    raise LadderError(
                        f"ladder rating state: {name} has shape {arrays[name].shape}, need {shape}"
                    )
            if len(set(ids)) != n:
                raise LadderError(f"ladder rating state: bot ids repeat: {ids!r}")
            keys = np.cumsum(arrays["cross_key_steps"].astype(np.int64))
            pairs = n * (n - 1) // 2  # codes of pairs of known bots lie below
            if keys.size and (
                keys[0] < 0
                or np.any(np.diff(keys) <= 0)
                or keys[-1] // _CODE_RANGE >= pairs
                or np.max(keys % _CODE_RANGE) >= pairs
            ):
                raise LadderError("ladder rating state: cross keys unsorted or of unknown bots")
        except (KeyError, ValueError, IndexError, EOFError, OSError, zipfile.BadZipFile) as error:
            raise LadderError(f"not a ladder rating state ({len(data)} bytes): {error}") from None
        result._ids = ids
        result._index = {bot: i for i, bot in enumerate(ids)}
        result._wins = arrays["wins"].astype(np.float64)
        result._draws = arrays["draws"].astype(np.float64)
        result._sums = arrays["sums"].astype(np.float64)
        result._strengths = arrays["strengths"].astype(np.float64)
        result._rotations_at = arrays["rotations_at"].astype(np.int64)
        result._cross_keys = keys
        result._cross = arrays["cross_quarters"].astype(np.float64) / 4.0
        result.clusters, result.games = (int(x) for x in arrays["totals"])
        return result


def _by_lower(
    first: IntArray, second: IntArray, score: FloatArray
) -> tuple[IntArray, IntArray, FloatArray]:
    """Each game's pair as (lower number, higher number) and the lower bot's points."""
    lower = np.minimum(first, second)
    higher = np.maximum(first, second)
    points: FloatArray = np.where(first == lower, score, 1.0 - score)
    return lower, higher, points


def _pair_spread(sums: FloatArray, strengths: FloatArray) -> FloatArray:
    """The clustered spread ``J`` from the per-pair sums at ``strengths`` (logits)."""
    a, b, n = sums
    expected = expit(strengths[:, None] - strengths[None, :])
    weight = a - 2.0 * expected * b + expected**2 * n
    weight = weight + weight.T
    result: FloatArray = np.diag(weight.sum(axis=1)) - weight
    return result


def _smallest_unsigned(values: IntArray) -> npt.NDArray[np.unsignedinteger[Any]]:
    """``values`` (none negative) in the smallest unsigned integer type holding them."""
    largest = int(values.max()) if values.size else 0
    kinds = (np.uint8, np.uint16, np.uint32, np.uint64)
    return values.astype(next(kind for kind in kinds if largest <= np.iinfo(kind).max))


def _pair_code(lower: IntArray, higher: IntArray) -> IntArray:
    """A pair's number that does not change as bots join: ``higher·(higher−1)/2 + lower``."""
    result: IntArray = higher * (higher - 1) // 2 + lower
    return result


def _pair_of_code(code: IntArray) -> IntArray:
    """The inverse of :func:`_pair_code`: lower and higher bot numbers, 2 × K."""
    higher = np.floor((1.0 + np.sqrt(1.0 + 8.0 * code)) / 2.0).astype(np.int64)
    higher -= higher * (higher - 1) // 2 > code  # the float root may be one off
    higher += (higher + 1) * higher // 2 <= code
    return np.stack([code - higher * (higher - 1) // 2, higher])


def _cross_terms(
    entry_cluster: IntArray, code: IntArray, points: FloatArray, played: FloatArray
) -> tuple[IntArray, FloatArray]:
    """Per pair of pairs ``q < r`` of one rotation, summed over the rotations: the keys
    (sorted, distinct) and ``S_q·S_r``, ``S_q·n_r``, ``n_q·S_r``, ``n_q·n_r`` (4 × K).

    ``entry_cluster``, ``code``, ``points``, ``played``: per (rotation, pair) entry,
    sorted by rotation, its rotation, the pair's code, the lower bot's points and the
    games."""
    sizes = np.bincount(entry_cluster)
    starts = np.cumsum(sizes) - sizes
    firsts, seconds = [], []
    for width in np.unique(sizes[sizes >= 2]):  # one step per rotation size, not per game
        left, right = np.triu_indices(int(width), 1)
        begin = starts[sizes == width][:, None]
        firsts.append((begin + left).ravel())
        seconds.append((begin + right).ravel())
    i, j = np.concatenate(firsts), np.concatenate(seconds)
    swap = code[i] > code[j]
    i, j = np.where(swap, j, i), np.where(swap, i, j)
    keys: IntArray
    keys, key_of = np.unique(code[i] * _CODE_RANGE + code[j], return_inverse=True)
    products = (
        points[i] * points[j],
        points[i] * played[j],
        played[i] * points[j],
        played[i] * played[j],
    )
    sums = np.stack(
        [np.bincount(key_of, weights=product, minlength=keys.size) for product in products]
    )
    return keys, sums.astype(np.float64, copy=False)


def _cross_spread(bots: IntArray, sums: FloatArray, strengths: FloatArray) -> FloatArray:
    """The part of ``J`` from residual products of different pairs of one rotation:
    ``W_qr = Σ_c R_q·R_r`` with ``R = S − n·p`` times ``e_q·e_rᵀ + e_r·e_qᵀ``, ``e_q`` +1
    at ``q``'s lower bot and −1 at its higher; ``bots`` from :meth:`_rated_cross`."""
    q_lower, q_higher, r_lower, r_higher = bots
    p_q = expit(strengths[q_lower] - strengths[q_higher])
    p_r = expit(strengths[r_lower] - strengths[r_higher])
    both, points_games, games_points, games = sums
    weight = both - p_r * points_games - p_q * games_points + p_q * p_r * games
    k = strengths.size
    rows = np.concatenate([q_lower, q_lower, q_higher, q_higher])
    columns = np.concatenate([r_lower, r_higher, r_lower, r_higher])
    signed = np.concatenate([weight, -weight, -weight, weight])
    flat = np.bincount(rows * k + columns, weights=signed, minlength=k * k)
    half = flat.astype(np.float64, copy=False).reshape(k, k)
    result: FloatArray = half + half.T
    return result
