"""Live progress of a running tournament: a bar, the live statistics and, on long runs,
a top-5 standing. Not on a terminal, progress lines instead of the bar (every tenth of
the run or 30 s) and the standings at the end.

Every ``rating_interval`` rated games the live Elo with its 95% interval (2+ bots) and
the SPRT's LLR against its bounds (``sprt`` tournaments) are refitted and shown under
the bar; when the output is not a terminal (a piped log) each refit is printed as a
line instead, as fastchess does with ``-ratinginterval``. The Elo is kept current game
by game (:class:`arena.ratings.live.LiveElo`), so a refit costs the same at game 100
and at game 100,000 and gives the figures ``arena report`` gives for the same games.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console, Group, RenderableType
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

from arena.ratings import EloRatings, RatingError
from arena.ratings.live import LiveElo, LiveEloState, RotationKey
from arena.store.tally import (
    CountedGame,
    IndexedGame,
    Standing,
    StoredGame,
    Tallies,
    Tally,
    rotation,
)
from arena.tournament.adaptive import PairedSprt

STANDINGS_AFTER_SECONDS = 5.0
PROGRESS_LINE_SECONDS = 30.0
"""Not on a terminal (a piped log), a progress line at least this often while games
finish, and at every tenth of the run."""
TOP = 5
LIVE_ELO_LINES = 8
"""Bots shown in a live Elo line or table (the best by rating)."""
DEFAULT_RATING_INTERVAL = 100
REFIT_SECONDS = 0.5
"""The default interval's refits come at most this often: at thousands of games a second
a refit every 100 games cost the driver more than storing the games' seats, for a view
that redraws four times a second (an interval asked for is kept to the game)."""


class Standings:
    """Running counts per bot from finished games, counted as every report counts."""

    def __init__(self, labels: Mapping[int, str], builtin: Collection[int]):
        self.labels = labels
        self.builtin = frozenset(builtin)
        self.tallies = Tallies()

    def add(self, game: CountedGame) -> Standing:
        """Count ``game``; returns how it counted."""
        return self.tallies.add(game, self.builtin)

    def add_all(self, games: Sequence[CountedGame]) -> list[Standing]:
        """Count ``games`` (a chunk of them), those alike in everything counted (seats,
        places, returns, how they ended) at once; returns how each counted."""
        kinds = [
            (g.seats, g.ranking, g.returns, g.termination, g.offender, g.reason, g.status)
            for g in games
        ]
        times = Counter(kinds)
        counted = dict(zip(times, self.add_kinds(list(times), list(times.values())), strict=True))
        return [counted[kind] for kind in kinds]

    def add_kinds(self, kinds: Sequence[tuple[Any, ...]], times: Sequence[int]) -> list[Standing]:
        """Count ``times[k]`` games of each kind ``kinds[k]`` (its seats, places,
        returns, termination, offender, forfeit reason and status), in that order;
        returns how each kind counted. A chunk of random games holds a few kinds of
        game: counting each kind once costs the driver a microsecond a game instead of
        ten."""
        return [
            self.tallies.add(StoredGame(0, 0, 0, *kind), self.builtin, count)
            for kind, count in zip(kinds, times, strict=True)
        ]

    def ranked(self, *, solitaire: bool = False) -> list[tuple[str, Tally]]:
        """Bots by score % (solitaire: mean score), best first."""

        def key(item: tuple[int, Tally]) -> float:
            return -(item[1].mean_score if solitaire else item[1].score_percent)

        ordered = sorted(self.tallies.bots.items(), key=key)
        return [(self.labels.get(bot, str(bot)), tally) for bot, tally in ordered]

    def table(self, count: int = TOP, *, solitaire: bool = False) -> Table:
        table = Table(title=f"top {count}", show_edge=False, pad_edge=False)
        for column in ("#", "bot", "games", "mean score" if solitaire else "score %", "forfeits"):
            table.add_column(column, justify="left" if column == "bot" else "right")
        for place, (label, tally) in enumerate(self.ranked(solitaire=solitaire)[:count], 1):
            value = f"{tally.mean_score:.2f}" if solitaire else f"{tally.score_percent:.1f}"
            table.add_row(str(place), label, str(tally.games), value, str(tally.forfeit_total))
        return table


@dataclass(frozen=True)
class StatisticsState:
    """:class:`LiveStatistics` as data: the live Elo, the rated games, the one-seat
    deals under way ``(tournament, seed, ((bot, score), …))`` and the games seen of
    each rotation under way."""

    elo: LiveEloState | None
    rated: int
    deals: tuple[tuple[int, int, tuple[tuple[str, float], ...]], ...]
    open: tuple[tuple[RotationKey, int], ...]


class LiveStatistics:
    """The live Elo and SPRT of a run, refitted every ``interval`` rated games.

    ``seats`` is the game's seat count: one-seat games are compared deal by deal (the
    duplicate Elo of the report). ``interval`` 0 turns the statistics off. With
    ``min_seconds`` a refit due sooner than that after the last one is skipped (the
    next one due, or the last, shows the games).
    """

    def __init__(
        self,
        labels: Mapping[int, str],
        *,
        seats: int,
        interval: int,
        sprt: PairedSprt | None = None,
        min_seconds: float = 0.0,
    ):
        self.labels = labels
        self.seats = seats
        self.interval = interval
        self.sprt = sprt
        self.elo = LiveElo([labels[bot] for bot in sorted(labels)]) if len(labels) > 1 else None
        self.rated = 0
        self.ratings: EloRatings | None = None
        self.note: str | None = None
        self._deals: dict[tuple[int, int], dict[str, float]] = {}
        self._open: dict[RotationKey, int] = {}
        """Games seen per rotation not complete yet: a complete one is closed."""
        self._pending: list[str] = []
        self._refitted_at = 0
        self.min_seconds = min_seconds
        self._refitted_when = -math.inf
        self._last_sprt: str | None = None

    @property
    def enabled(self) -> bool:
        return self.interval > 0 and (self.elo is not None or self.sprt is not None)

    def add(
        self, game: IndexedGame, counted: Standing, *, tournament: int, quiet: bool = False
    ) -> None:
        """Take a finished game (``counted`` as the standings counted it); ``quiet``
        takes it without refitting (the games stored before a resumed run)."""
        if not self.enabled:
            return
        if counted is Standing.RATED and self.elo is not None:
            self._add_to_elo(game, tournament)
        if self.elo is not None:
            self._count_towards_rotation(game, tournament)
        if counted is not Standing.RATED:
            return
        self.rated += 1
        if self.rated % self.interval == 0 and not quiet and self._refit_due():
            self.refit()

    def add_all(
        self, games: Sequence[IndexedGame], counted: Sequence[Standing], *, tournament: int
    ) -> None:
        """:meth:`add` for a chunk of games (``counted`` as the standings counted each):
        a table's games of one deal go to the live Elo together, and the refits fall
        on the same games as game by game."""
        numbers: dict[tuple[Any, ...], int] = {}
        kind_of = [
            numbers.setdefault((g.seats, g.ranking, how), len(numbers))
            for g, how in zip(games, counted, strict=True)
        ]
        self.add_kinds(
            [g.seed for g in games],
            kind_of,
            list(numbers),
            tournament=tournament,
            games=lambda: games,
        )

    def add_kinds(
        self,
        seeds: Sequence[int],
        kind_of: Sequence[int],
        kinds: Sequence[tuple[tuple[int, ...], tuple[int, ...], Standing]],
        *,
        tournament: int,
        games: Callable[[], Sequence[IndexedGame]],
    ) -> None:
        """:meth:`add_all` for games given by their deal seeds and kinds: game ``i`` of
        the kind ``kinds[kind_of[i]]``, its seats, places and how it counted (what games
        of two or more seats need; ``games`` gives them whole for games of one seat).
        What a kind gives the live Elo is worked out once, not per game."""
        if not self.enabled:
            return
        if self.elo is None or self.seats == 1:
            for game, kind in zip(games(), kind_of, strict=True):
                self.add(game, kinds[kind][2], tournament=tournament)
            return
        rated = [kinds[kind][2] is Standing.RATED for kind in kind_of]
        # The games at which the rated count reaches a multiple of the interval: a
        # refit, when due, shows the games up to there.
        at = list(itertools.compress(range(1, len(rated) + 1), rated))
        before, start = self.rated, 0
        for number in range((-before - 1) % self.interval, len(at), self.interval):
            self.rated = before + number + 1
            if self._refit_due():
                end = at[number]
                self._add_tables(seeds[start:end], kind_of[start:end], kinds, tournament)
                start = end
                self.refit()
        self.rated = before + len(at)
        self._add_tables(seeds[start:], kind_of[start:], kinds, tournament)

    def _add_tables(
        self,
        seeds: Sequence[int],
        kind_of: Sequence[int],
        kinds: Sequence[tuple[tuple[int, ...], tuple[int, ...], Standing]],
        tournament: int,
    ) -> None:
        """Games of two or more seats (:meth:`add_kinds`) into the live Elo, a rotation
        at a time, and the rotations they complete closed (``rated`` is counted by the
        caller)."""
        assert self.elo is not None
        elo = self.elo
        numbers = {bot: elo.number(label) for bot, label in self.labels.items()}
        given = [
            (
                tuple(sorted(players)),
                _results(players, ranking, numbers) if how is Standing.RATED else [],
            )
            for players, ranking, how in kinds
        ]
        rotations: dict[RotationKey, tuple[list[tuple[int, int, float]], list[int]]] = {}
        for seed, kind in zip(seeds, kind_of, strict=True):
            table, results = given[kind]
            group = (tournament, seed, table)
            held = rotations.get(group)
            if held is None:
                held = rotations[group] = ([], [0])
            held[1][0] += 1
            if results:
                held[0].extend(results)
        size = self.seats
        whole: Counter[tuple[tuple[int, int, float], ...]] = Counter()
        for table_deal, (results, (seen,)) in rotations.items():
            if seen == size and table_deal not in self._open:  # begun and ended here
                whole[tuple(results)] += 1
                continue
            elo.add_numbered(results, table_deal)
            seen += self._open.get(table_deal, 0)
            if seen < size:
                self._open[table_deal] = seen
            else:
                self._open.pop(table_deal, None)
                elo.close(table_deal)
        elo.add_rotations(whole)

    def _add_to_elo(self, game: IndexedGame, tournament: int) -> None:
        assert self.elo is not None
        players = [self.labels[bot] for bot in game.seats]
        if self.seats > 1:
            self.elo.add_game(players, game.ranking, rotation(tournament, game))
            return
        # One seat: compare with every bot that played the same deal, by score.
        seed = game.seed
        deal = self._deals.setdefault((tournament, seed), {})
        mine = game.returns[0]
        self.elo.add_results(
            [
                (players[0], other, 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
                for other, theirs in deal.items()
                if other != players[0]
            ],
            f"{tournament}:{seed}",
        )
        deal[players[0]] = mine

    def _count_towards_rotation(self, game: IndexedGame, tournament: int) -> None:
        """Close the game's rotation once it has all its games, rated or not: one game
        per seat (one seat: one per bot on the deal). Memory then holds the rotations
        under way, not the tournament's."""
        assert self.elo is not None
        if self.seats > 1:
            group: RotationKey = rotation(tournament, game)
            size = self.seats
        else:
            group, size = f"{tournament}:{game.seed}", len(self.labels)
        seen = self._open.get(group, 0) + 1
        if seen < size:
            self._open[group] = seen
            return
        self._open.pop(group, None)
        self.elo.close(group)
        if self.seats == 1:
            self._deals.pop((tournament, game.seed), None)

    def running_state(self) -> StatisticsState:
        """What :meth:`resume_from` needs to go on counting where this left off, as data."""
        return StatisticsState(
            self.elo.running_state() if self.elo is not None else None,
            self.rated,
            tuple((t, seed, tuple(deal.items())) for (t, seed), deal in self._deals.items()),
            tuple(self._open.items()),
        )

    def resume_from(self, state: StatisticsState) -> bool:
        """Take up a :meth:`running_state`, as if its games were added ``quiet``; False
        (nothing taken) when it rates other bots.

        Raises RatingError for a live Elo that is not one (:meth:`LiveElo.resumed`).
        """
        mine = self.elo.players if self.elo is not None else None
        if mine != (state.elo.players if state.elo is not None else None):
            return False
        self.elo = LiveElo.resumed(state.elo) if state.elo is not None else None
        self.rated = state.rated
        self._deals = {(t, seed): dict(deal) for t, seed, deal in state.deals}
        self._open = dict(state.open)
        return True

    def _refit_due(self) -> bool:
        return time.monotonic() - self._refitted_when >= self.min_seconds

    def refit(self) -> None:
        """Refit the Elo now and queue the lines for a piped log."""
        self._refitted_at = self.rated
        self._refitted_when = time.monotonic()
        if self.elo is not None and self.elo.games:
            try:
                self.ratings, regularised = self.elo.fit()
            except RatingError as exc:
                self.ratings, self.note = None, f"no Elo yet: {exc}"
            else:
                self.note = (
                    "with 1 virtual draw per pair: a bot won or lost every game"
                    if regularised
                    else None
                )
            self._pending.append(self.elo_line())
        if self.sprt is not None:
            state = self.sprt.describe()
            if state != self._last_sprt:  # a decided test stays decided: say it once
                self._pending.append(state)
                self._last_sprt = state

    def elo_line(self) -> str:
        """``Elo after 300 games: a@1 +35 ± 20, b@1 −35 ± 20``."""
        head = f"Elo after {self.rated:,} rated games"
        if self.ratings is None:
            return f"{head}: {self.note or 'not enough games'}"
        parts = [
            f"{name} {_signed(self.ratings.rating(name))} ± {_half_width(self.ratings, name):.0f}"
            for name in self.ratings.order()[:LIVE_ELO_LINES]
        ]
        more = len(self.ratings.players) - LIVE_ELO_LINES
        tail = f", … {more} more" if more > 0 else ""
        note = f" ({self.note})" if self.note else ""
        return f"{head}: {', '.join(parts)}{tail}{note}"

    @property
    def stale(self) -> bool:
        """Games arrived since the last refit."""
        return self.enabled and self.rated > self._refitted_at

    def take_lines(self) -> list[str]:
        """The refits not printed yet, as lines."""
        lines, self._pending = self._pending, []
        return lines

    def table(self) -> Table | None:
        """The live statistics for the terminal."""
        if self.ratings is None and self.sprt is None:
            return None
        table = Table(
            title=f"live, after {self.rated:,} rated games", show_edge=False, pad_edge=False
        )
        table.add_column("bot")
        table.add_column("Elo ± 95%", justify="right")
        table.add_column("games", justify="right")
        if self.ratings is not None:
            played = self.ratings.counts.games_played()
            for name in self.ratings.order()[:LIVE_ELO_LINES]:
                i = self.ratings.index(name)
                table.add_row(
                    name,
                    f"{_signed(self.ratings.rating(name))} ± {_half_width(self.ratings, name):.0f}",
                    f"{played[i]:.0f}",
                )
        if self.sprt is not None:
            table.caption = self.sprt.describe()
        return table


def _results(
    players: tuple[int, ...], ranking: tuple[int, ...], numbers: Mapping[int, int]
) -> list[tuple[int, int, float]]:
    """A rated game's results for the live Elo: one per pair of seats of different
    players, by their numbers, the first's score."""
    if len(players) == 2:
        first, second = numbers[players[0]], numbers[players[1]]
        if first == second:
            return []
        mine, theirs = ranking
        return [(first, second, 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)]
    names = [numbers[bot] for bot in players]
    return [
        (names[a], names[b], _score(ranking[a], ranking[b]))
        for a in range(len(names))
        for b in range(a + 1, len(names))
        if names[a] != names[b]
    ]


def _score(mine: int, theirs: int) -> float:
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def _signed(value: float) -> str:
    return f"{value:+.0f}"


def _half_width(ratings: EloRatings, name: str) -> float:
    i = ratings.index(name)
    return float(ratings.upper[i] - ratings.lower[i]) / 2.0


class ProgressDisplay:
    """Shows done/total, games per second and ETA; the live statistics under the bar
    (or as lines when the output is not a terminal); the standings after a while."""

    def __init__(
        self, console: Console, title: str, *, solitaire: bool = False, verbose: bool = False
    ):
        self.console = console
        self.solitaire = solitaire
        self.verbose = verbose
        """A progress line for every batch of games (else: every tenth of the run or
        :data:`PROGRESS_LINE_SECONDS`), on a terminal too."""
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
        self.standings: Standings | None = None
        self._line_at = (0, self.started)
        """Games done and time of the last progress line."""

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

    def update(
        self,
        done: int,
        total: int,
        standings: Standings | None = None,
        statistics: LiveStatistics | None = None,
    ) -> None:
        elapsed = time.monotonic() - self.started
        rate = (done - self.base_done) / elapsed if elapsed > 0 else 0.0
        self.progress.update(self.task, completed=done, total=total, rate=f"{rate:,.0f}")
        self.standings = standings
        lines = statistics.take_lines() if statistics is not None else []
        if (self.verbose or not self.console.is_terminal) and self._line_due(done, total):
            self._line_at = (done, time.monotonic())
            line = _progress_line(done, total, rate, elapsed)
            if self.console.is_terminal:  # above the live view
                self.console.print(line, highlight=False, markup=False, soft_wrap=True)
            else:
                lines.insert(0, line)
        if not self.console.is_terminal:
            for line in lines:
                self.console.print(
                    f"[{done}/{total}] {line}", highlight=False, markup=False, soft_wrap=True
                )
            return
        parts: list[RenderableType] = [self.progress]
        live_table = statistics.table() if statistics is not None else None
        if live_table is not None:
            parts.append(live_table)
        if standings is not None and elapsed >= STANDINGS_AFTER_SECONDS:
            parts.append(standings.table(solitaire=self.solitaire))
        self.live.update(Group(*parts))

    def _line_due(self, done: int, total: int) -> bool:
        last_done, last_time = self._line_at
        if done == last_done:
            return False
        step = max(1, total // 10)
        return (
            self.verbose
            or done >= total
            or done // step > last_done // step
            or time.monotonic() - last_time >= PROGRESS_LINE_SECONDS
        )

    def final(self, statistics: LiveStatistics | None) -> None:
        """Print the last refit when it is not on screen already, and (not on a
        terminal, where the live view showed them) the standings."""
        if statistics is not None and statistics.stale:
            statistics.refit()
            for line in statistics.take_lines():
                self.console.print(line, highlight=False, markup=False, soft_wrap=True)
        if (
            self.standings is not None
            and self.standings.tallies.bots
            and (self.verbose or not self.console.is_terminal)
        ):
            count = len(self.standings.tallies.bots)
            self.console.print(self.standings.table(count, solitaire=self.solitaire))


def _progress_line(done: int, total: int, rate: float, elapsed: float) -> str:
    """``50% 257 games/s, 0:00:01 elapsed, ETA 0:00:01``."""
    left = (total - done) / rate if rate > 0 else None
    eta = "–" if left is None else _clock(left)
    percent = 100 * done // total if total else 100
    return f"{percent}% {rate:,.0f} games/s, {_clock(elapsed)} elapsed, ETA {eta}"


def _clock(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02}:{whole % 60:02}"
