"""A tournament's schedule written and read a page at a time: the driver holds a page,
not the tournament."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import sqlalchemy as sa
from rich.console import Console
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.play.results import PlannedGame
from arena.report.build import record_final_ratings, snapshot_ratings
from arena.store import games as store_games_module
from arena.store.db import open_database, session_scope
from arena.store.games import participants, schedule_games, unplayed_games
from arena.store.tally import Standing, StoredGame, games_page, load_games
from arena.tournament import driver
from arena.tournament.config import validate_config
from arena.tournament.driver import TournamentRunner, create_tournament
from arena.tournament.formats import Role
from arena.tournament.progress import LiveStatistics, _half_width
from arena.tournament.scheduling import iter_schedule_tables, round_robin_tables, schedule_tables

QUIET = Console(file=io.StringIO())


def unplayed_in_pages(engine: Engine, tournament_id: int) -> list[PlannedGame]:
    """The unplayed games, read in keyset pages of 4."""
    games: list[PlannedGame] = []
    while True:
        after = games[-1].index if games else -1
        with Session(engine) as session:
            page = unplayed_games(session, tournament_id, after=after, limit=4)
        games.extend(page)
        if len(page) < 4:
            return games


def stored_in_pages(engine: Engine, tournament_id: int) -> list[StoredGame]:
    """The stored games, read in keyset pages of 7."""
    games: list[StoredGame] = []
    while True:
        after = games[-1].index if games else -1
        with Session(engine) as session:
            page = games_page(session, tournament_id, after=after, limit=7)
        if not page:
            return games
        games.extend(page)


def stored(engine: Engine, tournament_id: int) -> list[StoredGame]:
    with Session(engine) as session:
        return load_games(session, tournament_ids=[tournament_id])


def test_a_written_schedule_read_in_pages_and_resumed_in_pages_plays_every_game_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_games_module, "PAGE_ROWS", 7)
    monkeypatch.setattr(driver, "PAGE_GAMES", 4)  # the runner's reads cross pages too
    engine = open_database(str(tmp_path / "arena.db"))
    config = validate_config(
        {
            "game": "koenigsgarten",
            "bots": ["random", "random:seed=1", "random:seed=2"],
            "games": 10,
            "seed": 4,
            "executor": "local",
        },
        "test",
    )
    with session_scope(engine) as session:
        tournament_id = create_tournament(session, config)
        # Written, as tournaments created before schedules were generated wrote it.
        session.execute(sa.text("UPDATE tournament SET schedule_generated = false"))
        roles = [(p.bot_id, Role(p.role)) for p in participants(session, tournament_id)]
        schedule_games(
            session,
            tournament_id,
            iter_schedule_tables(
                round_robin_tables([bot for bot, _ in roles], 2), games_per_table=10, seed=4
            ),
        )
    with engine.connect() as connection:
        written = connection.execute(
            sa.text('SELECT "index", seed FROM scheduled_game ORDER BY "index"')
        ).all()
        ids = [row[0] for row in connection.execute(sa.text("SELECT bot_id FROM participant"))]
    expected = schedule_tables(
        [(ids[0], ids[1]), (ids[0], ids[2]), (ids[1], ids[2])], games_per_table=10, seed=4
    )
    assert [tuple(row) for row in written] == [(g.index, g.seed) for g in expected]
    assert [g.index for g in unplayed_in_pages(engine, tournament_id)] == list(range(30))

    summary = TournamentRunner(engine, tournament_id, console=QUIET).run()
    assert (summary.stored, summary.scheduled) == (30, 30)
    all_games = stored(engine, tournament_id)
    assert stored_in_pages(engine, tournament_id) == all_games

    # A driver killed with gaps in what it stored: the pages skip what is stored.
    with engine.begin() as connection:
        connection.execute(sa.text("DELETE FROM game_seat WHERE game_index % 3 = 1"))
        connection.execute(sa.text('DELETE FROM game WHERE "index" % 3 = 1'))
        connection.execute(sa.text("UPDATE tournament SET status = 'interrupted'"))
    missing = [i for i in range(30) if i % 3 == 1]
    assert [g.index for g in unplayed_in_pages(engine, tournament_id)] == missing
    summary = TournamentRunner(engine, tournament_id, console=QUIET).run()
    assert (summary.stored, summary.played_now, summary.scheduled) == (30, 10, 30)
    with engine.connect() as connection:
        assert connection.execute(
            sa.text('SELECT count(*), count(DISTINCT "index") FROM game')
        ).one() == (30, 30)
    assert stored(engine, tournament_id) == all_games


def test_the_live_statistics_hold_only_the_rotations_under_way() -> None:
    statistics = LiveStatistics({1: "a@1", 2: "b@1"}, seats=2, interval=10)
    for deal in range(50):
        for seats, ranking in (((1, 2), (1, 2)), ((2, 1), (1, 1))):
            game = StoredGame(
                9, 2 * deal, deal, seats, ranking, (0.0, 0.0), "won", None, None, "ok"
            )
            statistics.add(game, Standing.RATED, tournament=9)
    assert statistics.elo is not None and statistics.elo.games == 100
    assert not statistics._open and not statistics.elo._rotations
    assert statistics.ratings is not None, "refitted on the way"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("bots", "seats"),
    [(["random", "random:seed=1", "greedy"], 2), (["random", "random:seed=1", "greedy"], 3)],
)
def test_the_final_snapshot_from_the_live_elo_is_the_reports(
    tmp_path: Path, bots: list[str], seats: int
) -> None:
    engine = open_database(str(tmp_path / "arena.db"))
    config = validate_config(
        {"game": "kardinal", "bots": bots, "games": 12, "seats": seats, "executor": "local"},
        "test",
    )
    with session_scope(engine) as session:
        tournament_id = create_tournament(session, config)
    TournamentRunner(
        engine,
        tournament_id,
        console=QUIET,
        rating_interval=5,
        on_completed=record_final_ratings,
    ).run()
    columns = "bot_id, method, rating, lower, upper, games"
    query = sa.text(f"SELECT {columns} FROM rating_snapshot ORDER BY bot_id, id")
    with engine.connect() as connection:
        live = connection.execute(query).all()
    assert len(live) == 3
    assert snapshot_ratings(engine, tournament_id) == 3  # the report's, stored after
    with engine.connect() as connection:
        both = connection.execute(query).all()
    for bot_id in {row[0] for row in live}:
        from_live, from_report = (row for row in both if row[0] == bot_id)
        assert from_live[:2] == from_report[:2] and from_live[5] == from_report[5]
        assert from_live[2:5] == pytest.approx(from_report[2:5], abs=1e-6)


def _standings_and_elo(runner: TournamentRunner) -> tuple[object, object, object]:
    buffer, _ = runner._buffer(runner._sprt_test())
    assert buffer.statistics.elo is not None
    buffer.statistics.refit()
    ratings = buffer.statistics.ratings
    assert ratings is not None
    elo = [(name, ratings.rating(name), _half_width(ratings, name)) for name in ratings.order()]
    return buffer.standings.tallies, (buffer.health.games, buffer.health.crashes), elo


def test_a_resume_takes_up_the_state_stored_with_the_last_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Interrupted after its first batches, resumed from the stored state: the same
    standings, bots' health and live Elo as an uninterrupted run, and as counting every
    stored game."""
    monkeypatch.setattr(driver, "FLUSH_GAMES", 7)
    monkeypatch.setattr(driver, "FLUSH_SECONDS", 3600.0)
    config = {
        "game": "koenigsgarten",
        "bots": ["random", "random:seed=1", "greedy"],
        "games": 30,
        "seed": 5,
        "executor": "local",
    }
    states = []
    for name, interrupt in (("whole", False), ("resumed", True)):
        engine = open_database(str(tmp_path / f"{name}.db"))
        with session_scope(engine) as session:
            tournament_id = create_tournament(session, validate_config(config, "test"))

        def stop_after(stored: int, interrupt: bool = interrupt) -> None:
            if interrupt:  # as Ctrl-C, at the first batch stored
                raise KeyboardInterrupt

        runner = TournamentRunner(
            engine, tournament_id, console=QUIET, rating_interval=5, on_flush=stop_after
        )
        summary = runner.run()
        if interrupt:
            assert summary.status == "interrupted" and 0 < summary.stored < 90
            read_games = monkeypatch.context()
            with read_games as patched:  # the state stored, not the games, is taken up
                patched.setattr(TournamentRunner, "_count_stored", _unexpected)
                resumed = _standings_and_elo(
                    TournamentRunner(engine, tournament_id, console=QUIET, rating_interval=5)
                )
            counted = TournamentRunner(engine, tournament_id, console=QUIET, rating_interval=5)
            with Session(engine) as session:
                session.execute(sa.text("DELETE FROM driver_state"))
                session.commit()
            assert resumed == _standings_and_elo(counted)
            summary = TournamentRunner(
                engine, tournament_id, console=QUIET, rating_interval=5
            ).run()
            # The resumed run stored its own state: it is taken up again, and equal.
        assert (summary.status, summary.stored) == ("completed", 90)
        with monkeypatch.context() as patched:
            patched.setattr(TournamentRunner, "_count_stored", _unexpected)
            states.append(
                _standings_and_elo(
                    TournamentRunner(engine, tournament_id, console=QUIET, rating_interval=5)
                )
            )
    whole, resumed_whole = states
    assert whole[0] == resumed_whole[0] and whole[1] == resumed_whole[1]
    for (name, rating, width), (other, other_rating, other_width) in zip(
        whole[2], resumed_whole[2], strict=True
    ):
        assert name == other
        assert (rating, width) == pytest.approx((other_rating, other_width), abs=1e-9)


def _unexpected(*args: object) -> None:
    raise AssertionError("read the stored games instead of the stored state")


def test_a_resumed_sprt_takes_up_its_test_from_the_stored_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver, "FLUSH_GAMES", 6)
    monkeypatch.setattr(driver, "FLUSH_SECONDS", 3600.0)
    engine = open_database(str(tmp_path / "arena.db"))
    config = {
        "game": "koenigsgarten",
        "format": "sprt",
        "bots": ["random", "greedy"],
        "sprt": {"batch": 40, "max_games": 200},
        "executor": "local",
    }
    with session_scope(engine) as session:
        tournament_id = create_tournament(session, validate_config(config, "test"))

    def interrupt(stored: int) -> None:
        raise KeyboardInterrupt

    summary = TournamentRunner(engine, tournament_id, console=QUIET, on_flush=interrupt).run()
    assert summary.status == "interrupted" and summary.stored > 0

    def test_state() -> tuple[object, ...]:
        runner = TournamentRunner(engine, tournament_id, console=QUIET)
        buffer, _ = runner._buffer(runner._sprt_test())
        assert buffer.test is not None
        state = buffer.test.running_state()
        games = (sorted(game.index for game in held) for held in (state.waiting, state.open))
        return (buffer.test.result, state.pairs, state.games_seen, state.next_index, *games)

    with monkeypatch.context() as patched:
        patched.setattr(TournamentRunner, "_count_stored", _unexpected)
        from_state = test_state()
    with engine.begin() as connection:
        connection.execute(sa.text("DELETE FROM driver_state"))
    assert from_state[1] > 0, "pairs in the test"
    assert from_state == test_state()
