"""Suspensions (arena/tournament/health.py) count only the games that count: a host
fault is nobody's fault, for the bot it befell and for the others at its table."""

from __future__ import annotations

from dataclasses import dataclass

from arena.play.results import GameStatus
from arena.tournament.health import MIN_GAMES, BotHealth
from engines.outcome import ForfeitReason

SUBMITTED, BUILTIN, OTHER = 1, 2, 3


@dataclass(frozen=True)
class Game:
    seats: tuple[int, ...]
    offender: int | None = None
    reason: str | None = None
    status: str = GameStatus.OK
    ranking: tuple[int, ...] = (1, 2)
    returns: tuple[float, ...] = (1.0, 0.0)
    termination: str = "normal"


def out_of_time(seats: tuple[int, ...], bot: int) -> Game:
    return Game(seats, offender=seats.index(bot), reason=ForfeitReason.TIMEOUT)


def test_a_built_in_bot_out_of_time_is_not_suspended_and_not_counted() -> None:
    health = BotHealth(0.25, builtin={BUILTIN})
    games = [out_of_time((BUILTIN, SUBMITTED), BUILTIN) for _ in range(MIN_GAMES + 5)]
    assert health.observe(games) == []
    assert health.games[BUILTIN] == health.games[SUBMITTED] == 0
    assert not health.suspended


def test_host_faults_stay_out_of_the_other_bots_totals() -> None:
    """12 rated games (3 of them the submitted bot's crashes) and 2 host faults: the
    submitted bot's rate is 3 of 12, as its report counts it."""
    health = BotHealth(0.2, builtin={BUILTIN})
    seats = (SUBMITTED, BUILTIN)
    crashes = [Game(seats, offender=0, reason=ForfeitReason.CRASH) for _ in range(3)]
    faults = [out_of_time(seats, BUILTIN), Game(seats, status=GameStatus.ERROR)]
    newly = health.observe([*crashes, *faults, *[Game(seats) for _ in range(9)]])
    assert (health.games[SUBMITTED], health.crashes[SUBMITTED]) == (12, 3)
    assert newly == [
        (SUBMITTED, "3 of 12 games lost to crashes or timeouts, over the limit of 20%")
    ]


def test_a_submitted_bot_out_of_time_is_its_own_fault() -> None:
    health = BotHealth(0.25, builtin={BUILTIN})
    games = [out_of_time((SUBMITTED, OTHER), SUBMITTED) for _ in range(MIN_GAMES)]
    assert [bot for bot, _ in health.observe(games)] == [SUBMITTED]
    assert health.games[OTHER] == MIN_GAMES and health.crashes[OTHER] == 0


def test_unplayed_games_count_for_nobody() -> None:
    health = BotHealth(0.25, builtin=set())
    suspended = Game((SUBMITTED, OTHER), offender=0, reason=ForfeitReason.SUSPENDED)
    health.observe([suspended] * MIN_GAMES)
    assert health.games == {} and health.crashes == {}
