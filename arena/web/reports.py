"""Leaderboards and tournament reports through the app's cache (see arena/web/cache.py)."""

from __future__ import annotations

from sqlmodel import Session

from arena.report.build import ReportError, game_leaderboard, tournament_report
from arena.store.games import get_tournament
from arena.web import schemas
from arena.web.app import WebContext
from arena.web.cache import Cached, games_version
from engines.registry import get_game


def leaderboard(
    ctx: WebContext,
    game: str,
    seats: int | None = None,
    time_class: str | None = None,
    variant: str | None = None,
    *,
    humans: bool = False,
) -> Cached:
    """The game's leaderboard (``arena leaderboard GAME``); with ``humans`` the
    humans' leaderboard (games people played in the browser).

    Raises:
        UnknownGameError: no such game. ReportError: no stored games of it (of that
            seat count, time class and variant), an unknown time class.
    """
    name = get_game(game).name
    version = games_version(ctx.engine, game=name)
    return ctx.reports.get(
        ("leaderboard", name, seats, time_class, variant, humans),
        version,
        lambda: game_leaderboard(
            ctx.engine,
            name,
            seats=seats,
            time_class=time_class,
            variant=variant,
            humans=humans,
        ),
    )


def tournament(ctx: WebContext, tournament_id: int) -> Cached:
    """The tournament's report (``arena report ID``).

    Raises:
        NotFoundError: no such tournament. ReportError: no games stored yet.
    """
    with Session(ctx.engine) as session:
        status = get_tournament(session, tournament_id).status
    version = games_version(ctx.engine, tournament_id=tournament_id)
    return ctx.reports.get(
        # The report shows the status too: a finished tournament is a new report.
        ("tournament", tournament_id, status),
        version,
        lambda: tournament_report(ctx.engine, tournament_id),
    )


def ratings(ctx: WebContext, game: str) -> dict[str, schemas.Rating]:
    """Each bot version's line on the game's leaderboard (empty when nothing is rated)."""
    try:
        report = leaderboard(ctx, game).entry.report
    except ReportError:
        return {}
    scope = report.scope
    assert scope is not None  # a leaderboard's report has one
    return {
        line.label: schemas.Rating(
            elo=line.elo,
            low=line.elo_low,
            high=line.elo_high,
            games=line.games,
            seats=scope.seats,
            time_class=str(scope.time_class),
            variant=scope.variant,
        )
        for line in report.lines
        if line.elo is not None and line.elo_low is not None and line.elo_high is not None
    }
