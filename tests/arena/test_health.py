"""The crash-rate check counts only rated games: a host fault charges nobody."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from typer.testing import CliRunner

from arena.cli import app
from arena.play.results import GameStatus
from arena.store.db import open_database
from arena.tournament.health import MIN_GAMES, BotHealth
from engines.outcome import ForfeitReason

BUILTIN, OTHER, SUBMITTED = 1, 2, 3


@dataclass(frozen=True)
class Game:
    seats: tuple[int, ...]
    offender: int | None
    reason: str | None
    status: str = GameStatus.OK


def timeouts(bot: int, against: int, times: int) -> list[Game]:
    return [
        Game((bot, against), 0, ForfeitReason.TIMEOUT, GameStatus.FORFEIT) for _ in range(times)
    ]


def test_a_builtin_bots_timeouts_are_host_faults_and_never_suspend_it() -> None:
    health = BotHealth(0.25, builtin={BUILTIN, OTHER})
    assert health.observe(timeouts(BUILTIN, OTHER, 2 * MIN_GAMES)) == []
    assert BUILTIN not in health.suspended
    # Nobody at the table played a counted game: the other bot's totals stay empty.
    assert health.games[OTHER] == 0 and health.games[BUILTIN] == 0


def test_host_faults_stay_out_of_the_other_bots_totals() -> None:
    health = BotHealth(0.25, builtin={BUILTIN, OTHER})
    played = [Game((SUBMITTED, OTHER), None, None) for _ in range(12)]
    played += timeouts(BUILTIN, SUBMITTED, 2)
    played += [Game((SUBMITTED, OTHER), 0, ForfeitReason.CRASH, GameStatus.FORFEIT)] * 5
    played += [Game((SUBMITTED, OTHER), None, None, GameStatus.ERROR)]
    health.observe(played)
    assert (health.crashes[SUBMITTED], health.games[SUBMITTED]) == (5, 17)
    assert SUBMITTED in health.suspended
    assert "5 of 17 games" in health.why(SUBMITTED)


def test_a_submitted_bots_timeouts_still_suspend_it() -> None:
    health = BotHealth(0.25, builtin={OTHER})
    newly = health.observe(timeouts(SUBMITTED, OTHER, MIN_GAMES))
    assert [bot for bot, _ in newly] == [SUBMITTED]
    assert health.games[OTHER] == MIN_GAMES


def test_a_builtin_bot_out_of_time_plays_on_and_nobody_is_suspended(db_url: str) -> None:
    """The issue's repro, smaller: MCTS at 3000 iterations cannot move in 0.02 s, so
    every game of it is a host fault (a built-in bot's timeout), never a suspension."""
    bots = ["-b", "random", "-b", "greedy", "-b", "mcts:iterations=3000", "-b", "first-legal"]
    result = CliRunner().invoke(
        app,
        [
            *("tournament", "run", "--game", "koenigsgarten", "--type", "round-robin"),
            *bots,
            *("--games", "4", "--seed", "31", "--time-per-move", "0.02", "--workers", "1"),
            *("--executor", "local", "--db", db_url),
        ],
    )
    assert result.exit_code == 0, result.stderr
    assert "suspended" not in result.stdout and "24 of 24 games stored" in result.stdout
    with open_database(db_url).connect() as connection:
        reasons = dict(
            connection.execute(sa.text("SELECT reason, count(*) FROM game GROUP BY reason")).all()
        )
        flagged = connection.execute(sa.text("SELECT count(*) FROM participant WHERE suspended"))
        assert flagged.scalar() == 0
    assert "suspended" not in reasons and reasons["timeout"] >= 12
