"""Matches of several games, and the formats a game declares it is played in.

Formats (rule text 000, ``../shared/RULINGS.md``; a game lists its own with
:meth:`~engines.core.Game.match_formats`):

* ``single``: one game decides; a drawn game stands as a draw. Every game has it.
* ``first-to-3`` (two players): the first to win three games wins the match.
* ``points`` (two players; to 10, ``points-15``, ``points-20``): the winner of a game
  scores :meth:`~engines.core.Game.match_points` (in Königsgarten, the cards left in
  the garden); the first to reach the target wins.
* ``penalties-25``, ``penalties-50`` (games that keep penalty points, such as Kings
  in the Corner): every player's :meth:`~engines.core.Game.match_penalties` add up
  game by game until someone reaches the limit; the lowest total wins.

In ``first-to-3`` and ``points`` a drawn game counts for no one and is replayed,
opened by the player who did not open it. Otherwise the loser of the last game
opens the next one. Player 0 opens the first game. In a penalties match the first
player moves one to the left each game.

The matches are pure state machines: the caller plays each game with the next
opener in seat 0 and reports the result with ``record``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from engines.errors import OptionError, did_you_mean
from engines.outcome import competition_ranking


class MatchKind(StrEnum):
    """How a match is decided."""

    SINGLE = "single"
    FIRST_TO_3 = "first-to-3"
    POINTS = "points"
    PENALTIES = "penalties"


POINT_TARGETS: Final = (10, 15, 20)
DEFAULT_POINT_TARGET: Final = 10
PENALTY_LIMITS: Final = (25, 50)
"""The usual limits of a penalties match; :class:`PenaltyMatch` takes any positive one."""
DEFAULT_GAME_CAP: Final = 100

SINGLE_FORMAT: Final = ("single",)
TWO_PLAYER_FORMATS: Final = ("single", "first-to-3", "points", "points-15", "points-20")
PENALTY_FORMATS: Final = tuple(f"penalties-{limit}" for limit in PENALTY_LIMITS)
MATCH_FORMATS: Final = TWO_PLAYER_FORMATS + PENALTY_FORMATS
"""Every format any game may declare."""


@dataclass(frozen=True)
class MatchSpec:
    """A match format: ``kind`` and, for points and penalties matches, the target."""

    kind: MatchKind
    target: int = 1

    def __str__(self) -> str:
        if self.kind == MatchKind.POINTS:
            return "points" if self.target == DEFAULT_POINT_TARGET else f"points-{self.target}"
        if self.kind == MatchKind.PENALTIES:
            return f"penalties-{self.target}"
        return str(self.kind)


def parse_match_spec(text: str) -> MatchSpec:
    """Parse ``single``, ``first-to-3``, ``points`` / ``points-15`` / ``points-20`` or
    ``penalties-25`` / ``penalties-50``.

    >>> str(parse_match_spec("Points")), str(parse_match_spec("first_to_3"))
    ('points', 'first-to-3')

    Raises:
        OptionError: anything else; the message lists the formats.
    """
    cleaned = text.strip().lower()
    if cleaned == "single":
        return MatchSpec(MatchKind.SINGLE, 1)
    if cleaned in ("first-to-3", "first_to_3", "firstto3"):
        return MatchSpec(MatchKind.FIRST_TO_3, 3)
    found = re.fullmatch(r"points(?:[-:_ ]?(\d+))?", cleaned)
    if found:
        target = int(found.group(1) or DEFAULT_POINT_TARGET)
        if target in POINT_TARGETS:
            return MatchSpec(MatchKind.POINTS, target)
    found = re.fullmatch(r"penalties[-:_ ]?(\d+)", cleaned)
    if found and int(found.group(1)) in PENALTY_LIMITS:
        return MatchSpec(MatchKind.PENALTIES, int(found.group(1)))
    raise OptionError(
        f"unknown match format {text!r} "
        f"({did_you_mean(cleaned, MATCH_FORMATS)}formats: {', '.join(MATCH_FORMATS)})"
    )


@dataclass(frozen=True)
class MatchGame:
    """One finished game of a match, in player terms."""

    opener: int
    winner: int | None
    points: int


@dataclass
class Match:
    """The score of a two-player match in progress between players 0 and 1
    (``single``, ``first-to-3`` or ``points``)."""

    spec: MatchSpec
    game_cap: int = DEFAULT_GAME_CAP
    next_opener: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    points: list[int] = field(default_factory=lambda: [0, 0])
    games: list[MatchGame] = field(default_factory=list)

    def record(self, winner: int | None, points: int = 1) -> None:
        """Record the game just played (opened by :attr:`next_opener`).

        ``winner`` is the winning player, or None for a draw; ``points`` is what the
        winner scores in a points match.

        Raises:
            ValueError: the match is already over, or ``winner`` is not 0, 1 or None.
        """
        if self.is_over:
            raise ValueError("the match is already over")
        if winner not in (0, 1, None):
            raise ValueError(f"winner must be player 0, 1 or None, not {winner!r}")
        opener = self.next_opener
        self.games.append(MatchGame(opener, winner, points if winner is not None else 0))
        if winner is None:
            self.next_opener = 1 - opener
            return
        self.wins[winner] += 1
        self.points[winner] += points
        self.next_opener = 1 - winner

    @property
    def score(self) -> list[int]:
        """Wins, or points in a points match."""
        return self.points if self.spec.kind == MatchKind.POINTS else self.wins

    @property
    def is_over(self) -> bool:
        if not self.games:
            return False
        if self.spec.kind == MatchKind.SINGLE or len(self.games) >= self.game_cap:
            return True
        return max(self.score) >= self.spec.target

    @property
    def winner(self) -> int | None:
        """The winning player once the match is over (None: drawn or unfinished)."""
        if not self.is_over or self.score[0] == self.score[1]:
            return None
        return 0 if self.score[0] > self.score[1] else 1


@dataclass
class PenaltyMatch:
    """A penalties match: each player's penalty points add up game by game until
    someone reaches the limit; then the lowest total wins (equal totals share).

    Players are numbered 0..players-1; the caller maps them to seats. The first player
    moves one to the left each game (the deal passes to the left): see
    :attr:`next_opener`.

    Raises:
        ValueError: fewer than two players, or a limit below 1.
    """

    players: int
    limit: int = PENALTY_LIMITS[0]
    totals: list[int] = field(default_factory=list)
    games: list[tuple[int, ...]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.players < 2:
            raise ValueError(f"a penalties match has two players or more, not {self.players!r}")
        if self.limit < 1:
            raise ValueError(f"the match limit must be positive, not {self.limit!r}")
        if not self.totals:
            self.totals = [0] * self.players

    def record(self, penalties: Sequence[int]) -> None:
        """Add one game's penalty points, one number per player.

        Raises:
            ValueError: the match is over, or ``penalties`` has the wrong length or a
                negative number.
        """
        if self.is_over:
            raise ValueError("the match is already over")
        if len(penalties) != self.players or any(p < 0 for p in penalties):
            raise ValueError(
                f"one non-negative penalty per player ({self.players}), got {list(penalties)!r}"
            )
        self.games.append(tuple(penalties))
        self.totals = [total + points for total, points in zip(self.totals, penalties, strict=True)]

    @property
    def next_opener(self) -> int:
        """The player who moves first in the next game."""
        return len(self.games) % self.players

    @property
    def is_over(self) -> bool:
        return max(self.totals) >= self.limit

    @property
    def ranking(self) -> tuple[int, ...]:
        """Places by total (1 is best, equal totals share a place)."""
        return competition_ranking(self.totals, higher_is_better=False)

    @property
    def winners(self) -> tuple[int, ...]:
        """The players with the lowest total once the match is over (else empty)."""
        if not self.is_over:
            return ()
        return tuple(p for p, place in enumerate(self.ranking) if place == 1)
