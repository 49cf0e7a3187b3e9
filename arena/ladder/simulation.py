"""Ladders and version tests on simulated games, for the tests and the benchmarks.

Games are two-seat rotations drawn from known ("true") Elo ratings as
:mod:`arena.ratings.simulate` draws them: one deal played twice with the seats
swapped, the deal favouring one seat by a random amount, so the two games of a
rotation are correlated while their mean follows the Bradley–Terry expectation.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit

from arena.ladder.errors import LadderError
from arena.ladder.matchmaking import LadderBot, LadderView, next_pairings
from arena.ladder.rating import GameTriple, IncrementalElo, LadderRating
from arena.ratings.data import DRAW, LOSS, WIN, FloatArray
from arena.ratings.elo import ELO_PER_LOGIT
from arena.ratings.simulate import game_probabilities


def rotation_scores(
    elo_difference: float | FloatArray,
    rng: np.random.Generator,
    *,
    draw_rate: float = 0.2,
    seat_effect: float = 0.5,
) -> tuple[FloatArray, FloatArray]:
    """The first player's scores in the two games of rotations (first seat, then
    swapped) against an opponent ``elo_difference`` weaker, one rotation per entry.

    Raises LadderError for a rate outside 0..1.
    """
    if not (0.0 <= draw_rate <= 1.0 and 0.0 <= seat_effect <= 1.0):
        raise LadderError(f"draw_rate {draw_rate!r} and seat_effect {seat_effect!r} need 0..1")
    expected = np.atleast_1d(expit(np.asarray(elo_difference, dtype=float) / ELO_PER_LOGIT))
    shift = rng.uniform(-seat_effect, seat_effect, expected.size) * np.minimum(
        expected, 1.0 - expected
    )
    scores = []
    for first_expected in (expected + shift, expected - shift):
        win, draw, _ = game_probabilities(first_expected, draw_rate)
        roll = rng.random(expected.size)
        scores.append(np.where(roll < win, WIN, np.where(roll < win + draw, DRAW, LOSS)))
    return scores[0], scores[1]


@dataclass
class SimulatedLadder:
    """A two-seat ladder whose games follow ``true_elo``: matchmaking by
    :func:`next_pairings`, ratings by :class:`IncrementalElo`, every pairing played as
    one rotation (two games).

    Attributes:
        true_elo: each bot's true strength, by id.
        owner: each bot's owner, by id.
        owner_budget, ladder_budget, placement_games: as :class:`LadderView` takes them.
        draw_rate, seat_effect: as :func:`rotation_scores` takes them.
        ratings: the latest refit.
        charged: games charged to each owner (the first bot's owner of each pairing).
        played: games played by each bot.
    """

    true_elo: dict[int, float] = field(default_factory=dict)
    owner: dict[int, str] = field(default_factory=dict)
    owner_budget: int | None = None
    ladder_budget: int | None = None
    placement_games: int = 20
    draw_rate: float = 0.2
    seat_effect: float = 0.5
    elo: IncrementalElo = field(default_factory=IncrementalElo)
    ratings: dict[int, LadderRating] = field(default_factory=dict)
    charged: Counter[str] = field(default_factory=Counter)
    played: Counter[int] = field(default_factory=Counter)
    _created: dict[int, int] = field(default_factory=dict)
    _rotations: int = 0

    def add_bot(self, bot: int, owner: str, true_elo: float) -> None:
        """Register a bot. Raises LadderError for an id already on the ladder."""
        if bot in self.true_elo:
            raise LadderError(f"bot {bot!r} is already on the ladder")
        self.true_elo[bot] = true_elo
        self.owner[bot] = owner
        self._created[bot] = len(self._created)

    def view(self) -> LadderView:
        """The ladder as matchmaking sees it now."""
        bots = []
        for bot, owner in self.owner.items():
            rating = self.ratings.get(bot)
            bots.append(
                LadderBot(
                    id=bot,
                    owner=owner,
                    rating=rating.elo if rating else None,
                    lower=rating.lower if rating else None,
                    upper=rating.upper if rating else None,
                    games=self.played[bot],
                    created=self._created[bot],
                )
            )
        return LadderView(
            tuple(bots),
            owner_games=dict(self.charged),
            owner_budget=self.owner_budget,
            ladder_games=self.elo.games,
            ladder_budget=self.ladder_budget,
            placement_games=self.placement_games,
        )

    def step(self, pairings: int, rng: np.random.Generator) -> int:
        """Ask matchmaking for ``pairings`` pairings, play them, refit. Returns the
        pairings played (fewer when budgets ran out)."""
        chosen = next_pairings(self.view(), pairings, rng)
        if not chosen:
            return 0
        difference = np.array([self.true_elo[a] - self.true_elo[b] for a, b in chosen])
        first, swapped = rotation_scores(
            difference, rng, draw_rate=self.draw_rate, seat_effect=self.seat_effect
        )
        games: list[GameTriple] = []
        rotations: list[int] = []
        for (a, b), one, two in zip(chosen, first, swapped, strict=True):
            games += [(a, b, float(one)), (a, b, float(two))]
            rotations += [self._rotations, self._rotations]
            self._rotations += 1
            self.charged[self.owner[a]] += 2
            self.played[a] += 2
            self.played[b] += 2
        self.elo.add_games(games, rotations)
        self.ratings = self.elo.refit()
        return len(chosen)

    def order(self) -> list[int]:
        """Rated bots from the highest rating down."""
        return sorted(self.ratings, key=lambda bot: -self.ratings[bot].elo)


def version_test_pairs(
    elo_difference: float,
    pairs: int,
    rng: np.random.Generator,
    *,
    draw_rate: float = 0.2,
    seat_effect: float = 0.5,
) -> list[tuple[float, float]]:
    """A candidate's scores in ``pairs`` rotations against a baseline
    ``elo_difference`` weaker (negative: stronger)."""
    first, swapped = rotation_scores(
        np.full(pairs, elo_difference), rng, draw_rate=draw_rate, seat_effect=seat_effect
    )
    return [(float(a), float(b)) for a, b in zip(first, swapped, strict=True)]
