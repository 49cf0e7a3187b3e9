"""Tournament reports and leaderboards: the numbers, computed from stored games.

:func:`tournament_report` and :func:`game_leaderboard` read the database and build a
:class:`Report` — plain data that ``arena/report/format.py`` renders as text,
Markdown, HTML, JSON or CSV and ``arena/report/plot.py`` draws. Every count comes from
``arena/store/tally.py`` (which games count, and how); the ratings use the rated games only.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.errors import ArenaError
from arena.play.time_control import TimeClass, config_time_class, describe_config
from arena.play.variant import STANDARD, variant_key
from arena.ratings import (
    EloEstimate,
    EloRatings,
    IntervalMethod,
    MatchStatistics,
    PairwiseGames,
    RatingError,
    SolitaireResult,
    SprtResult,
    duplicate_games,
    fit_elo,
    normalized_elo,
    openskill_ratings,
    parse_anchor,
    solitaire_summaries,
)
from arena.ratings import GameResult as RatedGame
from arena.ratings.data import FloatArray, IntArray
from arena.ratings.elo import FALLBACK_PRIOR_DRAWS, fit_with_fallback
from arena.ratings.multiplayer import seated_pairs
from arena.ratings.pairs import paired_statistics
from arena.store.games import get_tournament, participants
from arena.store.models import BotVersion
from arena.store.sealing import sealed, shown_config
from arena.store.tally import (
    HUMAN_FORMAT,
    BotNames,
    Standing,
    StoredGame,
    Tally,
    bot_names,
    leaderboard_tournaments,
    load_games,
    standing,
    tally_games,
    without_cycle_collection,
)
from arena.tournament.adaptive import PairedSprt, sprt_settings
from arena.tournament.config import validate_config
from arena.tournament.formats import tournament_format
from engines.outcome import Termination
from engines.registry import get_game

SEPARATED_LOS = 0.95
"""Two neighbours in the standings are told apart when the likelihood that the upper
one is stronger reaches this; below it their order is within the noise."""


class ReportError(ArenaError):
    """A report that cannot be made (no games yet, unknown anchor …)."""


@dataclass
class BotLine:
    """One row of the standings: the bot's counts (:class:`arena.store.tally.Tally`) and
    ratings. ``los_next`` is the likelihood that it is stronger than the bot on the
    next row."""

    label: str
    tally: Tally = field(default_factory=Tally)
    role: str | None = None
    suspended: str | None = None
    elo: float | None = None
    elo_low: float | None = None
    elo_high: float | None = None
    los_next: float | None = None
    openskill_mu: float | None = None
    openskill_sigma: float | None = None
    win_rate_low: float | None = None
    win_rate_high: float | None = None

    @property
    def games(self) -> int:
        return self.tally.games

    @property
    def within_noise(self) -> bool:
        """Its order against the next row is not established (LOS below 95%)."""
        return self.los_next is not None and self.los_next < SEPARATED_LOS


@dataclass
class HeadToHead:
    """Row bot's results against the column bot (decomposed pairs for k seats)."""

    points: float = 0.0
    games: int = 0

    @property
    def percent(self) -> float | None:
        return 100.0 * self.points / self.games if self.games else None


@dataclass
class PairLine:
    """Paired statistics of two bots in a two-seat tournament, from ``first``'s side."""

    first: str
    second: str
    statistics: MatchStatistics
    normalized_elo: float | None
    normalized_error: float | None


@dataclass(frozen=True)
class SprtReport:
    """The test a ``sprt`` tournament ran (:class:`arena.tournament.adaptive.PairedSprt`), from the
    candidate's side: where it stopped, and what was stored after."""

    candidate: str
    baseline: str
    result: SprtResult
    pairs: int
    games_in_test: int
    games_after: int
    estimate: EloEstimate | None
    description: str


@dataclass(frozen=True)
class Participation:
    label: str
    role: str
    suspended: str | None


@dataclass(frozen=True)
class TournamentInfo:
    """What defines a tournament, for the report's header and the JSON."""

    id: int
    name: str
    type: str
    game: str
    options: dict[str, Any]
    variant: str
    """The options' rule variant (arena.play.variant): ``standard`` or what they change."""
    seats: int
    bots: list[Participation]
    games_per_table: int
    schedule: str
    """How many games its type plays, in words."""
    seed: int | None
    """None while it is sealed (hosted play, arena.store.sealing): not over yet."""
    seed_commitment: str | None
    """Hosted play: the commitment to the seed, shown from the start."""
    time_per_move: float | None
    time_per_game: float | None
    time_class: TimeClass
    status: str
    scheduled: int
    message: str | None
    created: datetime
    started: datetime | None
    finished: datetime | None
    config: dict[str, Any]

    @property
    def time_control(self) -> str:
        """Every bot's time control, each bot's own and the class."""
        return describe_config(self.config)


@dataclass(frozen=True)
class LeaderboardScope:
    """Which games a leaderboard ranks, and what it leaves for other leaderboards."""

    seats: int
    time_class: TimeClass
    variant: str
    """The rule variant's key (arena.play.variant): ``standard`` or the options changed."""
    tournaments: list[int]
    others: dict[tuple[int, TimeClass, str], int]
    """Rated games of the other (seats, time class, variant) leaderboards of the game."""


@dataclass
class Report:
    title: str
    game: str
    seats: int
    type: str
    lines: list[BotLine]
    counted: Counter[Standing]
    crosstable: dict[tuple[str, str], HeadToHead]
    los: dict[tuple[str, str], float]
    pairs: list[PairLine] = field(default_factory=list)
    sprt: SprtReport | None = None
    notes: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    """Pairs of bots that Elo and OpenSkill order differently, explained."""
    tournament: TournamentInfo | None = None
    scope: LeaderboardScope | None = None
    rated: bool = True
    """Whether ratings were asked for (``arena tournament show`` counts only)."""

    @property
    def games(self) -> int:
        """Rated games."""
        return self.counted[Standing.RATED]

    @property
    def stored(self) -> int:
        return sum(self.counted.values())

    @property
    def solitaire(self) -> bool:
        return self.seats == 1

    @property
    def labels(self) -> list[str]:
        return [line.label for line in self.lines]


def build_report(
    games: Sequence[StoredGame],
    names: BotNames,
    *,
    title: str,
    game_name: str,
    type_name: str,
    anchor: str | None = None,
    interval: IntervalMethod = "hessian",
    order: Sequence[int] = (),
    ratings: bool = True,
) -> Report:
    """Standings, Elo, cross-table and pair statistics from stored games (without
    ``ratings``: the counts alone).

    ``order`` lists bot ids in the tournament's order (candidate first); pair
    statistics are shown from the side of the bot earlier in it, else alphabetically.

    Raises:
        ReportError: no games, or an anchor that names no bot of the report.
    """
    if not games:
        raise ReportError(f"{title}: no games stored yet")
    seats = len(games[0].seats)
    tallies = tally_games(games, names.builtin)
    rated = [g for g in games if standing(g, names.builtin) is Standing.RATED]
    report = Report(
        title=title,
        game=game_name,
        seats=seats,
        type=type_name,
        lines=[BotLine(names.label(bot), tally) for bot, tally in tallies.bots.items()],
        counted=tallies.games,
        crosstable={},
        los={},
    )
    labels = sorted(report.labels)
    if anchor is not None and parse_anchor(anchor).player not in labels:
        raise ReportError(
            f"anchor {anchor!r} names no bot of this report (bots: {', '.join(labels)})"
        )
    report.rated = ratings
    if ratings:
        _rate(report, rated, names, anchor, interval, order)
    elif rated and not report.solitaire:  # the counts: head to head, without a fit
        report.crosstable = _crosstable(_pairwise(rated, names))
    report.lines.sort(key=_line_order)
    _mark_noise(report)
    return report


def _rate(
    report: Report,
    rated: Sequence[StoredGame],
    names: BotNames,
    anchor: str | None,
    interval: IntervalMethod,
    order: Sequence[int],
) -> None:
    if not rated:
        report.notes.append("no rated games yet: nothing to fit")
    elif report.solitaire:
        _solitaire_ratings(report, rated, names, anchor, interval)
    else:
        pairwise = _pairwise(rated, names)
        report.crosstable = _crosstable(pairwise)
        _elo(report, pairwise, anchor, interval)
        if report.seats >= 3:
            _openskill(report, rated, names)
        if report.seats == 2:
            _pairs(report, pairwise, {names.label(bot): i for i, bot in enumerate(order)})


def _line_order(line: BotLine) -> tuple[float, float, str]:
    elo = line.elo if line.elo is not None else -math.inf
    return (-elo, -line.tally.score_percent, line.label)


def _pairwise(games: Sequence[StoredGame], names: BotNames) -> PairwiseGames:
    """The rated games as two-player results for the fit, grouped by rotation (one
    deal at one table of one tournament), built with numpy: one seat count at a time."""
    ids = sorted(set(itertools.chain.from_iterable(g.seats for g in games)))
    labels = sorted({names.label(bot) for bot in ids})
    number = {label: i for i, label in enumerate(labels)}
    lookup = np.zeros(max(ids, default=0) + 1, dtype=np.int64)
    for bot in ids:
        lookup[bot] = number[names.label(bot)]
    parts: list[tuple[IntArray, IntArray, FloatArray, IntArray]] = []
    offset = 0
    for seat_count in sorted({len(g.seats) for g in games}):
        chosen = [g for g in games if len(g.seats) == seat_count]
        seats = np.array([g.seats for g in chosen], dtype=np.int64)
        ranking = np.array([g.ranking for g in chosen], dtype=np.int64)
        table = np.sort(seats, axis=1)
        deal = np.array([(g.tournament_id, g.seed) for g in chosen], dtype=np.int64)
        _, group = np.unique(np.column_stack([deal, table]), axis=0, return_inverse=True)
        # Groups of different seat counts never meet: offset them apart.
        offset = sum(int(part[3].max()) + 1 for part in parts if part[3].size)
        parts.append(seated_pairs(len(labels), lookup[seats], ranking, group.ravel() + offset))
    return PairwiseGames.from_arrays(
        labels, *(np.concatenate([part[k] for part in parts]) for k in range(4))
    )


def _crosstable(games: PairwiseGames) -> dict[tuple[str, str], HeadToHead]:
    counts = games.aggregate()
    points, played = counts.points, counts.games
    return {
        (a, b): HeadToHead(float(points[i, j]), int(played[i, j]))
        for i, a in enumerate(counts.players)
        for j, b in enumerate(counts.players)
        if i != j and played[i, j] > 0
    }


def _fit(
    games_data: PairwiseGames, anchor: str | None, interval: IntervalMethod, report: Report
) -> EloRatings | None:
    parsed = parse_anchor(anchor) if anchor else None
    try:
        ratings, regularised = fit_with_fallback(
            lambda prior: fit_elo(games_data, anchor=parsed, interval=interval, prior_draws=prior)
        )
    except RatingError as exc:
        report.notes.append(f"no Elo fit: {exc}")
        return None
    if regularised:
        report.notes.append(
            f"Elo fitted with a prior of {FALLBACK_PRIOR_DRAWS:g} virtual draw per pair that "
            "met: some bot won or lost every game, which has no finite maximum-likelihood "
            "rating"
        )
    return ratings


def _apply_ratings(report: Report, ratings: EloRatings) -> None:
    by_label = {line.label: line for line in report.lines}
    for i, name in enumerate(ratings.players):
        line = by_label.get(name)
        if line is not None:
            line.elo = float(ratings.elo[i])
            line.elo_low = float(ratings.lower[i])
            line.elo_high = float(ratings.upper[i])
    los = ratings.los()
    for i, a in enumerate(ratings.players):
        for j, b in enumerate(ratings.players):
            if i != j:
                report.los[(a, b)] = float(los[i, j])


def _elo(
    report: Report,
    games: PairwiseGames,
    anchor: str | None,
    interval: IntervalMethod,
) -> None:
    ratings = _fit(games, anchor, interval, report)
    if ratings is not None:
        _apply_ratings(report, ratings)


def _solitaire_ratings(
    report: Report,
    games: Sequence[StoredGame],
    names: BotNames,
    anchor: str | None,
    interval: IntervalMethod,
) -> None:
    results = [
        SolitaireResult(
            names.label(g.seats[0]),
            f"{g.tournament_id}:{g.seed}",
            g.returns[0],
            g.termination == Termination.WON,
        )
        for g in games
    ]
    summaries = solitaire_summaries(results)
    for line in report.lines:
        summary = summaries.get(line.label)
        if summary is not None:
            line.win_rate_low, line.win_rate_high = summary.win_rate_low, summary.win_rate_high
    if len(summaries) >= 2:
        ratings = _fit(duplicate_games(results), anchor, interval, report)
        if ratings is not None:
            _apply_ratings(report, ratings)


def _openskill(report: Report, games: Sequence[StoredGame], names: BotNames) -> None:
    view = openskill_ratings(
        RatedGame(tuple(names.label(b) for b in g.seats), g.ranking) for g in games
    )
    for line in report.lines:
        rating = view.ratings.get(line.label)
        if rating is not None:
            line.openskill_mu, line.openskill_sigma = rating.mu, rating.sigma
    rated = [
        line for line in report.lines if line.elo is not None and line.openskill_mu is not None
    ]
    for a, b in itertools.combinations(rated, 2):
        assert a.elo is not None and b.elo is not None
        assert a.openskill_mu is not None and b.openskill_mu is not None
        if (a.elo - b.elo) * (a.openskill_mu - b.openskill_mu) >= 0:
            continue
        higher, lower = (a, b) if a.elo > b.elo else (b, a)
        los = report.los.get((higher.label, lower.label), 0.5)
        verdict = (
            "within the noise: neither order is established"
            if los < SEPARATED_LOS
            else "the Elo order is established; OpenSkill's differs because it updates "
            "game by game and weighs the early games by the order they were played"
        )
        report.disagreements.append(
            f"Elo puts {higher.label} above {lower.label} (LOS {100 * los:.0f}%), "
            f"OpenSkill μ the other way: {verdict}"
        )


def _pairs(report: Report, games: PairwiseGames, rank: dict[str, int]) -> None:
    try:
        found = paired_statistics(games)
    except RatingError as exc:
        report.notes.append(f"no paired statistics: {exc}")
        return
    for statistics in found.values():
        if rank.get(statistics.opponent, len(rank)) < rank.get(statistics.player, len(rank)):
            statistics = statistics.swapped()
        try:
            estimate = normalized_elo(statistics.sequential_counts())
        except RatingError:  # every result equal: no spread, no normalised Elo
            report.pairs.append(
                PairLine(statistics.player, statistics.opponent, statistics, None, None)
            )
            continue
        report.pairs.append(
            PairLine(
                statistics.player, statistics.opponent, statistics, estimate.elo, estimate.error
            )
        )


def _mark_noise(report: Report) -> None:
    for upper, lower in itertools.pairwise(report.lines):
        if upper.elo is not None and lower.elo is not None:
            upper.los_next = report.los.get((upper.label, lower.label))


def _tournament_info(engine: Engine, tournament_id: int) -> tuple[TournamentInfo, list[int]]:
    with Session(engine) as session:
        tournament = get_tournament(session, tournament_id)
        if tournament.format == HUMAN_FORMAT:
            raise ReportError(
                f"tournament {tournament_id} holds games people played in the browser: "
                f"they are ranked on the humans' leaderboard of {tournament.game}"
            )
        members = participants(session, tournament_id)
        bots = {
            bot.id: bot
            for bot in session.exec(
                select(BotVersion).where(col(BotVersion.id).in_([m.bot_id for m in members]))
            ).all()
        }
    config = validate_config(tournament.config, f"tournament {tournament_id}")
    info = TournamentInfo(
        id=tournament_id,
        name=tournament.name,
        type=tournament.format,
        game=tournament.game,
        options=dict(tournament.options),
        variant=variant_key(get_game(tournament.game), tournament.options),
        seats=config.seat_count,
        bots=[
            Participation(
                bots[m.bot_id].label if m.bot_id in bots else str(m.bot_id),
                m.role,
                m.suspended_reason if m.suspended else None,
            )
            for m in members
        ],
        games_per_table=config.games,
        schedule=tournament_format(config.format).describe_schedule(config),
        seed=None if sealed(tournament) else tournament.seed,
        seed_commitment=tournament.seed_commitment,
        time_per_move=config.time_per_move,
        time_per_game=config.time_per_game,
        time_class=config_time_class(tournament.config),
        status=tournament.status,
        scheduled=tournament.scheduled,
        message=tournament.message,
        created=tournament.created,
        started=tournament.started,
        finished=tournament.finished,
        config=shown_config(tournament),
    )
    return info, [m.bot_id for m in members]


def tournament_report(
    engine: Engine,
    tournament_id: int,
    *,
    anchor: str | None = None,
    interval: IntervalMethod = "hessian",
    ratings: bool = True,
) -> Report:
    """The report of one tournament (without ``ratings``: its counts alone, as
    ``arena tournament show`` prints them).

    Raises:
        NotFoundError: no such tournament. ReportError: no games yet, a bad anchor.
    """
    with without_cycle_collection():
        return _tournament_report(engine, tournament_id, anchor, interval, ratings)


def _tournament_report(
    engine: Engine,
    tournament_id: int,
    anchor: str | None,
    interval: IntervalMethod,
    ratings: bool,
) -> Report:
    info, order = _tournament_info(engine, tournament_id)
    with Session(engine) as session:
        games = load_games(session, tournament_ids=[tournament_id])
        seated = set(itertools.chain.from_iterable(g.seats for g in games))
        names = bot_names(session, seated | set(order))
    report = build_report(
        games,
        names,
        title=f"tournament {tournament_id}: {info.name}",
        game_name=info.game,
        type_name=info.type,
        anchor=anchor,
        interval=interval,
        order=order,
        ratings=ratings,
    )
    report.tournament = info
    roles = {p.label: p for p in info.bots}
    for line in report.lines:
        member = roles.get(line.label)
        if member is not None:
            line.role, line.suspended = member.role, member.suspended
    if ratings and tournament_format(info.type).paired_test and len(order) == 2:
        report.sprt = _sprt_report(info, order, names, games)
    return report


def _sprt_report(
    info: TournamentInfo, order: list[int], names: BotNames, games: Sequence[StoredGame]
) -> SprtReport:
    candidate, baseline = order
    labels = (names.label(candidate), names.label(baseline))
    test = PairedSprt(
        candidate,
        baseline,
        sprt_settings(validate_config(info.config, f"tournament {info.id}")),
        names.builtin,
        labels=labels,
    )
    test.add(games)
    try:
        estimate: EloEstimate | None = normalized_elo(test.result.counts)
    except RatingError:  # no pairs yet, or every pair alike
        estimate = None
    return SprtReport(
        candidate=labels[0],
        baseline=labels[1],
        result=test.result,
        pairs=test.pairs,
        games_in_test=2 * test.pairs,
        games_after=len(games) - test.games_seen if test.decided else 0,
        estimate=estimate,
        description=test.describe(),
    )


def game_leaderboard(
    engine: Engine,
    game: str,
    *,
    anchor: str | None = None,
    interval: IntervalMethod = "hessian",
    seats: int | None = None,
    time_class: str | None = None,
    variant: str | None = None,
    humans: bool = False,
) -> Report:
    """Every bot version's standing across all tournaments of ``game`` of one seat
    count, one time-control class (``arena/play/time_control.py``) and one rule variant
    (``arena/play/variant.py``); the games people played in the browser are left out,
    or with ``humans`` are the only games ranked (the humans' leaderboard: the people
    and the bots they played).

    By default the game's default seat count (or the seat count with the most rated
    games), within it the time class with the most rated games, and within that the
    standard rules (or the variant with the most rated games) are ranked; the report
    names the other leaderboards.

    Raises:
        UnknownGameError: no such game. ReportError: no games of it (of that seat
        count, time class and variant) yet, or an unknown time class.
    """
    with without_cycle_collection():
        return _game_leaderboard(engine, game, anchor, interval, seats, time_class, variant, humans)


def _game_leaderboard(
    engine: Engine,
    game: str,
    anchor: str | None,
    interval: IntervalMethod,
    seats: int | None,
    time_class: str | None,
    variant: str | None,
    humans: bool,
) -> Report:
    engine_game = get_game(game)
    name = engine_game.name
    wanted_class = _parse_time_class(time_class)
    with Session(engine) as session:
        tournaments = leaderboard_tournaments(session, name, humans=humans)
        kinds = {
            t.id: (config_time_class(t.config), variant_key(engine_game, t.options))
            for t in tournaments
            if t.id is not None
        }
        games = load_games(session, tournament_ids=list(kinds))
        if not games:
            raise ReportError(f"no stored {'human ' if humans else ''}games of {name} yet")
        names = bot_names(session, set(itertools.chain.from_iterable(g.seats for g in games)))
    rated: Counter[tuple[int, TimeClass, str]] = Counter(
        (len(g.seats), *kinds[g.tournament_id])
        for g in games
        if standing(g, names.builtin) is Standing.RATED
    )
    seat_counts = Counter(len(g.seats) for g in games)
    chosen_seats = seats or (
        engine_game.default_seats
        if engine_game.default_seats in seat_counts
        else max(seat_counts, key=lambda n: (sum(v for k, v in rated.items() if k[0] == n), -n))
    )
    if chosen_seats not in seat_counts:
        raise ReportError(
            f"no stored {chosen_seats}-seat games of {name} (seat counts: "
            f"{', '.join(str(n) for n in sorted(seat_counts))})"
        )
    at_seats = [kinds[g.tournament_id] for g in games if len(g.seats) == chosen_seats]
    present = {time for time, _ in at_seats}
    chosen_class = wanted_class or max(
        present,
        key=lambda c: (
            sum(v for k, v in rated.items() if k[:2] == (chosen_seats, c)),
            -list(TimeClass).index(c),
        ),
    )
    if chosen_class not in present:
        raise ReportError(
            f"no stored {chosen_seats}-seat games of {name} in the {chosen_class} time class "
            f"(classes: {', '.join(sorted(present))})"
        )
    variants = {rules for time, rules in at_seats if time is chosen_class}
    chosen_variant = variant or (
        STANDARD
        if STANDARD in variants
        else max(variants, key=lambda v: (rated[(chosen_seats, chosen_class, v)], v))
    )
    if chosen_variant not in variants:
        raise ReportError(
            f"no stored {chosen_seats}-seat {chosen_class} games of {name} in the variant "
            f"{chosen_variant!r} (variants: {', '.join(sorted(variants))})"
        )
    kept = [
        g
        for g in games
        if len(g.seats) == chosen_seats and kinds[g.tournament_id] == (chosen_class, chosen_variant)
    ]
    report = build_report(
        kept,
        names,
        title=f"{'humans ' if humans else ''}leaderboard: {name} ({chosen_seats} seats, "
        f"{chosen_class} time, {chosen_variant} rules)",
        game_name=name,
        type_name="all tournaments",
        anchor=anchor,
        interval=interval,
    )
    report.scope = LeaderboardScope(
        seats=chosen_seats,
        time_class=chosen_class,
        variant=chosen_variant,
        tournaments=sorted({g.tournament_id for g in kept}),
        others={
            key: count
            for key, count in sorted(rated.items())
            if key != (chosen_seats, chosen_class, chosen_variant)
        },
    )
    return report


def _parse_time_class(text: str | None) -> TimeClass | None:
    if text is None:
        return None
    try:
        return TimeClass(text)
    except ValueError:
        raise ReportError(
            f"unknown time class {text!r} (classes: {', '.join(TimeClass)})"
        ) from None


def record_final_ratings(engine: Engine, tournament_id: int) -> None:
    """Record the ratings of a tournament that completed (a runner's ``on_completed``);
    a tournament that cannot be rated still completes."""
    with contextlib.suppress(ArenaError):
        snapshot_ratings(engine, tournament_id)


def snapshot_ratings(engine: Engine, tournament_id: int) -> int:
    """Store each bot's Elo of the tournament as a rating snapshot; returns how many.

    Raises:
        ReportError: nothing to rate. StorageError: the database failed.
    """
    from arena.store.db import session_scope
    from arena.store.models import RatingSnapshot

    report = tournament_report(engine, tournament_id)
    method = "duplicate-elo" if report.solitaire else "elo"
    with Session(engine) as session:
        ids = {
            bot.label: bot.id
            for bot in session.exec(select(BotVersion).where(BotVersion.game == report.game))
            if bot.id is not None
        }
    rows = [
        RatingSnapshot(
            tournament_id=tournament_id,
            game=report.game,
            bot_id=ids[line.label],
            method=method,
            rating=line.elo,
            lower=line.elo_low,
            upper=line.elo_high,
            games=line.games,
        )
        for line in report.lines
        if line.elo is not None and line.elo_low is not None and line.elo_high is not None
    ]
    with session_scope(engine) as session:
        session.add_all(rows)
    return len(rows)
