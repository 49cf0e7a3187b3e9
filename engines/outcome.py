"""How a finished game ended: a small immutable value."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.errors import InvalidStateError

FORFEIT = "forfeit"


def competition_ranking(
    scores: Sequence[float], *, higher_is_better: bool = True
) -> tuple[int, ...]:
    """Places for ``scores`` with shared places ("1224" ranking); 1 is best.

    >>> competition_ranking([3, 7, 7, 1])
    (3, 1, 1, 4)
    """
    sign = 1 if higher_is_better else -1
    return tuple(1 + sum(1 for other in scores if sign * other > sign * mine) for mine in scores)


@dataclass(frozen=True)
class Outcome:
    """The result of a game.

    Attributes:
        returns: the payoff per seat (game-specific: +1/0/-1 for two-player games,
            points for scoring games, cards on the foundations for patience).
        ranking: the place per seat, 1 is best; equal places are shared.
        termination: why the game ended (a game-specific word, or ``forfeit``).
        offender: for a forfeit, the seat that caused it.
        reason: for a forfeit, why (``timeout``, ``crash``, ``illegal_action`` …).
        details: game-specific extras (per-seat score breakdowns); JSON-able.
    """

    returns: tuple[float, ...]
    ranking: tuple[int, ...]
    termination: str
    offender: int | None = None
    reason: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if len(self.returns) != len(self.ranking):
            raise ValueError(
                f"returns {self.returns!r} and ranking {self.ranking!r} differ in length"
            )

    @property
    def num_seats(self) -> int:
        return len(self.ranking)

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats in first place (several when it is shared)."""
        return tuple(seat for seat, place in enumerate(self.ranking) if place == 1)

    @property
    def is_draw(self) -> bool:
        """True when every seat of a multi-seat game shares first place."""
        return self.num_seats > 1 and all(place == 1 for place in self.ranking)

    @property
    def is_forfeit(self) -> bool:
        return self.termination == FORFEIT

    @classmethod
    def from_scores(
        cls,
        scores: Sequence[float],
        termination: str,
        *,
        higher_is_better: bool = True,
        details: Mapping[str, Any] | None = None,
    ) -> Outcome:
        """Returns are the scores (negated when lower is better); ranking follows them."""
        sign = 1 if higher_is_better else -1
        return cls(
            returns=tuple(float(sign * s) for s in scores),
            ranking=competition_ranking(scores, higher_is_better=higher_is_better),
            termination=termination,
            details=dict(details or {}),
        )

    @classmethod
    def win(cls, winner: int, num_seats: int, termination: str) -> Outcome:
        """One winner (+1), everyone else shares the last place (-1)."""
        return cls(
            returns=tuple(1.0 if s == winner else -1.0 for s in range(num_seats)),
            ranking=tuple(1 if s == winner else 2 for s in range(num_seats)),
            termination=termination,
        )

    @classmethod
    def draw(cls, num_seats: int, termination: str) -> Outcome:
        return cls(returns=(0.0,) * num_seats, ranking=(1,) * num_seats, termination=termination)

    @classmethod
    def forfeit(
        cls,
        offender: int,
        num_seats: int,
        reason: str,
        *,
        loss: float = -1.0,
        win: float = 1.0,
    ) -> Outcome:
        """The offender loses (last place, ``loss``); the others share first (``win``).

        In a one-seat game the offender simply loses.
        """
        if not 0 <= offender < num_seats:
            raise ValueError(f"offender seat {offender} outside 0..{num_seats - 1}")
        return cls(
            returns=tuple(loss if s == offender else win for s in range(num_seats)),
            ranking=tuple(num_seats if s == offender else 1 for s in range(num_seats)),
            termination=FORFEIT,
            offender=offender,
            reason=reason,
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "returns": list(self.returns),
            "ranking": list(self.ranking),
            "termination": self.termination,
        }
        if self.offender is not None:
            data["offender"] = self.offender
            data["reason"] = self.reason
        if self.details:
            data["details"] = dict(self.details)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """Raises InvalidStateError when ``data`` is not an outcome."""
        try:
            return cls(
                returns=tuple(float(x) for x in data["returns"]),
                ranking=tuple(int(x) for x in data["ranking"]),
                termination=str(data["termination"]),
                offender=None if data.get("offender") is None else int(data["offender"]),
                reason=data.get("reason"),
                details=dict(data.get("details") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"not an outcome: {data!r} ({exc})") from exc
