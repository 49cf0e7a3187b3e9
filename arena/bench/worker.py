"""What a tournament's worker spends on a game: ``play_chunk`` of random-vs-random
games and the pickling of its result (what a worker process sends the driver), against
the engine's raw random playout of the same deals, as CPU time in this one process.

The two alternate in slices of a few hundred games, so a machine whose load changes
during the run slows both alike: the ratio holds where the times do not."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler

from arena.play.results import PlannedGame
from arena.players.loader import BUILTIN, BotSource, BotSpec
from arena.tournament.execution import TournamentContext, play_chunk
from engines.registry import get_game


@dataclass(frozen=True)
class WorkerCost:
    games: int
    raw_seconds: float
    """CPU time of the raw playouts: the deal from the seed, random legal actions on
    the unchecked path, one generator for all games."""
    play_seconds: float
    """CPU time of ``play_chunk`` (bots, checks, records, results)."""
    pickle_seconds: float
    """CPU time of pickling the chunks' results as a worker process sends them."""

    @property
    def raw_micros(self) -> float:
        return self.raw_seconds / self.games * 1e6

    @property
    def worker_micros(self) -> float:
        """A game in the worker, its result's pickling included."""
        return (self.play_seconds + self.pickle_seconds) / self.games * 1e6

    @property
    def pickle_micros(self) -> float:
        return self.pickle_seconds / self.games * 1e6

    @property
    def ratio(self) -> float:
        return (self.play_seconds + self.pickle_seconds) / self.raw_seconds


def worker_cost(*, game: str = "koenigsgarten", games: int = 2000, chunk: int = 200) -> WorkerCost:
    """Play ``games`` planned games of two random bots (``random``, ``random:seed=1``)
    in chunks of ``chunk``, each chunk's raw playout just before it. ``game`` must
    be played by one or two seats."""
    rules = get_game(game)
    seats = rules.min_seats
    options = rules.parse_options(None)
    bots = {
        1: BotSpec(1, "random", game, BotSource(BUILTIN, "random")),
        2: BotSpec(2, "random:seed=1", game, BotSource(BUILTIN, "random", {"seed": 1})),
    }
    context = TournamentContext(0, game, {}, seats, bots)
    # Both bots in both seats, as a round robin plays them (a one-seat game: alone).
    planned = [
        PlannedGame(index, 1_000 + index, ((1, 2) if index % 2 else (2, 1))[:seats])
        for index in range(games)
    ]
    play_chunk(context, planned[:chunk])  # load the bots, warm the caches
    rng = random.Random(0)
    raw = play = pickling = 0.0
    for start in range(0, games, chunk):
        part = planned[start : start + chunk]
        began = time.process_time()
        for one in part:
            state = rules.new_initial_state(seed=one.seed, seats=seats, options=options)
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_unchecked(legal[rng.randrange(len(legal))])
        played = time.process_time()
        result = play_chunk(context, part)
        pickled = time.process_time()
        ForkingPickler.dumps(result)
        ended = time.process_time()
        raw += played - began
        play += pickled - played
        pickling += ended - pickled
    return WorkerCost(games, raw, play, pickling)
