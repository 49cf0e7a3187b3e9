"""A signed-in person's games in the browser: the open ones (to play on) and the
finished ones (to replay), newest first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import col, select

from arena.players.loader import HUMAN
from arena.store.db import session_scope
from arena.store.models import BotVersion, GameResult, LiveGame, Tournament
from arena.store.tally import HUMAN_FORMAT

RECENT_FINISHED = 50
"""How many finished games the list shows."""
SCANNED_FINISHED = 2_000
"""How many of the newest human games are looked through for the person's."""


@dataclass(frozen=True)
class OpenGame:
    id: str
    game: str
    moves: int
    updated: datetime


@dataclass(frozen=True)
class FinishedGame:
    id: int
    game: str
    won: bool
    termination: str
    reason: str | None
    created: datetime


@dataclass(frozen=True)
class MyGames:
    open: list[OpenGame]
    finished: list[FinishedGame]


def my_games(engine: Engine, account_id: int) -> MyGames:
    """The open and the recent finished browser games of account ``account_id``.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: the database failed.
    """
    with session_scope(engine) as session:
        live = session.exec(
            select(LiveGame)
            .where(LiveGame.account_id == account_id)
            .order_by(col(LiveGame.updated).desc())
        ).all()
        open_games = [OpenGame(row.id, row.game, row.moves, row.updated) for row in live]
        mine = set(
            session.exec(
                select(BotVersion.id).where(
                    BotVersion.owner_id == account_id, BotVersion.kind == HUMAN
                )
            ).all()
        )
        rows = session.exec(
            select(GameResult, Tournament.game)
            .join(Tournament, col(Tournament.id) == col(GameResult.tournament_id))
            .where(Tournament.format == HUMAN_FORMAT)
            .order_by(col(GameResult.id).desc())
            .limit(SCANNED_FINISHED)
        ).all()
        finished: list[FinishedGame] = []
        for result, game in rows:
            seats = [seat for seat, bot in enumerate(result.seats) if bot in mine]
            if not seats or result.id is None:
                continue
            finished.append(
                FinishedGame(
                    result.id,
                    game,
                    won=result.ranking[seats[0]] == 1 and result.ranking.count(1) == 1,
                    termination=result.termination,
                    reason=result.reason,
                    created=result.created,
                )
            )
            if len(finished) == RECENT_FINISHED:
                break
    return MyGames(open_games, finished)
