"""``arena bench solver``: the Blumengarten solver over many random deals.

Each deal is solved in a worker process of its own pool slot with its own time budget,
``jobs`` deals at a time. Deal ``i`` is the one dealt from ``derive_seed(seed, i)``,
the same deals ``arena solitaire`` plays.
"""

from __future__ import annotations

import multiprocessing
import statistics
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.play.solitaire import deal_seed
from bots.blumengarten.search import solve
from engines.blumengarten import BlumengartenState
from engines.registry import get_game

SOLVABLE_GAMES = ("blumengarten",)


@dataclass(frozen=True)
class DealResult:
    """The solver's answer for one deal."""

    index: int
    seed: int
    status: str
    seconds: float
    nodes: int
    score: int
    moves: int


@dataclass(frozen=True)
class SolverBenchSummary:
    results: tuple[DealResult, ...]

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    def share(self, status: str) -> float:
        return self.count(status) / len(self.results)

    @property
    def won_seconds(self) -> list[float]:
        return sorted(r.seconds for r in self.results if r.status == "won")

    @property
    def median_won_seconds(self) -> float | None:
        times = self.won_seconds
        return statistics.median(times) if times else None

    @property
    def nodes_per_second(self) -> float:
        seconds = sum(r.seconds for r in self.results)
        return sum(r.nodes for r in self.results) / seconds if seconds else 0.0


def solve_deal(
    game_name: str, options: Mapping[str, Any], index: int, seed: int, timeout: float
) -> DealResult:
    """Solve deal ``index`` of the series from ``seed`` (runs in a worker process)."""
    game = get_game(game_name)
    seed_of_deal = deal_seed(seed, index)
    state = game.new_initial_state(seed=seed_of_deal, options=dict(options))
    assert isinstance(state, BlumengartenState)
    result = solve(state, time_limit=timeout)
    return DealResult(
        index=index,
        seed=seed_of_deal,
        status=result.status,
        seconds=result.seconds,
        nodes=result.nodes,
        score=result.score,
        moves=len(result.line),
    )


def run_solver_bench(
    game_name: str,
    *,
    deals: int,
    timeout: float,
    seed: int,
    jobs: int,
    options: Mapping[str, Any] | None = None,
    on_result: Callable[[DealResult], None] | None = None,
) -> SolverBenchSummary:
    """Solve ``deals`` random deals, ``jobs`` at a time, each within ``timeout`` seconds.

    Raises:
        ArenaError: a game without a solver, or a non-positive count, time or job number.
        GameError: bad options.
    """
    game = get_game(game_name)
    if game.name not in SOLVABLE_GAMES:
        raise ArenaError(f"no solver for {game.name!r} (solvers: {', '.join(SOLVABLE_GAMES)})")
    if deals < 1 or timeout <= 0 or jobs < 1:
        raise ArenaError(
            f"--deals and --jobs must be at least 1 and --timeout positive "
            f"(got {deals}, {jobs}, {timeout})"
        )
    parsed = game.options_to_dict(game.parse_options(options))
    results: list[DealResult] = []
    # spawn: a fresh interpreter per worker, never a fork of a process with threads
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [
            pool.submit(solve_deal, game.name, parsed, index, seed, timeout)
            for index in range(deals)
        ]
        for future in as_completed(futures):
            result = future.result()
            results.append(result)
            if on_result is not None:
                on_result(result)
    results.sort(key=lambda r: r.index)
    return SolverBenchSummary(tuple(results))
