"""Suspending bots that crash too often during a tournament.

A bot whose share of games lost to its own faults (crashes, timeouts, malformed
output, protocol violations) exceeds the tournament's ``max_crash_rate`` after at
least :data:`MIN_GAMES` games is suspended: its remaining games are forfeited as
``suspended`` without being played, so the tournament still stores every scheduled
game. Illegal moves are forfeits but not crashes.

Only rated games count (:func:`arena.store.tally.standing`): a host fault (a game
that raised on the host, or a built-in bot's timeout) is nobody's fault, so it counts
neither towards the crash rate of the bot that timed out nor in the games of the
others at its table, as unplayed games do not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from arena.store.tally import SeatFaults, Standing, standing
from engines.outcome import ForfeitReason

CRASH_REASONS = frozenset(
    {
        ForfeitReason.CRASH,
        ForfeitReason.TIMEOUT,
        ForfeitReason.MALFORMED_OUTPUT,
        ForfeitReason.PROTOCOL_VIOLATION,
    }
)
MIN_GAMES = 10


@dataclass
class BotHealth:
    """The crash counts of a tournament's bots; ``builtin`` holds the ids of its
    built-in bots (whose timeouts are host faults)."""

    max_crash_rate: float
    builtin: Collection[int] = frozenset()
    games: Counter[int] = field(default_factory=Counter)
    crashes: Counter[int] = field(default_factory=Counter)
    suspended: dict[int, str] = field(default_factory=dict)

    def observe(self, games: Iterable[SeatFaults]) -> list[tuple[int, str]]:
        """Count the games; returns the bots suspended because of them, with why."""
        return self.observe_kinds((game, 1) for game in games)

    def observe_kinds(self, kinds: Iterable[tuple[SeatFaults, int]]) -> list[tuple[int, str]]:
        """:meth:`observe` for games alike in what it counts: each kind of game with how
        many games of it there were, in the order of their first game."""
        touched: set[int] = set()
        for game, times in kinds:
            if standing(game, self.builtin) is not Standing.RATED:
                continue
            for seat, bot in enumerate(game.seats):
                self.games[bot] += times
                touched.add(bot)
                if game.offender == seat and game.reason in CRASH_REASONS:
                    self.crashes[bot] += times
        newly = []
        for bot in sorted(touched):
            played, crashed = self.games[bot], self.crashes[bot]
            if bot in self.suspended or played < MIN_GAMES:
                continue
            if crashed / played > self.max_crash_rate:
                why = (
                    f"{crashed} of {played} games lost to crashes or timeouts, over the "
                    f"limit of {self.max_crash_rate:.0%}"
                )
                self.suspended[bot] = why
                newly.append((bot, why))
        return newly

    def suspended_seat(self, seats: tuple[int, ...]) -> int | None:
        """The first seat held by a suspended bot, if any."""
        for seat, bot in enumerate(seats):
            if bot in self.suspended:
                return seat
        return None

    def why(self, bot: int) -> str:
        return self.suspended.get(bot, "")
