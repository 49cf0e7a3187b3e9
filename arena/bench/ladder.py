"""``arena bench ladder-rating`` and ``arena bench ladder-placement``: the ladder's
rating figures of issue 18, on simulated games.

*Rating lag*: games arrive at a fixed rate (default 2,000 games/s, Königsgarten's
target), two-seat rotations of two games or, with ``seats`` N > 2, rotations of N
games of N bots (seats shifted game by game) ranked by Plackett–Luce; a refit loop
takes every game that has arrived, adds it to an
:class:`~arena.ladder.rating.IncrementalElo`, refits, and starts again after at most
``interval`` seconds. The lag of a game runs from its arrival to the end of the first
refit that includes it. The work (loading the state, turning results into arrays,
adding, saving the state, refitting: what a ladder worker does per batch) is timed for
real; the arrivals and the waits run on a virtual clock, so a million games take as
long as their work, not 500 s. With one process doing the work this is the same as
waiting for real.

*Placement*: a simulated ladder (:class:`~arena.ladder.simulation.SimulatedLadder`)
is played until every bot is placed; then new versions register one at a time and
the ladder plays on until the new version's 95% interval is at most ±``target`` Elo.
The figure is the ladder games that took, turned into seconds at a given games/s.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

import numpy as np

from arena.ladder.errors import LadderError
from arena.ladder.matchmaking import LadderBot, LadderView, next_pairings
from arena.ladder.rating import IncrementalElo
from arena.ladder.simulation import SimulatedLadder
from arena.ratings.data import FloatArray, IntArray
from arena.ratings.elo import ELO_PER_LOGIT
from arena.ratings.simulate import simulate_rotations

FIRST_BOT_ID = 1000


@dataclass(frozen=True)
class RatingLag:
    games: int
    bots: int
    rate: float
    interval: float
    refits: int
    max_lag: float
    mean_lag: float
    """Per game: from its arrival to the refit that included it."""
    median_refit: float
    max_refit: float
    """Seconds of one cycle (arrays, add, refit)."""
    busy: float
    """The share of the run the refit loop was working."""
    max_error: float
    """The largest |fitted − true| Elo after the last refit (the fit is sound)."""
    seats: int = 2
    results: int = 0
    """Two-player results added: each game of N seats gives N·(N−1)/2."""
    state_bytes: int = 0
    """The saved rating state at the end (the ``.npz`` archive a ladder stores)."""
    memory_bytes: int = 0
    """The rating state's arrays in memory at the end."""


def rating_lag(
    *,
    bots: int,
    games: int,
    rate: float,
    interval: float,
    round_trip: bool = True,
    seats: int = 2,
    seed: int = 0,
) -> RatingLag:
    """Feed ``games`` simulated games of ``seats`` seats and ``bots`` bots at ``rate``
    games/s to a refit loop that cycles at most every ``interval`` seconds; with
    ``round_trip`` each cycle also loads the rating state from bytes and saves it
    again, as a ladder worker does (it keeps the state in the database).

    Raises LadderError for fewer than 2 bots or 2 games, or a rate or interval <= 0,
    for fewer than 2 seats, or fewer bots or games than seats.
    """
    if bots < 2 or games < 2 or rate <= 0 or interval <= 0:
        raise LadderError(
            f"need 2+ bots and games and a positive rate and interval, got bots {bots!r}, "
            f"games {games!r}, rate {rate!r}, interval {interval!r}"
        )
    if seats < 2 or bots < seats or games < seats:
        raise LadderError(
            f"need 2+ seats and at least as many bots and games, got seats {seats!r}, "
            f"bots {bots!r}, games {games!r}"
        )
    rng = np.random.default_rng(seed)
    truth = rng.uniform(-400.0, 400.0, bots)
    if seats == 2:
        simulated = simulate_rotations(truth, games // 2, rng=rng, draw_rate=0.2, seat_effect=0.5)
        # Rotation k's two games are rows k and k + rotations: interleave them in play order.
        order = np.argsort(np.arange(len(simulated)) % (games // 2), kind="stable")
        first = simulated.first[order] + FIRST_BOT_ID
        second = simulated.second[order] + FIRST_BOT_ID
        score = simulated.score[order]
        group = simulated.group[order]
    else:
        first, second, score, group = _seated_rotations(truth, games // seats, seats, rng)
        first, second = first + FIRST_BOT_ID, second + FIRST_BOT_ID
    per_game = seats * (seats - 1) // 2
    total = games // seats * seats
    elo = IncrementalElo()
    state = elo.to_bytes()
    clock, done = 0.0, 0
    lags: list[tuple[float, int]] = []
    cycles: list[float] = []
    max_lag = 0.0
    while done < total:
        arrived = min(total, int(clock * rate))
        arrived -= arrived % seats  # a rotation arrives with its last game
        if arrived <= done:
            clock = (done + seats) / rate  # idle until the next rotation is in
            continue
        started = time.perf_counter()
        batch = slice(done * per_game, arrived * per_game)
        if round_trip:
            elo = IncrementalElo.from_bytes(state)
        elo.add_games(
            zip(first[batch].tolist(), second[batch].tolist(), score[batch].tolist(), strict=True),
            group[batch].tolist(),
        )
        if round_trip:
            state = elo.to_bytes()
        ratings = elo.refit()
        work = time.perf_counter() - started
        cycles.append(work)
        end = clock + work
        max_lag = max(max_lag, end - done / rate)
        lags.append((end - (done + arrived - 1) / 2.0 / rate, arrived - done))
        done = arrived
        clock = max(end, clock + interval)
    fitted = np.array([ratings[FIRST_BOT_ID + i].elo for i in range(bots)])
    error = float(np.max(np.abs(fitted - (truth - truth.mean()))))
    return RatingLag(
        games=total,
        bots=bots,
        rate=rate,
        interval=interval,
        refits=len(cycles),
        max_lag=max_lag,
        mean_lag=sum(lag * n for lag, n in lags) / total,
        median_refit=statistics.median(cycles),
        max_refit=max(cycles),
        busy=sum(cycles) / clock,
        max_error=error,
        seats=seats,
        results=elo.games,
        state_bytes=len(state if round_trip else elo.to_bytes()),
        memory_bytes=elo.nbytes,
    )


def _seated_rotations(
    truth: FloatArray, rotations: int, seats: int, rng: np.random.Generator
) -> tuple[IntArray, IntArray, FloatArray, IntArray]:
    """Two-player results of ``rotations`` rotations in play order: each rotation is
    ``seats`` games of ``seats`` distinct bots, the seats shifted by one game by game;
    a game's places follow Plackett–Luce (strength plus Gumbel noise, so each pair's
    score is Bradley–Terry's), the deal favouring some seats (a shared normal bonus
    per seat and rotation, in logits, sd 0.3). Results: ``first``, ``second``,
    ``score`` of first and the rotation, pair of seats by pair of seats per game."""
    tables = rng.integers(0, truth.size, (rotations, seats))
    while True:  # redraw the tables that seat a bot twice
        ordered = np.sort(tables, axis=1)
        repeated = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        if not repeated.any():
            break
        tables[repeated] = rng.integers(0, truth.size, (int(repeated.sum()), seats))
    shifts = (np.arange(seats)[:, None] + np.arange(seats)[None, :]) % seats
    seated = tables[:, shifts].reshape(rotations * seats, seats)  # game by game
    deal = np.repeat(rng.normal(0.0, 0.3, (rotations, seats)), seats, axis=0)
    value = truth[seated] / ELO_PER_LOGIT + deal + rng.gumbel(size=seated.shape)
    left, right = np.triu_indices(seats, 1)
    first, second = seated[:, left].ravel(), seated[:, right].ravel()
    score = (value[:, left] > value[:, right]).ravel().astype(np.float64)
    group = np.repeat(np.arange(rotations), seats * left.size)
    return first, second, score, group


@dataclass(frozen=True)
class Placement:
    bots: int
    owners: int
    versions: int
    settle_games: int
    games: tuple[int, ...]
    """Per new version: ladder games from its registration to ±target."""
    own_games: tuple[int, ...]
    """Per new version: its own games by then."""
    target: float


def placement_games(
    *,
    bots: int,
    owners: int,
    versions: int,
    target: float = 50.0,
    settle_games: int = 100_000,
    batch: int = 50,
    seed: int = 0,
) -> Placement:
    """Register ``versions`` new versions, one after the other, on a ladder of ``bots``
    bots of ``owners`` owners that has played ``settle_games`` games (and placed every
    bot); count the games until each is rated within ±``target`` Elo. The ladder refits
    after every ``batch`` pairings (10 times as many while settling).

    Raises LadderError for fewer than 2 bots, owners outside 1..bots, no versions, or a
    target or batch <= 0.
    """
    if bots < 2 or not 1 <= owners <= bots or versions < 1 or target <= 0 or batch < 1:
        raise LadderError(
            f"need 2+ bots, 1..bots owners, 1+ versions, target > 0, batch > 0; got bots "
            f"{bots!r}, owners {owners!r}, versions {versions!r}, target {target!r}, "
            f"batch {batch!r}"
        )
    rng = np.random.default_rng(seed)
    ladder = SimulatedLadder()
    for bot in range(bots):
        ladder.add_bot(bot, f"owner{bot % owners}", float(rng.uniform(-400.0, 400.0)))
    while (
        ladder.elo.games < settle_games
        or len(ladder.ratings) < bots
        or any(ladder.played[bot] < ladder.placement_games for bot in range(bots))
    ):
        ladder.step(10 * batch, rng)
    games, own = [], []
    for version in range(bots, bots + versions):
        owner = f"owner{int(rng.integers(owners))}"
        ladder.add_bot(version, owner, float(rng.uniform(-400.0, 400.0)))
        start = ladder.elo.games
        while version not in ladder.ratings or ladder.ratings[version].half_width > target:
            ladder.step(batch, rng)
        games.append(ladder.elo.games - start)
        own.append(ladder.played[version])
    settled = ladder.elo.games - sum(games)
    return Placement(bots, owners, versions, settled, tuple(games), tuple(own), target)


def matchmaking_seconds(
    *, bots: int, owners: int, count: int, calls: int = 200, seed: int = 0
) -> float:
    """The median time of one :func:`next_pairings` call for ``count`` pairings on a
    placed ladder of ``bots`` bots of ``owners`` owners.

    Raises LadderError for fewer than 2 bots or owners outside 1..bots.
    """
    if bots < 2 or not 1 <= owners <= bots:
        raise LadderError(f"need 2+ bots and 1..bots owners, got {bots!r} and {owners!r}")
    rng = np.random.default_rng(seed)
    elo = np.sort(rng.uniform(-400.0, 400.0, bots))
    half = rng.uniform(20.0, 80.0, bots)
    view = LadderView(
        tuple(
            LadderBot(i, f"owner{i % owners}", elo[i], elo[i] - half[i], elo[i] + half[i], 500, i)
            for i in range(bots)
        )
    )
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        next_pairings(view, count, rng)
        times.append(time.perf_counter() - started)
    return statistics.median(times)
