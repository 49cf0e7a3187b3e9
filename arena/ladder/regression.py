"""Version regression tests, fishtest style: a pentanomial SPRT of a new version
against its predecessor.

Each observation is a pair of games on one deal with the seats swapped; the test
counts pairs by their two results (:class:`arena.ratings.pairs.Pentanomial`) and runs
the generalised SPRT on normalised Elo of :mod:`arena.ratings.sprt`. H0: the new
version is ``elo0`` better (default 0, no progress); H1: ``elo1`` better (default 10).
The test stops at the first pair whose LLR leaves Wald's bounds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from arena.ladder.errors import LadderError
from arena.ratings.errors import RatingError
from arena.ratings.pairs import PAIR_CATEGORIES, Pentanomial, pair_category
from arena.ratings.sprt import SprtDecision, SprtSettings, log_likelihood_ratio, sprt_sequence

Status = Literal["running", "H0", "H1"]

_STATUS: dict[SprtDecision, Status] = {
    SprtDecision.CONTINUE: "running",
    SprtDecision.ACCEPT_H0: "H0",
    SprtDecision.ACCEPT_H1: "H1",
}


@dataclass
class VersionTest:
    """The SPRT of a candidate (the new version) against a baseline, in normalised Elo.

    Raises LadderError for bad bounds (``elo0 < elo1`` within ±200, ``0 < α, β``,
    ``α + β < 1``).
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    pentanomial: Pentanomial = field(default_factory=Pentanomial)
    llr: float = field(default=0.0, compare=False)
    """The log-likelihood ratio of H1 against H0 after the pairs so far (derived from
    the counts, so equality ignores its last bits)."""

    def __post_init__(self) -> None:
        try:
            self._settings = SprtSettings(self.elo0, self.elo1, self.alpha, self.beta)
        except RatingError as error:
            raise LadderError(str(error)) from None

    @property
    def lower(self) -> float:
        """The LLR at or below which the test accepts H0: ``log(β / (1 − α))``."""
        return self._settings.lower_bound

    @property
    def upper(self) -> float:
        """The LLR at or above which the test accepts H1: ``log((1 − β) / α)``."""
        return self._settings.upper_bound

    @property
    def status(self) -> Status:
        """``"running"``, ``"H0"`` (no better by ``elo1``) or ``"H1"`` (better)."""
        return _STATUS[self._settings.decide(self.llr)]

    @property
    def pairs(self) -> int:
        return self.pentanomial.pairs

    def add_pair(self, score_first_order: float, score_swapped: float) -> bool:
        """The candidate's scores (1, ½ or 0) in the two games of one deal. Returns
        whether the pair counted: a decided test takes no more pairs.

        Raises LadderError for a score other than 0, ½ or 1.
        """
        return self.add_pairs([(score_first_order, score_swapped)]) == 1

    def add_pairs(self, pairs: Iterable[tuple[float, float]]) -> int:
        """Pairs in the order played; the test stops at the first that decides it.
        Returns how many counted (the rest came after the decision).

        Raises LadderError for a score other than 0, ½ or 1; then nothing counts.
        """
        if self.status != "running":
            return 0
        try:
            categories = [pair_category(first, second) for first, second in pairs]
        except KeyError as error:
            raise LadderError(f"pair scores {error.args[0]!r} are not each 0, 0.5 or 1") from None
        if not categories:
            return 0
        result, used = sprt_sequence(categories, self._settings, before=self.pentanomial)
        assert isinstance(result.counts, Pentanomial)
        self.pentanomial = result.counts
        self.llr = result.llr
        return used

    def to_dict(self) -> dict[str, Any]:
        """Bounds and counts as plain JSON values; the LLR follows from them."""
        return {
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "pentanomial": {name: getattr(self.pentanomial, name) for name in PAIR_CATEGORIES},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> VersionTest:
        """The test :meth:`to_dict` described, its LLR recomputed.

        Raises LadderError for a missing or bad field.
        """
        try:
            counts = data["pentanomial"]
            pentanomial = Pentanomial(**{name: int(counts[name]) for name in PAIR_CATEGORIES})
            if min(pentanomial.counts()) < 0:
                raise ValueError("negative count")
            test = cls(
                float(data["elo0"]),
                float(data["elo1"]),
                float(data["alpha"]),
                float(data["beta"]),
                pentanomial,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise LadderError(f"not a version test: {dict(data)!r} ({error})") from None
        if pentanomial.pairs:
            test.llr = log_likelihood_ratio(pentanomial, test.elo0, test.elo1)
        return test
