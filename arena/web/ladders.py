"""The continuous ladder on the web (issue 18).

A game's ladders (standings with 95% intervals, bot status, running version tests) are
on ``/games/GAME`` and ``GET /api/ladders/GAME``; a bot's ladder ratings over time and
its version tests on ``/bots/NAME``, ``GET /api/bots/NAME/ladder`` and the plot
``GET /api/bots/NAME/ladder.png``. An operator's token starts and stops ladders
(``POST /api/ladders``, ``POST /api/ladders/ID/stop``, as ``arena ladder start|stop``);
an owner stops a test with ``arena ladder stop-test`` or, with a token,
``POST /api/bots/NAME@V/regression-tests/stop``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from urllib.parse import quote

import sqlalchemy as sa
from fastapi import APIRouter, Depends, Form, Query, Request, Response
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic import Field as PydanticField
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.errors import NotFoundError
from arena.ladder.service import TestLine, describe_tests, standings, stored_games
from arena.ratings.pairs import game_score
from arena.store.bots import parse_reference
from arena.store.ladders import all_ladders, rating_history, regression_tests
from arena.store.listing import version_test_conditions
from arena.store.models import (
    Account,
    BotVersion,
    Ladder,
    RegressionTest,
    Tournament,
)
from arena.store.sealing import sealed
from arena.web import queries, schemas
from arena.web.accounts import CHANGE_LADDER, STOP_REGRESSION_TESTS, admit, check_operator
from arena.web.api import WRITE_ERRORS, Owner, check_owner
from arena.web.app import FieldError, RowId, WebContext, context, plain_url
from arena.web.play import signed_in
from arena.web.sessions import check_csrf
from engines.errors import GameError
from engines.registry import get_game

router = APIRouter(prefix="/api", dependencies=[Depends(plain_url)], tags=["ladders"])
Context = Annotated[WebContext, Depends(context)]
ERRORS: dict[int | str, dict[str, object]] = {
    status: {"model": schemas.ErrorMessage} for status in (404, 422)
}


class LadderStanding(BaseModel):
    """One bot of a ladder: its latest rating (None before its first) and status."""

    bot_id: int
    label: str
    rating: float | None
    lower: float | None
    upper: float | None
    games: int
    status: str
    """active | retired | suspended: REASON."""


class VersionTest(BaseModel):
    """A version regression test: the candidate's SPRT against its predecessor."""

    id: int
    ladder: str
    tournament_id: int
    """The ladder's tournament; the test's games are at
    ``/api/bots/CANDIDATE/regression-tests/ID/games``."""
    candidate: str
    baseline: str
    status: str
    """running | accepted-H0 | accepted-H1 | stopped."""
    llr: float
    lower_bound: float
    upper_bound: float
    games: int
    pentanomial: list[int]
    """Pairs LL, LD, WL, DD, WD, WW."""
    message: str | None


class GameLadder(BaseModel):
    """A ladder of one game, seat count and time-control class."""

    id: int
    tournament_id: int
    game: str
    seats: int
    time_class: str
    status: str
    """running | stopped."""
    games: int
    standings: list[LadderStanding]
    tests: list[VersionTest]
    """Its running tests."""


class RatingPoint(BaseModel):
    at: datetime
    rating: float
    lower: float
    upper: float
    games: int


class RatingHistory(BaseModel):
    """One bot version's ratings on one ladder, oldest first."""

    bot: str
    ladder_id: int
    ladder: str
    points: list[RatingPoint]


class BotLadders(BaseModel):
    """Every version of a bot on the ladders: rating histories and version tests."""

    name: str
    histories: list[RatingHistory]
    tests: list[VersionTest]


def ladder_name(ladder: Ladder) -> str:
    return f"{ladder.game} {ladder.time_class}, {ladder.seats} seats"


def _test(line: TestLine) -> VersionTest:
    return VersionTest(
        id=line.id,
        ladder=line.ladder,
        tournament_id=line.tournament_id,
        candidate=line.candidate,
        baseline=line.baseline,
        status=line.status,
        llr=line.llr,
        lower_bound=line.lower_bound,
        upper_bound=line.upper_bound,
        games=line.games,
        pentanomial=list(line.counts),
        message=line.message,
    )


def game_ladders(engine: Engine, game: str) -> list[GameLadder]:
    """The ladders of ``game`` (running ones first).

    Raises UnknownGameError for a game that does not exist.
    """
    name = get_game(game).name
    with Session(engine) as session:
        found = [
            _game_ladder(session, ladder, tournament)
            for ladder, tournament in all_ladders(session)
            if ladder.game == name
        ]
    return sorted(found, key=lambda ladder: (ladder.status != "running", ladder.id))


def _game_ladder(session: Session, ladder: Ladder, tournament: Tournament) -> GameLadder:
    assert ladder.id is not None
    running = regression_tests(session, ladder_id=ladder.id, running=True)
    return GameLadder(
        id=ladder.id,
        tournament_id=ladder.tournament_id,
        game=ladder.game,
        seats=ladder.seats,
        time_class=ladder.time_class,
        status=str(tournament.status),
        games=stored_games(session, ladder),
        standings=[LadderStanding(**vars(line)) for line in standings(session, ladder)],
        tests=[_test(line) for line in describe_tests(session, running)],
    )


def one_ladder(engine: Engine, ladder_id: int) -> GameLadder:
    """Raises NotFoundError for an unknown ladder id."""
    with Session(engine) as session:
        ladder = session.get(Ladder, ladder_id)
        tournament = None if ladder is None else session.get(Tournament, ladder.tournament_id)
        if ladder is None or tournament is None:
            raise NotFoundError(f"no ladder {ladder_id} (see GET /api/ladders/GAME)")
        return _game_ladder(session, ladder, tournament)


def bot_ladders(engine: Engine, reference: str) -> BotLadders:
    """The ladder histories and version tests of every version of the bot ``reference``
    names (``NAME`` or ``NAME@V``).

    Raises NotFoundError for an unknown bot, BotRegistryError for a malformed reference.
    """
    name, _ = parse_reference(reference)
    with Session(engine) as session:
        versions = session.exec(
            select(BotVersion).where(BotVersion.name == name).order_by(col(BotVersion.version))
        ).all()
        if not versions:
            raise NotFoundError(f"no bot {reference!r}")
        histories = []
        tests = {}
        for bot in versions:
            assert bot.id is not None
            for ladder, rows in rating_history(session, bot.id):
                assert ladder.id is not None
                points = [
                    RatingPoint(
                        at=row.at,
                        rating=row.rating,
                        lower=row.lower,
                        upper=row.upper,
                        games=row.games,
                    )
                    for row in rows
                ]
                histories.append(
                    RatingHistory(
                        bot=bot.label,
                        ladder_id=ladder.id,
                        ladder=ladder_name(ladder),
                        points=points,
                    )
                )
            for test in regression_tests(session, bot_id=bot.id):
                tests[test.id] = test
        lines = describe_tests(session, sorted(tests.values(), key=lambda t: -(t.id or 0)))
    return BotLadders(name=name, histories=histories, tests=[_test(line) for line in lines])


@router.get("/ladders/{game}", response_model=list[GameLadder], responses=ERRORS)
def ladders_of_game(ctx: Context, game: str) -> list[GameLadder]:
    """The game's ladders: standings with 95% intervals, bot status, running version
    tests (``arena ladder show``)."""
    return game_ladders(ctx.engine, game)


@router.get("/bots/{reference}/ladder", response_model=BotLadders, responses=ERRORS)
def ladders_of_bot(ctx: Context, reference: str) -> BotLadders:
    """The bot's ladder rating histories and version tests, all versions
    (``arena bots show``)."""
    return bot_ladders(ctx.engine, reference)


@router.get(
    "/bots/{reference}/ladder.png",
    responses={**ERRORS, 200: {"content": {"image/png": {}}, "description": "the history"}},
    response_class=Response,
)
def ladder_plot(ctx: Context, reference: str) -> Response:
    """The bot's ladder ratings over time with their 95% band (``arena bots show --plot``)."""
    from arena.ladder.plot import history_png

    name, _ = parse_reference(reference)
    with Session(ctx.engine) as session:
        versions = session.exec(select(BotVersion).where(BotVersion.name == name)).all()
        if not versions:
            raise NotFoundError(f"no bot {reference!r}")
        histories = [
            (ladder, rows)
            for bot in versions
            if bot.id is not None
            for ladder, rows in rating_history(session, bot.id)
        ]
    return Response(
        history_png(name, histories), media_type="image/png", headers={"Cache-Control": "no-cache"}
    )


@router.post(
    "/bots/{reference}/regression-tests/stop",
    response_model=list[VersionTest],
    responses=WRITE_ERRORS,
)
def stop_tests(ctx: Context, account: Owner, reference: str) -> list[VersionTest]:
    """Stop the running regression tests of one of the token's bot versions
    (``NAME@V``); returns its tests."""
    from arena.ladder.service import stop_regression_tests
    from arena.store.bots import find_bot
    from arena.store.db import session_scope

    with session_scope(ctx.engine) as session:  # counted even when refused below
        admit(session, account, STOP_REGRESSION_TESTS, ctx.settings.rate_limit)
    with session_scope(ctx.engine) as session:
        bot = find_bot(session, reference)
        check_owner(bot, account)
        stop_regression_tests(session, bot, why=f"stopped by its owner {account.name}")
        assert bot.id is not None
        lines = describe_tests(session, regression_tests(session, bot_id=bot.id))
        return [_test(line) for line in lines]


class LadderStart(BaseModel):
    """What ``arena ladder start`` takes: a stopped ladder of the same game, seat count
    and time-control class starts again where it was."""

    model_config = ConfigDict(extra="forbid")

    game: str = PydanticField(max_length=64, description="see GET /api/games")
    seats: int | None = PydanticField(
        default=None, ge=1, le=16, description="seats per game (default: the game's)"
    )
    time_control: str | None = PydanticField(
        default=None,
        max_length=64,
        description="a class (bullet | blitz | rapid | classical | unlimited) or a time "
        "control ('st=0.2', 'tc=60+0.5'); default blitz",
    )


@router.post(
    "/ladders",
    status_code=201,
    response_model=GameLadder,
    responses={200: {"model": GameLadder, "description": "started again"}, **WRITE_ERRORS},
)
def start(ctx: Context, account: Owner, body: LadderStart, response: Response) -> GameLadder:
    """Start a ladder (an operator's token; ``arena ladder start``): 201 for a new one,
    200 for a stopped one started again with its settings and games."""
    ladder_id, created = start_as(ctx, account, body)
    response.status_code = 201 if created else 200
    return one_ladder(ctx.engine, ladder_id)


@router.post("/ladders/{ladder_id}/stop", response_model=GameLadder, responses=WRITE_ERRORS)
def stop(ctx: Context, account: Owner, ladder_id: RowId) -> GameLadder:
    """Stop a ladder (an operator's token; ``arena ladder stop``): workers play no more
    of it; its games, ratings and tests stay."""
    stop_as(ctx, account, ladder_id)
    return one_ladder(ctx.engine, ladder_id)


def start_as(ctx: WebContext, account: Account, body: LadderStart) -> tuple[int, bool]:
    """Start a ladder for ``account``; returns its id and whether it is new.

    Raises:
        ForbiddenError: not an operator. RateLimited: too many writes.
        FieldError, LadderError, TimeControlError: bad settings (start_ladder's message).
    """
    from arena.ladder.service import start_ladder
    from arena.store.db import session_scope

    check_operator(account, "start a ladder")
    with session_scope(ctx.engine) as session:
        admit(session, account, CHANGE_LADDER, ctx.settings.rate_limit)
    try:
        with session_scope(ctx.engine) as session:
            ladder, created = start_ladder(
                session, body.game, seats=body.seats, time_control=body.time_control
            )
            ladder_id = ladder.id
    except GameError as exc:  # an unknown game is bad input here, not a missing page
        raise FieldError(str(exc)) from None
    assert ladder_id is not None
    return ladder_id, created


def stop_as(ctx: WebContext, account: Account, ladder_id: int) -> Ladder:
    """Stop a ladder for ``account``; returns it.

    Raises:
        ForbiddenError: not an operator. RateLimited: too many writes.
        NotFoundError: no such ladder.
    """
    from arena.ladder.service import stop_ladder
    from arena.store.db import session_scope

    check_operator(account, "stop a ladder")
    with session_scope(ctx.engine) as session:
        admit(session, account, CHANGE_LADDER, ctx.settings.rate_limit)
    with session_scope(ctx.engine) as session:
        ladder = session.get(Ladder, ladder_id)
        if ladder is None:
            raise NotFoundError(f"no ladder {ladder_id} (see GET /api/ladders/GAME)")
        stop_ladder(session, ladder)
        session.expunge(ladder)
        return ladder


forms = APIRouter(include_in_schema=False, dependencies=[Depends(plain_url)])
"""The game page's operator forms (a browser session, anti-CSRF checked)."""


@forms.post("/games/{game}/ladders")
def start_ladder_form(
    ctx: Context,
    request: Request,
    game: str,
    csrf: Annotated[str, Form(max_length=200)] = "",
    seats: Annotated[str, Form(max_length=20)] = "",
    time_control: Annotated[str, Form(max_length=64)] = "",
) -> Response:
    """Start (or start again) a ladder of ``game`` from its page; back to the page."""
    check_csrf(ctx.sessions, request, csrf)
    account = signed_in(ctx, request)
    seats = seats.strip()
    if seats and not (seats.isascii() and seats.isdigit()):
        raise FieldError(f"field 'seats': a number (got {seats!r})")
    try:
        body = LadderStart(
            game=game,
            seats=int(seats) if seats else None,
            time_control=time_control.strip() or None,
        )
    except ValidationError as exc:
        raise FieldError(f"bad ladder settings: {exc.errors()[0]['msg']}") from None
    start_as(ctx, account, body)
    return RedirectResponse(f"/games/{quote(body.game)}#ladders-area", status_code=303)


@forms.post("/games/{game}/ladders/{ladder_id}/stop")
def stop_ladder_form(
    ctx: Context,
    request: Request,
    game: str,
    ladder_id: RowId,
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """Stop a ladder from its game's page; back to the page."""
    check_csrf(ctx.sessions, request, csrf)
    account = signed_in(ctx, request)
    ladder = stop_as(ctx, account, ladder_id)
    return RedirectResponse(f"/games/{quote(ladder.game)}#ladders-area", status_code=303)


class VersionTestGame(schemas.StoredGame):
    """A game of a regression test: the ladder tournament's game ``index``, one of the
    pairs the test counted."""

    candidate_score: float
    """Against the baseline: 1 ahead, 0.5 level, 0 behind."""
    viewer: str
    """The record viewer's page (the record's JSON: ``/api/records/{id}``)."""


class VersionTestGames(BaseModel):
    """A page of a test's games in index order; pass ``next_after`` as ``after`` for the
    next page (None: this is the last)."""

    test: VersionTest
    items: list[VersionTestGame]
    next_after: int | None


def find_test(session: Session, reference: str, test_id: int) -> RegressionTest:
    """The regression test ``test_id`` whose candidate or baseline ``reference`` names
    (``NAME`` or ``NAME@V``).

    Raises:
        NotFoundError: no such test of that bot. BotRegistryError: a malformed reference.
    """
    name, version = parse_reference(reference)
    test = session.get(RegressionTest, test_id)
    if test is not None:
        for bot_id in (test.candidate_id, test.baseline_id):
            bot = session.get(BotVersion, bot_id)
            if bot is not None and bot.name == name and version in (None, bot.version):
                return test
    raise NotFoundError(f"no regression test {test_id} of {reference!r}")


def version_test_games(
    engine: Engine, reference: str, test_id: int, *, after: int, limit: int
) -> VersionTestGames:
    """The test's games after index ``after``: the ladder tournament's games of the
    pairs it counted (see :func:`arena.store.listing.version_test_conditions`).

    Raises:
        NotFoundError: no such test of that bot.
    """
    with Session(engine) as session:
        test = find_test(session, reference, test_id)
        (line,) = describe_tests(session, [test])
        games = queries.GAMES
        query = (
            sa.select(*queries.GAME_COLUMNS)
            .where(*version_test_conditions(session, test), games.c.index > after)
            .order_by(games.c.index)
            .limit(limit + 1)
        )
        rows = session.connection().execute(query).all()
        labels = queries.labels_of(session, {bot for row in rows for bot in row.seats})
        ladder = session.get(Ladder, test.ladder_id)
        tournament = None if ladder is None else session.get(Tournament, ladder.tournament_id)
        hidden = tournament is not None and sealed(tournament)
    items = []
    for row in rows[:limit]:
        seat_of = {bot: seat for seat, bot in enumerate(row.seats)}
        score = game_score(
            row.ranking[seat_of[test.candidate_id]], row.ranking[seat_of[test.baseline_id]]
        )
        items.append(
            VersionTestGame(
                **queries.stored_game(row, labels, hidden=hidden).model_dump(),
                candidate_score=score,
                viewer=f"/records/{row.id}",
            )
        )
    return VersionTestGames(
        test=_test(line),
        items=items,
        next_after=items[-1].index if len(rows) > limit else None,
    )


AfterQuery = Annotated[
    int, Query(ge=-1, le=2**62, description="list the games after this index (-1: from the first)")
]
LimitQuery = Annotated[int, Query(ge=1, le=1000)]


@router.get(
    "/bots/{reference}/regression-tests/{test_id}/games",
    response_model=VersionTestGames,
    responses=ERRORS,
)
def games_of_test(
    ctx: Context, reference: str, test_id: RowId, after: AfterQuery = -1, limit: LimitQuery = 100
) -> VersionTestGames:
    """A regression test's games in index order (``arena tournament games ID --bot
    CANDIDATE --bot BASELINE``), a page at a time: each game's players, result and
    the link to its record viewer."""
    return version_test_games(ctx.engine, reference, test_id, after=after, limit=limit)
