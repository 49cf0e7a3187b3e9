"""Tournament reports and leaderboards: the numbers, computed from stored games.

:func:`tournament_report` and :func:`game_leaderboard` read the database and build a
:class:`Report` — plain data that ``arena/report_format.py`` renders as text,
Markdown, HTML, JSON or CSV and ``arena/report_plot.py`` draws.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.errors import ArenaError
from arena.models import BotVersion, GameResult, Tournament
from arena.progress import game_points
from arena.ratings import (
    Anchor,
    EloRatings,
    IntervalMethod,
    MatchStatistics,
    PairwiseGames,
    RatingError,
    SolitaireResult,
    SprtResult,
    SprtSettings,
    duplicate_games,
    fit_elo,
    match_statistics,
    normalized_elo,
    openskill_ratings,
    pairwise_games,
    parse_anchor,
    solitaire_summaries,
    sprt,
)
from arena.ratings import (
    GameResult as RatedGame,
)
from arena.storage import get_tournament
from engines.registry import get_game

WON = "won"
"""The termination of a won one-seat game (patience)."""

FALLBACK_PRIOR_DRAWS = 1.0


class ReportError(ArenaError):
    """A report that cannot be made (no games yet, unknown anchor …)."""


@dataclass(frozen=True)
class StoredGame:
    tournament_id: int
    index: int
    seed: int
    seats: tuple[int, ...]
    ranking: tuple[int, ...]
    returns: tuple[float, ...]
    termination: str
    offender: int | None
    reason: str | None


@dataclass
class BotLine:
    """One row of the standings."""

    label: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    place_sum: float = 0.0
    points: float = 0.0
    score_sum: float = 0.0
    forfeits: Counter[str] = field(default_factory=Counter)
    elo: float | None = None
    elo_low: float | None = None
    elo_high: float | None = None
    openskill_mu: float | None = None
    openskill_sigma: float | None = None
    solitaire_wins: int = 0
    win_rate_low: float | None = None
    win_rate_high: float | None = None

    @property
    def score_percent(self) -> float:
        return 100.0 * self.points / self.games if self.games else 0.0

    @property
    def mean_place(self) -> float:
        return self.place_sum / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.games if self.games else 0.0

    @property
    def win_rate(self) -> float:
        return self.solitaire_wins / self.games if self.games else 0.0


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
    """Paired statistics of two bots in a two-seat tournament."""

    first: str
    second: str
    statistics: MatchStatistics
    normalized_elo: float | None
    normalized_error: float | None


@dataclass
class Report:
    title: str
    game: str
    seats: int
    format: str
    games: int
    scheduled: int | None
    status: str | None
    message: str | None
    lines: list[BotLine]
    crosstable: dict[tuple[str, str], HeadToHead]
    los: dict[tuple[str, str], float]
    pairs: list[PairLine] = field(default_factory=list)
    sprt: SprtResult | None = None
    notes: list[str] = field(default_factory=list)
    errors: int = 0

    @property
    def solitaire(self) -> bool:
        return self.seats == 1

    @property
    def labels(self) -> list[str]:
        return [line.label for line in self.lines]


def load_games(engine: Engine, *, tournament_ids: Sequence[int]) -> tuple[list[StoredGame], int]:
    """Stored games of the tournaments (engine errors excluded) and the error count."""
    g = GameResult.__table__  # type: ignore[attr-defined]
    query = (
        sa.select(
            g.c.tournament_id,
            g.c.index,
            g.c.seed,
            g.c.seats,
            g.c.ranking,
            g.c.returns,
            g.c.termination,
            g.c.offender,
            g.c.reason,
            g.c.status,
        )
        .where(g.c.tournament_id.in_(list(tournament_ids)))
        .order_by(g.c.tournament_id, g.c.index)
    )
    games = []
    errors = 0
    with engine.connect() as connection:
        for row in connection.execute(query):
            if row[9] == "error":
                errors += 1
                continue
            games.append(
                StoredGame(
                    row[0],
                    row[1],
                    row[2],
                    tuple(row[3]),
                    tuple(row[4]),
                    tuple(row[5]),
                    row[6],
                    row[7],
                    row[8],
                )
            )
    return games, errors


def _labels(engine: Engine, bot_ids: set[int]) -> dict[int, str]:
    with Session(engine) as session:
        bots = session.exec(select(BotVersion).where(col(BotVersion.id).in_(bot_ids))).all()
        return {bot.id: bot.label for bot in bots if bot.id is not None}


def _rotation(game: StoredGame) -> str:
    return f"{game.tournament_id}:{game.seed}:{sorted(game.seats)}"


def build_report(
    games: Sequence[StoredGame],
    labels: dict[int, str],
    *,
    title: str,
    game_name: str,
    format_name: str,
    anchor: str | None = None,
    interval: IntervalMethod = "hessian",
) -> Report:
    """Standings, Elo, cross-table and pair statistics from stored games.

    Raises:
        ReportError: no games, or an anchor that names no bot of the report.
    """
    if not games:
        raise ReportError(f"{title}: no games stored yet")
    seats = len(games[0].seats)
    lines = {bot: BotLine(labels.get(bot, str(bot))) for g in games for bot in g.seats}
    crosstable: dict[tuple[str, str], HeadToHead] = defaultdict(HeadToHead)
    for game in games:
        for seat, bot in enumerate(game.seats):
            line = lines[bot]
            line.games += 1
            line.place_sum += game.ranking[seat]
            line.points += game_points(game.ranking, seat)
            line.score_sum += game.returns[seat]
            if game.offender == seat:
                line.forfeits[game.reason or "unknown"] += 1
            if seats == 1:
                line.solitaire_wins += game.termination == WON
            elif seats == 2:
                mine, theirs = game.ranking[seat], game.ranking[1 - seat]
                line.wins += mine < theirs
                line.draws += mine == theirs
                line.losses += mine > theirs
        for a, b in itertools.permutations(range(seats), 2):
            if game.seats[a] == game.seats[b]:
                continue
            cell = crosstable[(labels.get(game.seats[a], ""), labels.get(game.seats[b], ""))]
            cell.games += 1
            cell.points += (
                1.0
                if game.ranking[a] < game.ranking[b]
                else 0.5
                if game.ranking[a] == game.ranking[b]
                else 0.0
            )
    report = Report(
        title=title,
        game=game_name,
        seats=seats,
        format=format_name,
        games=len(games),
        scheduled=None,
        status=None,
        message=None,
        lines=list(lines.values()),
        crosstable=dict(crosstable),
        los={},
    )
    names = sorted(line.label for line in report.lines)
    if anchor is not None and parse_anchor(anchor).player not in names:
        raise ReportError(
            f"anchor {anchor!r} names no bot of this report (bots: {', '.join(names)})"
        )
    if seats == 1:
        _solitaire_ratings(report, games, labels, anchor, interval)
    else:
        _elo(report, games, labels, anchor, interval, names)
    if seats >= 3:
        _openskill(report, games, labels)
    if seats == 2:
        _pairs(report, games, labels)
    report.lines.sort(key=_line_order)
    return report


def _line_order(line: BotLine) -> tuple[float, float, str]:
    return (-(line.elo if line.elo is not None else -math.inf), -line.score_percent, line.label)


def _fit(
    games_data: PairwiseGames, anchor: str | None, interval: IntervalMethod, report: Report
) -> EloRatings | None:
    parsed: Anchor | None = parse_anchor(anchor) if anchor else None
    try:
        return fit_elo(games_data, anchor=parsed, interval=interval)
    except RatingError:
        pass
    try:
        ratings = fit_elo(
            games_data,
            anchor=parsed,
            interval=interval,
            prior_draws=FALLBACK_PRIOR_DRAWS,
        )
    except RatingError as exc:
        report.notes.append(f"no Elo fit: {exc}")
        return None
    report.notes.append(
        f"Elo fitted with a prior of {FALLBACK_PRIOR_DRAWS:g} virtual draw per pair that met: "
        "some bot won or lost every game, which has no finite maximum-likelihood rating"
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
    games: Sequence[StoredGame],
    labels: dict[int, str],
    anchor: str | None,
    interval: IntervalMethod,
    names: list[str],
) -> None:
    rated = [RatedGame(tuple(labels[b] for b in g.seats), g.ranking, _rotation(g)) for g in games]
    ratings = _fit(pairwise_games(rated, names), anchor, interval, report)
    if ratings is not None:
        _apply_ratings(report, ratings)


def _solitaire_ratings(
    report: Report,
    games: Sequence[StoredGame],
    labels: dict[int, str],
    anchor: str | None,
    interval: IntervalMethod,
) -> None:
    results = [
        SolitaireResult(
            labels[g.seats[0]], f"{g.tournament_id}:{g.seed}", g.returns[0], g.termination == WON
        )
        for g in games
    ]
    summaries = solitaire_summaries(results)
    for line in report.lines:
        summary = summaries.get(line.label)
        if summary is not None:
            line.win_rate_low, line.win_rate_high = summary.win_rate_low, summary.win_rate_high
    if len(report.lines) >= 2:
        ratings = _fit(duplicate_games(results), anchor, interval, report)
        if ratings is not None:
            _apply_ratings(report, ratings)
            report.notes.append(
                "Elo is the duplicate Elo: deal-by-deal comparisons on shared deals"
            )


def _openskill(report: Report, games: Sequence[StoredGame], labels: dict[int, str]) -> None:
    view = openskill_ratings(RatedGame(tuple(labels[b] for b in g.seats), g.ranking) for g in games)
    for line in report.lines:
        rating = view.ratings.get(line.label)
        if rating is not None:
            line.openskill_mu, line.openskill_sigma = rating.mu, rating.sigma


def _pairs(report: Report, games: Sequence[StoredGame], labels: dict[int, str]) -> None:
    rated = [RatedGame(tuple(labels[b] for b in g.seats), g.ranking, _rotation(g)) for g in games]
    present = sorted({name for game in rated for name in game.players})
    for a, b in itertools.combinations(present, 2):
        try:
            statistics = match_statistics(rated, a, b)
        except RatingError as exc:
            report.notes.append(f"{a} vs {b}: {exc}")
            continue
        if statistics.trinomial.games == 0:
            continue
        try:
            estimate = normalized_elo(statistics.sequential_counts())
        except RatingError:  # every result equal: no spread, no normalised Elo
            report.pairs.append(PairLine(a, b, statistics, None, None))
            continue
        report.pairs.append(PairLine(a, b, statistics, estimate.elo, estimate.error))


def tournament_report(
    engine: Engine,
    tournament_id: int,
    *,
    anchor: str | None = None,
    interval: IntervalMethod = "hessian",
) -> Report:
    """The report of one tournament.

    Raises:
        NotFoundError: no such tournament. ReportError: no games yet, a bad anchor.
    """
    with Session(engine) as session:
        tournament = get_tournament(session, tournament_id)
    games, errors = load_games(engine, tournament_ids=[tournament_id])
    labels = _labels(engine, {bot for g in games for bot in g.seats})
    report = build_report(
        games,
        labels,
        title=f"tournament {tournament_id}: {tournament.name}",
        game_name=tournament.game,
        format_name=tournament.format,
        anchor=anchor,
        interval=interval,
    )
    report.scheduled = tournament.scheduled
    report.status = tournament.status
    report.message = tournament.message
    report.errors = errors
    if tournament.format == "sprt" and len(report.pairs) == 1:
        settings = tournament.config.get("sprt", {})
        test = SprtSettings(
            elo0=float(settings.get("elo0", 0.0)),
            elo1=float(settings.get("elo1", 5.0)),
            alpha=float(settings.get("alpha", 0.05)),
            beta=float(settings.get("beta", 0.05)),
        )
        report.sprt = sprt(report.pairs[0].statistics, test)
    return report


def game_leaderboard(
    engine: Engine,
    game: str,
    *,
    anchor: str | None = None,
    interval: IntervalMethod = "hessian",
    seats: int | None = None,
) -> Report:
    """Every bot version's standing across all tournaments of ``game``.

    Games of different seat counts are not mixed: by default the game's default seat
    count (or the only one played) is ranked.

    Raises:
        UnknownGameError: no such game. ReportError: no games of it yet.
    """
    name = get_game(game).name
    with Session(engine) as session:
        tournaments = session.exec(select(Tournament).where(Tournament.game == name)).all()
    ids = [t.id for t in tournaments if t.id is not None]
    games, errors = load_games(engine, tournament_ids=ids)
    if not games:
        raise ReportError(f"no stored games of {name} yet")
    counts = Counter(len(g.seats) for g in games)
    chosen = seats or (
        get_game(name).default_seats
        if get_game(name).default_seats in counts
        else counts.most_common(1)[0][0]
    )
    games = [g for g in games if len(g.seats) == chosen]
    if not games:
        raise ReportError(f"no stored {chosen}-seat games of {name} (seat counts: {dict(counts)})")
    labels = _labels(engine, {bot for g in games for bot in g.seats})
    report = build_report(
        games,
        labels,
        title=f"leaderboard: {name} ({chosen} seats)",
        game_name=name,
        format_name="all tournaments",
        anchor=anchor,
        interval=interval,
    )
    report.errors = errors
    return report


def snapshot_ratings(engine: Engine, tournament_id: int) -> int:
    """Store each bot's Elo of the tournament as a rating snapshot; returns how many.

    Raises:
        ReportError: nothing to rate. StorageError: the database failed.
    """
    from arena.db import session_scope
    from arena.models import RatingSnapshot

    report = tournament_report(engine, tournament_id)
    method = "duplicate-elo" if report.solitaire else "elo"
    with Session(engine) as session:
        ids = {
            bot.label: bot.id
            for bot in session.exec(select(BotVersion)).all()
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
