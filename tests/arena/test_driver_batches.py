"""The driver's standings and live statistics taken a batch at a time count exactly as
game by game; the default interval's refits come at most every REFIT_SECONDS."""

from __future__ import annotations

import pickle
import random
from typing import Any

import pytest
import sqlalchemy as sa
from pydantic import TypeAdapter

from arena.play.results import PlayedGame
from arena.store.tally import Standing, StoredGame, Tallies
from arena.tournament import driver
from arena.tournament.execution import ChunkResult
from arena.tournament.health import BotHealth
from arena.tournament.progress import LiveStatistics, Standings
from arena.tournament.scheduling import round_robin_tables, schedule_tables

LABELS = {1: "a@1", 2: "b@1", 3: "c@1", 4: "d@1"}


def played(seats: int, games: int, seed: int) -> list[StoredGame]:
    """A round robin's games with random places, some of them forfeits or host faults."""
    rng = random.Random(seed)
    tables = round_robin_tables(sorted(LABELS), seats)
    result = []
    for planned in schedule_tables(tables, games_per_table=games, seed=seed):
        ranking = tuple(rng.choice((1, 1, 2, 3)) for _ in range(seats))
        offender, reason, status = None, None, "ok"
        if rng.random() < 0.1:
            offender, reason, status = 0, rng.choice(("timeout", "crash", "suspended")), "forfeit"
        elif rng.random() < 0.05:
            status = "error"
        returns = tuple(float(-place) for place in ranking)
        result.append(
            StoredGame(
                7,
                planned.index,
                planned.seed,
                planned.seats,
                ranking,
                returns,
                "won",
                offender,
                reason,
                status,
            )
        )
    return result


def chunks(games: list[StoredGame], rng: random.Random) -> list[list[StoredGame]]:
    cut, parts = 0, []
    while cut < len(games):
        size = rng.randint(1, 40)
        parts.append(games[cut : cut + size])
        cut += size
    return parts


@pytest.mark.parametrize("seats", [2, 3])
def test_a_batch_counts_as_game_by_game(seats: int) -> None:
    games = played(seats, 30, seed=seats)
    builtin = {4}  # d's timeouts are the host's fault
    one = Standings(LABELS, builtin)
    one_stats = LiveStatistics(LABELS, seats=seats, interval=7)
    for game in games:
        one_stats.add(game, one.add(game), tournament=7)
    lines = one_stats.take_lines()

    batched = Standings(LABELS, builtin)
    stats = LiveStatistics(LABELS, seats=seats, interval=7)
    for part in chunks(games, random.Random(seats)):
        stats.add_all(part, batched.add_all(part), tournament=7)

    assert batched.tallies == one.tallies
    # What a driver stores of them too (its state): the tallies byte for byte; the live
    # Elo takes a batch's whole rotations together, so its counters hold the same values
    # in another order.
    stored = TypeAdapter(Tallies)
    assert stored.dump_json(batched.tallies) == stored.dump_json(one.tallies)
    assert as_data(stats.running_state(), ordered=False) == as_data(
        one_stats.running_state(), ordered=False
    )
    assert Standing.UNPLAYED in one.tallies.games and Standing.HOST_FAULT in one.tallies.games
    assert stats.rated == one_stats.rated and stats._open == one_stats._open == {}
    assert stats.take_lines() == lines and len(lines) == one_stats.rated // 7
    assert stats.elo is not None and one_stats.elo is not None
    assert stats.elo.games == one_stats.elo.games
    ratings, _ = stats.elo.fit()
    expected, _ = one_stats.elo.fit()
    assert ratings.elo.tolist() == pytest.approx(expected.elo.tolist(), abs=1e-9)
    assert ratings.lower.tolist() == pytest.approx(expected.lower.tolist(), abs=1e-9)


def as_data(value: Any, *, ordered: bool = True) -> Any:
    """``value`` as what the driver stores of it: every dictionary, and every sequence
    of sequences (a stored state holds a mapping as the sequence of its items), in its
    order (``ordered``; else sorted: the values, not the order they came in), every
    object as its type and fields."""
    if isinstance(value, dict):
        items = [(key, as_data(item, ordered=ordered)) for key, item in value.items()]
        return items if ordered else sorted(items, key=lambda item: repr(item[0]))
    if isinstance(value, list | tuple):
        values = [as_data(item, ordered=ordered) for item in value]
        items = all(isinstance(item, list | tuple) for item in value)
        return sorted(values, key=repr) if items and not ordered else values
    if hasattr(value, "__dict__"):
        return (type(value).__name__, as_data(vars(value), ordered=ordered))
    return value


def as_played(game: StoredGame) -> PlayedGame:
    seats = (game.index, game.seed, game.seats)
    outcome = (game.returns, game.ranking, game.termination, game.offender, game.reason)
    return PlayedGame.from_values((*seats, game.status, *outcome, "{}", 0.0, "w"))


@pytest.mark.parametrize("seats", [2, 3])
def test_the_driver_counts_chunks_received_from_workers_as_game_by_game(seats: int) -> None:
    """Chunks as they arrive from worker processes (their rows and kinds of game),
    counted a few at a time, give the state of every game counted one by one."""
    games = played(seats, 30, seed=seats)
    one = Standings(LABELS, {4})
    one_stats = LiveStatistics(LABELS, seats=seats, interval=7)
    one_health = BotHealth(0.2, {4})
    for game in games:
        one_stats.add(game, one.add(game), tournament=7)
    rng = random.Random(seats)
    buffer = driver._Buffer(
        sa.create_engine("sqlite://"),
        7,
        Standings(LABELS, {4}),
        LiveStatistics(LABELS, seats=seats, interval=7),
        BotHealth(0.2, {4}),
    )
    for part in chunks(games, rng):
        one_health.observe(part)
        sent = ChunkResult([as_played(game) for game in part], 0.1)
        received = pickle.loads(pickle.dumps(sent))
        buffer.add(received)
        kinds, of_game = received.kinds
        buffer.health.observe_kinds(
            (StoredGame(0, 0, 0, *kind), of_game.count(number)) for number, kind in enumerate(kinds)
        )
        if rng.random() < 0.3:
            buffer.count()
    buffer.count()
    assert as_data(buffer.standings.tallies) == as_data(one.tallies)
    assert as_data(buffer.statistics.running_state(), ordered=False) == as_data(
        one_stats.running_state(), ordered=False
    )
    assert buffer.statistics.take_lines() == one_stats.take_lines()
    assert (buffer.health.games, buffer.health.crashes) == (one_health.games, one_health.crashes)
    assert list(buffer.health.games) == list(one_health.games)


def test_refits_closer_than_min_seconds_are_skipped_and_the_last_games_stay_stale() -> None:
    games = [g for g in played(2, 40, seed=1) if g.status == "ok" and g.offender is None]
    standings = Standings(LABELS, ())
    throttled = LiveStatistics(LABELS, seats=2, interval=10, min_seconds=3600.0)
    throttled.add_all(games, standings.add_all(games), tournament=7)
    lines = throttled.take_lines()
    assert len(lines) == 1 and lines[0].startswith("Elo after 10 rated games")
    assert throttled.stale and throttled.rated == len(games) > 20

    every = LiveStatistics(LABELS, seats=2, interval=10)
    for game in games:
        every.add(game, Standing.RATED, tournament=7)
    assert len(every.take_lines()) == len(games) // 10
