"""Live progress of a running tournament: a bar and, on long runs, a top-5 standing."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

STANDINGS_AFTER_SECONDS = 5.0
TOP = 5


def game_points(ranking: tuple[int, ...], seat: int) -> float:
    """A seat's share of the opponents it beat (ties count half): 1 win, 0.5 draw, 0 loss
    for two players; for k players the fraction of the other k-1 it finished ahead of."""
    others = len(ranking) - 1
    if others == 0:
        return 1.0 if ranking[seat] == 1 else 0.0
    mine = ranking[seat]
    beaten = sum(1.0 if mine < r else 0.5 if mine == r else 0.0 for r in ranking) - 0.5
    return beaten / others


@dataclass
class Tally:
    games: int = 0
    points: float = 0.0
    score_sum: float = 0.0
    forfeits: int = 0

    @property
    def score_percent(self) -> float:
        return 100.0 * self.points / self.games if self.games else 0.0


@dataclass
class Standings:
    """Running totals per bot from finished games (ranking-based, any seat count)."""

    labels: Mapping[int, str]
    tallies: dict[int, Tally] = field(default_factory=dict)

    def add(
        self,
        seats: tuple[int, ...],
        ranking: tuple[int, ...],
        returns: tuple[float, ...],
        offender: int | None,
    ) -> None:
        for seat, bot in enumerate(seats):
            tally = self.tallies.setdefault(bot, Tally())
            tally.games += 1
            tally.points += game_points(ranking, seat)
            tally.score_sum += returns[seat]
            tally.forfeits += offender == seat

    def top(self, count: int = TOP) -> list[tuple[str, Tally]]:
        ordered = sorted(self.tallies.items(), key=lambda item: -item[1].score_percent)
        return [(self.labels.get(bot, str(bot)), tally) for bot, tally in ordered[:count]]

    def table(self, count: int = TOP, *, solitaire: bool = False) -> Table:
        table = Table(title=f"top {count}", show_edge=False, pad_edge=False)
        for column in ("#", "bot", "games", "mean score" if solitaire else "score %", "forfeits"):
            table.add_column(column, justify="left" if column == "bot" else "right")
        ranked = (
            sorted(self.tallies.items(), key=lambda i: -(i[1].score_sum / max(1, i[1].games)))
            if solitaire
            else sorted(self.tallies.items(), key=lambda i: -i[1].score_percent)
        )
        for place, (bot, tally) in enumerate(ranked[:count], start=1):
            value = (
                f"{tally.score_sum / max(1, tally.games):.2f}"
                if solitaire
                else f"{tally.score_percent:.1f}"
            )
            table.add_row(
                str(place),
                self.labels.get(bot, str(bot)),
                str(tally.games),
                value,
                str(tally.forfeits),
            )
        return table


class ProgressDisplay:
    """Shows done/total, games per second and ETA; adds the standings after a while."""

    def __init__(self, console: Console, title: str, *, solitaire: bool = False):
        self.console = console
        self.solitaire = solitaire
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]} games/s"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
        )
        self.task = self.progress.add_task(title, total=None, rate="–")
        self.live = Live(self.progress, console=console, refresh_per_second=4, transient=False)
        self.started = time.monotonic()
        self.base_done = 0

    def __enter__(self) -> ProgressDisplay:
        if self.console.is_terminal:
            self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.console.is_terminal:
            self.live.__exit__(None, None, None)

    def start(self, done: int, total: int) -> None:
        self.base_done = done
        self.started = time.monotonic()
        self.progress.update(self.task, completed=done, total=total)

    def update(self, done: int, total: int, standings: Standings | None = None) -> None:
        elapsed = time.monotonic() - self.started
        rate = (done - self.base_done) / elapsed if elapsed > 0 else 0.0
        self.progress.update(self.task, completed=done, total=total, rate=f"{rate:,.0f}")
        if (
            standings is not None
            and elapsed >= STANDINGS_AFTER_SECONDS
            and self.console.is_terminal
        ):
            self.live.update(Group(self.progress, standings.table(solitaire=self.solitaire)))
