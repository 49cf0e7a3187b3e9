"""Elo ratings by maximum likelihood (Bradley–Terry), with intervals and LOS.

The model: player ``i`` scores against player ``j`` with expectation
``1 / (1 + 10 ** ((elo[j] - elo[i]) / 400))``; a draw counts as half a win. The
ratings maximise the likelihood of all games at once, so, as in BayesElo and Ordo
and unlike incremental Elo, the order of the games does not matter. The fit runs on
the aggregated win and draw matrices (Newton's method), so its cost depends on the
number of players, not of games. See ``docs/ratings.md`` for the formulas.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph
from scipy.special import expit, log_expit, ndtr, ndtri

from arena.ratings.data import (
    FloatArray,
    IntArray,
    PairCounts,
    PairwiseGames,
    frozen_floats,
    player_index,
)
from arena.ratings.errors import RatingError

ELO_PER_LOGIT = 400.0 / math.log(10.0)
"""Elo points per unit of the natural log-odds the fit works in (≈ 173.7)."""

IntervalMethod = Literal["hessian", "bootstrap"]

FALLBACK_PRIOR_DRAWS = 1.0
"""Virtual draws per pair that met, added by :func:`fit_with_fallback` only when some
bot won or lost every game (no finite maximum-likelihood rating)."""

BOOTSTRAP_FALLBACK_DRAWS = 0.01
"""Virtual draws per pair added to a bootstrap sample only when, without them, a player
of that sample won or lost every game (its maximum-likelihood rating would be infinite);
the sample's rating for that player then lands far out, widening its interval."""

_NEWTON_TOLERANCE = 1e-10
_NEWTON_MAX_STEPS = 200


def expected_score(elo_difference: float) -> float:
    """The expected score of a player ``elo_difference`` points above the opponent."""
    return float(expit(elo_difference / ELO_PER_LOGIT))


def elo_difference(score: float) -> float:
    """The Elo difference whose expected score is ``score``: ``400·log10(s / (1 − s))``.

    Raises RatingError unless ``0 < score < 1``.
    """
    if not 0.0 < score < 1.0:
        raise RatingError(f"score {score!r} has no finite Elo difference; need 0 < score < 1")
    return 400.0 * math.log10(score / (1.0 - score))


@dataclass(frozen=True)
class Anchor:
    """Fix one player's rating: ``Anchor("random", 0.0)`` puts ``random`` at Elo 0."""

    player: str
    elo: float = 0.0


def parse_anchor(text: str) -> Anchor:
    """Parse ``NAME=ELO`` (or a bare ``NAME``, meaning Elo 0), as ``--anchor`` takes it.

    Raises RatingError when the name is empty or the Elo is not a finite number.
    """
    name, separator, value = text.rpartition("=")
    if not separator:
        name, value = text, "0"
    name = name.strip()
    try:
        elo = float(value)
    except ValueError:
        raise RatingError(f"anchor {text!r}: {value!r} is not a number") from None
    if not name or not math.isfinite(elo):
        raise RatingError(f"anchor {text!r} is not NAME=ELO")
    return Anchor(name, elo)


@dataclass(frozen=True, eq=False)
class EloRatings:
    """A fitted set of ratings; the arrays follow ``players`` and are read-only.

    Attributes:
        players: the names, in array order.
        elo: the maximum-likelihood ratings, shifted to the anchor (default: mean 0).
        lower, upper: the interval of each rating at ``confidence``; the anchored
            player's interval is a point.
        covariance: the ratings' covariance matrix in Elo², in the same anchoring.
        counts: the aggregated games the fit used (without virtual draws).
        method: how the intervals were computed.
        confidence: the intervals' coverage, e.g. 0.95.
        anchor: the anchor, or None for mean 0.
        prior_draws: virtual draws added per pair of players who met.
    """

    players: tuple[str, ...]
    elo: FloatArray
    lower: FloatArray
    upper: FloatArray
    covariance: FloatArray
    counts: PairCounts
    method: IntervalMethod
    confidence: float
    anchor: Anchor | None
    prior_draws: float

    def index(self, player: str) -> int:
        """Raises RatingError for an unknown name."""
        return player_index(self.players, player)

    def rating(self, player: str) -> float:
        """Raises RatingError for an unknown name."""
        return float(self.elo[self.index(player)])

    def order(self) -> tuple[str, ...]:
        """Names from the highest rating down (equal ratings by name)."""
        return tuple(self.players[i] for i in sorted(range(len(self.players)), key=self._rank_key))

    def _rank_key(self, i: int) -> tuple[float, str]:
        return (-float(self.elo[i]), self.players[i])

    def difference_stderr(self, player: str, opponent: str) -> float:
        """The standard error of ``elo[player] − elo[opponent]``.

        Raises RatingError for an unknown name.
        """
        i, j = self.index(player), self.index(opponent)
        return _difference_stderr(self.covariance, i, j)

    def los(self) -> FloatArray:
        """The likelihood-of-superiority matrix: ``los[i, j]`` is the probability that
        player ``i`` is stronger than ``j``, ``Φ((elo_i − elo_j) / se(elo_i − elo_j))``
        from the ratings' covariance; 0.5 on the diagonal."""
        variance = np.diag(self.covariance)
        difference_variance = variance[:, None] + variance[None, :] - 2.0 * self.covariance
        difference = self.elo[:, None] - self.elo[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = difference / np.sqrt(np.maximum(difference_variance, 0.0))
        result: FloatArray = np.where(np.isnan(z), 0.5, ndtr(z))
        np.fill_diagonal(result, 0.5)
        return result


def _difference_stderr(covariance: FloatArray, i: int, j: int) -> float:
    variance = covariance[i, i] + covariance[j, j] - 2.0 * covariance[i, j]
    return math.sqrt(max(float(variance), 0.0))


def fit_elo(
    games: PairwiseGames,
    *,
    anchor: Anchor | None = None,
    interval: IntervalMethod = "hessian",
    confidence: float = 0.95,
    prior_draws: float = 0.0,
    bootstrap_samples: int = 1000,
    seed: int = 0,
) -> EloRatings:
    """Fit Bradley–Terry ratings to ``games`` by maximum likelihood.

    Args:
        games: the two-player results (multiplayer games decomposed into pairs).
        anchor: fix one player's rating; by default the ratings average 0.
        interval: ``"hessian"``: the covariance from the curvature of the
            log-likelihood in its robust (sandwich) form ``H⁺ J H⁺``, with ``J`` the
            observed spread of the results summed per rotation, so draws and games
            sharing a deal are accounted for; costs one pass over the games.
            ``"bootstrap"``: refit ``bootstrap_samples`` resamples of whole rotations
            (percentile intervals); costs that many aggregations and fits.
        confidence: the intervals' coverage.
        prior_draws: virtual draws added to every pair of players who met (as
            BayesElo's prior); needed when a player won or lost every game.
        bootstrap_samples: the number of resamples for ``"bootstrap"``.
        seed: the resampling seed for ``"bootstrap"``.

    Raises RatingError when the maximum-likelihood ratings are not finite (a player
    without games, a set of players who won or lost every game against the rest, or
    groups of players who never met), when the anchor names an unknown player, or for
    a bad setting.
    """
    _check_settings(confidence, prior_draws)
    if interval not in ("hessian", "bootstrap"):
        raise RatingError(f"interval {interval!r} is not 'hessian' or 'bootstrap'")
    if interval == "bootstrap" and bootstrap_samples < 2:
        raise RatingError(f"bootstrap_samples {bootstrap_samples!r} must be at least 2")
    if interval == "hessian":
        return hessian_fit(
            games.aggregate(),
            lambda strengths: cluster_spread(games, strengths),
            anchor=anchor,
            confidence=confidence,
            prior_draws=prior_draws,
        )
    counts = games.aggregate()
    anchor_index = None if anchor is None else player_index(counts.players, anchor.player)
    strengths, _ = _strengths(counts, prior_draws)
    gauge = _gauge_matrix(len(counts.players), anchor_index)
    offset = 0.0 if anchor is None else anchor.elo
    elo = gauge @ (strengths * ELO_PER_LOGIT) + offset
    samples = _bootstrap(games, strengths, prior_draws, bootstrap_samples, seed)
    samples = samples * ELO_PER_LOGIT @ gauge.T + offset
    tail = 50.0 * (1.0 - confidence)
    return EloRatings(
        players=counts.players,
        elo=frozen_floats(elo),
        lower=frozen_floats(np.percentile(samples, tail, axis=0)),
        upper=frozen_floats(np.percentile(samples, 100.0 - tail, axis=0)),
        covariance=frozen_floats(np.cov(samples, rowvar=False)),
        counts=counts,
        method=interval,
        confidence=confidence,
        anchor=anchor,
        prior_draws=prior_draws,
    )


Spread = Callable[[FloatArray], tuple[FloatArray, int]]
"""Given the fitted strengths (logits), the clustered spread ``J`` of the score
residuals and the number of clusters (see :func:`cluster_spread`)."""


def hessian_fit(
    counts: PairCounts,
    spread: Spread,
    *,
    anchor: Anchor | None = None,
    confidence: float = 0.95,
    prior_draws: float = 0.0,
    start: FloatArray | None = None,
) -> EloRatings:
    """The maximum-likelihood ratings of ``counts`` with sandwich intervals, the
    residual spread supplied by ``spread`` (from the games, or kept up to date game by
    game as :class:`arena.ratings.live.LiveElo` does). :func:`fit_elo` with
    ``interval="hessian"`` is this on the games' aggregate. ``start``: strengths
    (logits, in the players' order) to start Newton's method from, such as a previous
    fit's; the result does not depend on it, only the number of steps.

    Raises RatingError as :func:`fit_elo` does.
    """
    _check_settings(confidence, prior_draws)
    anchor_index = None if anchor is None else player_index(counts.players, anchor.player)
    strengths, played = _strengths(counts, prior_draws, start)
    z = float(ndtri(0.5 + confidence / 2.0))
    gauge = _gauge_matrix(len(counts.players), anchor_index)
    offset = 0.0 if anchor is None else anchor.elo
    elo = gauge @ (strengths * ELO_PER_LOGIT) + offset
    residual_spread, clusters = spread(strengths)
    covariance = _sandwich_covariance(residual_spread, clusters, strengths, played)
    covariance = gauge @ (covariance * ELO_PER_LOGIT**2) @ gauge.T
    half_width = z * np.sqrt(np.maximum(np.diag(covariance), 0.0))
    return EloRatings(
        players=counts.players,
        elo=frozen_floats(elo),
        lower=frozen_floats(elo - half_width),
        upper=frozen_floats(elo + half_width),
        covariance=frozen_floats(covariance),
        counts=counts,
        method="hessian",
        confidence=confidence,
        anchor=anchor,
        prior_draws=prior_draws,
    )


def fit_with_fallback(fit: Callable[[float], EloRatings]) -> tuple[EloRatings, bool]:
    """``fit(prior_draws)`` without virtual draws, or, when some bots won or lost every
    game (no finite maximum), with :data:`FALLBACK_PRIOR_DRAWS`. Returns the ratings
    and whether the prior was needed.

    Raises RatingError when neither fits (bots that never met, a bot without games).
    """
    try:
        return fit(0.0), False
    except RatingError:
        return fit(FALLBACK_PRIOR_DRAWS), True


def _check_settings(confidence: float, prior_draws: float) -> None:
    """Raises RatingError unless 0 < confidence < 1 and prior_draws is finite, >= 0."""
    if not 0.0 < confidence < 1.0:
        raise RatingError(f"confidence {confidence!r} must lie between 0 and 1")
    if prior_draws < 0.0 or not math.isfinite(prior_draws):
        raise RatingError(f"prior_draws {prior_draws!r} must be a finite number >= 0")


def _strengths(
    counts: PairCounts, prior_draws: float, start: FloatArray | None = None
) -> tuple[FloatArray, FloatArray]:
    """The maximum-likelihood strengths (logits, mean 0) and the games per pair with the
    virtual draws. Raises RatingError when they are not finite."""
    points, played = _with_prior(counts.points, counts.games, prior_draws)
    _require_finite_ratings(counts.players, points, played)
    return _maximum_likelihood(points, played, start), played


def _with_prior(
    points: FloatArray, played: FloatArray, prior_draws: float
) -> tuple[FloatArray, FloatArray]:
    if prior_draws == 0.0:
        return points, played
    met = played > 0
    return points + 0.5 * prior_draws * met, played + prior_draws * met


def _gauge_matrix(n: int, anchor_index: int | None) -> FloatArray:
    """The linear map from any ratings to the chosen anchoring (before the offset):
    subtract the mean, or subtract the anchored player's rating."""
    if anchor_index is None:
        result: FloatArray = np.eye(n) - np.full((n, n), 1.0 / n)
        return result
    result = np.eye(n)
    result[:, anchor_index] -= 1.0
    return result


def _require_finite_ratings(
    players: tuple[str, ...], points: FloatArray, played: FloatArray
) -> None:
    """The likelihood has a finite maximum exactly when the graph "i took points from j"
    is strongly connected (Zermelo; Hunter 2004, assumption 1)."""
    n = len(players)
    if n >= 2 and bool(np.all((points > 0) | np.eye(n, dtype=bool))):
        return  # everyone took points from everyone: the common case, checked cheaply
    idle = [players[i] for i in range(n) if played[i].sum() == 0]
    if idle:
        raise RatingError(f"no rating for players without games: {', '.join(idle)}")
    if n < 2:
        raise RatingError("ratings need at least two players")
    met = sparse.csr_matrix(played > 0)
    parts, label = csgraph.connected_components(met, directed=False)
    if parts > 1:
        groups = [", ".join(players[i] for i in range(n) if label[i] == g) for g in range(parts)]
        raise RatingError(
            "no common scale: these groups of players never met: "
            + " | ".join(f"{{{g}}}" for g in groups)
        )
    took_points = sparse.csr_matrix(points > 0)
    parts, label = csgraph.connected_components(took_points, directed=True, connection="strong")
    if parts > 1:
        for component in range(parts):
            inside = label == component
            if points[np.ix_(~inside, inside)].sum() == 0:
                names = ", ".join(players[i] for i in range(n) if inside[i])
                raise RatingError(
                    f"no finite ratings: {{{names}}} won every game against the other "
                    "players; add virtual draws (prior_draws > 0)"
                )
        raise AssertionError("a condensation of a directed graph always has a source")


def _log_likelihood(points: FloatArray, strengths: FloatArray) -> float:
    margin = strengths[:, None] - strengths[None, :]
    return float(np.sum(points * log_expit(margin)))


def _fisher_information(played: FloatArray, strengths: FloatArray) -> FloatArray:
    """The negated Hessian of the log-likelihood: a weighted graph Laplacian."""
    expected = expit(strengths[:, None] - strengths[None, :])
    weights = played * expected * expected.T
    result: FloatArray = np.diag(weights.sum(axis=1)) - weights
    return result


def _maximum_likelihood(
    points: FloatArray, played: FloatArray, start: FloatArray | None = None
) -> FloatArray:
    """Newton's method with step halving, in logits, summing to 0.

    The log-likelihood is concave and, on strongly connected data, strictly concave
    once the common shift is fixed; adding the all-ones direction to the Hessian
    fixes it without changing the step (the gradient sums to zero).
    """
    n = points.shape[0]
    strengths = np.zeros(n) if start is None else start - start.mean()
    shift = np.full((n, n), 1.0 / n)
    wins_total = points.sum(axis=1)
    current = _log_likelihood(points, strengths)
    for _ in range(_NEWTON_MAX_STEPS):
        expected = expit(strengths[:, None] - strengths[None, :])
        gradient = wins_total - (played * expected).sum(axis=1)
        step = np.linalg.solve(_fisher_information(played, strengths) + shift, gradient)
        length = 1.0
        while True:
            candidate = strengths + length * step
            value = _log_likelihood(points, candidate)
            if value >= current - 1e-12 * abs(current) or length < 1e-6:
                break
            length /= 2.0
        strengths, current = candidate, value
        if np.max(np.abs(length * step)) < _NEWTON_TOLERANCE:
            break
    result: FloatArray = strengths - strengths.mean()
    return result


def cluster_spread(games: PairwiseGames, strengths: FloatArray) -> tuple[FloatArray, int]:
    """``J = Σ over rotations c of u_c u_cᵀ`` in logits, ``u_c`` each player's score
    residuals (score − expected) summed over the games of rotation ``c``; and the
    number of rotations."""
    n = len(games.players)
    residual = games.score - expit(strengths[games.first] - strengths[games.second])
    clusters, cluster_of_game = np.unique(games.group, return_inverse=True)
    rows = np.concatenate([cluster_of_game, cluster_of_game])
    columns = np.concatenate([games.first, games.second])
    per_cluster = sparse.csr_matrix(
        (np.concatenate([residual, -residual]), (rows, columns)), shape=(clusters.size, n)
    )
    return (per_cluster.T @ per_cluster).toarray(), int(clusters.size)


def _sandwich_covariance(
    spread: FloatArray, clusters: int, strengths: FloatArray, played: FloatArray
) -> FloatArray:
    """``H⁺ J H⁺`` in logits², mean-zero: ``H`` the Fisher information, ``J`` the
    clustered spread of the residuals (:func:`cluster_spread`), with the small-sample
    factor C/(C−1) for C clusters.

    The half-win likelihood treats a draw like a coin flip, overstating the spread of
    drawish games; and games of one rotation share a deal. The sandwich measures the
    spread the data actually show, clustered by rotation, and needs no model for
    either (White 1982; Liang & Zeger 1986)."""
    if clusters > 1:
        spread = spread * (clusters / (clusters - 1))
    information = _fisher_information(played, strengths)
    inverse = np.linalg.pinv(information, hermitian=True)
    result: FloatArray = inverse @ spread @ inverse
    return result


def _bootstrap(
    games: PairwiseGames, strengths: FloatArray, prior_draws: float, samples: int, seed: int
) -> FloatArray:
    """Ratings (logits, mean 0) of ``samples`` resamples of whole rotations, one per row.

    A resample draws as many rotations as there are, uniformly with replacement. Only
    how many rotations of each kind it drew matters (see :func:`_rotation_kinds`): a
    multinomial draw over the kinds, then a warm-started Newton fit on their totals.
    """
    n = len(games.players)
    kind_of_cluster, kind_count, kind_points, kind_games = _rotation_kinds(games)
    clusters, kinds = kind_of_cluster.size, kind_count.size
    rng = np.random.default_rng(seed)
    result = np.empty((samples, n))
    for sample in range(samples):
        # Both lines draw the same multinomial; numpy's sampler is fast for few kinds,
        # drawing rotations one by one is fast when nearly every rotation is unique.
        if kinds * 8 < clusters:
            drawn = rng.multinomial(clusters, kind_count / clusters)
        else:
            drawn = np.bincount(
                kind_of_cluster[rng.integers(0, clusters, clusters)], minlength=kinds
            )
        low_scored = (kind_points.T @ drawn).reshape(n, n)
        played_once = (kind_games.T @ drawn).reshape(n, n)
        points: FloatArray = (low_scored + (played_once - low_scored).T).astype(np.float64)
        played: FloatArray = played_once + played_once.T
        points, played = _with_prior(points, played, prior_draws)
        if not _strongly_connected(points):
            points, played = _with_prior(points, played, BOOTSTRAP_FALLBACK_DRAWS)
            if not _strongly_connected(points):
                result[sample] = np.nan
                continue
        result[sample] = _maximum_likelihood(points, played, start=strengths)
    kept = result[~np.isnan(result).any(axis=1)]
    if kept.shape[0] < 2:
        raise RatingError("too few bootstrap samples give ratings; use the hessian interval")
    return kept


_MAX_KIND_WIDTH = 64
"""Rotations spanning more pairs of players than this are each a kind of their own."""


def _rotation_kinds(
    games: PairwiseGames,
) -> tuple[IntArray, IntArray, sparse.csr_matrix, sparse.csr_matrix]:
    """Group rotations that are interchangeable for the fit.

    A rotation enters the fit only through its totals per unordered pair of players
    (games, and points of the lower-numbered player); rotations with the same totals
    are of one *kind*. Two-player rotations fall into a few kinds per pair, so a million
    games collapse to a few thousand kinds.

    Returns the kind of each rotation, the number of rotations of each kind, and per
    kind the lower-numbered players' points and the games per pair (kinds × n² sparse
    matrices, pair ``low·n + high``).
    """
    n = len(games.players)
    low = np.minimum(games.first, games.second)
    high = np.maximum(games.first, games.second)
    low_points = np.where(games.first == low, games.score, 1.0 - games.score)
    _, cluster_of_game = np.unique(games.group, return_inverse=True)
    clusters = int(cluster_of_game.max()) + 1
    entries, entry_of_game = np.unique(
        cluster_of_game * (n * n) + low * n + high, return_inverse=True
    )
    entry_cluster, entry_pair = entries // (n * n), entries % (n * n)
    entry_points = np.bincount(entry_of_game, weights=low_points)
    entry_games = np.bincount(entry_of_game).astype(np.float64)
    most_games = int(entry_games.max())
    doubled_points = np.rint(2.0 * entry_points).astype(np.int64)
    entry_value = (entry_pair * (2 * most_games + 1) + doubled_points) * (most_games + 1)
    _, entry_code = np.unique(entry_value + entry_games.astype(np.int64), return_inverse=True)
    sizes = np.bincount(entry_cluster, minlength=clusters)
    width = int(sizes.max())
    if width <= _MAX_KIND_WIDTH:
        # Entries are sorted by rotation, then pair: a rotation's row of entry codes
        # (padded with 0) identifies its kind; number the distinct rows column by column.
        first_entry = np.cumsum(sizes) - sizes
        signature = np.zeros((clusters, width), dtype=np.int64)
        column = np.arange(entries.size) - first_entry[entry_cluster]
        signature[entry_cluster, column] = entry_code.ravel() + 1
        codes = int(signature.max()) + 1
        row_number = np.zeros(clusters, dtype=np.int64)
        for position in range(width):
            _, row_number = np.unique(
                row_number * codes + signature[:, position], return_inverse=True
            )
        _, representative, kind_of_cluster, kind_count = np.unique(
            row_number, return_index=True, return_inverse=True, return_counts=True
        )
    else:
        representative = kind_of_cluster = np.arange(clusters)
        kind_count = np.ones(clusters, dtype=np.int64)
    kind_of_representative = np.full(clusters, -1)
    kind_of_representative[representative] = np.arange(representative.size)
    chosen = kind_of_representative[entry_cluster] >= 0
    rows = kind_of_representative[entry_cluster[chosen]]
    shape = (representative.size, n * n)
    kind_points = sparse.csr_matrix((entry_points[chosen], (rows, entry_pair[chosen])), shape=shape)
    kind_games = sparse.csr_matrix((entry_games[chosen], (rows, entry_pair[chosen])), shape=shape)
    return kind_of_cluster.ravel(), kind_count, kind_points, kind_games


def _strongly_connected(points: FloatArray) -> bool:
    parts, _ = csgraph.connected_components(
        sparse.csr_matrix(points > 0), directed=True, connection="strong"
    )
    return int(parts) == 1
