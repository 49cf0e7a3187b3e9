"""The rows of ``live_game``: people's browser games as they are played (arena.web.humans).

Every write that moves a game on or ends it is guarded by the row's move count
(``UPDATE … WHERE moves = n``), so two web processes never both advance one game and a
game is stored once: a write that finds another count changes nothing and says so.
A row lives until its game ends, and counts against the caps on open games all that
time; a row unmoved for longer than any live game leaves it is *abandoned* (no
process plays it any more) and is ended by whichever web process finds it
(arena.web.abandoned).

A finished game is stored in its account's tournament of format ``human`` for its
game (:func:`human_tournament`), in the transaction that deletes its row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, func, select

from arena.play.results import PlannedGame, PlayedGame
from arena.store.games import store_games
from arena.store.models import (
    Account,
    BotVersion,
    GameResult,
    LiveGame,
    Participant,
    Tournament,
    TournamentStatus,
    utcnow,
)
from arena.store.tally import HUMAN_FORMAT
from engines.core import State
from engines.registry import get_game

LIVE_GAMES = LiveGame.__table__  # type: ignore[attr-defined]


def count_live_games(session: Session, *, account_id: int | None = None) -> int:
    """The games being played (every row, however long unmoved), of one account or all."""
    query = select(func.count()).select_from(LiveGame)
    if account_id is not None:
        query = query.where(LiveGame.account_id == account_id)
    return int(session.exec(query).one())


def in_utc(moment: datetime) -> datetime:
    """A stored time with its zone (SQLite hands times back without it: UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def abandoned_live_games(session: Session, *, unmoved_since: datetime) -> list[LiveGame]:
    """The rows not written since ``unmoved_since``, oldest first."""
    query = select(LiveGame).where(LiveGame.updated < unmoved_since).order_by(col(LiveGame.updated))
    return list(session.exec(query).all())


def advance_live_game(
    session: Session,
    game_id: str,
    *,
    moves: int,
    actions: Sequence[str],
    clocks: Sequence[float] | None,
) -> bool:
    """Write ``actions`` (all of them so far) and ``clocks`` to the row of ``game_id``
    if it is still at ``moves`` actions; whether it was."""
    written = session.connection().execute(
        sa.update(LIVE_GAMES)
        .where(LIVE_GAMES.c.id == game_id, LIVE_GAMES.c.moves == moves)
        .values(
            actions=list(actions),
            moves=len(actions),
            clocks=[round(left, 3) for left in clocks] if clocks else clocks,
            updated=utcnow(),
        )
    )
    return written.rowcount == 1


def touch_live_game(session: Session, game_id: str, *, moves: int) -> bool:
    """Mark the row of ``game_id`` as written now (a process took the game up again)
    if it is still at ``moves`` actions; whether it was."""
    touched = session.connection().execute(
        sa.update(LIVE_GAMES)
        .where(LIVE_GAMES.c.id == game_id, LIVE_GAMES.c.moves == moves)
        .values(updated=utcnow())
    )
    return touched.rowcount == 1


def delete_live_game(session: Session, game_id: str, *, moves: int) -> bool:
    """Delete the row of ``game_id`` if it is at ``moves`` actions; whether it was."""
    removed = session.connection().execute(
        sa.delete(LIVE_GAMES).where(LIVE_GAMES.c.id == game_id, LIVE_GAMES.c.moves == moves)
    )
    return removed.rowcount == 1


@dataclass(frozen=True)
class LivePosition:
    """A live game's row played out on the engine: where the game stands."""

    state: State
    deal: dict[str, Any]
    """The initial deal (the record's ``deal``)."""
    bots: list[BotVersion]
    """The versions in seat order, the person's ``human`` one in its seat (detached)."""


def replay_live_game(session: Session, row: LiveGame) -> LivePosition:
    """The position of ``row``'s game: the deal from its seed, its actions applied."""
    game = get_game(row.game)
    seated = [session.get(BotVersion, bot_id) for bot_id in row.bot_ids]
    bots = [bot for bot in seated if bot is not None]
    assert len(bots) == len(seated), "a live game's bots are never deleted"
    for bot in {id(bot): bot for bot in bots}.values():  # a bot may sit twice
        session.expunge(bot)
    state = game.new_initial_state(seed=row.seed, seats=len(bots), options=row.options or None)
    deal = dict(state.deal())
    for text in row.actions:
        state.apply_action(game.parse_action(text))
    return LivePosition(state, deal, bots)


def store_ended_game(
    session: Session,
    *,
    game_id: str,
    moves: int,
    account_id: int,
    game: str,
    seed: int,
    bot_ids: Sequence[int],
    played: Callable[[PlannedGame], PlayedGame],
) -> int | None:
    """Delete the row of ``game_id`` if it is at ``moves`` actions and store the game
    ``played`` gives for its place in the account's human tournament (``bot_ids`` in
    seat order, the deal's ``seed``); the stored game's id, or None (nothing written)
    when the row is gone or at another count (another process stored it or played on)."""
    if not delete_live_game(session, game_id, moves=moves):
        return None
    tournament = human_tournament(session, account_id, game)
    assert tournament.id is not None
    known = set(
        session.exec(
            select(Participant.bot_id).where(Participant.tournament_id == tournament.id)
        ).all()
    )
    count = len(known)
    for bot_id in dict.fromkeys(bot_ids):
        if bot_id not in known:
            session.add(Participant(tournament_id=tournament.id, bot_id=bot_id, position=count))
            count += 1
    last = session.exec(
        select(func.max(GameResult.index)).where(GameResult.tournament_id == tournament.id)
    ).one()
    index = 0 if last is None else int(last) + 1
    planned = PlannedGame(index=index, seed=seed, seats=tuple(bot_ids))
    store_games(session, tournament.id, [played(planned)])
    tournament.scheduled = index + 1
    session.add(tournament)
    session.flush()
    stored = session.exec(
        select(GameResult.id).where(
            GameResult.tournament_id == tournament.id, GameResult.index == index
        )
    ).one()
    assert stored is not None
    return stored


def human_tournament(session: Session, account_id: int, game: str) -> Tournament:
    """The account's tournament of human games of ``game``, made on first use."""
    found = session.exec(
        select(Tournament)
        .where(
            Tournament.owner_id == account_id,
            Tournament.game == game,
            Tournament.format == HUMAN_FORMAT,
        )
        .order_by(col(Tournament.id))
        .with_for_update()  # its next game index, one process at a time on PostgreSQL
    ).first()
    if found is not None:
        return found
    account = session.get(Account, account_id)
    name = account.name if account is not None else str(account_id)
    tournament = Tournament(
        name=f"{name} plays {game}",
        game=game,
        options={},
        format=HUMAN_FORMAT,
        config={"game": game, "format": HUMAN_FORMAT},
        seed=0,
        status=TournamentStatus.COMPLETED,
        owner_id=account_id,
    )
    session.add(tournament)
    session.flush()
    return tournament
