"""``arena bench live``: what the live statistics cost the driver per game.

The driver feeds every finished game to :class:`arena.tournament.progress.LiveStatistics` (and,
in a ``sprt``, to the test) and refits every ``interval`` rated games. This times that
work alone, on stored-looking games of a round robin between ``bots`` bots (two seats,
rotations of two games, Bradley–Terry results), so the figure can be set against the
driver's time per game measured by ``arena bench tournament --rating-interval …``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from arena.play.results import GameStatus
from arena.store.tally import Standing, StoredGame
from arena.tournament.progress import LiveStatistics


@dataclass(frozen=True)
class LiveCost:
    games: int
    bots: int
    interval: int
    seconds: float
    refits: int
    last_refit_seconds: float
    """One refit after every game was added: its cost does not grow with the games."""

    @property
    def microseconds_per_game(self) -> float:
        return 1e6 * self.seconds / self.games


def live_cost(*, games: int, bots: int, interval: int, seed: int = 0) -> LiveCost:
    """Feed ``games`` games to the live statistics refitting every ``interval`` games."""
    rng = random.Random(seed)
    strengths = [rng.uniform(-200.0, 200.0) for _ in range(bots)]
    pairs = [(a, b) for a in range(bots) for b in range(a + 1, bots)]
    stored = []
    for index in range(games):
        deal, second = divmod(index, 2)
        a, b = pairs[deal % len(pairs)]
        first, other = (a, b) if not second else (b, a)
        expected = 1.0 / (1.0 + 10 ** ((strengths[other] - strengths[first]) / 400.0))
        ranking = (1, 2) if rng.random() < expected else (2, 1)
        stored.append(
            StoredGame(
                1,
                index,
                deal,
                (first, other),
                ranking,
                (0.0, 0.0),
                "end",
                None,
                None,
                GameStatus.OK,
            )
        )
    statistics = LiveStatistics(
        {bot: f"bot-{bot}" for bot in range(bots)}, seats=2, interval=interval
    )
    refits = 0
    started = time.perf_counter()
    for game in stored:
        statistics.add(game, Standing.RATED, tournament=1)
        refits += bool(statistics.take_lines())
    seconds = time.perf_counter() - started
    probe = time.perf_counter()
    statistics.refit()
    return LiveCost(games, bots, interval, seconds, refits, time.perf_counter() - probe)
