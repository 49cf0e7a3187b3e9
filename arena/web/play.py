"""Pages for people: signing in, starting a game against bots, playing it live.

``/signin`` trades a token for a session cookie (arena/web/sessions.py); the form on
``/games/GAME`` starts a human game (arena/web/humans.py) and sends the browser to
``/play/ID``, whose script follows the game as server-sent events
(``/play/ID/events``) and sends moves to ``/play/ID/move`` with the anti-CSRF header.
A live game answers only its owner; anyone else gets 404.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Annotated, Any

import pydantic
from fastapi import APIRouter, Depends, Form, Header, Request
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from sqlmodel import Session

from arena.players.loader import HUMAN
from arena.report.build import ReportError
from arena.report.format import layout, summary_lines
from arena.store.db import session_scope
from arena.store.models import Account
from arena.web import queries, reports
from arena.web.accounts import START_HUMAN_GAME, account_for_token, admit
from arena.web.app import FieldError, WebContext, context, plain_url
from arena.web.humans import CLOCKS, HumanGame, TooManyGames
from arena.web.limits import MOVE, SIGN_IN, account_subject, client_subject, count_request
from arena.web.my_games import my_games
from arena.web.sessions import (
    CSRF_FIELD,
    CSRF_HEADER,
    SignedOut,
    check_csrf,
    end_sign_in,
    keep_session,
    record_sign_in,
    session_of,
    set_cookie,
    signed_in_account,
)

router = APIRouter(include_in_schema=False, dependencies=[Depends(plain_url)])
Context = Annotated[WebContext, Depends(context)]
KEEPALIVE_SECONDS = 15.0


def page(
    ctx: WebContext, request: Request, template: str, status: int = 200, **values: Any
) -> Response:
    """A page with the session's account and anti-CSRF token for its forms."""
    session = session_of(ctx.sessions, request)
    with Session(ctx.engine) as db:
        account = signed_in_account(ctx.sessions, request, db)
    response = ctx.templates.TemplateResponse(
        request,
        template,
        {"account": account, "csrf": ctx.sessions.csrf_token(session), **values},
        status_code=status,
    )
    keep_session(ctx.sessions, request, response)
    response.headers["Cache-Control"] = "no-store"
    return response


def signed_in(ctx: WebContext, request: Request) -> Account:
    """The session's account.

    Raises:
        SignedOut: no one is signed in.
    """
    with Session(ctx.engine) as db:
        account = signed_in_account(ctx.sessions, request, db)
    if account is None:
        raise SignedOut("sign in first (/signin): this page is for signed-in players")
    return account


LOCAL_PATH = re.compile(r"/(?![/\\])[A-Za-z0-9/_.~%@+=&?-]{0,500}")


def local_path(target: str) -> str:
    """``target`` when it is plainly a path of this site, else ``/``: no open redirect
    (``//host``, ``/\\host``, and control characters browsers drop, ``/\t/host``)."""
    return target if LOCAL_PATH.fullmatch(target) else "/"


@router.get("/signin", response_class=HTMLResponse)
def signin_page(ctx: Context, request: Request, next: str = "/") -> Response:
    return page(ctx, request, "signin.html", next=local_path(next), error=None)


@router.post("/signin")
def signin(
    ctx: Context,
    request: Request,
    token: Annotated[str, Form(max_length=200)] = "",
    csrf: Annotated[str, Form(max_length=200)] = "",
    next: Annotated[str, Form(max_length=2000)] = "/",
) -> Response:
    check_csrf(ctx.sessions, request, csrf)
    with session_scope(ctx.engine) as db:  # the attempt counts whether the token is right
        count_request(db, SIGN_IN, [client_subject(request)], ctx.settings.sign_in_limit)
        account = account_for_token(db, token.strip())
        # A new nonce: a session planted before signing in is worth nothing after it.
        session = record_sign_in(db, ctx.sessions, account) if account is not None else None
    if session is None:
        error = "unknown token: try again"
        return page(ctx, request, "signin.html", 401, next=local_path(next), error=error)
    response = RedirectResponse(local_path(next), status_code=303)
    set_cookie(ctx.sessions, request, response, session)
    return response


@router.post("/signout")
def signout(
    ctx: Context, request: Request, csrf: Annotated[str, Form(max_length=200)] = ""
) -> Response:
    """End the session on the server (every copy of its cookie is signed out) and give
    the browser a new, anonymous one. It counts against the client's sign-in limit and,
    while the session is signed in, the account's (a copy of an ended session's cookie
    cannot spend the account's)."""
    check_csrf(ctx.sessions, request, csrf)
    with session_scope(ctx.engine) as db:
        account = signed_in_account(ctx.sessions, request, db)
        subjects = [client_subject(request)]
        if account is not None and account.id is not None:
            subjects.append(account_subject(account.id))
        count_request(db, SIGN_IN, subjects, ctx.settings.sign_in_limit)
        end_sign_in(db, session_of(ctx.sessions, request))
    response = RedirectResponse("/", status_code=303)
    set_cookie(ctx.sessions, request, response, ctx.sessions.new())
    return response


def start_form(ctx: WebContext, game: str) -> dict[str, Any]:
    """What the game page's form for starting a human game offers: the built-in kinds
    and every active registered version (built-in ones with parameters included)."""
    with Session(ctx.engine) as db:
        registered = [
            bot.label
            for bot in queries.bots(db, game=game, include_retired=False)
            if bot.kind != HUMAN
        ]
    return {"registered": registered, "clocks": list(CLOCKS)}


@router.post("/games/{game}/play")
async def start_game(ctx: Context, request: Request, game: str) -> Response:
    form = await request.form()  # its fields are named by the seat count: opponent1, …
    # The database work and the game's start (bots loaded) off the event loop.
    return await asyncio.to_thread(_start_game, ctx, request, game, form)


def _start_game(ctx: WebContext, request: Request, game: str, form: Any) -> Response:
    check_csrf(ctx.sessions, request, _field(form, CSRF_FIELD))
    account = signed_in(ctx, request)
    kind = queries.game_kind(ctx.engine, game)
    seats = _number(form, "seats", kind.min_seats, kind.max_seats)
    seat = _number(form, "seat", 0, seats - 1)
    opponents = [_field(form, f"opponent{index}") for index in range(1, seats)]
    missing = [index for index, reference in enumerate(opponents, 1) if not reference]
    if missing:
        raise FieldError(f"field 'opponent{missing[0]}': choose a bot for that seat")
    clock = _field(form, "clock") or "none"
    with session_scope(ctx.engine) as session:  # counted even when the start fails
        admit(session, account, START_HUMAN_GAME, ctx.settings.rate_limit)
    live = ctx.humans.start(account, game=kind.name, seat=seat, opponents=opponents, clock=clock)
    return RedirectResponse(f"/play/{live.id}", status_code=303)


def _field(form: Any, name: str) -> str:
    value = form.get(name)
    return value.strip()[:200] if isinstance(value, str) else ""


def _number(form: Any, name: str, low: int, high: int) -> int:
    text = _field(form, name)
    if not (text.isascii() and text.isdigit() and low <= int(text) <= high):
        raise FieldError(f"field {name!r}: a number from {low} to {high} (got {text!r})")
    return int(text)


def _live(
    ctx: WebContext, request: Request, game_id: str, account: Account | None = None
) -> HumanGame:
    """The signed-in owner's live game (404 for anyone else's); ``account`` when the
    caller has read the session's already."""
    return ctx.humans.get(game_id[:40], account or signed_in(ctx, request))


@router.get("/play/{game_id}", response_class=HTMLResponse)
def play_page(ctx: Context, request: Request, game_id: str) -> Response:
    live = _live(ctx, request, game_id)
    from engines.registry import get_game

    return page(ctx, request, "play.html", live=live, title=get_game(live.game).title)


@router.get("/play/{game_id}/state")
def play_state(ctx: Context, request: Request, game_id: str) -> Response:
    """The newest view (JSON), for scripts that do not follow the events."""
    live = _live(ctx, request, game_id)
    view = live.newest_after(-1)
    data = view.to_data(live) if view is not None else {"id": live.id, "version": -1}
    return JSONResponse(data, headers={"Cache-Control": "no-store"})


@router.get("/play/{game_id}/events")
async def play_events(ctx: Context, request: Request, game_id: str) -> Response:
    """Server-sent events: the newest view when it is newer than ``Last-Event-ID``, then
    each newer one as the game thread publishes it (a view is whole: one that was
    replaced before it was sent is not missed); the stream ends after the last."""
    live = await asyncio.to_thread(_live, ctx, request, game_id)  # reads the database
    last = request.headers.get("last-event-id", "-1")
    after = int(last) if last.lstrip("-").isdigit() and len(last) < 10 else -1
    live.check_listeners()
    return StreamingResponse(
        _events(live, request, after),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _events(live: HumanGame, request: Request, after: int) -> AsyncIterator[str]:
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()
    try:
        live.listen(loop, changed)
    except TooManyGames:
        return  # more pages opened at once than the check before let through
    try:
        while True:
            changed.clear()
            view = live.newest_after(after)
            if view is not None:
                after = view.version
                yield f"id: {view.version}\ndata: {json.dumps(view.to_data(live))}\n\n"
                if view.result is not None or view.error is not None:
                    return
                continue
            if live.over:
                return
            try:
                await asyncio.wait_for(changed.wait(), KEEPALIVE_SECONDS)
            except TimeoutError:
                if await request.is_disconnected():
                    return
                yield ": keepalive\n\n"
    finally:
        live.unlisten(loop, changed)


class Move(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    version: int = pydantic.Field(ge=0, le=1_000_000)
    action: str = pydantic.Field(max_length=200)


@router.post("/play/{game_id}/move", status_code=202)
def play_move(
    ctx: Context,
    request: Request,
    game_id: str,
    move: Move,
    token: Annotated[str | None, Header(alias=CSRF_HEADER)] = None,
) -> dict[str, bool]:
    """The person's move at position ``version`` (the view it was chosen on); it counts
    against the move limit of the client and of the account, accepted or not."""
    check_csrf(ctx.sessions, request, token)
    account = signed_in(ctx, request)
    assert account.id is not None
    subjects = [client_subject(request), account_subject(account.id)]
    with session_scope(ctx.engine) as db:
        count_request(db, MOVE, subjects, ctx.settings.move_limit)
    live = _live(ctx, request, game_id, account)
    live.move(move.version, move.action)
    return {"accepted": True}


@router.post("/play/{game_id}/resign", status_code=202)
def play_resign(
    ctx: Context,
    request: Request,
    game_id: str,
    token: Annotated[str | None, Header(alias=CSRF_HEADER)] = None,
) -> dict[str, bool]:
    """The person resigns: their seat forfeits (at once when they are to move, else
    when the bots' turns come back to them); the game is stored like any other end."""
    check_csrf(ctx.sessions, request, token)
    account = signed_in(ctx, request)
    _live(ctx, request, game_id, account).resign()
    return {"accepted": True}


@router.get("/my/games", response_class=HTMLResponse)
def my_games_page(ctx: Context, request: Request) -> Response:
    """The signed-in person's open games (to continue) and finished ones (to replay)."""
    account = signed_in(ctx, request)
    assert account.id is not None
    return page(ctx, request, "my_games.html", games=my_games(ctx.engine, account.id))


@router.get("/games/{game}/humans", response_class=HTMLResponse)
def humans_page(ctx: Context, request: Request, game: str) -> Response:
    kind = queries.game_kind(ctx.engine, game)
    try:
        report = reports.leaderboard(ctx, kind.name, humans=True).entry.report
    except ReportError as exc:
        return page(ctx, request, "humans.html", game=kind, empty=str(exc), summary=[], tables=[])
    return page(
        ctx,
        request,
        "humans.html",
        game=kind,
        empty=None,
        summary=summary_lines(report),
        tables=layout(report),
    )
