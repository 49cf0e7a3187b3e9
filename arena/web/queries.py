"""Reading the arena's database for the API and the pages (both show the same data).

Counts and per-bot results are SQL aggregates, so a page over a large database reads
a few rows, not every game.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from arena.errors import NotFoundError, RecordError
from arena.play.bot_text import bot_data
from arena.play.records import GameRecord, parse_record
from arena.store.bots import parse_reference
from arena.store.games import get_tournament
from arena.store.models import (
    BotVersion,
    GameResult,
    GameSeat,
)
from arena.store.models import Participant as ParticipantRow
from arena.store.models import Tournament as TournamentRow
from arena.store.sealing import sealed, sealed_while, shown_config
from arena.store.tally import bot_tallies
from arena.web import schemas
from arena.web.accounts import account_names
from bots.registry import all_bot_kinds
from engines.registry import all_games, get_game

GAMES = GameResult.__table__  # type: ignore[attr-defined]
SEATS = GameSeat.__table__  # type: ignore[attr-defined]
TOURNAMENTS = TournamentRow.__table__  # type: ignore[attr-defined]


def game_kinds(engine: Engine) -> list[schemas.GameKind]:
    """Every game with its facets, options, built-in bots and what is stored of it."""
    with engine.connect() as connection:
        tournaments: dict[str, int] = dict(
            connection.execute(
                sa.select(TOURNAMENTS.c.game, sa.func.count()).group_by(TOURNAMENTS.c.game)
            ).all()
        )
        stored: dict[str, int] = dict(
            connection.execute(
                sa.select(TOURNAMENTS.c.game, sa.func.count())
                .select_from(GAMES.join(TOURNAMENTS, TOURNAMENTS.c.id == GAMES.c.tournament_id))
                .group_by(TOURNAMENTS.c.game)
            ).all()
        )
    return [
        schemas.GameKind(
            name=game.name,
            title=game.title,
            min_seats=game.min_seats,
            max_seats=game.max_seats,
            default_seats=game.default_seats,
            perfect_information=game.perfect_information,
            has_chance=game.has_chance,
            options=[
                schemas.GameOption(
                    name=spec.name, kind=spec.kind, default=spec.default, help=spec.help
                )
                for spec in game.option_specs()
            ],
            bots=[kind.name for kind in all_bot_kinds(game.name)],
            tournaments=int(tournaments.get(game.name, 0)),
            games_stored=int(stored.get(game.name, 0)),
        )
        for game in all_games()
    ]


def game_kind(engine: Engine, name: str) -> schemas.GameKind:
    """Raises UnknownGameError."""
    wanted = get_game(name).name
    return next(kind for kind in game_kinds(engine) if kind.name == wanted)


def _bot(bot: BotVersion, owners: dict[int, str]) -> schemas.Bot:
    assert bot.id is not None
    return schemas.Bot(
        id=bot.id,
        name=bot.name,
        version=bot.version,
        label=bot.label,
        game=bot.game,
        kind=bot.kind,
        entry=bot.entry,
        params=dict(bot.params),
        code_hash=bot.code_hash,
        created=bot.created,
        retired=bot.retired,
        owner=owners.get(bot.owner_id) if bot.owner_id is not None else None,
    )


def bot_view(session: Session, bot: BotVersion) -> schemas.Bot:
    owners = account_names(session, {bot.owner_id} if bot.owner_id is not None else set())
    return _bot(bot, owners)


def bots(session: Session, *, game: str | None, include_retired: bool) -> list[schemas.Bot]:
    """Registered bot versions, by name and version (``arena bots list``)."""
    query = select(BotVersion)
    if game is not None:
        query = query.where(BotVersion.game == get_game(game).name)
    if not include_retired:
        query = query.where(col(BotVersion.retired).is_(False))
    rows = session.exec(query.order_by(col(BotVersion.name), col(BotVersion.version))).all()
    owners = account_names(session, {b.owner_id for b in rows if b.owner_id is not None})
    return [_bot(bot, owners) for bot in rows]


def bot_detail(
    engine: Engine, reference: str, ratings: Callable[[str], dict[str, schemas.Rating]]
) -> schemas.BotDetail:
    """Every version of the bot ``reference`` names (``NAME`` or ``NAME@V``), with its
    results per tournament, its forfeits by reason and its leaderboard rating
    (``ratings(game)`` maps labels to ratings).

    Raises:
        NotFoundError: no such bot. BotRegistryError: a malformed reference.
    """
    name, _ = parse_reference(reference)
    with Session(engine) as session:
        versions = session.exec(
            select(BotVersion).where(BotVersion.name == name).order_by(col(BotVersion.version))
        ).all()
        if not versions:
            raise NotFoundError(f"no bot {reference!r}")
        owners = account_names(session, {b.owner_id for b in versions if b.owner_id is not None})
    ids = [bot.id for bot in versions if bot.id is not None]
    results, forfeits = _results(engine, ids)
    rated = ratings(versions[0].game)
    details = []
    for bot in versions:
        assert bot.id is not None
        mine = results.get(bot.id, [])
        details.append(
            schemas.BotVersionDetail(
                **_bot(bot, owners).model_dump(),
                games=sum(result.games for result in mine),
                results=mine,
                forfeits=forfeits.get(bot.id, {}),
                rating=rated.get(bot.label),
            )
        )
    first = versions[0]
    return schemas.BotDetail(
        name=name,
        game=first.game,
        owner=owners.get(first.owner_id) if first.owner_id is not None else None,
        versions=details,
    )


def _results(
    engine: Engine, bot_ids: list[int]
) -> tuple[dict[int, list[schemas.BotResult]], dict[int, dict[str, int]]]:
    """Per bot and tournament: rated games, W-D-L against the other seats, mean place,
    forfeits; and per bot its forfeits by reason. Counted as every report counts them
    (``arena/store/tally.py``)."""
    with Session(engine) as session:
        tallies = bot_tallies(session, bot_ids)
        titles = dict(
            session.exec(
                select(TournamentRow.id, TournamentRow.name).where(
                    col(TournamentRow.id).in_({t for _, t in tallies})
                )
            ).all()
        )
    results: dict[int, list[schemas.BotResult]] = defaultdict(list)
    forfeits: dict[int, Counter[str]] = defaultdict(Counter)
    for (bot_id, tournament_id), tally in sorted(tallies.items(), key=lambda i: i[0][1]):
        forfeits[bot_id].update(tally.forfeits)
        results[bot_id].append(
            schemas.BotResult(
                tournament_id=tournament_id,
                tournament=titles.get(tournament_id, str(tournament_id)),
                games=tally.games,
                wins=tally.wins,
                draws=tally.draws,
                losses=tally.losses,
                score_percent=tally.score_percent,
                mean_place=tally.mean_place,
                forfeits=tally.forfeit_total,
            )
        )
    return results, {bot_id: dict(counts) for bot_id, counts in forfeits.items()}


def _stored_counts(engine: Engine, ids: list[int]) -> dict[int, int]:
    if not ids:
        return {}
    query = (
        sa.select(GAMES.c.tournament_id, sa.func.count())
        .where(GAMES.c.tournament_id.in_(ids))
        .group_by(GAMES.c.tournament_id)
    )
    with engine.connect() as connection:
        return {int(t): int(n) for t, n in connection.execute(query)}


def _tournament(row: TournamentRow, stored: int, owners: dict[int, str]) -> schemas.Tournament:
    assert row.id is not None
    hidden = sealed(row)
    return schemas.Tournament(
        id=row.id,
        name=row.name,
        game=row.game,
        format=row.format,
        status=row.status,
        seed=None if hidden else row.seed,
        seed_commitment=row.seed_commitment,
        seed_nonce=None if hidden else row.seed_nonce,
        options=dict(row.options),
        scheduled=row.scheduled,
        stored=stored,
        message=row.message,
        created=row.created,
        started=row.started,
        finished=row.finished,
        owner=owners.get(row.owner_id) if row.owner_id is not None else None,
    )


def tournaments(
    engine: Engine,
    *,
    game: str | None = None,
    status: str | None = None,
    offset: int = 0,
    limit: int = 50,
) -> schemas.TournamentPage:
    """Tournaments, newest first (``arena tournament list``)."""
    with Session(engine) as session:
        query = select(TournamentRow)
        counting = select(func.count()).select_from(TournamentRow)
        if game is not None:
            name = get_game(game).name
            query = query.where(TournamentRow.game == name)
            counting = counting.where(TournamentRow.game == name)
        if status is not None:
            query = query.where(TournamentRow.status == status)
            counting = counting.where(TournamentRow.status == status)
        total = int(session.exec(counting).one())
        rows = session.exec(
            query.order_by(col(TournamentRow.id).desc()).offset(offset).limit(limit)
        ).all()
        owners = account_names(session, {t.owner_id for t in rows if t.owner_id is not None})
    stored = _stored_counts(engine, [t.id for t in rows if t.id is not None])
    items = [_tournament(t, stored.get(t.id or 0, 0), owners) for t in rows]
    return schemas.TournamentPage(items=items, total=total, offset=offset, limit=limit)


def tournament_detail(engine: Engine, tournament_id: int) -> schemas.TournamentDetail:
    """Raises NotFoundError."""
    with Session(engine) as session:
        row = get_tournament(session, tournament_id)
        members = session.exec(
            select(ParticipantRow)
            .where(ParticipantRow.tournament_id == tournament_id)
            .order_by(col(ParticipantRow.position))
        ).all()
        labels = labels_of(session, {p.bot_id for p in members})
        owners = account_names(session, {row.owner_id} if row.owner_id is not None else set())
    stored = _stored_counts(engine, [tournament_id]).get(tournament_id, 0)
    return schemas.TournamentDetail(
        **_tournament(row, stored, owners).model_dump(),
        config=shown_config(row),
        participants=[
            schemas.Participant(
                bot_id=p.bot_id,
                bot=labels.get(p.bot_id, str(p.bot_id)),
                role=p.role,
                suspended=p.suspended,
                suspended_reason=p.suspended_reason,
            )
            for p in members
        ],
    )


def labels_of(session: Session, ids: set[int]) -> dict[int, str]:
    """The bot versions' labels (``name@version``) by id."""
    if not ids:
        return {}
    rows = session.exec(select(BotVersion).where(col(BotVersion.id).in_(ids))).all()
    return {bot.id: bot.label for bot in rows if bot.id is not None}


GAME_COLUMNS = (
    GAMES.c.id,
    GAMES.c.tournament_id,
    GAMES.c.index,
    GAMES.c.seed,
    GAMES.c.seats,
    GAMES.c.status,
    GAMES.c.returns,
    GAMES.c.ranking,
    GAMES.c.termination,
    GAMES.c.offender,
    GAMES.c.reason,
    GAMES.c.duration,
)


def stored_game(row: Any, labels: dict[int, str], *, hidden: bool) -> schemas.StoredGame:
    """A row of :data:`GAME_COLUMNS` as the API shows it; ``hidden``: without its seed
    (its tournament is sealed)."""
    return schemas.StoredGame(
        id=row.id,
        tournament_id=row.tournament_id,
        index=row.index,
        seed=None if hidden else row.seed,
        players=[labels.get(bot, str(bot)) for bot in row.seats],
        seats=list(row.seats),
        status=row.status,
        returns=list(row.returns),
        ranking=list(row.ranking),
        termination=row.termination,
        offender=row.offender,
        reason=row.reason,
        duration=row.duration,
    )


def tournament_games(
    engine: Engine, tournament_id: int, *, offset: int, limit: int
) -> schemas.GamePage:
    """The stored games of a tournament in index order.

    Raises:
        NotFoundError: no such tournament.
    """
    with Session(engine) as session:
        hidden = sealed(get_tournament(session, tournament_id))
    query = (
        sa.select(*GAME_COLUMNS)
        .where(GAMES.c.tournament_id == tournament_id)
        .order_by(GAMES.c.index)
        .offset(offset)
        .limit(limit)
    )
    with engine.connect() as connection:
        rows = connection.execute(query).all()
    total = _stored_counts(engine, [tournament_id]).get(tournament_id, 0)
    with Session(engine) as session:
        labels = labels_of(session, {bot for row in rows for bot in row.seats})
    return schemas.GamePage(
        items=[stored_game(row, labels, hidden=hidden) for row in rows],
        total=total,
        offset=offset,
        limit=limit,
    )


def stored_record(engine: Engine, game_id: int) -> tuple[schemas.StoredRecord, GameRecord]:
    """A stored game with its parsed record, every text in it storable (a row written
    before bots' texts were escaped may hold a lone surrogate, which no response encodes);
    while its tournament is sealed, the game and the record shown name no seed (the
    parsed record keeps it, for the replay).

    Raises:
        NotFoundError: no such game. RecordError: its record is unreadable.
    """
    query = (
        sa.select(
            *GAME_COLUMNS,
            GAMES.c.record,
            TOURNAMENTS.c.game,
            TOURNAMENTS.c.status.label("tournament_status"),
            TOURNAMENTS.c.seed_commitment,
        )
        .select_from(GAMES.join(TOURNAMENTS, TOURNAMENTS.c.id == GAMES.c.tournament_id))
        .where(GAMES.c.id == game_id)
    )
    with engine.connect() as connection:
        row = connection.execute(query).first()
    if row is None:
        raise NotFoundError(f"no stored game {game_id}")
    try:
        data = bot_data(json.loads(row.record))
    except json.JSONDecodeError as exc:
        raise RecordError(f"the record of game {game_id} is not JSON: {exc.msg}") from None
    record = parse_record(data, f"game {game_id}")
    if not isinstance(record, GameRecord):
        raise RecordError(f"game {game_id} stores a match record, not a game")
    with Session(engine) as session:
        labels = labels_of(session, set(row.seats))
    hidden = sealed_while(row.seed_commitment, row.tournament_status)
    stored = stored_game(row, labels, hidden=hidden)
    shown = {**data, "seed": None} if hidden and "seed" in data else data
    return schemas.StoredRecord(**stored.model_dump(), game=row.game, record=shown), record
