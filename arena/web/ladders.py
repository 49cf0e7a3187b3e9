"""The ladders on the web: their tables, a bot's rating history and regression tests
(read by anyone), and stopping a test (its bot's owner, with a token).

Starting and stopping a ladder is the operator's, on the command line
(``arena ladder start``); there is no web form for it yet.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response
from pydantic import BaseModel
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.ladder.plot import history_png
from arena.ladder.service import (
    describe_tests,
    ladder_status,
    select_ladder,
    standings,
    stop_regression_tests,
)
from arena.store.bots import find_bot
from arena.store.db import session_scope
from arena.store.ladders import all_ladders, rating_history, regression_tests
from arena.store.models import Ladder
from arena.web.api import ERRORS, PNG, WRITE_ERRORS, Context, Owner, _check_owner
from arena.web.app import plain_url

router = APIRouter(prefix="/api", dependencies=[Depends(plain_url)], tags=["ladders"])


class LadderInfo(BaseModel):
    game: str
    seats: int
    time_class: str
    time_control: str | None
    status: str
    rated_games: int
    tournament_id: int


class LadderLine(BaseModel):
    bot: str
    elo: float | None
    lower: float | None
    upper: float | None
    games: int
    status: str
    """active | retired | suspended: REASON"""


class RegressionTestView(BaseModel):
    id: int
    ladder: str
    candidate: str
    baseline: str
    status: str
    """running | accepted-H0 | accepted-H1 | stopped"""
    llr: float
    lower_bound: float
    upper_bound: float
    games: int
    pentanomial: list[int]
    """Pairs LL, LD, WL, DD, WD, WW."""
    message: str | None


class LadderTable(LadderInfo):
    standings: list[LadderLine]
    tests: list[RegressionTestView]


class RatingPoint(BaseModel):
    at: datetime
    elo: float
    lower: float
    upper: float
    games: int


class BotHistory(BaseModel):
    ladder: LadderInfo
    history: list[RatingPoint]


class BotLadders(BaseModel):
    bot: str
    ladders: list[BotHistory]
    tests: list[RegressionTestView]


def _info(session: Session, ladder: Ladder) -> LadderInfo:
    return LadderInfo(
        game=ladder.game,
        seats=ladder.seats,
        time_class=ladder.time_class,
        time_control=ladder.time_control,
        status=ladder_status(session, ladder),
        rated_games=ladder.rated_games,
        tournament_id=ladder.tournament_id,
    )


def _tests(session: Session, **where: Any) -> list[RegressionTestView]:
    return [
        RegressionTestView(
            id=t.id,
            ladder=t.ladder,
            candidate=t.candidate,
            baseline=t.baseline,
            status=t.status,
            llr=t.llr,
            lower_bound=t.lower_bound,
            upper_bound=t.upper_bound,
            games=t.games,
            pentanomial=list(t.counts),
            message=t.message,
        )
        for t in describe_tests(session, regression_tests(session, **where))
    ]


def ladder_tables(engine: Engine, game: str | None = None) -> list[LadderTable]:
    """Every ladder (of ``game``) with its standings and tests: the pages' tables."""
    with Session(engine) as session:
        tables = []
        for ladder, _ in all_ladders(session):
            if game is not None and ladder.game != game:
                continue
            tables.append(_table(session, ladder))
        return tables


def _table(session: Session, ladder: Ladder) -> LadderTable:
    lines = [
        LadderLine(
            bot=line.label,
            elo=line.rating,
            lower=line.lower,
            upper=line.upper,
            games=line.games,
            status=line.status,
        )
        for line in standings(session, ladder)
    ]
    return LadderTable(
        **_info(session, ladder).model_dump(),
        standings=lines,
        tests=_tests(session, ladder_id=ladder.id),
    )


def bot_ladders(engine: Engine, reference: str, game: str | None = None) -> BotLadders:
    """A bot version's rating history on every ladder and its regression tests.

    Raises:
        NotFoundError: no such bot.
    """
    with Session(engine) as session:
        bot = find_bot(session, reference, game=game)
        assert bot.id is not None
        histories = [
            BotHistory(
                ladder=_info(session, ladder),
                history=[
                    RatingPoint(
                        at=row.at, elo=row.rating, lower=row.lower, upper=row.upper, games=row.games
                    )
                    for row in rows
                ],
            )
            for ladder, rows in rating_history(session, bot.id)
        ]
        return BotLadders(bot=bot.label, ladders=histories, tests=_tests(session, bot_id=bot.id))


@router.get("/ladders", response_model=list[LadderInfo])
def list_ladders(ctx: Context) -> list[LadderInfo]:
    """Every ladder: game, seats, time-control class, status and rated games."""
    with Session(ctx.engine) as session:
        return [_info(session, ladder) for ladder, _ in all_ladders(session)]


@router.get("/ladders/{game}", response_model=LadderTable, responses=ERRORS)
def show_ladder(
    ctx: Context,
    game: str,
    seats: Annotated[int | None, Query(ge=1, le=16)] = None,
    time_control: Annotated[str | None, Query(max_length=40)] = None,
) -> LadderTable:
    """A ladder's standings (maximum-likelihood Elo with 95% intervals, games, status)
    and its regression tests with their live LLR."""
    with Session(ctx.engine) as session:
        return _table(session, select_ladder(session, game, seats, time_control))


@router.get("/bots/{reference}/ladder", response_model=BotLadders, responses=ERRORS)
def show_bot_ladders(
    ctx: Context, reference: str, game: Annotated[str | None, Query(max_length=40)] = None
) -> BotLadders:
    """A bot version's ladder rating history and its regression tests."""
    return bot_ladders(ctx.engine, reference, game)


@router.get("/bots/{reference}/ladder.png", response_class=Response, responses={**PNG, **ERRORS})
def bot_ladder_plot(
    ctx: Context, reference: str, game: Annotated[str | None, Query(max_length=40)] = None
) -> Response:
    """The bot version's ladder rating history as a picture."""
    with Session(ctx.engine) as session:
        bot = find_bot(session, reference, game=game)
        assert bot.id is not None
        histories = rating_history(session, bot.id)
        label = bot.label
    return Response(history_png(label, histories), media_type="image/png")


@router.post(
    "/bots/{reference}/regression-tests/stop",
    response_model=list[RegressionTestView],
    responses=WRITE_ERRORS,
)
def stop_tests(ctx: Context, account: Owner, reference: str) -> list[RegressionTestView]:
    """Stop the running regression tests of one of the token's bot versions."""
    with session_scope(ctx.engine) as session:
        bot = find_bot(session, reference)
        _check_owner(bot, account)
        stop_regression_tests(session, bot, why=f"stopped by its owner {account.name}")
        assert bot.id is not None
        return _tests(session, bot_id=bot.id)
