"""How a finished game ended: a small immutable value, and the closed vocabularies
(why a game ended, why a seat forfeited) that records and the database store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from engines.errors import InvalidOutcomeError, InvalidStateError


class Termination(StrEnum):
    """Why a game ended. The values are the words records and the database store
    (``docs/records.md``), so they never change; a new game adds its own."""

    FORFEIT = "forfeit"
    """A seat forfeited (:class:`ForfeitReason` says why)."""
    ERROR = "error"
    """The host could not play the game (an engine or host fault); the arena stores
    such games, an engine never ends one this way."""

    # Königsgarten
    FOUR_IN_A_PATTERN = "four_in_a_pattern"
    NO_LEGAL_CARD = "no_legal_card"
    FULL_GARDEN_DRAW = "full_garden_draw"
    # Kings in the Corner
    HAND_EMPTIED = "hand_emptied"
    BLOCKED = "blocked"
    # Kardinal & König
    ALL_CARDS_TAKEN = "all_cards_taken"
    EVERY_PLAYER_SKIPPED = "every_player_skipped"
    # Blumengarten
    WON = "won"
    RESIGNED = "resigned"
    NO_LEGAL_MOVE = "no_legal_move"
    MOVE_CAP = "move_cap"


class ForfeitReason(StrEnum):
    """Why a seat forfeited; stored with the game as its ``reason``."""

    TIMEOUT = "timeout"
    """It did not answer within its time."""
    CRASH = "crash"
    """It raised, exited, was killed, or could not be loaded."""
    ILLEGAL_ACTION = "illegal_action"
    """It answered with an action that is not legal."""
    PROTOCOL_VIOLATION = "protocol_violation"
    """It sent a message of the wrong type or with the wrong fields."""
    MALFORMED_OUTPUT = "malformed_output"
    """It wrote something that is not a message at all."""
    RESIGNED = "resigned"
    """A person resigned (browser play, arena/web/humans.py)."""
    SUSPENDED = "suspended"
    """It was suspended for crashing too often; the game was not played."""


Word = TypeVar("Word", bound=StrEnum)


def _closed_word(kind: type[Word], value: Any, what: str) -> Word:
    """``value`` as a member of ``kind``.

    Raises:
        InvalidOutcomeError: ``value`` is not one of its words; the message lists them.
    """
    try:
        return kind(value)
    except ValueError:
        known = ", ".join(member.value for member in kind)
        raise InvalidOutcomeError(f"unknown {what} {value!r} (known: {known})") from None


def competition_ranking(
    scores: Sequence[float], *, higher_is_better: bool = True
) -> tuple[int, ...]:
    """Places for ``scores`` with shared places ("1224" ranking); 1 is best.

    >>> competition_ranking([3, 7, 7, 1])
    (3, 1, 1, 4)
    """
    sign = 1 if higher_is_better else -1
    return tuple(1 + sum(1 for other in scores if sign * other > sign * mine) for mine in scores)


def ranking_points(ranking: Sequence[int]) -> tuple[float, ...]:
    """Each seat's share of the other seats it finished ahead of, a tie counting half:
    1, 0.5 or 0 for a win, a draw or a loss between two seats. Alone in a game, a
    seat scores 1 in first place, else 0. Standings and search rewards both use it.

    >>> ranking_points([2, 1, 3])
    (0.5, 1.0, 0.0)
    >>> ranking_points([1, 1])
    (0.5, 0.5)
    """
    others = len(ranking) - 1
    if others == 0:
        return (1.0 if ranking[0] == 1 else 0.0,)
    # A list comprehension, then a tuple: search bots call this once per iteration.
    return tuple(
        [
            (sum([1.0 if mine < r else 0.5 if mine == r else 0.0 for r in ranking]) - 0.5) / others
            for mine in ranking
        ]
    )


@dataclass(frozen=True)
class Outcome:
    """The result of a game.

    Attributes:
        returns: the payoff per seat (game-specific: +1/0/-1 for two-player games,
            points for scoring games, cards on the foundations for patience).
        ranking: the place per seat, 1 is best; equal places are shared.
        termination: why the game ended.
        offender: for a forfeit, the seat that caused it.
        reason: for a forfeit, why.
        details: game-specific extras (per-seat score breakdowns); JSON-able.

    ``termination`` and ``reason`` may be given as their text; they are stored as
    members of :class:`Termination` and :class:`ForfeitReason`.

    Raises:
        InvalidOutcomeError: returns and ranking differ in length, or a termination or
            reason outside the vocabulary.
    """

    returns: tuple[float, ...]
    ranking: tuple[int, ...]
    termination: Termination
    offender: int | None = None
    reason: ForfeitReason | None = None
    details: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if len(self.returns) != len(self.ranking):
            raise InvalidOutcomeError(
                f"returns {self.returns!r} and ranking {self.ranking!r} differ in length"
            )
        # Text from a record or a caller becomes the enum member (equal to its text).
        if type(self.termination) is not Termination:
            object.__setattr__(
                self, "termination", _closed_word(Termination, self.termination, "termination")
            )
        if self.reason is not None and type(self.reason) is not ForfeitReason:
            object.__setattr__(
                self, "reason", _closed_word(ForfeitReason, self.reason, "forfeit reason")
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
        return self.termination is Termination.FORFEIT

    @property
    def points(self) -> tuple[float, ...]:
        """Every seat's :func:`ranking_points`: its share of the seats it beat."""
        return ranking_points(self.ranking)

    @classmethod
    def from_scores(
        cls,
        scores: Sequence[float],
        termination: Termination,
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
    def win(cls, winner: int, num_seats: int, termination: Termination) -> Outcome:
        """One winner (+1), everyone else shares the last place (-1)."""
        return cls(
            returns=tuple(1.0 if s == winner else -1.0 for s in range(num_seats)),
            ranking=tuple(1 if s == winner else 2 for s in range(num_seats)),
            termination=termination,
        )

    @classmethod
    def draw(cls, num_seats: int, termination: Termination) -> Outcome:
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
        details: Mapping[str, Any] | None = None,
    ) -> Outcome:
        """The offender loses (last place, ``loss``); the others share first (``win``).

        In a one-seat game the offender simply scores ``loss``. ``reason`` is a
        :class:`ForfeitReason` or its text.

        Raises:
            InvalidOutcomeError: ``offender`` is not a seat, or an unknown reason.
        """
        if not 0 <= offender < num_seats:
            raise InvalidOutcomeError(f"offender seat {offender} outside 0..{num_seats - 1}")
        return cls(
            returns=tuple(loss if s == offender else win for s in range(num_seats)),
            ranking=tuple(num_seats if s == offender else 1 for s in range(num_seats)),
            termination=Termination.FORFEIT,
            offender=offender,
            reason=_closed_word(ForfeitReason, reason, "forfeit reason"),
            details=dict(details or {}),
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "returns": list(self.returns),
            "ranking": list(self.ranking),
            # The member's value as stored: Enum's `value` is a property in Python code,
            # 7% of the end of a game in the learning environments (docs/benchmarks.md).
            "termination": self.termination._value_,
        }
        if self.offender is not None:
            data["offender"] = self.offender
            data["reason"] = None if self.reason is None else self.reason.value
        if self.details:
            data["details"] = dict(self.details)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """Raises InvalidStateError when ``data`` is not an outcome (the message quotes it)."""
        try:
            return cls(
                returns=tuple(float(x) for x in data["returns"]),
                ranking=tuple(int(x) for x in data["ranking"]),
                termination=data["termination"],
                offender=None if data.get("offender") is None else int(data["offender"]),
                reason=data.get("reason"),
                details=dict(data.get("details") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"not an outcome: {data!r} ({exc})") from exc
