"""A tournament at scale: the driver's memory and speed from the first game to the last.

One round robin of ``games`` games per pairing into a fresh SQLite database, every
record stored, in this process: the tournament created (a round robin's schedule is
generated from its seed, not written), the run interrupted part-way (as
a killed or stopped driver would be) and resumed, and along the way the driver's
resident memory and the games stored, at every flush. From them: the peak memory, the
games per second of the first and the last 10% of the games, and how long the resume
took to store its first game.
"""

from __future__ import annotations

import io
import resource
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from arena.bench.service import create_round_robin
from arena.report.build import record_final_ratings
from arena.store.db import open_database
from arena.tournament.driver import TournamentRunner


def resident_mb() -> float:
    """This process's resident memory now, in MB (Linux ``/proc``)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 1e6


def peak_resident_mb() -> float:
    """This process's peak resident memory so far, in MB (``ru_maxrss`` is in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


@dataclass
class ScaleRun:
    games: int
    schedule_seconds: float
    """Creating the tournament and writing its schedule."""
    resume_first_store_seconds: float
    """From constructing the resuming runner to its first stored batch."""
    samples: list[tuple[float, int, float]] = field(default_factory=list)
    """(seconds since play began, games stored, resident MB) at every flush."""
    peak_before_snapshot_mb: float = 0.0
    """Peak resident memory up to the last flush of play."""
    peak_mb: float = 0.0
    """Peak resident memory at the end, the completion's rating snapshot included."""
    snapshot_seconds: float = 0.0
    """From the last flush of play to the end of the run (storing the last batch, the
    final status and the rating snapshot)."""

    def seconds_to(self, stored: int) -> float:
        """When the stored count first reached ``stored``."""
        return next(at for at, count, _ in self.samples if count >= stored)

    def rate(self, start: float, end: float) -> float:
        """Games per second between the fractions ``start`` and ``end`` of the games
        (0: from the start of play)."""
        first, last = round(self.games * start), round(self.games * end)
        began = self.seconds_to(first) if first else 0.0
        return (last - first) / (self.seconds_to(last) - began)

    def resident_at(self, fraction: float) -> float:
        stored = round(self.games * fraction)
        return next(mb for _, count, mb in self.samples if count >= stored)


def tournament_scale(
    *,
    game: str,
    bots: list[str],
    games: int,
    executor: str,
    workers: int,
    interrupt_at: float = 0.5,
    seed: int = 1,
    folder: Path | None = None,
    rating_interval: int = 1_000,
) -> ScaleRun:
    """Run one round robin of ``games`` games per pairing, stopped after
    ``interrupt_at`` of its games (as Ctrl-C stops it) and resumed.

    The last flush of play stores at most a second's games, so the samples end within
    a second of the last game."""
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        engine = open_database(str(Path(tmp) / "scale.db"))
        started = time.perf_counter()
        tournament_id = create_round_robin(
            engine,
            game=game,
            bots=bots,
            games=games,
            seed=seed,
            executor=executor,
            workers=workers,
            name="scale",
        )
        schedule_seconds = time.perf_counter() - started
        samples: list[tuple[float, int, float]] = []
        base = 0
        stop_at = round(interrupt_at * games * len(bots) * (len(bots) - 1) / 2)
        play_started = time.perf_counter()

        def record(stored: int) -> None:
            samples.append((time.perf_counter() - play_started, base + stored, resident_mb()))
            peaks.append(peak_resident_mb())
            if base == 0 and stop_at and stored >= stop_at:
                raise KeyboardInterrupt  # the runner stops as on Ctrl-C

        peaks: list[float] = []

        def runner() -> TournamentRunner:
            return TournamentRunner(
                engine,
                tournament_id,
                console=Console(file=io.StringIO()),
                on_flush=record,
                on_completed=record_final_ratings,
                rating_interval=rating_interval,
                executor=executor,
                workers=workers,
            )

        first = runner().run()
        base = first.stored
        resume_index = len(samples)
        resume_started = time.perf_counter()
        resumed = runner()
        summary = resumed.run()
        ended = time.perf_counter() - play_started
        engine.dispose()
    resume_first_flush = samples[resume_index][0] + play_started
    run = ScaleRun(
        games=summary.scheduled,
        schedule_seconds=schedule_seconds,
        resume_first_store_seconds=resume_first_flush - resume_started,
        samples=samples,
        peak_before_snapshot_mb=peaks[-1],
        peak_mb=peak_resident_mb(),
        snapshot_seconds=ended - samples[-1][0],
    )
    if summary.stored != summary.scheduled:
        raise AssertionError(f"stored {summary.stored} of {summary.scheduled} games")
    return run
