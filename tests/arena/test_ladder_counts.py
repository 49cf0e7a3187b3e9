"""What a ladder shows and counts (issue 31, points 2 and 5): games, not pair results,
at any seat count, and the current fit of the kept state, not the last history row."""

from __future__ import annotations

from collections import Counter

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.ladder import worker
from arena.ladder.rating import IncrementalElo
from arena.ladder.service import LadderSettings, standings, start_ladder
from arena.ladder.worker import LadderPlayer
from arena.store.bots import resolve_bot
from arena.store.db import open_database, session_scope, writer
from arena.store.ladders import latest_ratings
from arena.store.migrations import VERSION_TABLE
from arena.store.models import Ladder, LadderRating
from tests.arena.test_ladder import arena, games_of


@pytest.fixture
def engine(db_url: str) -> Engine:
    return open_database(db_url)


def three_seat_ladder(engine: Engine, batches: int) -> int:
    """A started three-seat Kardinal ladder of three built-in bots, ``batches`` played."""
    with session_scope(engine) as session:
        for kind in ("random", "first-legal", "greedy"):
            resolve_bot(session, kind, "kardinal")
        ladder, _ = start_ladder(
            session, "kardinal", seats=3, time_control="unlimited", settings=LadderSettings()
        )
        assert ladder.id is not None
        ladder_id = ladder.id
    with LadderPlayer(engine, executor="local", tables=2, seed=5) as player:
        for _ in range(batches):
            player.play_batch(ladder_id)
    return ladder_id


def started_two_seat_ladder(engine: Engine) -> int:
    """A two-seat Kardinal ladder with one batch played (its rows hold games already)."""
    with session_scope(engine) as session:
        ladder, _ = start_ladder(
            session, "kardinal", seats=2, time_control="unlimited", settings=LadderSettings()
        )
        assert ladder.id is not None
        ladder_id = ladder.id
    with LadderPlayer(engine, executor="local", tables=2, seed=7) as player:
        player.play_batch(ladder_id)
    return ladder_id


def played_more(engine: Engine, ladder_id: int, batches: int) -> None:
    with LadderPlayer(engine, executor="local", tables=2, seed=6) as player:
        for _ in range(batches):
            player.play_batch(ladder_id)


def test_at_three_seats_the_ladder_counts_each_bots_games_not_its_pair_results(
    engine: Engine, db_url: str
) -> None:
    ladder_id = three_seat_ladder(engine, batches=2)
    played = Counter(bot for _, seats in games_of(engine, ladder_id) for bot in seats)
    assert played and all(count > 0 for count in played.values())
    with Session(engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None
        shown = {line.bot_id: line.games for line in standings(session, ladder)}
        # the history rows, which the placement phase compares with its threshold
        history = {bot: row.games for bot, row in latest_ratings(session, ladder_id).items()}
    assert shown == dict(played)
    assert history == dict(played)
    code, out, _ = arena(
        db_url, "ladder", "show", "kardinal", "--seats", "3", "--time-control", "unlimited"
    )
    assert code == 0
    rows = [line.split("│") for line in out.splitlines() if "│" in line]
    counts = sorted(int(cells[5]) for cells in rows if cells[5].strip().isdigit())
    assert counts == sorted(played.values())


def test_the_ladder_shows_the_current_fit_of_its_state_not_the_last_history_row(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    ladder_id = three_seat_ladder(engine, batches=1)
    # From here on no refit moves far enough to write a history row.
    monkeypatch.setattr(worker, "HISTORY_MOVE", 1e9)
    monkeypatch.setattr(worker, "HISTORY_GAMES", 10**9)
    played_more(engine, ladder_id, batches=3)
    with Session(engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None and ladder.rating_state is not None
        fit = IncrementalElo.from_bytes(ladder.rating_state).refit()
        behind = {bot: row.games for bot, row in latest_ratings(session, ladder_id).items()}
        lines = {line.bot_id: line for line in standings(session, ladder)}
    assert set(lines) == set(fit)
    assert all(behind[bot] < fit[bot].games // 2 for bot in fit)
    for bot, rating in fit.items():
        assert lines[bot].rating == pytest.approx(rating.elo, abs=1e-9)
        assert lines[bot].lower == pytest.approx(rating.lower, abs=1e-9)
        assert lines[bot].games == rating.games // 2


def test_the_upgrade_turns_the_pair_results_of_old_history_rows_into_games(
    engine: Engine, db_url: str
) -> None:
    ladder_id = three_seat_ladder(engine, batches=1)
    two_seats = started_two_seat_ladder(engine)
    with Session(engine) as session:
        before = {
            (row.ladder_id, row.bot_id): row.games
            for row in session.exec(select(LadderRating)).all()
        }
    assert {ladder for ladder, _ in before} == {ladder_id, two_seats}
    # As an older arena wrote them: pair results, and schema version 16.
    with writer(engine).begin() as connection:
        connection.execute(
            sa.text("UPDATE ladder_rating SET games = games * 2 WHERE ladder_id = :ladder"),
            {"ladder": ladder_id},
        )
        connection.execute(sa.text(f"DELETE FROM {VERSION_TABLE} WHERE version > 16"))
    upgraded = open_database(db_url)
    with Session(upgraded) as session:
        after = {
            (row.ladder_id, row.bot_id): row.games
            for row in session.exec(select(LadderRating)).all()
        }
    assert after == before
