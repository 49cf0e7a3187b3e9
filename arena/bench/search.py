"""Benchmarks of the search bots behind ``arena bench mcts`` and ``arena bench
opening-solve``: plain functions returning measurements."""

from __future__ import annotations

import itertools
import random
import statistics
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from bots.base import GameInfo
from bots.ismcts import IsMctsBot
from bots.koenigsgarten.solver import Position, Solver
from bots.mcts import MctsBot
from bots.registry import UnknownBotError, make_bot, parse_bot_spec
from engines.core import Game, State
from engines.koenigsgarten import GARDEN_CARDS
from engines.seeding import derive_seed


@dataclass(frozen=True)
class SearchSpeed:
    """Iterations per second of a search bot over sampled positions of one game."""

    game: str
    seats: int
    bot: str
    positions: int
    iterations: int
    seconds: float
    per_position: tuple[float, ...]
    """Iterations per second at each position."""

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.seconds

    @property
    def median(self) -> float:
        return statistics.median(self.per_position)


def sample_positions(game: Game, seats: int, count: int, seed: int) -> list[State]:
    """``count`` positions where the seat to move has a choice: each from a fresh deal,
    played at random for a random share (0–80%) of a random game's length."""
    return list(itertools.islice(iter_positions(game, seats, seed), count))


def iter_positions(game: Game, seats: int, seed: int) -> Iterator[State]:
    """The positions of :func:`sample_positions`, without end."""
    rng = random.Random(seed)
    index = 0
    while True:
        index += 1
        deal_seed = derive_seed(seed, index)
        full = game.new_initial_state(seed=deal_seed, seats=seats)
        while not full.is_terminal():
            legal = full.legal_actions()
            full.apply_unchecked(legal[rng.randrange(len(legal))])
        stop = rng.randrange(max(1, int(0.8 * len(full.history))))
        state = game.new_initial_state(seed=deal_seed, seats=seats)
        for _, action in full.history[:stop]:
            state.apply_unchecked(action)
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            yield state


def search_speed(
    game: Game,
    seats: int,
    bot_spec: str,
    *,
    positions: int = 20,
    seconds: float = 1.0,
    seed: int = 0,
) -> SearchSpeed:
    """Let the bot ``bot_spec`` (``mcts``, ``ismcts:playout=random`` …) think for
    ``seconds`` at each of ``positions`` sampled positions and count its iterations.
    Positions where the bot decides without searching (Kardinal by turns: a stone, or
    a single plan) are passed over for the next sampled one.

    Raises:
        UnknownBotError: ``bot_spec`` is no tree search bot for ``game``, or has a
            bad parameter.
    """
    kind, params = parse_bot_spec(bot_spec)
    overrides: Mapping[str, Any] = {"iterations": 10**9, "seconds": seconds}
    total_iterations = 0
    total_seconds = 0.0
    rates: list[float] = []
    for number, state in enumerate(iter_positions(game, seats, seed)):
        if len(rates) == positions or number >= 50 * positions:
            break
        bot = make_bot(kind, game.name, {**params, **overrides})
        if not isinstance(bot, MctsBot | IsMctsBot):
            raise UnknownBotError(f"{bot_spec!r} is not a Monte Carlo tree search bot")
        seat = state.current_seat
        bot.new_game(GameInfo(game, {}, seat, seats, derive_seed(seed, number)))
        start = time.perf_counter()
        bot.act(state.observation(seat), state.legal_actions(), None)
        elapsed = time.perf_counter() - start
        if bot.last_iterations == 0:
            continue
        total_iterations += bot.last_iterations
        total_seconds += elapsed
        rates.append(bot.last_iterations / elapsed)
    return SearchSpeed(
        game.name, seats, bot_spec, positions, total_iterations, total_seconds, tuple(rates)
    )


@dataclass(frozen=True)
class OpeningSolves:
    """Exact opening solves of random Königsgarten layouts (all 12 first cards)."""

    seconds: tuple[float, ...]
    values: tuple[int, ...]
    """The first player's value of each layout: WIN, DRAW or LOSS."""
    positions: int
    """Positions searched in all."""

    def share(self, value: int) -> float:
        return self.values.count(value) / len(self.values)

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.seconds)

    def quantile_seconds(self, fraction: float) -> float:
        ordered = sorted(self.seconds)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def opening_solves(layouts: int, seed: int = 0) -> OpeningSolves:
    """Solve the values of all 12 first cards of ``layouts`` random layouts, each with a
    fresh solver (no table shared between layouts), timing each."""
    seconds = []
    values = []
    positions = 0
    for index in range(layouts):
        layout = list(GARDEN_CARDS)
        random.Random(derive_seed(seed, index)).shuffle(layout)
        start = time.perf_counter()
        solver = Solver(layout)
        first_moves = solver.action_values(Position(0, 0, -1))
        seconds.append(time.perf_counter() - start)
        values.append(max(first_moves.values()))
        positions += solver.nodes
    return OpeningSolves(tuple(seconds), tuple(values), positions)
