"""Which games a tournament plays: the formats as schedulers of planned games.

Games with chance come in rotations: one deal (seed) played once per rotation of the
seats, so every bot of a table sits in every seat of that deal and deal luck cancels.
All tables of a round share the round's deal, so pairings are compared on equal deals.
Tables of three or more seats also change their order round by round
(:func:`seating_orders`): a rotation keeps who sits after whom, and in games where the
next player inherits what the last one left (Kardinal's row ends, Kings in the
Corner's piles) a fixed order would favour whoever follows a weak player.

A scheduler hands out batches: the fixed formats (round robin, gauntlet, solitaire)
one batch with everything; the adaptive ones (elo, sprt) a batch at a time, deciding
from the results stored so far.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, overload

from arena.play.results import FinishedGame, PlannedGame
from engines.seeding import derive_seed


class Scheduler(Protocol):
    """Hands out the next batch of games; an empty batch means the tournament is done."""

    def next_batch(
        self, finished: Sequence[FinishedGame], *, next_index: int, batch: int
    ) -> list[PlannedGame]: ...

    def stop_reason(self) -> str | None:
        """Why the scheduler stopped (shown in reports), once it has."""
        ...


def rotations(table: Sequence[int]) -> list[tuple[int, ...]]:
    """Every rotation of the seats: (a, b, c) → (a, b, c), (b, c, a), (c, a, b)."""
    return [tuple(table[i:]) + tuple(table[:i]) for i in range(len(table))]


def seating_orders(table: Sequence[int]) -> list[tuple[int, ...]]:
    """The table's distinct orders around it: the first bot fixed, the others in every
    order ((k - 1)! of them; one for two seats)."""
    first, rest = table[0], table[1:]
    return [(first, *order) for order in itertools.permutations(rest)]


def deal_seed(tournament_seed: int, round_number: int) -> int:
    return derive_seed(tournament_seed, "round", round_number)


def rounds_for(games_per_table: int, seats: int) -> int:
    """Rounds of full rotations needed for at least ``games_per_table`` games."""
    return math.ceil(games_per_table / seats)


def schedule_tables(
    tables: Sequence[Sequence[int]], *, games_per_table: int, seed: int, first_index: int = 0
) -> list[PlannedGame]:
    """Every table plays ``games_per_table`` games (rounded up to whole rotations).

    Games are ordered round by round, so standings are balanced at any moment. Round
    ``r`` seats a table in its order ``r`` mod (k - 1)! (:func:`seating_orders`), so
    over (k - 1)! rounds every bot sits after every other equally often.
    """
    return list(
        iter_schedule_tables(
            tables, games_per_table=games_per_table, seed=seed, first_index=first_index
        )
    )


def iter_schedule_tables(
    tables: Sequence[Sequence[int]], *, games_per_table: int, seed: int, first_index: int = 0
) -> Iterator[PlannedGame]:
    """:func:`schedule_tables` one game at a time: a million games in the memory of one."""
    if not tables:
        return
    seats = len(tables[0])
    index = first_index
    orders = [seating_orders(table) for table in tables]
    for round_number in range(rounds_for(games_per_table, seats)):
        round_seed = deal_seed(seed, round_number)
        for table_orders in orders:
            for rotation in rotations(table_orders[round_number % len(table_orders)]):
                yield PlannedGame(index, round_seed, rotation)
                index += 1


def round_robin_tables(bots: Sequence[int], seats: int) -> list[tuple[int, ...]]:
    """Every pairing, or every table of ``seats`` distinct bots."""
    return list(itertools.combinations(bots, seats))


def gauntlet_tables(
    candidates: Sequence[int], opponents: Sequence[int], seats: int
) -> list[tuple[int, ...]]:
    """Each candidate with every choice of ``seats - 1`` opponents."""
    return [
        (candidate, *field)
        for candidate in candidates
        for field in itertools.combinations(opponents, seats - 1)
    ]


def solitaire_games(bots: Sequence[int], *, deals: int, seed: int) -> list[PlannedGame]:
    """Every bot plays the same ``deals`` deals (deal by deal, bot by bot)."""
    return list(iter_solitaire_games(bots, deals=deals, seed=seed))


def iter_solitaire_games(bots: Sequence[int], *, deals: int, seed: int) -> Iterator[PlannedGame]:
    """:func:`solitaire_games` one game at a time."""
    index = 0
    for deal in range(deals):
        deal_seed_value = deal_seed(seed, deal)
        for bot in bots:
            yield PlannedGame(index, deal_seed_value, (bot,))
            index += 1


class GeneratedSchedule:
    """A fixed format's whole schedule as a pure function of its tables (or bots), games
    per table and seed: never written to the database, generated from any game on.
    Equal, game by game, to :func:`iter_schedule_tables` (tables) or
    :func:`iter_solitaire_games` (``solitaire``: one-seat "tables", a deal per round)."""

    def __init__(
        self,
        tables: Sequence[Sequence[int]],
        *,
        rounds: int,
        seed: int,
        solitaire: bool = False,
    ):
        self.seed = seed
        self.rounds = rounds if tables else 0
        if solitaire:  # every bot once per deal, in order
            self._patterns = [[tuple(table) for table in tables]]
        else:
            orders = [seating_orders(table) for table in tables]
            # Round r seats each table in its order r mod (k - 1)!, every rotation of it.
            self._patterns = [
                [seats for table in orders for seats in rotations(table[pattern])]
                for pattern in range(len(orders[0]) if orders else 1)
            ]
        self.per_round = len(self._patterns[0])
        self._cycle = [seats for pattern in self._patterns for seats in pattern]

    @classmethod
    def of_tables(
        cls, tables: Sequence[Sequence[int]], *, games_per_table: int, seed: int
    ) -> GeneratedSchedule:
        seats = len(tables[0]) if tables else 1
        return cls(tables, rounds=rounds_for(games_per_table, seats), seed=seed)

    @classmethod
    def of_solitaire(cls, bots: Sequence[int], *, deals: int, seed: int) -> GeneratedSchedule:
        return cls([(bot,) for bot in bots], rounds=deals, seed=seed, solitaire=True)

    def __len__(self) -> int:
        return self.rounds * self.per_round

    def __iter__(self) -> Iterator[PlannedGame]:
        return self.games()

    def games(self, start: int = 0, stop: int | None = None) -> Iterator[PlannedGame]:
        """The games with indexes from ``start`` up to (not including) ``stop``."""
        stop = len(self) if stop is None else min(stop, len(self))
        index = max(start, 0)
        while index < stop:  # a round at a time: a million games in the memory of one
            end = min(stop, (index // self.per_round + 1) * self.per_round)
            yield from self.range(index, end)
            index = end

    def range(self, start: int, stop: int, skip: Collection[int] = ()) -> ScheduledRange:
        """The games from ``start`` up to (not including) ``stop``, but those of
        ``skip``, as a worker is sent them (:class:`ScheduledRange`)."""
        start, stop = max(start, 0), min(stop, len(self))
        # Round r seats its games as pattern r mod (k - 1)!: the patterns in turn repeat
        # every len(patterns) rounds, so a range's seats are a slice of them repeated.
        cycle = self._cycle
        first = start % len(cycle) if cycle else 0
        count = max(stop - start, 0)
        seats = list(itertools.islice(itertools.cycle(cycle), first, first + count))
        skipped = frozenset(i for i in skip if start <= i < stop)
        return ScheduledRange(self.seed, self.per_round, start, seats, skipped)

    def seeds(self) -> list[int]:
        """The distinct deal seeds, in the order of their first game."""
        return list(dict.fromkeys(deal_seed(self.seed, r) for r in range(self.rounds)))


@dataclass(frozen=True)
class ScheduledRange(Sequence[PlannedGame]):
    """Games of a generated schedule, from ``first`` on but those in ``skip``, as a
    worker is sent them: their seats, the tournament's seed and its games per round
    (a round's deal seed derives from them). The games are made when iterated, where
    they are played: the driver, which hands out every game, builds none of them and
    derives no seed."""

    seed: int
    per_round: int
    first: int
    seats: list[tuple[int, ...]]
    skip: frozenset[int] = frozenset()

    def __iter__(self) -> Iterator[PlannedGame]:
        skip, per_round = self.skip, self.per_round
        round_number, seed = -1, 0
        for index, seats in enumerate(self.seats, self.first):
            if index in skip:
                continue
            if index // per_round != round_number:
                round_number = index // per_round
                seed = deal_seed(self.seed, round_number)
            yield PlannedGame(index, seed, seats)

    def __len__(self) -> int:
        return len(self.seats) - len(self.skip)

    @overload
    def __getitem__(self, position: int) -> PlannedGame: ...
    @overload
    def __getitem__(self, position: slice) -> list[PlannedGame]: ...
    def __getitem__(self, position: int | slice) -> PlannedGame | list[PlannedGame]:
        return list(self)[position]  # rarely: a failed chunk's games named


class FixedScheduler:
    """A schedule known in advance: everything in batch 0."""

    def __init__(self, games: list[PlannedGame]):
        self.games = games

    def next_batch(
        self, finished: Sequence[FinishedGame], *, next_index: int, batch: int
    ) -> list[PlannedGame]:
        return self.games if batch == 0 else []

    def stop_reason(self) -> str | None:
        return None
