"""The JSON API under ``/api``, mirroring the command line.

Reading is public. ``POST /api/bots`` (submit a bot), ``POST /api/tournaments``
(queue a tournament), retiring a bot and cancelling a tournament need
``Authorization: Bearer TOKEN`` and change only what the token's account owns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, Request, Response, Security, UploadFile
from fastapi.responses import PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlmodel import Session

from arena.errors import ArenaError, ConfigError, NotFoundError
from arena.players.loader import COMMAND, PYTHON, bundle_files
from arena.players.submission import SubmissionRejected, UnsafeCommand, check_archive_command
from arena.store.bots import (
    BotRegistryError,
    add_bot,
    check_free_name,
    find_bot,
    python_params,
    remove_bot,
)
from arena.store.db import session_scope
from arena.store.models import Account, BotVersion, TournamentStatus
from arena.store.models import Tournament as TournamentRow
from arena.tournament.config import TournamentConfig, check_caps, validate_config
from arena.tournament.driver import cancel_tournament, create_tournament
from arena.web import queries, reports, schemas
from arena.web.accounts import (
    CANCEL_TOURNAMENT,
    QUEUE_TOURNAMENT,
    RETIRE_BOT,
    SUBMIT_BOT,
    ForbiddenError,
    account_for_token,
    admit,
    check_may_change_bot,
)
from arena.web.app import (
    AuthError,
    FieldError,
    Offset,
    RowId,
    SeatsQuery,
    TimeClassQuery,
    VariantQuery,
    WebContext,
    context,
    plain_url,
)
from arena.web.cache import Cached
from arena.web.checker import Submission, run_check
from arena.web.data import load_json, load_toml
from arena.web.limits import SIGN_IN, client_subject, count_request, refuse_if_spent
from arena.web.replay import replay_views
from arena.web.unpacker import read_archive
from arena.web.uploads import (
    ARCHIVE_SUFFIXES,
    UploadError,
    check_file_name,
    decode_text,
    read_capped,
)
from engines.errors import GameError
from engines.registry import get_game

router = APIRouter(prefix="/api", dependencies=[Depends(plain_url)])
bearer = HTTPBearer(
    auto_error=False,
    description="the token `arena users add NAME` printed",
)
Context = Annotated[WebContext, Depends(context)]
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": schemas.ErrorMessage} for status in (404, 422)
}
WRITE_ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": schemas.ErrorMessage} for status in (401, 403, 404, 413, 422, 429, 503)
}
REPORT_JSON: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/json": {}}, "description": "the report's data"}
}
PNG: dict[int | str, dict[str, Any]] = {
    200: {"content": {"image/png": {}}, "description": "ratings and head-to-head"}
}


def current_account(
    ctx: Context,
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)],
) -> Account:
    """The account of the request's bearer token. Unknown tokens count against the
    client's sign-in limit (arena/web/limits.py), and a client that spent it is refused
    before its token is looked at: guessing is as slow as signing in.

    Raises:
        AuthError: no token, or an unknown one (401).
        RateLimited: the client sent too many unknown tokens (429).
    """
    if credentials is None:
        raise AuthError(
            "this needs a token: send 'Authorization: Bearer TOKEN' "
            "(`arena users add NAME` prints one)"
        )
    client = client_subject(request)
    limit = ctx.settings.sign_in_limit
    with Session(ctx.engine) as session:
        refuse_if_spent(session, SIGN_IN, client, limit)
        account = account_for_token(session, credentials.credentials)
    if account is None:
        with session_scope(ctx.engine) as session:
            count_request(session, SIGN_IN, [client], limit)
        raise AuthError("unknown token")
    return account


Owner = Annotated[Account, Depends(current_account)]


# -- games and leaderboards ------------------------------------------------------------


@router.get("/games", tags=["games"], response_model=list[schemas.GameKind])
def list_games(ctx: Context) -> list[schemas.GameKind]:
    """Every game: seats, information, options, built-in bots, stored games
    (``arena games``)."""
    return queries.game_kinds(ctx.engine)


@router.get("/games/{game}", tags=["games"], response_model=schemas.GameKind, responses=ERRORS)
def show_game(ctx: Context, game: str) -> schemas.GameKind:
    return queries.game_kind(ctx.engine, game)


def _report_response(cached: Cached) -> Response:
    return Response(
        cached.entry.json,
        media_type="application/json",
        headers={
            "X-Report-Current": "true" if cached.current else "false",
            "ETag": _etag(cached),
        },
    )


def _etag(cached: Cached) -> str:
    total, last = cached.entry.version
    return f'"{total}-{last}"'


def _png_response(request: Request, cached: Cached) -> Response:
    etag = _etag(cached)
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers={"ETag": etag})
    return Response(
        cached.entry.png(),
        media_type="image/png",
        headers={"ETag": etag, "Cache-Control": "no-cache"},
    )


@router.get(
    "/leaderboards/{game}",
    tags=["games"],
    responses={**ERRORS, **REPORT_JSON},
    response_class=Response,
)
def leaderboard(
    ctx: Context,
    game: str,
    seats: SeatsQuery = None,
    time_class: TimeClassQuery = None,
    variant: VariantQuery = None,
) -> Response:
    """Every bot version's standing across all tournaments of the game
    (``arena leaderboard GAME --format json``): Elo with its 95% interval, games,
    results, forfeits by reason. Cached until games of it are stored;
    ``X-Report-Current: false`` marks a stale copy served while a slow refit runs."""
    return _report_response(reports.leaderboard(ctx, game, seats, time_class, variant))


@router.get(
    "/leaderboards/{game}/humans",
    tags=["games"],
    responses={**ERRORS, **REPORT_JSON},
    response_class=Response,
)
def humans_leaderboard(
    ctx: Context,
    game: str,
    seats: SeatsQuery = None,
    time_class: TimeClassQuery = None,
    variant: VariantQuery = None,
) -> Response:
    """The humans' leaderboard: the games people played in the browser (only those),
    rating the people and the bots they met; as ``/leaderboards/{game}``."""
    return _report_response(reports.leaderboard(ctx, game, seats, time_class, variant, humans=True))


@router.get(
    "/leaderboards/{game}/plot.png",
    tags=["games"],
    responses={**ERRORS, **PNG},
    response_class=Response,
)
def leaderboard_plot(
    ctx: Context,
    request: Request,
    game: str,
    seats: SeatsQuery = None,
    time_class: TimeClassQuery = None,
    variant: VariantQuery = None,
) -> Response:
    """The leaderboard's ratings with error bars and the head-to-head heat map."""
    return _png_response(request, reports.leaderboard(ctx, game, seats, time_class, variant))


# -- bots --------------------------------------------------------------------------------


@router.get("/bots", tags=["bots"], response_model=list[schemas.Bot], responses=ERRORS)
def list_bots(
    ctx: Context,
    game: Annotated[str | None, Query(description="only bots of this game")] = None,
    all_versions: Annotated[bool, Query(alias="all", description="include retired")] = False,
) -> list[schemas.Bot]:
    """Registered bot versions (``arena bots list``)."""
    with Session(ctx.engine) as session:
        return queries.bots(session, game=game, include_retired=all_versions)


@router.get("/bots/{reference}", tags=["bots"], response_model=schemas.BotDetail, responses=ERRORS)
def show_bot(ctx: Context, reference: str) -> schemas.BotDetail:
    """A bot's versions with their results per tournament, forfeits by reason and
    leaderboard ratings (``NAME`` or ``NAME@VERSION``)."""
    return queries.bot_detail(ctx.engine, reference, lambda game: reports.ratings(ctx, game))


@router.get(
    "/bots/{reference}/code",
    tags=["bots"],
    response_class=PlainTextResponse,
    responses=WRITE_ERRORS,
)
def bot_code(ctx: Context, account: Owner, reference: str) -> PlainTextResponse:
    """The stored code of one of the token's own bots (archives as JSON)."""
    with Session(ctx.engine) as session:
        bot = find_bot(session, reference)
    check_owner(bot, account)
    return PlainTextResponse(bot.code or "")


@router.delete(
    "/bots/{reference}", tags=["bots"], response_model=list[schemas.Bot], responses=WRITE_ERRORS
)
def retire_bot(ctx: Context, account: Owner, reference: str) -> list[schemas.Bot]:
    """Retire one of the token's bots (``NAME@V``, or every version of ``NAME``): it
    leaves listings and new tournaments; its games and ratings stay. Rate-limited per
    account like every write."""
    with session_scope(ctx.engine) as session:  # counted even when refused below
        admit(session, account, RETIRE_BOT, ctx.settings.rate_limit)
    with session_scope(ctx.engine) as session:
        check_may_change_bot(session, account, reference.partition("@")[0])
        retired = remove_bot(session, reference)
        return [queries.bot_view(session, bot) for bot in retired]


def check_owner(bot: BotVersion, account: Account) -> None:
    if bot.owner_id is None or bot.owner_id != account.id:
        raise ForbiddenError(f"bot {bot.label!r} is not one of this token's bots")


def _upload(field: UploadFile | None) -> UploadFile | None:
    """A file field the browser sent empty (nothing chosen) counts as absent."""
    if field is None or (not field.filename and not field.size):
        return None
    return field


def _params(text: str | None, what: str = "a Python bot") -> dict[str, Any]:
    """A submitted bot's parameters from the form's JSON object."""
    if text is None or not text.strip():
        return {}
    try:
        value = load_json(text)
    except ValueError as exc:
        raise FieldError(f"field 'params': not JSON: {exc} (got {text!r:.80})") from None
    if not isinstance(value, dict):
        raise FieldError(f"field 'params': a JSON object, e.g. {{\"seed\": 3}} (got {text!r:.80})")
    try:
        return python_params(value, what)
    except BotRegistryError as exc:
        raise FieldError(f"field 'params': {exc}") from None


def _command(command: str | None, files: Mapping[str, str]) -> str:
    """The archive's command, checked against its files."""
    try:
        check_archive_command(command or "", files)
    except UnsafeCommand as exc:
        raise FieldError(f"field 'command': {exc}") from None
    return (command or "").strip()


@router.post(
    "/bots",
    tags=["bots"],
    status_code=201,
    response_model=schemas.SubmittedBot,
    responses={200: {"model": schemas.SubmittedBot, "description": "unchanged"}, **WRITE_ERRORS},
)
def submit_bot(
    ctx: Context,
    account: Owner,
    response: Response,
    name: Annotated[str, Form(description="the bot's name; new code makes NAME@2, …")],
    game: Annotated[str, Form(description="the game it plays")],
    file: Annotated[
        UploadFile | None, File(description="a Python file with a class that has act()")
    ] = None,
    archive: Annotated[
        UploadFile | None,
        File(description="a .zip, .tar.gz or .tgz of text files, run by 'command'"),
    ] = None,
    command: Annotated[
        str | None,
        Form(description="for an archive: the command, naming its files as {code}/PATH"),
    ] = None,
    class_name: Annotated[
        str | None, Form(description="for a Python file: the bot class (default: the only one)")
    ] = None,
    params: Annotated[
        str | None,
        Form(
            description='parameters as JSON, e.g. {"seed": 3, "depth": 2}: a Python bot\'s '
            "constructor gets them, an archive's command its new_game message"
        ),
    ] = None,
) -> schemas.SubmittedBot:
    """Submit a bot (``arena bots add``): a Python file, or an archive plus a command.
    It must pass the submission check (start in the sandbox, handshake, whole games
    against the built-in bots at every seat count) before it is stored; 422 with the
    reason otherwise. The answer gives its move times and the time-control classes they
    fit (``times``). Rate-limited per token. 503 where
    the sandbox lacks isolation the docs promise (unless the server allows that)."""
    ctx.sandbox.check_upload()
    settings = ctx.settings
    try:
        check_free_name(name)
    except ArenaError as exc:
        raise FieldError(f"field 'name': {exc}") from None
    try:
        game_name = get_game(game).name
    except GameError as exc:
        raise FieldError(f"field 'game': {exc}") from None
    python_file, archive_file = _upload(file), _upload(archive)
    if (python_file is None) == (archive_file is None):
        raise FieldError(
            "give exactly one of the fields 'file' (a Python file) and 'archive' (with 'command')"
        )
    if python_file is not None and command:
        raise FieldError("field 'command': only an archive takes a command")
    if archive_file is not None and class_name:
        raise FieldError("field 'class_name' applies to a Python file only")
    with Session(ctx.engine) as session:
        check_may_change_bot(session, account, name)
    with session_scope(ctx.engine) as session:
        admit(session, account, SUBMIT_BOT, settings.rate_limit)
    if python_file is not None:
        filename = check_file_name("file", python_file.filename or "", (".py",))
        code = decode_text(
            "file", filename, read_capped("file", python_file.file, settings.uploads.python_bytes)
        )
        if class_name is not None and not class_name.isidentifier():
            raise FieldError(f"field 'class_name': not a Python name (got {class_name!r:.80})")
        submission = Submission(
            kind=PYTHON,
            game=game_name,
            name=name,
            seconds=settings.check_seconds,
            code=code,
            filename=filename,
            class_name=class_name or None,
            params=_params(params),
        )
    else:
        assert archive_file is not None
        filename = check_file_name("archive", archive_file.filename or "", ARCHIVE_SUFFIXES)
        data = read_capped("archive", archive_file.file, settings.uploads.archive_bytes)
        files = read_archive(filename, data, settings.uploads)
        submission = Submission(
            kind=COMMAND,
            game=game_name,
            name=name,
            seconds=settings.check_seconds,
            code=bundle_files(files),
            command=_command(command, files),
            params=_params(params, "a command bot"),
        )
    assert account.id is not None
    with ctx.check_slots.held(account.id, settings.check_wait_seconds):
        verdict = run_check(submission)
    if verdict.source is None:
        raise SubmissionRejected(verdict.rejection or "bot rejected")
    with session_scope(ctx.engine) as session:
        check_may_change_bot(session, account, name)
        bot, created = add_bot(session, name=name, game=game_name, source=verdict.source)
        if created:
            bot.owner_id = account.id
            session.add(bot)
        session.flush()
        view = queries.bot_view(session, bot)
    response.status_code = 201 if created else 200
    return schemas.SubmittedBot(
        bot=view,
        created=created,
        check=verdict.summary,
        warning=verdict.warning,
        times=None if verdict.times is None else schemas.CheckTimes(**verdict.times),
    )


# -- tournaments -------------------------------------------------------------------------


@router.get("/tournaments", tags=["tournaments"], response_model=schemas.TournamentPage)
def list_tournaments(
    ctx: Context,
    game: Annotated[str | None, Query(description="only tournaments of this game")] = None,
    status: Annotated[
        str | None,
        Query(
            pattern=f"^({'|'.join(TournamentStatus)})$",
            description="only tournaments in this state",
        ),
    ] = None,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> schemas.TournamentPage:
    """Tournaments, newest first (``arena tournament list``)."""
    return queries.tournaments(ctx.engine, game=game, status=status, offset=offset, limit=limit)


@router.get(
    "/tournaments/{tournament_id}",
    tags=["tournaments"],
    response_model=schemas.TournamentDetail,
    responses=ERRORS,
)
def show_tournament(ctx: Context, tournament_id: RowId) -> schemas.TournamentDetail:
    """Configuration, participants, status and progress (``arena tournament show``)."""
    return queries.tournament_detail(ctx.engine, tournament_id)


@router.get(
    "/tournaments/{tournament_id}/games",
    tags=["tournaments"],
    response_model=schemas.GamePage,
    responses=ERRORS,
)
def tournament_games(
    ctx: Context,
    tournament_id: RowId,
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> schemas.GamePage:
    """The tournament's stored games in order; each record is at ``/api/records/{id}``."""
    return queries.tournament_games(ctx.engine, tournament_id, offset=offset, limit=limit)


@router.get(
    "/tournaments/{tournament_id}/report",
    tags=["tournaments"],
    responses={**ERRORS, **REPORT_JSON},
    response_class=Response,
)
def tournament_report(ctx: Context, tournament_id: RowId) -> Response:
    """Standings with Elo ± interval, head-to-head, pair statistics, SPRT
    (``arena report ID --format json``)."""
    return _report_response(reports.tournament(ctx, tournament_id))


@router.get(
    "/tournaments/{tournament_id}/plot.png",
    tags=["tournaments"],
    responses={**ERRORS, **PNG},
    response_class=Response,
)
def tournament_plot(ctx: Context, request: Request, tournament_id: RowId) -> Response:
    return _png_response(request, reports.tournament(ctx, tournament_id))


async def config_body(request: Request) -> bytes:
    """The raw request body, refused past the configuration size cap."""
    ctx = context(request)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > ctx.settings.config_bytes:
            raise UploadError(
                f"the configuration is larger than {ctx.settings.config_bytes} bytes", status=413
            )
    return bytes(body)


def parse_config_body(body: bytes, content_type: str) -> dict[str, Any]:
    """A configuration from a JSON or TOML body.

    Raises:
        ConfigError: not UTF-8, not valid JSON or TOML (see :func:`load_json`), or not
            a table/object.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("the body is not UTF-8 text") from None
    media = content_type.split(";")[0].strip().lower()
    if media in ("application/json", ""):
        try:
            data = load_json(text)
        except ValueError as exc:
            raise ConfigError(f"the body is not valid JSON: {exc}") from None
    elif media in ("application/toml", "text/toml", "text/plain", "application/x-toml"):
        try:
            data = load_toml(text)
        except ValueError as exc:
            raise ConfigError(f"the body is not valid TOML: {exc}") from None
    else:
        raise ConfigError(
            f"Content-Type {media!r}: send the configuration as application/json or "
            "application/toml"
        )
    if not isinstance(data, dict):
        raise ConfigError(f"the configuration is a JSON object or TOML table, not {data!r:.40}")
    return data


OPERATOR_FIELDS = ("executor", "ray_address")
"""Fields of a configuration file that only the operator sets for web-queued tournaments:
which executors and clusters exist (a web user's ``executor = "ray"`` would start Ray)."""


def check_web_config(data: Mapping[str, Any], ctx: WebContext) -> TournamentConfig:
    """Validate a configuration sent over the web: the command line's rules, and the
    server's caps. It names no seed (the server draws a secret one: arena.store.sealing),
    no executor and no cluster (:data:`OPERATOR_FIELDS`).

    Raises:
        ConfigError: the first problem, naming the field and the value.
    """
    if "seed" in data:
        raise ConfigError(
            f"field 'seed': not allowed over the web: the server draws each tournament's "
            f"seed in secret and reveals it when the tournament is over (got {data['seed']!r:.80})"
        )
    for name in OPERATOR_FIELDS:
        if name in data:
            raise ConfigError(
                f"field {name!r}: not allowed over the web: how and where queued tournaments "
                f"run is the operator's setting (`arena worker --executor`): leave it out "
                f"(got {data[name]!r:.80})"
            )
    config = validate_config(data, "body")
    check_caps(config, ctx.settings.caps)
    return config


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema with its ``$defs`` written where they are used: inside an OpenAPI
    document, ``#/$defs/…`` would point at the document's root, where they are not."""
    definitions = schema.get("$defs", {})

    def resolved(node: Any) -> Any:
        if isinstance(node, list):
            return [resolved(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return resolved(definitions[node["$ref"].rpartition("/")[2]])
        return {key: resolved(value) for key, value in node.items() if key != "$defs"}

    result: dict[str, Any] = resolved(schema)
    return result


def web_config_schema() -> dict[str, Any]:
    """The JSON schema of a configuration sent over the web: a configuration file's,
    without ``seed`` (the server draws it) and :data:`OPERATOR_FIELDS`
    (:func:`check_web_config`)."""
    schema = inline_refs(TournamentConfig.model_json_schema())
    hidden = {"seed", *OPERATOR_FIELDS}
    schema["properties"] = {k: v for k, v in schema["properties"].items() if k not in hidden}
    return schema


@router.post(
    "/tournaments",
    tags=["tournaments"],
    status_code=202,
    response_model=schemas.TournamentDetail,
    responses=WRITE_ERRORS,
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "a tournament configuration, as in configs/*.toml",
            "content": {
                "application/json": {"schema": web_config_schema()},
                "application/toml": {"schema": {"type": "string"}},
            },
        }
    },
)
def queue_tournament(
    ctx: Context,
    account: Owner,
    request: Request,
    response: Response,
    body: Annotated[bytes, Depends(config_body)],
) -> schemas.TournamentDetail:
    """Queue a tournament from a configuration (JSON or TOML, the fields of
    ``configs/*.toml`` but ``seed``). It is validated, its bots resolved and its schedule
    written at once (422 naming the field otherwise), then a worker runs it. Its seed is
    drawn in secret: the answer shows the commitment to it, the seed is shown once the
    tournament is over."""
    data = parse_config_body(body, request.headers.get("content-type", ""))
    config = check_web_config(data, ctx)
    with session_scope(ctx.engine) as session:
        admit(session, account, QUEUE_TOURNAMENT, ctx.settings.rate_limit)
    # One transaction: a failure on the way leaves no tournament that no worker takes
    # and no owner can cancel. (The rate limit above counts rejected requests too.)
    with session_scope(ctx.engine) as session:
        tournament_id = create_tournament(
            session,
            config,
            "body",
            status=TournamentStatus.QUEUED,
            owner_id=account.id,
            sealed=True,
        )
    response.headers["Location"] = f"/api/tournaments/{tournament_id}"
    return queries.tournament_detail(ctx.engine, tournament_id)


@router.post(
    "/tournaments/{tournament_id}/cancel",
    tags=["tournaments"],
    response_model=schemas.TournamentDetail,
    responses={409: {"model": schemas.ErrorMessage}, **WRITE_ERRORS},
)
def cancel(ctx: Context, account: Owner, tournament_id: RowId) -> schemas.TournamentDetail:
    """Cancel one of the token's tournaments; a running one stops at its next write."""
    with session_scope(ctx.engine) as session:  # counted even when refused below
        admit(session, account, CANCEL_TOURNAMENT, ctx.settings.rate_limit)
    with session_scope(ctx.engine) as session:  # the owner checked and the cancel at once
        row = session.get(TournamentRow, tournament_id)
        if row is None:
            raise NotFoundError(f"no tournament {tournament_id}")
        if row.owner_id is None or row.owner_id != account.id:
            raise ForbiddenError(f"tournament {tournament_id} was not queued by this token")
        cancel_tournament(session, tournament_id)
    return queries.tournament_detail(ctx.engine, tournament_id)


# -- records -----------------------------------------------------------------------------


@router.get(
    "/records/{game_id}", tags=["records"], response_model=schemas.StoredRecord, responses=ERRORS
)
def show_record(ctx: Context, game_id: RowId) -> schemas.StoredRecord:
    """A stored game and its full record (docs/records.md): the deal, every action,
    the outcome."""
    return queries.stored_record(ctx.engine, game_id)[0]


@router.get(
    "/records/{game_id}/replay",
    tags=["records"],
    response_model=schemas.Replay,
    responses=ERRORS,
)
def replay(
    ctx: Context,
    game_id: RowId,
    seat: Annotated[
        int | None,
        Query(ge=0, le=15, description="whose view; omit for the spectator's (everything)"),
    ] = None,
) -> Response:
    """The game step by step as one seat saw it (its observation and the table drawn
    for it, nothing more), or as a spectator sees it after the game."""
    return Response(
        ctx.replays.get((game_id, seat), lambda: _replay_json(ctx, game_id, seat)),
        media_type="application/json",
    )


def _replay_json(ctx: WebContext, game_id: int, seat: int | None) -> bytes:
    stored, record = queries.stored_record(ctx.engine, game_id)
    data = schemas.Replay(
        game_id=game_id,
        game=stored.game,
        seat=seat,
        players=stored.players,
        outcome=record.outcome,
        steps=[schemas.ReplayStep(**step.to_data()) for step in replay_views(record, seat)],
    )
    return data.model_dump_json().encode("utf-8")


@router.get("/me", tags=["accounts"], response_model=schemas.Account, responses=WRITE_ERRORS)
def me(account: Owner) -> schemas.Account:
    """The account the token belongs to."""
    return schemas.Account(name=account.name)
