"""The rows a worker builds for the driver to store (arena.store.games.game_rows): the
values the columns' own types give, stored once however often a chunk comes."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from arena.play.results import PlannedGame, PlayedGame
from arena.players.loader import BotSource, BotSpec
from arena.store import games as store
from arena.store.db import open_database, session_scope
from arena.store.games import (
    GAME_COLUMNS,
    SEAT_COLUMNS,
    game_rows,
    played_games,
    store_rows,
)
from arena.tournament.execution import ChunkResult, TournamentContext, forfeited_game, play_chunk
from engines.outcome import ForfeitReason
from tests.arena.test_storage import two_bots_playing

NOW = datetime(2026, 12, 2, 14, 40, 16, 123456, tzinfo=UTC)


def a_chunk() -> list[PlayedGame]:
    """Games that ended, a forfeit (with a message quoting a bot) and a host error."""
    bots = {
        number: BotSpec(number, f"rnd-{number}", "koenigsgarten", BotSource("builtin", "random"))
        for number in (1, 2)
    }
    context = TournamentContext(1, "koenigsgarten", {}, 2, bots)
    planned = [
        PlannedGame(index, 500 + index // 2, ((1, 2), (2, 1))[index % 2]) for index in range(6)
    ]
    played = play_chunk(context, planned[:4]).games
    forfeit = forfeited_game(context, planned[4], 1, ForfeitReason.CRASH, "it's 'rnd-2' who died")
    error = PlayedGame.host_error(
        planned[5],
        game="koenigsgarten",
        players=["rnd-2", "rnd-1"],
        message="boom",
        duration=0.5,
        worker="w:1",
    )
    return [*played, forfeit, error]


def old_rows(tournament_id: int, games: list[PlayedGame]) -> tuple[list[Any], list[Any]]:
    """The rows ``store_games`` built before the worker built them: the games' values."""
    game = [
        (
            tournament_id,
            g.index,
            g.seed,
            g.seats,
            g.status,
            g.returns,
            g.ranking,
            g.termination,
            g.offender,
            g.reason,
            g.record,
            g.duration,
            g.worker,
            NOW,
        )
        for g in games
    ]
    seats = [
        (tournament_id, g.index, seat, bot, g.returns[seat], g.ranking[seat], g.offender == seat)
        for g in games
        if g.status != "error"
        for seat, bot in enumerate(g.seats)
    ]
    return game, seats


def bound_type(value: Any) -> type:
    """How the database driver takes ``value``: a status, termination or reason as the
    text it is."""
    return str if isinstance(value, StrEnum) else type(value)


class Recorder:
    """A connection that keeps what would be executed."""

    def __init__(self, dialect: Any) -> None:
        self.dialect = dialect
        self.executed: list[tuple[str, Any]] = []

    def exec_driver_sql(self, statement: str, parameters: Any) -> None:
        self.executed.append((statement, parameters))


def test_the_worker_builds_the_parameters_the_columns_types_give(tmp_path: Any) -> None:
    games = a_chunk()
    assert {g.status for g in games} == {"ok", "forfeit", "error"}
    engine = open_database(str(tmp_path / "a.db"))
    old: Any = Recorder(engine.dialect)
    game, seats = old_rows(7, games)
    store._insert_ignoring_duplicates(old, store.GAME_TABLE, GAME_COLUMNS, game)
    store._insert_ignoring_duplicates(old, store.SEAT_TABLE, SEAT_COLUMNS, seats)
    new: Any = Recorder(engine.dialect)
    rows = game_rows(games)
    store._insert_converted(
        new,
        store.GAME_TABLE,
        store.GAME_ROW_COLUMNS,
        rows.games,
        {"tournament_id": 7, "created": NOW},
    )
    store._insert_converted(
        new,
        store.SEAT_TABLE,
        store.SEAT_ROW_COLUMNS,
        rows.seats,
        {"tournament_id": 7},
    )
    (_, game_before), (_, seats_before) = old.executed
    (game_statement, game_after), (seat_statement, seats_after) = new.executed
    # The same values of the same types, the batch's own two (tournament, time) given in
    # the statement; but the forfeit flag, bound as the integer the column's type gave
    # (SQLite stores a flag so; the next test compares what is stored).
    assert [row[1:-1] for row in game_before] == game_after
    assert [row[1:] for row in seats_before] == seats_after
    assert [list(map(bound_type, row[1:-1])) for row in game_before] == [
        list(map(type, row)) for row in game_after
    ]
    assert [list(map(bound_type, row[1:-1])) for row in seats_before] == [
        list(map(type, row[:-1])) for row in seats_after
    ]
    assert {row[-1] for row in seats_before} == {0, 1}
    assert {type(row[-1]) for row in seats_after} == {bool}
    assert "VALUES (7, ?" in game_statement and "VALUES (7, ?" in seat_statement
    assert "'2026-12-02 14:40:16.123456'" in new.executed[0][0]
    assert played_games(rows) == games
    assert [vars(g) for g in played_games(rows)] == [vars(g) for g in games]


def stored(engine: Engine, tournament_id: int) -> list[list[Any]]:
    """Every column of the tournament's rows (but the game's id and tournament), with
    SQLite's storage class of each."""
    typed = engine.dialect.name == "sqlite"
    tables = []
    for table, columns, order in (
        (store.GAME_TABLE, GAME_COLUMNS[1:], '"index"'),
        (store.SEAT_TABLE, SEAT_COLUMNS[1:], "game_index, seat"),
    ):
        quoted = [f'"{c}"' for c in columns]
        shown = quoted + ([f"typeof({c})" for c in quoted] if typed else [])
        query = (
            f"SELECT {', '.join(shown)} FROM {table.name} "
            f"WHERE tournament_id = {tournament_id} ORDER BY {order}"
        )
        with engine.connect() as connection:
            tables.append([tuple(row) for row in connection.exec_driver_sql(query)])
    return tables


def test_stored_rows_equal_what_the_games_values_stored(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = open_database(db_url)
    two_bots_playing(engine, tournaments=2)
    games = a_chunk()
    game, seats = old_rows(1, games)
    with session_scope(engine) as session:
        connection = session.connection()
        store._insert_ignoring_duplicates(connection, store.GAME_TABLE, GAME_COLUMNS, game)
        store._insert_ignoring_duplicates(connection, store.SEAT_TABLE, SEAT_COLUMNS, seats)
    monkeypatch.setattr(store, "utcnow", lambda: NOW)
    # As the driver receives them: sent from a worker.
    received = pickle.loads(pickle.dumps(ChunkResult(games, 1.0)))
    with session_scope(engine) as session:
        store_rows(session, 2, [received.rows])
    assert stored(engine, 2) == stored(engine, 1)
    assert len(stored(engine, 2)[1]) == 10


def test_a_chunk_stored_again_is_stored_once(db_url: str) -> None:
    engine = open_database(db_url)
    two_bots_playing(engine, tournaments=2)
    games = a_chunk()
    first, again = game_rows(games[:4]), game_rows(games[2:])
    with session_scope(engine) as session:
        store_rows(session, 1, [first])
    with session_scope(engine) as session:
        store_rows(session, 1, [again, first])  # a chunk played again, and one overlapping
    game_table, seat_table = stored(engine, 1)
    assert len(game_table) == 6 and len(seat_table) == 10
