"""Matches of several games between two players, for any two-player game.

Formats (rule text 000, ``../shared/RULINGS.md``):

* ``single``: one game decides; a drawn game stands as a draw.
* ``first-to-3``: the first to win three games wins the match.
* ``points`` (to 10; ``points-15``, ``points-20``): the winner of a game scores
  :meth:`~engines.core.Game.match_points` (in Königsgarten, the cards left in the
  garden); the first to reach the target wins.

In ``first-to-3`` and ``points`` a drawn game counts for no one and is replayed,
opened by the player who did not open it. Otherwise the loser of the last game
opens the next one. Player 0 opens the first game.

The match is a pure state machine: the caller plays each game with
:attr:`Match.next_opener` in seat 0 and reports the result with :meth:`Match.record`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final, Literal

from engines.errors import OptionError

MATCH_FORMATS: Final = ("single", "first-to-3", "points", "points-15", "points-20")
POINT_TARGETS: Final = (10, 15, 20)
DEFAULT_GAME_CAP: Final = 100


@dataclass(frozen=True)
class MatchSpec:
    """A match format: ``kind`` and, for points matches, the target."""

    kind: Literal["single", "first-to-3", "points"]
    target: int = 1

    def __str__(self) -> str:
        if self.kind == "points":
            return "points" if self.target == 10 else f"points-{self.target}"
        return self.kind


def parse_match_spec(text: str) -> MatchSpec:
    """Parse ``single``, ``first-to-3``, ``points`` or ``points-15`` / ``points-20``.

    Raises:
        OptionError: anything else; the message lists the formats.
    """
    cleaned = text.strip().lower()
    if cleaned == "single":
        return MatchSpec("single", 1)
    if cleaned in ("first-to-3", "first_to_3", "firstto3"):
        return MatchSpec("first-to-3", 3)
    found = re.fullmatch(r"points(?:[-:_ ]?(\d+))?", cleaned)
    if found:
        target = int(found.group(1) or 10)
        if target in POINT_TARGETS:
            return MatchSpec("points", target)
    raise OptionError(f"unknown match format {text!r} (formats: {', '.join(MATCH_FORMATS)})")


@dataclass(frozen=True)
class MatchGame:
    """One finished game of a match, in player terms."""

    opener: int
    winner: int | None
    points: int


@dataclass
class Match:
    """The score of a match in progress between players 0 and 1."""

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
        return self.points if self.spec.kind == "points" else self.wins

    @property
    def is_over(self) -> bool:
        if not self.games:
            return False
        if self.spec.kind == "single" or len(self.games) >= self.game_cap:
            return True
        return max(self.score) >= self.spec.target

    @property
    def winner(self) -> int | None:
        """The winning player once the match is over (None: drawn or unfinished)."""
        if not self.is_over or self.score[0] == self.score[1]:
            return None
        return 0 if self.score[0] > self.score[1] else 1
