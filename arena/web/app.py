"""The web application: :func:`create_app` builds the FastAPI app over a database.

Pages (server-rendered HTML, ``arena/web/pages.py``) and the JSON API under ``/api``
(``arena/web/api.py``, OpenAPI schema at ``/api/openapi.json``, interactive docs at
``/api/docs``) read the same database as the command line. Errors are answered with
a 4xx status and ``{"detail": "…"}`` naming the field and the bad value (an HTML page
for page requests); no traceback leaves the server.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Annotated, Any

import pydantic
from fastapi import FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import ConfigDict
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.errors import ArenaError, ConfigError, NotFoundError, StorageError
from arena.play.bot_text import bot_text
from arena.players.sandbox import Isolation, detect_isolation
from arena.report.build import ReportError
from arena.settings import require_positive
from arena.store.db import open_database
from arena.tournament.config import ConfigCaps, read_config_file
from arena.tournament.driver import TournamentStateError
from arena.web.accounts import ForbiddenError, RateLimit, RateLimited
from arena.web.cache import Memo, ReportCache
from arena.web.check_slots import Busy, CheckSlots
from arena.web.checker import CheckFailed
from arena.web.data import check_text
from arena.web.humans import HumanGames, HumanLimits, NotYourTurn, TooManyGames
from arena.web.sandbox_gate import SandboxGate, WeakSandbox
from arena.web.sessions import CsrfError, SessionKeys, SignedOut, stored_secret
from arena.web.uploads import UploadError, UploadLimits
from engines.errors import GameError, UnknownGameError

HERE = FilePath(__file__).parent
PAGE_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


MAX_ID = 2**31 - 1
"""Ids are the database's INTEGER columns (32 bits on PostgreSQL)."""
MAX_OFFSET = 2**63 - 1
"""Offsets are 64-bit integers (SQLite and PostgreSQL alike)."""
RowId = Annotated[int, Path(ge=0, le=MAX_ID, description="a stored row's id")]
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET, description="rows to skip")]

SeatsQuery = Annotated[int | None, Query(ge=1, le=16, description="rank games of this seat count")]
TimeClassQuery = Annotated[
    str | None,
    Query(
        alias="time",
        max_length=16,
        description="rank tournaments of this time-control class (bullet, blitz, rapid, "
        "classical, unlimited; default: the one with the most games)",
    ),
]
VariantQuery = Annotated[
    str | None,
    Query(
        max_length=200,
        description="rank tournaments of this rule variant: standard, or the options it "
        "changes as NAME=VALUE,… sorted (default: standard, else the variant with the most "
        "games; the report's leaderboard.others lists the variants stored)",
    ),
]


class AuthError(ArenaError):
    """No token, or a token no account has."""


class FieldError(ArenaError):
    """A request field with a bad value (the message names both)."""


SETTING_TABLES = ("uploads", "rate_limit", "sign_in_limit", "move_limit", "caps")
"""The settings that are tables of their own in the operator's file."""


@dataclass(frozen=True)
class WebSettings:
    """What the server allows; every cap answers with a clear 4xx when passed. The
    operator may set any of them in a TOML file (:func:`load_settings`)."""

    __pydantic_config__ = ConfigDict(extra="forbid", allow_inf_nan=False)

    uploads: UploadLimits = field(default_factory=UploadLimits)
    rate_limit: RateLimit = field(default_factory=RateLimit)
    sign_in_limit: RateLimit = field(default_factory=lambda: RateLimit(10, 60.0))
    """Sign-ins, sign-outs and API requests with an unknown token, per client address
    (sign-outs also per account: arena/web/limits.py)."""
    move_limit: RateLimit = field(default_factory=lambda: RateLimit(300, 60.0))
    """Moves in browser games, per client address and per account."""
    check_seconds: float = 10.0
    """The submission check's start-up and move deadline."""
    concurrent_checks: int = 2
    checks_per_account: int = 2
    """Submission checks one account may have running or waiting at once (429 beyond;
    arena/web/check_slots.py)."""
    check_wait_seconds: float = 60.0
    config_bytes: int = 64 * 1024
    caps: ConfigCaps = field(default_factory=ConfigCaps)
    """What a tournament queued over the web may ask for."""
    report_sync_seconds: float = 0.5
    """Reports slower than this are refreshed in the background (see arena/web/cache.py)."""
    allow_weak_sandbox: bool = False
    """Take bot uploads even where the sandbox lacks isolation the docs promise."""
    human_games: int = 16
    """Games people play in the browser at once (arena/web/humans.py), overall …"""
    human_games_per_account: int = 2
    """… and per account."""
    human_idle_seconds: float = 300.0
    """A person who does not move for this long forfeits."""
    human_bot_seconds: float = 10.0
    """A bot's time per move in a browser game (arena/web/opponents.py)."""
    session_hours: float = 12.0
    """How long a browser's sign-in lasts."""

    def __post_init__(self) -> None:
        require_positive(self, skip=(*SETTING_TABLES, "allow_weak_sandbox"))

    @property
    def body_bytes(self) -> int:
        """The largest request body: an archive plus the form's other fields."""
        return max(self.uploads.archive_bytes, self.uploads.python_bytes) + 64 * 1024


def load_settings(path: FilePath) -> WebSettings:
    """The server's settings from a TOML file: any field of :class:`WebSettings`, with
    the tables ``[uploads]``, ``[rate_limit]``, ``[sign_in_limit]``, ``[move_limit]`` and
    ``[caps]`` (docs/web.md); what it leaves out keeps its default.

    Raises:
        ConfigError: the file cannot be read, or a setting is unknown or bad (named).
    """
    data = read_config_file(path)
    try:
        return pydantic.TypeAdapter(WebSettings).validate_python(data)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(file)"
        if first["type"] == "unexpected_keyword_argument":
            raise ConfigError(f"{str(path)!r}: unknown setting {where!r} (docs/web.md)") from None
        message = first["msg"].removeprefix("Value error, ")
        raise ConfigError(
            f"{str(path)!r}: setting {where!r}: {message} (got {first.get('input')!r:.80})"
        ) from None


@dataclass
class WebContext:
    """What every request handler needs; one per app."""

    engine: Engine
    settings: WebSettings
    templates: Jinja2Templates
    reports: ReportCache
    sandbox: SandboxGate
    replays: Memo = field(default_factory=Memo)
    check_slots: CheckSlots = field(init=False)
    humans: HumanGames = field(init=False)
    sessions: SessionKeys = field(init=False)

    def __post_init__(self) -> None:
        self.check_slots = CheckSlots(
            self.settings.concurrent_checks, self.settings.checks_per_account
        )
        limits = HumanLimits(
            games=self.settings.human_games,
            per_account=self.settings.human_games_per_account,
            idle_seconds=self.settings.human_idle_seconds,
            bot_seconds=self.settings.human_bot_seconds,
            caps=self.settings.caps,
        )
        self.humans = HumanGames(self.engine, limits)
        secret = stored_secret(self.engine)
        self.sessions = SessionKeys(secret, max_age=self.settings.session_hours * 3600)


def context(request: Request) -> WebContext:
    """The app's :class:`WebContext` (a FastAPI dependency)."""
    ctx: WebContext = request.app.state.arena
    return ctx


def plain_url(request: Request) -> None:
    """A dependency of every route: the path and query hold only text a database
    stores (a NUL character would reach PostgreSQL as a 503, not a 4xx).

    Raises:
        FieldError: the first such text.
    """
    texts = [request.scope["path"], *request.query_params.keys(), *request.query_params.values()]
    for text in texts:
        try:
            check_text(text)
        except ValueError as exc:
            raise FieldError(f"the URL: {exc}") from None


def status_of(exc: Exception) -> int:
    """The HTTP status an error of ours is answered with."""
    if isinstance(exc, UploadError):
        return exc.status
    statuses: list[tuple[type[Exception], int]] = [
        (AuthError, 401),
        (SignedOut, 401),
        (ForbiddenError, 403),
        (CsrfError, 403),
        (NotYourTurn, 409),
        (TooManyGames, 429),
        (NotFoundError, 404),
        (UnknownGameError, 404),
        (ReportError, 404),
        (TournamentStateError, 409),
        (RateLimited, 429),
        (StorageError, 503),
        (CheckFailed, 503),
        (WeakSandbox, 503),
        (Busy, 503),
    ]
    return next((status for kind, status in statuses if isinstance(exc, kind)), 422)


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413 before the app sees them: by
    the declared length, and by counting while reading (chunked bodies). The body is
    read whole first (at most ``limit`` bytes), so no parser downstream meets a cut one
    or turns the overflow into another status."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared[:20]) > self.limit:
            await self._refuse(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left: nobody to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = JSONResponse(
            {"detail": f"the request body is larger than {self.limit} bytes"},
            status_code=413,
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)


def _describe_validation(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        location = [str(item) for item in error.get("loc", ())]
        where = {"body": "field", "query": "query parameter", "path": "path parameter"}.get(
            location[0] if location else "", "field"
        )
        name = ".".join(location[1:]) or "(body)"
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        value = error.get("input")
        shown = "" if value is None or isinstance(value, dict) else f" (got {value!r:.80})"
        parts.append(f"{where} {name!r}: {message}{shown}")
    return "; ".join(parts)


def _wants_html(request: Request) -> bool:
    path = request.url.path
    if path.startswith("/play/") and path.count("/") > 2:
        return False  # a live game's data (/play/ID/state, …/events, …/move): JSON
    return not path.startswith("/api") and not path.startswith("/static")


def _error_response(request: Request, status: int, message: str) -> Response:
    # The message may quote anything sent (a bot's output, a request's text): a lone
    # surrogate in it would make the response itself fail to encode.
    message = bot_text(message)
    headers: dict[str, str] = {}
    if _wants_html(request):
        ctx = context(request)
        return ctx.templates.TemplateResponse(
            request, "error.html", {"status": status, "message": message}, status_code=status
        )
    return JSONResponse({"detail": message}, status_code=status, headers=headers)


def _install_error_handlers(app: FastAPI) -> None:
    async def arena_error(request: Request, exc: Exception) -> Response:
        status = status_of(exc)
        response = _error_response(request, status, str(exc))
        if isinstance(exc, RateLimited):
            response.headers["Retry-After"] = str(exc.retry_after)
        if isinstance(exc, AuthError):
            response.headers["WWW-Authenticate"] = 'Bearer realm="arena"'
        return response

    async def validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return _error_response(request, 422, _describe_validation(exc))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        message = str(exc.detail) if exc.status_code != 404 else f"no page {request.url.path!r}"
        response = _error_response(request, exc.status_code, message)
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    async def database_error(request: Request, exc: Exception) -> Response:
        original = getattr(exc, "orig", None) or exc
        first = str(original).strip().splitlines()
        return _error_response(request, 503, f"database error: {first[0] if first else exc}")

    app.add_exception_handler(ArenaError, arena_error)
    app.add_exception_handler(GameError, arena_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(SQLAlchemyError, database_error)


def create_app(
    database: Engine | str | None = None,
    *,
    settings: WebSettings | None = None,
    isolation: Isolation | None = None,
) -> FastAPI:
    """The web app over ``database`` (an engine, or a URL or SQLite path opened and
    migrated like the command line's ``--db``); bots are uploaded only where
    ``isolation`` (this machine's, by default) is complete or the settings allow less.

    Raises:
        StorageError: the database cannot be opened.
    """
    from arena.web import api, ladders, pages, play

    engine = database if isinstance(database, Engine) else open_database(database)
    settings = settings or WebSettings()
    ctx = WebContext(
        engine=engine,
        settings=settings,
        templates=Jinja2Templates(directory=str(HERE / "templates")),
        reports=ReportCache(sync_seconds=settings.report_sync_seconds),
        sandbox=SandboxGate(isolation or detect_isolation(), settings.allow_weak_sandbox),
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        """While the app serves, abandoned browser games end on their own; at shutdown,
        this process's games stop and every bot's process ends (the bots kept between
        games, their zygotes, too)."""
        ctx.humans.start_sweeping()
        try:
            yield
        finally:
            ctx.humans.close()

    app = FastAPI(
        title="arena",
        summary="Tournaments and ratings for bots playing card games.",
        description=(
            "Reading is public. Submitting bots and queueing tournaments need a token "
            "(`arena users add NAME` prints one) sent as `Authorization: Bearer TOKEN`."
        ),
        version="1",
        openapi_url="/api/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.arena = ctx
    _install_error_handlers(app)

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        # Only our own pages: the API's docs (/api/docs) load their scripts from a CDN.
        if _wants_html(request):
            response.headers.setdefault("Content-Security-Policy", PAGE_POLICY)
            response.headers.setdefault("X-Frame-Options", "DENY")
        return response

    app.add_middleware(BodyLimit, limit=settings.body_bytes)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.include_router(api.router)
    app.include_router(ladders.router)
    app.include_router(ladders.forms)
    app.include_router(pages.router)
    app.include_router(play.router)
    return app
