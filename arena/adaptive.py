"""The adaptive formats: ``elo`` (separate neighbours) and ``sprt`` (two bots, until the
sequential test decides). Each decides its next batch from the games stored so far,
using the rating library in ``arena/ratings``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from arena.config import TournamentConfig
from arena.ratings.adaptive import all_neighbours_separated, pairs_to_schedule
from arena.ratings.data import GameResult
from arena.ratings.elo import EloRatings, fit_elo
from arena.ratings.errors import RatingError
from arena.ratings.multiplayer import pairwise_games
from arena.ratings.pairs import match_statistics
from arena.ratings.sprt import SprtDecision, SprtSettings, sprt
from arena.scheduling import FinishedGame, PlannedGame, Scheduler, rotations, seating_orders
from engines.seeding import derive_seed

PRIOR_DRAWS = 1.0
"""Virtual draws per pair while fitting during an elo tournament, so a bot that won
every game so far still gets a finite rating (as BayesElo's prior)."""


def rating_games(finished: Sequence[FinishedGame]) -> list[GameResult]:
    """Stored games as the ratings see them; a rotation is one deal at one table."""
    return [
        GameResult(
            players=tuple(str(bot) for bot in game.seats),
            ranking=game.ranking,
            group=f"{game.seed}:{sorted(game.seats)}",
        )
        for game in finished
        if len(game.seats) > 1
    ]


def _plan(
    tables: Sequence[tuple[int, ...]], *, seed: int, batch: int, first_index: int
) -> list[PlannedGame]:
    games = []
    index = first_index
    for number, table in enumerate(tables):
        deal = derive_seed(seed, "batch", batch, number)
        orders = seating_orders(table)
        for seating in rotations(orders[batch % len(orders)]):
            games.append(PlannedGame(index, deal, seating, batch))
            index += 1
    return games


class EloScheduler:
    """Fits the ratings after every batch and spends the next batch on the neighbouring
    pairs that are not yet separated at the configured confidence, least certain
    first, until all are separated or the budget is spent."""

    def __init__(self, config: TournamentConfig, bots: Sequence[int]):
        self.seed = config.seed
        self.seats = config.seat_count
        self.settings = config.elo
        self.bots = list(bots)
        self.reason: str | None = None

    def fit(self, finished: Sequence[FinishedGame]) -> EloRatings:
        games = pairwise_games(rating_games(finished), [str(b) for b in self.bots])
        return fit_elo(games, prior_draws=PRIOR_DRAWS, confidence=self.settings.confidence)

    def next_batch(
        self, finished: Sequence[FinishedGame], *, next_index: int, batch: int
    ) -> list[PlannedGame]:
        budget = self.settings.max_games - next_index
        if budget < self.seats:
            self.reason = f"the game budget of {self.settings.max_games} is spent"
            return []
        if not finished:
            tables = list(itertools.combinations(self.bots, self.seats))
        else:
            try:
                ratings = self.fit(finished)
            except RatingError:
                tables = list(itertools.combinations(self.bots, self.seats))
            else:
                if all_neighbours_separated(ratings, confidence=self.settings.confidence):
                    self.reason = (
                        f"every neighbouring pair is separated at "
                        f"{self.settings.confidence:.0%} after {len(finished)} games"
                    )
                    return []
                tables = self._tables_for(ratings)
        size = min(self.settings.batch, budget)
        rounds = max(1, size // (len(tables) * self.seats))
        chosen = [table for _ in range(rounds) for table in tables]
        chosen = chosen[: max(1, min(len(chosen), budget // self.seats))]
        return _plan(chosen, seed=self.seed, batch=batch, first_index=next_index)

    def _tables_for(self, ratings: EloRatings) -> list[tuple[int, ...]]:
        order = [int(name) for name in ratings.order()]
        tables = []
        for pair in pairs_to_schedule(ratings, confidence=self.settings.confidence):
            higher, lower = int(pair.higher), int(pair.lower)
            table = [higher, lower]
            # Fill the other seats with the bots rated nearest to the pair.
            middle = (order.index(higher) + order.index(lower)) / 2
            others = sorted(
                (b for b in order if b not in table), key=lambda b: abs(order.index(b) - middle)
            )
            table.extend(others[: self.seats - 2])
            tables.append(tuple(table))
        return tables

    def stop_reason(self) -> str | None:
        return self.reason


class SprtScheduler:
    """Plays pairs of games (one deal, both seatings) in batches until the SPRT on the
    pentanomial results accepts H0 or H1, or the budget is spent."""

    def __init__(self, config: TournamentConfig, bots: Sequence[int]):
        self.seed = config.seed
        self.settings = config.sprt
        self.test = SprtSettings(
            elo0=config.sprt.elo0,
            elo1=config.sprt.elo1,
            alpha=config.sprt.alpha,
            beta=config.sprt.beta,
        )
        self.first, self.second = bots[0], bots[1]
        self.reason: str | None = None

    def next_batch(
        self, finished: Sequence[FinishedGame], *, next_index: int, batch: int
    ) -> list[PlannedGame]:
        if finished:
            statistics = match_statistics(rating_games(finished), str(self.first), str(self.second))
            result = sprt(statistics, self.test)
            if result.decision is not SprtDecision.CONTINUE:
                self.reason = (
                    f"SPRT accepted {result.decision.value} after {len(finished)} games: "
                    f"LLR {result.llr:.2f}, bounds [{result.lower_bound:.2f}, "
                    f"{result.upper_bound:.2f}]"
                )
                return []
        budget = self.settings.max_games - next_index
        if budget < 2:
            self.reason = f"the game budget of {self.settings.max_games} is spent undecided"
            return []
        pairs = max(1, min(self.settings.batch, budget) // 2)
        return _plan(
            [(self.first, self.second)] * pairs,
            seed=self.seed,
            batch=batch,
            first_index=next_index,
        )

    def stop_reason(self) -> str | None:
        return self.reason


def adaptive_scheduler(config: TournamentConfig, bots: Sequence[int]) -> Scheduler:
    """The scheduler of an ``elo`` or ``sprt`` tournament (``bots`` by position)."""
    if config.format == "sprt":
        return SprtScheduler(config, bots)
    return EloScheduler(config, bots)
