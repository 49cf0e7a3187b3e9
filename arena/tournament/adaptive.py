"""The adaptive formats: ``elo`` (separate neighbours) and ``sprt`` (two bots, until the
sequential test decides). Each decides its next batch from the games stored so far,
using the rating library in ``arena/ratings``; the ``sprt`` test itself
(:class:`PairedSprt`) is checked after every pair of games.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.play.results import FinishedGame, PlannedGame
from arena.ratings.adaptive import all_neighbours_separated, pairs_to_schedule
from arena.ratings.data import GameResult
from arena.ratings.elo import EloRatings, fit_elo
from arena.ratings.errors import RatingError
from arena.ratings.multiplayer import pairwise_games
from arena.ratings.pairs import Pentanomial, game_score, pair_category
from arena.ratings.sprt import SprtDecision, SprtResult, SprtSettings, sprt, sprt_sequence
from arena.store.tally import IndexedGame, Standing, StoredGame, standing
from arena.tournament.scheduling import rotations, seating_orders
from engines.seeding import derive_seed

if TYPE_CHECKING:
    from arena.tournament.config import TournamentConfig

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


@dataclass(frozen=True)
class SprtState:
    """:class:`PairedSprt` as data: the counts and LLR so far, the pairs and games
    taken, the next game's index, the games stored out of order (``waiting``) and the
    first games of the pairs under way (``open``)."""

    counts: Pentanomial
    llr: float
    pairs: int
    games_seen: int
    next_index: int
    waiting: tuple[StoredGame, ...]
    open: tuple[StoredGame, ...]


def _counted(game: IndexedGame) -> StoredGame:
    """What the test reads of ``game`` (the record left out; no tournament)."""
    return StoredGame(
        0,
        game.index,
        game.seed,
        game.seats,
        game.ranking,
        game.returns,
        game.termination,
        game.offender,
        game.reason,
        game.status,
    )


class PairedSprt:
    """The SPRT of a ``sprt`` tournament, from the candidate's side, checked after
    every pair of games in schedule order.

    A pair is the two games of one deal, seats swapped. The pairs enter the test in
    the order their games were scheduled: a pair is taken once it and every game
    scheduled before it are stored, so the test is the same whatever order the games
    finished in (and the order of play, which may depend on the results, cannot bias
    it). A pair counts when both its games are rated (``arena/store/tally.py``); a pair with
    an unplayed game or a host fault is left out. The test stops at the first pair whose
    LLR reaches a bound; games stored after it count in the standings only.

    The driver feeds it games as they finish and the report feeds it the stored games:
    both see the same test.
    """

    def __init__(
        self,
        candidate: int,
        baseline: int,
        settings: SprtSettings,
        builtin: Collection[int],
        *,
        labels: tuple[str, str] = ("candidate", "baseline"),
    ):
        self.candidate, self.baseline = candidate, baseline
        self.settings = settings
        self.builtin = frozenset(builtin)
        self.labels = labels
        self.result = sprt(Pentanomial(), settings)
        self.pairs = 0
        """Pairs in the test."""
        self.games_seen = 0
        """Games taken in schedule order (every status), up to the decision."""
        self._next_index = 0
        self._waiting: dict[int, IndexedGame] = {}
        self._open: dict[tuple[int, tuple[int, ...]], IndexedGame] = {}

    @property
    def decided(self) -> bool:
        return self.result.decision is not SprtDecision.CONTINUE

    def add(self, games: Iterable[IndexedGame]) -> SprtResult:
        """Take newly stored games (any order, any status); returns the test's state.

        Raises RatingError when a game is not between the two bots.
        """
        for game in games:
            if game.index >= self._next_index:
                self._waiting[game.index] = game
        if self.decided:
            return self.result
        results: list[str] = []
        seen_at: list[int] = []
        while self._next_index in self._waiting:
            game = self._waiting.pop(self._next_index)
            self._next_index += 1
            self.games_seen += 1
            key = (game.seed, tuple(sorted(game.seats)))
            first = self._open.pop(key, None)
            if first is None:
                self._open[key] = game
                continue
            category = self._category(first, game)
            if category is not None:
                results.append(category)
                seen_at.append(self.games_seen)
        if results:
            self.result, used = sprt_sequence(results, self.settings, before=self.result.counts)
            self.pairs += used
            if self.result.decision is not SprtDecision.CONTINUE:
                self.games_seen = seen_at[used - 1]
        return self.result

    def running_state(self) -> SprtState:
        """What :meth:`resume_from` needs to go on testing where this left off, as data."""
        counts = self.result.counts
        assert isinstance(counts, Pentanomial)
        return SprtState(
            counts,
            self.result.llr,
            self.pairs,
            self.games_seen,
            self._next_index,
            tuple(map(_counted, self._waiting.values())),
            tuple(map(_counted, self._open.values())),
        )

    def check(self, state: SprtState) -> None:
        """Raises RatingError for a state that is not one of this test: a negative
        count, an LLR that is not a finite number, a game not between the two bots, or
        waiting although taken already (or the reverse)."""
        counts = (*state.counts.counts(), state.pairs, state.games_seen, state.next_index)
        if min(counts) < 0 or not math.isfinite(state.llr):
            raise RatingError(f"counts {counts} and LLR {state.llr} of no test")
        bots = sorted((self.candidate, self.baseline))
        for waiting, games in ((True, state.waiting), (False, state.open)):
            for game in games:
                if sorted(game.seats) != bots:
                    raise RatingError(f"game {game.index} seats {game.seats!r}, not the SPRT's")
                if (game.index >= state.next_index) != waiting:
                    raise RatingError(
                        f"game {game.index} is {'' if waiting else 'not '}waiting, "
                        f"but the next game is {state.next_index}"
                    )

    def resume_from(self, state: SprtState) -> None:
        """Take up a :meth:`running_state`, as if its games were added.

        Raises RatingError for a state that is not one of this test (:meth:`check`).
        """
        self.check(state)
        self.result = SprtResult(
            self.settings.decide(state.llr),
            state.llr,
            self.settings.lower_bound,
            self.settings.upper_bound,
            self.settings,
            state.counts,
        )
        self.pairs, self.games_seen = state.pairs, state.games_seen
        self._next_index = state.next_index
        self._waiting = {game.index: game for game in state.waiting}
        self._open = {(game.seed, tuple(sorted(game.seats))): game for game in state.open}

    def _category(self, first: IndexedGame, second: IndexedGame) -> str | None:
        """The pair's pentanomial category from the candidate's side, or None when it
        does not count."""
        scores = []
        for game in (first, second):
            if set(game.seats) != {self.candidate, self.baseline} or len(game.seats) != 2:
                raise RatingError(
                    f"game {game.index} seats {game.seats!r}, not the SPRT's two bots"
                )
            if standing(game, self.builtin) is not Standing.RATED:
                return None
            seat = game.seats.index(self.candidate)
            scores.append(game_score(game.ranking[seat], game.ranking[1 - seat]))
        return pair_category(*scores)

    def describe(self) -> str:
        """The test's state in one line, as reports and the stop reason print it."""
        r = self.result
        candidate, baseline = self.labels
        counts = r.counts
        pairs = f"{self.pairs} pairs ({2 * self.pairs} games)"
        hypotheses = (
            f"H0 elo0={self.settings.elo0:g}, H1 elo1={self.settings.elo1:g} "
            f"(normalised Elo of {candidate} over {baseline}), "
            f"α={self.settings.alpha:g} β={self.settings.beta:g}"
        )
        state = (
            f"LLR {r.llr:.2f} in [{r.lower_bound:.2f}, {r.upper_bound:.2f}] after {pairs}, "
            f"pentanomial {' '.join(str(c) for c in counts.counts())}"
            if isinstance(counts, Pentanomial)
            else f"LLR {r.llr:.2f} after {pairs}"
        )
        if r.decision is SprtDecision.CONTINUE:
            return f"SPRT {hypotheses}: {state}: continue"
        return f"SPRT {hypotheses}: {r.decision.value} accepted, {state}"


class SprtScheduler:
    """Plays pairs of games (one deal, both seatings) in batches until the paired SPRT
    (:class:`PairedSprt`, which the driver feeds game by game) decides, or the budget
    is spent."""

    def __init__(self, config: TournamentConfig, bots: Sequence[int], test: PairedSprt):
        self.seed = config.seed
        self.settings = config.sprt
        self.test = test
        self.first, self.second = bots[0], bots[1]
        self.reason: str | None = None

    def next_batch(
        self, finished: Sequence[FinishedGame], *, next_index: int, batch: int
    ) -> list[PlannedGame]:
        if self.test.decided:
            self.reason = self.test.describe()
            return []
        budget = self.settings.max_games - next_index
        if budget < 2:
            self.reason = (
                f"the game budget of {self.settings.max_games} is spent undecided: "
                f"{self.test.describe()}"
            )
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


def sprt_settings(config: TournamentConfig) -> SprtSettings:
    """The test of a ``sprt`` configuration."""
    return SprtSettings(
        elo0=config.sprt.elo0,
        elo1=config.sprt.elo1,
        alpha=config.sprt.alpha,
        beta=config.sprt.beta,
    )
