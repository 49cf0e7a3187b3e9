"""A fixed format's schedule generated from its configuration and seed, never written:
the same games as the written schedule of before, resumed, cancelled and dealt alike;
databases with a written schedule keep working."""

from __future__ import annotations

import io
import itertools
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from rich.console import Console
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.play.deals import make_deals
from arena.play.results import PlannedGame
from arena.store.db import open_database, session_scope
from arena.store.games import (
    count_stored,
    participants,
    read_status,
    schedule_games,
    schedule_state,
    scheduled_seeds,
    unplayed_games,
)
from arena.store.migrations import migrate
from arena.tournament import driver
from arena.tournament.config import TournamentConfig, validate_config
from arena.tournament.driver import (
    TournamentRunner,
    TournamentStateError,
    cancel_tournament,
    create_tournament,
)
from arena.tournament.formats import Role, tournament_format
from arena.tournament.scheduling import (
    GeneratedSchedule,
    gauntlet_tables,
    iter_schedule_tables,
    iter_solitaire_games,
    round_robin_tables,
)
from engines.registry import get_game

QUIET = Console(file=io.StringIO())
GAMES = 'SELECT "index", seed, seats, returns, ranking FROM game ORDER BY "index"'
"""What a replayed game repeats (its record holds the time it took too)."""

CONFIGS: dict[str, dict[str, Any]] = {
    "round robin": {
        "game": "koenigsgarten",
        "bots": ["random", "random:seed=1", "first-legal"],
        "games": 7,
        "seed": 4,
    },
    "3-seat round robin": {
        "game": "kardinal",
        "bots": ["random", "random:seed=1", "random:seed=2", "first-legal"],
        "seats": 3,
        "games": 8,
        "seed": 9,
    },
    "gauntlet": {
        "game": "kardinal",
        "format": "gauntlet",
        "candidates": ["random"],
        "opponents": ["random:seed=1", "random:seed=2", "first-legal"],
        "seats": 3,
        "games": 4,
        "seed": 2,
    },
    "solitaire": {
        "game": "blumengarten",
        "format": "solitaire",
        "bots": ["random", "greedy"],
        "games": 5,
    },
}


def written_before(config: TournamentConfig, roles: list[tuple[int, Role]]) -> list[PlannedGame]:
    """The schedule as tournaments created before wrote it (the formats' old
    ``first_schedule``)."""
    bots = [bot for bot, _ in roles]
    if config.format == "solitaire":
        return list(iter_solitaire_games(bots, deals=config.games, seed=config.seed))
    if config.format == "gauntlet":
        candidates = [bot for bot, role in roles if role == Role.CANDIDATE]
        opponents = [bot for bot, role in roles if role == Role.OPPONENT]
        tables = gauntlet_tables(candidates, opponents, config.seat_count)
    else:
        tables = round_robin_tables(bots, config.seat_count)
    return list(iter_schedule_tables(tables, games_per_table=config.games, seed=config.seed))


def roles_of(engine: Engine, tournament_id: int) -> list[tuple[int, Role]]:
    with Session(engine) as session:
        return [(p.bot_id, Role(p.role)) for p in participants(session, tournament_id)]


def create(engine: Engine, settings: dict[str, Any], *, written: bool = False) -> int:
    """A tournament; ``written``: as an older arena created it, its schedule written."""
    config = validate_config({**settings, "executor": "local"}, "test")
    with session_scope(engine) as session:
        tournament_id = create_tournament(session, config)
    if written:
        roles = roles_of(engine, tournament_id)
        with session_scope(engine) as session:
            session.execute(
                sa.text("UPDATE tournament SET schedule_generated = false WHERE id = :id"),
                {"id": tournament_id},
            )
            schedule_games(session, tournament_id, written_before(config, roles))
    return tournament_id


def rows(engine: Engine, query: str) -> list[tuple[Any, ...]]:
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(sa.text(query))]


@pytest.mark.parametrize(
    ("tables", "games"),
    [
        ([(1, 2)], 1),
        ([(1, 2), (1, 3), (2, 3)], 7),
        ([(1, 2, 3), (1, 2, 4), (1, 3, 4), (2, 3, 4)], 10),
        ([(1, 2, 3, 4)], 25),
        ([], 5),
    ],
)
def test_the_generator_gives_the_written_schedules_games_from_any_index(
    tables: list[tuple[int, ...]], games: int
) -> None:
    old = list(iter_schedule_tables(tables, games_per_table=games, seed=11))
    schedule = GeneratedSchedule.of_tables(tables, games_per_table=games, seed=11)
    assert len(schedule) == len(old) and list(schedule) == old
    assert schedule.seeds() == list(dict.fromkeys(g.seed for g in old))
    for start, stop in itertools.combinations(range(len(old) + 2), 2):
        assert list(schedule.games(start, stop)) == old[start:stop]
        skip = set(range(start, stop, 3))
        chunk = schedule.range(start, stop, skip | {stop})
        kept = [g for g in old[start:stop] if g.index not in skip]
        assert list(chunk) == kept and len(chunk) == len(kept)
        assert list(pickle.loads(pickle.dumps(chunk))) == kept


def test_a_range_travels_as_its_seats_not_as_games() -> None:
    schedule = GeneratedSchedule.of_tables([(1, 2), (1, 3), (2, 3)], games_per_table=400, seed=3)
    sent = pickle.dumps(schedule.range(100, 1100))
    assert b"PlannedGame" not in sent and len(sent) < 8 * 1000
    assert pickle.loads(sent)[0] == next(schedule.games(100, 101))


def test_the_solitaire_generator_gives_the_written_schedules_games() -> None:
    old = list(iter_solitaire_games([5, 3, 8], deals=6, seed=2))
    schedule = GeneratedSchedule.of_solitaire([5, 3, 8], deals=6, seed=2)
    assert list(schedule) == old and len(schedule) == 18
    assert list(schedule.games(4, 11)) == old[4:11]
    assert schedule.seeds() == list(dict.fromkeys(g.seed for g in old))


@pytest.mark.parametrize("name", list(CONFIGS))
def test_a_fixed_format_writes_no_schedule_and_generates_the_written_ones_games(
    tmp_path: Path, name: str
) -> None:
    engine = open_database(str(tmp_path / "arena.db"))
    generated = create(engine, CONFIGS[name])
    written = create(engine, CONFIGS[name], written=True)
    assert rows(engine, f"SELECT count(*) FROM scheduled_game WHERE tournament_id = {generated}")[
        0
    ] == (0,)
    old = rows(
        engine,
        'SELECT "index", seed, seats, batch FROM scheduled_game '
        f'WHERE tournament_id = {written} ORDER BY "index"',
    )
    runner = TournamentRunner(engine, generated, console=QUIET)
    assert runner.schedule is not None
    # The same bots in both tournaments: the same ids, so the same games.
    assert roles_of(engine, generated) == roles_of(engine, written)
    assert [(g.index, g.seed, list(g.seats), g.batch) for g in runner._unplayed()] == [
        (index, seed, json.loads(seats), batch) for index, seed, seats, batch in old
    ]
    with Session(engine) as session:
        assert schedule_state(session, generated) == (len(old), len(old), 1)
        assert runner.schedule.seeds() == scheduled_seeds(session, written)
    assert TournamentRunner(engine, written, console=QUIET).schedule is None

    summary = runner.run()
    assert (summary.status, summary.stored, summary.scheduled) == ("completed", len(old), len(old))
    stored = rows(
        engine,
        f'SELECT "index", seed, seats FROM game WHERE tournament_id = {generated} ORDER BY "index"',
    )
    assert stored == [row[:3] for row in old]
    summary = TournamentRunner(engine, written, console=QUIET).run()
    assert (summary.status, summary.stored, summary.scheduled) == ("completed", len(old), len(old))


def test_a_deal_file_plays_the_same_deals_from_the_generated_schedule(tmp_path: Path) -> None:
    game = get_game("koenigsgarten")
    engine = open_database(str(tmp_path / "arena.db"))
    deals = [line["deal"] for line in make_deals(game, count=3, seats=2, seed=5, options=None)]
    for order in ("sequential", "random"):
        settings = {**CONFIGS["round robin"], "deals": deals, "deal_order": order}
        generated = TournamentRunner(engine, create(engine, settings), console=QUIET)
        written = TournamentRunner(engine, create(engine, settings, written=True), console=QUIET)
        assert generated.schedule is not None and written.schedule is None
        assert generated.context().deals == written.context().deals
        assert len(generated.context().deals) == 4  # a deal per round of the 7 games


def delete_games(engine: Engine, tournament_id: int, indexes: list[int]) -> None:
    listed = ", ".join(map(str, indexes))
    with engine.begin() as connection:
        for table, column in (("game_seat", "game_index"), ("game", '"index"')):
            connection.execute(
                sa.text(
                    f"DELETE FROM {table} WHERE tournament_id = {tournament_id} "
                    f"AND {column} IN ({listed})"
                )
            )
        connection.execute(sa.text("UPDATE tournament SET status = 'interrupted'"))


@pytest.mark.parametrize(
    ("written", "executor"), [(False, "local"), (True, "local"), (False, "processes")]
)
def test_a_resume_after_a_kill_plays_exactly_the_missing_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: bool, executor: str
) -> None:
    """A driver killed with batches in flight loses games below and above the last one
    stored: the resume plays those alone, across pages of the schedule (worker
    processes are sent ranges of a generated schedule, less the stored games)."""
    monkeypatch.setattr(driver, "PAGE_GAMES", 8)
    engine = open_database(str(tmp_path / "arena.db"))
    settings = {**CONFIGS["round robin"], "games": 12}  # 36 games
    tournament_id = create(engine, settings, written=written)
    summary = TournamentRunner(engine, tournament_id, console=QUIET).run()
    assert (summary.status, summary.stored) == ("completed", 36)
    everything = rows(engine, GAMES)

    missing = [0, 5, 7, 8, 9, 15, 16, 31, 35]
    delete_games(engine, tournament_id, missing)
    resumed = TournamentRunner(engine, tournament_id, console=QUIET, executor=executor)
    assert [g.index for g in resumed._unplayed()] == missing
    if not written:  # handed out as ranges too, and a game at a time between them
        unplayed: Any = resumed._unplayed()
        handed = [g.index for g in unplayed.take(3)] + [next(unplayed).index]
        while (chunk := unplayed.take(2)) is not None:
            handed += [g.index for g in chunk]
        assert handed == missing
    summary = resumed.run()
    assert (summary.status, summary.stored, summary.played_now) == ("completed", 36, len(missing))
    assert rows(engine, GAMES) == everything
    assert rows(engine, "SELECT count(*) FROM game_seat") == [(72,)]


def test_a_cancelled_generated_tournament_keeps_its_games_and_plays_no_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver, "FLUSH_GAMES", 5)
    monkeypatch.setattr(driver, "FLUSH_SECONDS", 3600.0)
    engine = open_database(str(tmp_path / "arena.db"))
    tournament_id = create(engine, {**CONFIGS["round robin"], "games": 100})  # 300 games

    def cancel(stored: int) -> None:
        with session_scope(engine) as session:
            if read_status(session, tournament_id) != "cancelled":
                cancel_tournament(session, tournament_id)

    summary = TournamentRunner(engine, tournament_id, console=QUIET, on_flush=cancel).run()
    assert summary.status == "cancelled" and 0 < summary.stored < 300
    assert summary.message == f"cancelled after {summary.stored} of 300 games"
    with Session(engine) as session:
        assert count_stored(session, tournament_id) == summary.stored
        assert schedule_state(session, tournament_id) == (300, 300, 1)
    with pytest.raises(TournamentStateError, match="already cancelled"):
        TournamentRunner(engine, tournament_id, console=QUIET).run()


def test_an_adaptive_format_still_writes_its_schedule(tmp_path: Path) -> None:
    engine = open_database(str(tmp_path / "arena.db"))
    settings = {
        "game": "koenigsgarten",
        "format": "sprt",
        "bots": ["random", "greedy"],
        "sprt": {"batch": 20, "max_games": 40},
    }
    tournament_id = create(engine, settings)
    assert TournamentRunner(engine, tournament_id, console=QUIET).schedule is None
    summary = TournamentRunner(engine, tournament_id, console=QUIET).run()
    assert rows(engine, "SELECT count(*) FROM scheduled_game") == [(summary.scheduled,)]
    with Session(engine) as session:
        assert unplayed_games(session, tournament_id) == []
    assert (
        tournament_format("sprt").generated_schedule(
            validate_config({**settings, "executor": "local"}, "test"), []
        )
        is None
    )


def test_the_upgrade_keeps_a_written_schedule(tmp_path: Path) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'arena.db'}")
    with engine.begin() as connection:
        migrate(connection, upto=12)  # before v13, generated schedules
        connection.execute(
            sa.text(
                "INSERT INTO tournament (name, game, options, format, config, seed, status, "
                "scheduled, created) VALUES ('t', 'koenigsgarten', '{}', 'round-robin', '{}', "
                "1, 'interrupted', 2, '2026-12-01 00:00:00')"
            )
        )
        migrate(connection)
        assert connection.execute(
            sa.text("SELECT schedule_generated FROM tournament")
        ).scalar() in (0, False)
    engine.dispose()
