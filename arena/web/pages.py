"""Server-rendered HTML pages (Jinja2 templates in ``arena/web/templates/``).

Pages show the same data as the API (``arena/web/queries.py``, the report cache);
the little JavaScript in ``arena/web/static/`` polls a running tournament, steps
through replays and sends the submission forms with the token.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from arena.report.build import Report, ReportError
from arena.report.format import layout, summary_lines
from arena.store.models import LIVE_STATUSES
from arena.web import play, queries, reports
from arena.web.app import (
    Offset,
    RowId,
    SeatsQuery,
    TimeClassQuery,
    VariantQuery,
    WebContext,
    context,
    plain_url,
)
from arena.web.ladders import bot_ladders, game_ladders, version_test_games
from engines.registry import get_game

router = APIRouter(include_in_schema=False, dependencies=[Depends(plain_url)])
Context = Annotated[WebContext, Depends(context)]
GAMES_PER_PAGE = 50


def _page(ctx: WebContext, request: Request, template: str, **values: Any) -> Response:
    return play.page(ctx, request, template, **values)


def _report_view(report: Report) -> dict[str, Any]:
    return {"summary": summary_lines(report), "tables": layout(report)}


@router.get("/", response_class=HTMLResponse)
def home(ctx: Context, request: Request) -> Response:
    return _page(
        ctx,
        request,
        "home.html",
        games=queries.game_kinds(ctx.engine),
        tournaments=queries.tournaments(ctx.engine, limit=10).items,
    )


@router.get("/games/{game}", response_class=HTMLResponse)
def game_page(
    ctx: Context,
    request: Request,
    game: str,
    seats: SeatsQuery = None,
    time_class: TimeClassQuery = None,
    variant: VariantQuery = None,
) -> Response:
    """The game's leaderboard (of ``seats``, the time class ``time`` and the rule
    ``variant`` when given, as ``/api/leaderboards/GAME`` takes them) with links to the
    other leaderboards, its ladders and the forms to play."""
    kind = queries.game_kind(ctx.engine, game)
    ladders = game_ladders(ctx.engine, kind.name)
    form = play.start_form(ctx, kind.name)
    query = urlencode(
        {
            key: value
            for key, value in (("seats", seats), ("time", time_class), ("variant", variant))
            if value
        }
    )
    try:
        cached = reports.leaderboard(ctx, kind.name, seats, time_class, variant)
    except ReportError as exc:
        return _page(
            ctx,
            request,
            "game.html",
            game=kind,
            seats=seats,
            query=query,
            empty=str(exc),
            ladders=ladders,
            **form,
        )
    return _page(
        ctx,
        request,
        "game.html",
        game=kind,
        seats=seats,
        query=query,
        empty=None,
        ladders=ladders,
        **form,
        current=cached.current,
        others=_other_boards(cached.entry.report),
        **_report_view(cached.entry.report),
    )


def _other_boards(report: Report) -> list[tuple[str, str]]:
    """Links (query, text) to the game's other leaderboards: other seat counts, time
    classes and rule variants."""
    if report.scope is None:
        return []
    return [
        (
            urlencode({"seats": seats, "time": str(time_class), "variant": rules}),
            f"{seats} seats, {time_class}, {rules} rules ({count} rated games)",
        )
        for (seats, time_class, rules), count in report.scope.others.items()
    ]


@router.get("/games/{game}/ladders", response_class=HTMLResponse)
def game_ladders_fragment(ctx: Context, request: Request, game: str) -> Response:
    """The ladders fragment a game's page reloads while a ladder runs."""
    kind = queries.game_kind(ctx.engine, game)
    return _page(ctx, request, "ladders.html", ladders=game_ladders(ctx.engine, kind.name))


@router.get("/tournaments", response_class=HTMLResponse)
def tournaments_page(
    ctx: Context,
    request: Request,
    offset: Offset = 0,
) -> Response:
    page = queries.tournaments(ctx.engine, offset=offset, limit=GAMES_PER_PAGE)
    return _page(ctx, request, "tournaments.html", page=page)


def _standings(ctx: WebContext, tournament_id: int) -> dict[str, Any]:
    try:
        return _report_view(reports.tournament(ctx, tournament_id).entry.report)
    except ReportError as exc:
        return {"summary": [str(exc)], "tables": []}


@router.get("/tournaments/{tournament_id}", response_class=HTMLResponse)
def tournament_page(
    ctx: Context,
    request: Request,
    tournament_id: RowId,
    offset: Offset = 0,
) -> Response:
    detail = queries.tournament_detail(ctx.engine, tournament_id)
    games = queries.tournament_games(ctx.engine, tournament_id, offset=offset, limit=GAMES_PER_PAGE)
    return _page(
        ctx,
        request,
        "tournament.html",
        tournament=detail,
        games=games,
        live=detail.status in LIVE_STATUSES,
        **_standings(ctx, tournament_id),
    )


@router.get("/tournaments/{tournament_id}/standings", response_class=HTMLResponse)
def tournament_standings(ctx: Context, request: Request, tournament_id: RowId) -> Response:
    """The standings fragment a running tournament's page reloads."""
    queries.tournament_detail(ctx.engine, tournament_id)
    return _page(ctx, request, "standings.html", **_standings(ctx, tournament_id))


@router.get("/records/{game_id}", response_class=HTMLResponse)
def record_page(ctx: Context, request: Request, game_id: RowId) -> Response:
    stored, record = queries.stored_record(ctx.engine, game_id)
    return _page(
        ctx,
        request,
        "record.html",
        stored=stored,
        record=record,
        title=get_game(record.game).title,
    )


@router.get("/bots", response_class=HTMLResponse)
def bots_page(
    ctx: Context,
    request: Request,
    game: str | None = None,
) -> Response:
    with Session(ctx.engine) as session:
        bots = queries.bots(session, game=game, include_retired=False)
    return _page(ctx, request, "bots.html", bots=bots, game=game)


@router.get("/bots/{reference}", response_class=HTMLResponse)
def bot_page(ctx: Context, request: Request, reference: str) -> Response:
    detail = queries.bot_detail(ctx.engine, reference, lambda game: reports.ratings(ctx, game))
    return _page(ctx, request, "bot.html", bot=detail, ladder=bot_ladders(ctx.engine, detail.name))


@router.get("/bots/{reference}/regression-tests/{test_id}", response_class=HTMLResponse)
def version_test_page(
    ctx: Context,
    request: Request,
    reference: str,
    test_id: RowId,
    after: Annotated[int, Query(ge=-1, le=2**62)] = -1,
) -> Response:
    """A regression test and its games, a page at a time."""
    page = version_test_games(ctx.engine, reference, test_id, after=after, limit=GAMES_PER_PAGE)
    return _page(ctx, request, "version_test.html", page=page, after=after, reference=reference)


@router.get("/submit", response_class=HTMLResponse)
def submit_page(ctx: Context, request: Request) -> Response:
    return _page(
        ctx,
        request,
        "submit.html",
        games=queries.game_kinds(ctx.engine),
        settings=ctx.settings,
    )
