"""Ladders (issue 18): starting and stopping, the bots they hold, batches stored with
their ratings, version regression tests, retirement and suspension, the commands."""

from __future__ import annotations

import io
import json
import logging
import threading
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session, select
from typer.testing import CliRunner

from arena.cli import app
from arena.ladder import worker
from arena.ladder.rating import IncrementalElo
from arena.ladder.service import (
    LadderSettings,
    select_ladder,
    standings,
    start_ladder,
    stop_ladder,
)
from arena.ladder.worker import LadderPlayer
from arena.players.loader import BotSource
from arena.store.bots import add_bot, builtin_source, remove_bot, resolve_bot
from arena.store.db import open_database, session_scope
from arena.store.ladders import allocate_indices, regression_tests
from arena.store.models import (
    Ladder,
    LadderRating,
    Participant,
    RegressionStatus,
    RegressionTestGame,
    Tournament,
    TournamentStatus,
)
from arena.web.accounts import create_account

runner = CliRunner()
GAME = "koenigsgarten"


def arena(db: str, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--db", db], env={"COLUMNS": "200"})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def engine(db_url: str) -> Engine:
    return open_database(db_url)


def started(engine: Engine, *bots: str, **settings: float) -> int:
    """A started unlimited ladder of Königsgarten with the built-in ``bots``."""
    with session_scope(engine) as session:
        for bot in bots:
            resolve_bot(session, bot, GAME)
        ladder, _ = start_ladder(
            session,
            GAME,
            time_control="unlimited",
            settings=LadderSettings(**settings),  # type: ignore[arg-type]
        )
        assert ladder.id is not None
        return ladder.id


def recorded_games(engine: Engine, test_id: int | None) -> list[int]:
    """The indices recorded as the test's games."""
    with Session(engine) as session:
        return sorted(
            session.exec(
                select(RegressionTestGame.game_index).where(RegressionTestGame.test_id == test_id)
            ).all()
        )


def games_of(engine: Engine, ladder_id: int) -> list[tuple[int, tuple[int, ...]]]:
    with Session(engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None
        rows = session.connection().execute(
            sa.text('SELECT "index", seats, seed FROM game WHERE tournament_id = :t'),
            {"t": ladder.tournament_id},
        )
        return [
            (int(index), tuple(seats if isinstance(seats, list) else json.loads(seats)))
            for index, seats, _ in rows
        ]


def test_a_started_ladder_holds_every_active_bot_and_plays_rotations_on_one_deal(
    engine: Engine,
) -> None:
    ladder_id = started(engine, "random", "greedy", "first-legal")
    with LadderPlayer(engine, executor="local", tables=4, seed=1) as player:
        summary = player.play_batch(ladder_id)
    assert summary is not None and summary.stored == 8 and summary.tables == 4
    games = sorted(games_of(engine, ladder_id))
    assert [index for index, _ in games] == list(range(8))
    with Session(engine) as session:
        rows = (
            session.connection()
            .execute(sa.text('SELECT "index", seed FROM game ORDER BY "index"'))
            .all()
        )
    # One deal per table, each table's two games with the seats swapped.
    for (first, seats_a), (second, seats_b) in zip(games[0::2], games[1::2], strict=True):
        assert seats_b == (seats_a[1], seats_a[0])
        assert rows[first][1] == rows[second][1]
    with Session(engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None and ladder.rated_games == 8 and ladder.next_index == 8
        tournament = session.get(Tournament, ladder.tournament_id)
        assert tournament is not None and tournament.scheduled == 8
        lines = standings(session, ladder)
    assert {line.label for line in lines} == {"random@1", "greedy@1", "first-legal@1"}
    assert sum(line.games for line in lines) == 16
    assert all(line.status == "active" and line.rating is not None for line in lines)


def test_indices_taken_by_compare_and_set_never_overlap(engine: Engine) -> None:
    ladder_id = started(engine, "random", "greedy")
    taken: list[int] = []
    lock = threading.Lock()

    def take() -> None:
        for _ in range(20):
            with session_scope(engine) as session:
                first = allocate_indices(session, ladder_id, 3)
            with lock:
                taken.extend(range(first, first + 3))

    threads = [threading.Thread(target=take) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(taken) == list(range(240))


def test_a_stopped_ladder_plays_nothing_and_starts_again_where_it_was(engine: Engine) -> None:
    ladder_id = started(engine, "random", "greedy")
    with LadderPlayer(engine, executor="local", tables=2, seed=1) as player:
        assert player.play_batch(ladder_id) is not None
        with session_scope(engine) as session:
            ladder = session.get(Ladder, ladder_id)
            assert ladder is not None
            stop_ladder(session, ladder)
        assert player.play_batch(ladder_id) is None
        assert player.play_any() is None
        again = started(engine)
        assert again == ladder_id
        summary = player.play_batch(ladder_id)
    assert summary is not None
    assert sorted(index for index, _ in games_of(engine, ladder_id)) == list(range(8))


def test_a_new_version_starts_a_regression_test_that_the_workers_play(engine: Engine) -> None:
    ladder_id = started(engine, "random", "greedy", elo0=0.0, elo1=150.0)
    with session_scope(engine) as session:
        add_bot(session, name="mine", game=GAME, source=builtin_source("random", GAME))
        v2, _ = add_bot(session, name="mine", game=GAME, source=builtin_source("greedy", GAME))
        assert v2.version == 2
    with Session(engine) as session:
        (test,) = regression_tests(session, ladder_id=ladder_id)
        assert test.status == RegressionStatus.RUNNING and test.candidate_id == v2.id
    with LadderPlayer(engine, executor="local", tables=4, seed=2) as player:
        for _ in range(60):
            player.play_batch(ladder_id)
            with Session(engine) as session:
                (test,) = regression_tests(session, ladder_id=ladder_id)
            if test.status != RegressionStatus.RUNNING:
                break
    # greedy against random: the test accepts H1 (at least elo1 better) soon.
    assert test.status == RegressionStatus.ACCEPTED_H1, test
    assert test.games == 2 * sum(test.counts) and test.llr > 2.9
    # the games recorded as its own are the pairs it counted, none after its decision
    recorded = recorded_games(engine, test.id)
    assert len(recorded) == test.games
    seats = dict(games_of(engine, ladder_id))
    assert all({test.candidate_id, test.baseline_id} <= set(seats[i]) for i in recorded)


def test_the_owner_stops_a_test_and_a_retired_baseline_stops_it_too(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    engine = open_database(db)
    ladder_id = started(engine, "random")
    for kind in ("random", "greedy", "first-legal"):
        code, _, err = arena(db, "bots", "add", "mine", "-g", GAME, "--builtin", kind)
        assert code == 0, err
    code, out, _ = arena(db, "ladder", "show", GAME, "--time-control", "unlimited")
    assert "mine@2 vs mine@1: running" in out and "mine@3 vs mine@2: running" in out
    code, out, _ = arena(db, "ladder", "stop-test", "mine@3", "-g", GAME)
    assert code == 0 and "stopped 1 regression test(s) of mine@3" in out
    code, _, err = arena(db, "ladder", "stop-test", "mine@3", "-g", GAME)
    assert code == 2 and "'mine@3' has no running regression test" in err
    with session_scope(engine) as session:
        remove_bot(session, "mine@1", game=GAME)
    with LadderPlayer(engine, executor="local", tables=2, seed=3) as player:
        player.play_batch(ladder_id)
    code, shown, _ = arena(db, "ladder", "show", GAME, "--time-control", "unlimited")
    out = " ".join(shown.split())  # as one line, wherever the console wrapped it
    assert "mine@2 vs mine@1: stopped" in out and "mine@1@1" not in out
    assert "mine@1 no longer plays" in out
    assert "mine@3 vs mine@2: stopped" in out and "stopped by its owner" in out
    assert "retired" in out  # mine@1 keeps its line, marked retired


def test_retired_and_suspended_bots_stop_playing_and_keep_their_history(engine: Engine) -> None:
    ladder_id = started(engine, "random", "greedy", "first-legal")
    with LadderPlayer(engine, executor="local", tables=6, seed=4) as player:
        player.play_batch(ladder_id)
        with session_scope(engine) as session:
            remove_bot(session, "greedy", game=GAME)
            first_legal = resolve_bot(session, "first-legal", GAME)
            ladder = session.get(Ladder, ladder_id)
            assert ladder is not None
            member = session.exec(
                select(Participant).where(
                    Participant.tournament_id == ladder.tournament_id,
                    Participant.bot_id == first_legal.id,
                )
            ).one()
            member.suspended, member.suspended_reason = True, "crashed too often"
            session.add(member)
        assert player.play_batch(ladder_id) is None  # one bot left: no table
    with Session(engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None
        lines = {line.label: line for line in standings(session, ladder)}
        history = session.exec(select(LadderRating)).all()
    assert lines["greedy@1"].status == "retired" and lines["greedy@1"].rating is not None
    assert lines["first-legal@1"].status == "suspended: crashed too often"
    assert {row.bot_id for row in history} == {line.bot_id for line in lines.values()}


CRASHING_BOT = """
class Crasher:
    def act(self, observation, legal_actions, time_left):
        raise RuntimeError("boom")
"""


@pytest.mark.slow
def test_a_crashing_bot_is_suspended_and_its_owners_new_version_plays(tmp_path: Path) -> None:
    engine = open_database(str(tmp_path / "arena.db"))
    ladder_id = started(engine, "random", "greedy")
    crasher = BotSource("python", "Crasher", {}, CRASHING_BOT)
    with session_scope(engine) as session:
        add_bot(session, name="mine", game=GAME, source=crasher)
    with LadderPlayer(engine, executor="local", tables=4, seed=5) as player:
        for _ in range(20):
            player.play_batch(ladder_id)
            with Session(engine) as session:
                ladder = session.get(Ladder, ladder_id)
                assert ladder is not None
                lines = {line.label: line for line in standings(session, ladder)}
            if lines["mine@1"].status != "active":
                break
        assert lines["mine@1"].status.startswith("suspended: ")
        assert "games lost to crashes" in lines["mine@1"].status
        with session_scope(engine) as session:
            add_bot(session, name="mine", game=GAME, source=builtin_source("greedy", GAME))
        with Session(engine) as session:
            # The suspended version is no baseline: no test, the new version just plays.
            assert regression_tests(session, ladder_id=ladder_id) == []
        player.play_batch(ladder_id)
    with Session(engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None
        lines = {line.label: line for line in standings(session, ladder)}
    assert lines["mine@2"].status == "active" and lines["mine@1"].status.startswith("suspended")


def test_the_commands_start_list_show_and_stop_ladders(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    code, out, _ = arena(db, "ladder", "start", "kardinal", "--seats", "3")
    assert code == 0 and "started: kardinal ladder, 3 seats, blitz (st=0.5)" in out
    code, out, _ = arena(db, "ladder", "start", "kardinal", "--seats", "3")
    assert code == 0 and "started again" in out
    code, out, _ = arena(db, "ladder", "start", GAME, "--time-control", "st=0.02")
    assert code == 0 and "2 seats, bullet (st=0.02)" in out
    code, out, _ = arena(db, "ladder", "list")
    assert code == 0 and "kardinal" in out and "bullet" in out and "running" in out
    code, out, _ = arena(db, "ladder", "stop", GAME, "--time-control", "bullet")
    assert code == 0 and "stopped: koenigsgarten ladder" in out
    code, out, _ = arena(db, "ladder", "show", GAME, "--time-control", "bullet")
    assert code == 0 and "stopped, 0 games stored" in out
    engine = open_database(db)
    with Session(engine) as session:
        tournaments = session.exec(select(Tournament)).all()
        assert {t.format for t in tournaments} == {"ladder"}
        assert {t.status for t in tournaments} == {
            TournamentStatus.RUNNING,
            TournamentStatus.STOPPED,
        }
        assert select_ladder(session, "kardinal", 3, "blitz").seats == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["start", "chess"], "unknown game 'chess'"),
        (["start", "kardinal", "--seats", "9"], "9"),
        (["start", "blumengarten"], "a ladder needs tables of 2 or more"),
        (["start", GAME, "--time-control", "fast"], "bad time control 'fast'"),
        (["start", GAME, "--elo0", "10", "--elo1", "5"], "bad regression-test bounds"),
        (["start", GAME, "--owner-budget", "0"], "the owner budget must be at least 1 game"),
        (["show", GAME], "no blitz ladder of koenigsgarten at 2 seats"),
        (["run", "kardinal"], "no blitz ladder of kardinal"),
    ],
)
def test_bad_ladder_requests_get_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    code, out, err = arena(str(tmp_path / "arena.db"), "ladder", *args)
    assert code == 2, out
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) <= 2


def test_a_ladder_is_no_tournament_to_run_or_resume(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    arena(db, "ladder", "start", GAME)
    code, _, err = arena(db, "tournament", "resume", "1")
    assert code == 2 and "tournament 1 is a ladder" in err
    code, _, err = arena(db, "tournament", "run", "--game", GAME, "--type", "ladder")
    assert code == 2 and "start it with `arena ladder start koenigsgarten`" in err


def test_bots_show_lists_ladder_ratings_and_tests_and_plots_the_history(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    engine = open_database(db)
    ladder_id = started(engine, "random", "first-legal")
    for kind in ("random", "greedy"):
        code, _, err = arena(db, "bots", "add", "mine", "-g", GAME, "--builtin", kind)
        assert code == 0, err
    with LadderPlayer(engine, executor="local", tables=6, seed=6) as player:
        player.play_batch(ladder_id)
    plot = tmp_path / "history.png"
    code, out, err = arena(db, "bots", "show", "mine@2", "-g", GAME, "--plot", str(plot))
    assert code == 0, err
    assert "ladder:    koenigsgarten unlimited, 2 seats: Elo" in out
    assert "test:      mine@2 vs mine@1 (koenigsgarten unlimited 2 seats): running, LLR" in out
    assert plot.read_bytes().startswith(b"\x89PNG")
    code, _, err = arena(db, "bots", "show", "mine@2", "-g", GAME, "--plot", "/no/such/dir/p.png")
    assert code == 2 and "cannot write plot '/no/such/dir/p.png'" in err


def test_a_rating_state_that_does_not_load_is_rebuilt_from_the_games(engine: Engine) -> None:
    ladder_id = started(engine, "random", "greedy", "first-legal")
    with LadderPlayer(engine, executor="local", tables=4, seed=7) as player:
        player.play_batch(ladder_id)
        with session_scope(engine) as session:
            ladder = session.get(Ladder, ladder_id)
            assert ladder is not None
            ladder.rating_state = b"written by another version"
            session.add(ladder)
        player.play_batch(ladder_id)
    with Session(engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None and ladder.rated_games == 16
        lines = standings(session, ladder)
    assert sum(line.games for line in lines) == 32


def test_a_version_1_rating_state_is_rebuilt_and_the_log_says_so(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    ladder_id = started(engine, "random", "greedy", "first-legal")
    with LadderPlayer(engine, executor="local", tables=4, seed=7) as player:
        player.play_batch(ladder_id)
        with session_scope(engine) as session:
            ladder = session.get(Ladder, ladder_id)
            assert ladder is not None and ladder.rating_state is not None
            state = np.load(io.BytesIO(ladder.rating_state))
            old = {name: state[name] for name in state.files if not name.startswith("cross")}
            buffer = io.BytesIO()
            np.savez_compressed(buffer, **{**old, "version": np.array([1])})
            ladder.rating_state = buffer.getvalue()
            session.add(ladder)
        with caplog.at_level(logging.WARNING, logger="arena.ladder.worker"):
            player.play_batch(ladder_id)
    assert f"ladder {ladder_id}: ladder rating state of version 1, need 2" in caplog.text
    assert "rebuilding it from the games" in caplog.text
    with Session(engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None and ladder.rated_games == 16
        assert IncrementalElo.from_bytes(ladder.rating_state or b"").games == 16


def test_a_rebuilt_three_seat_state_equals_the_kept_one_across_page_ends(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    with session_scope(engine) as session:
        for kind in ("random", "first-legal", "greedy"):
            resolve_bot(session, kind, "kardinal")
        ladder, _ = start_ladder(
            session, "kardinal", seats=3, time_control="unlimited", settings=LadderSettings()
        )
        ladder_id = ladder.id
        assert ladder_id is not None
    with LadderPlayer(engine, executor="local", tables=3, seed=11) as player:
        player.play_batch(ladder_id)
        player.play_batch(ladder_id)
    monkeypatch.setattr(worker, "REBUILD_PAGE", 4)  # pages end inside rotations of 3 games
    with Session(engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None and ladder.rating_state is not None
        kept = IncrementalElo.from_bytes(ladder.rating_state)
        rebuilt, counted = worker._rebuilt(session, ladder)
    assert counted == ladder.rated_games == kept.games // 3 > 0
    assert rebuilt.clusters == kept.clusters
    expected = kept.refit()
    for bot, rating in rebuilt.refit().items():
        assert rating.elo == pytest.approx(expected[bot].elo, abs=1e-8)
        assert rating.lower == pytest.approx(expected[bot].lower, abs=1e-8)


def test_a_ladder_stops_at_its_game_budget(engine: Engine) -> None:
    ladder_id = started(engine, "random", "greedy", game_budget=10)
    with LadderPlayer(engine, executor="local", tables=4, seed=8) as player:
        assert player.play_batch(ladder_id) is not None  # 8 games
        assert player.play_batch(ladder_id) is not None  # one table more: 10
        assert player.play_batch(ladder_id) is None
    assert len(games_of(engine, ladder_id)) == 10


def test_at_three_seats_a_test_table_holds_both_versions_and_counts_its_pairs(
    engine: Engine,
) -> None:
    with session_scope(engine) as session:
        for kind in ("random", "first-legal"):
            resolve_bot(session, kind, "kardinal")
        ladder, _ = start_ladder(
            session, "kardinal", seats=3, time_control="unlimited", settings=LadderSettings()
        )
        ladder_id = ladder.id
        assert ladder_id is not None
        add_bot(session, name="mine", game="kardinal", source=builtin_source("random", "kardinal"))
        v2, _ = add_bot(
            session, name="mine", game="kardinal", source=builtin_source("greedy", "kardinal")
        )
    with LadderPlayer(engine, executor="local", tables=2, seed=9) as player:
        player.play_batch(ladder_id)
    games = games_of(engine, ladder_id)
    assert len(games) == 6 and all(len(seats) == 3 for _, seats in games)
    with Session(engine) as session:
        (test,) = regression_tests(session, ladder_id=ladder_id)
    # One test table (a rotation of three games: one pair counted), one from matchmaking.
    assert test.candidate_id == v2.id and sum(test.counts) == 1 and test.games == 2
    # the pair's two games are the test's; the rotation's third and matchmaking's are not
    assert recorded_games(engine, test.id) == [0, 1]


def test_an_owner_over_its_budget_gets_no_more_games(engine: Engine) -> None:
    ladder_id = started(engine, "random", "greedy", "first-legal", owner_budget=4)
    with session_scope(engine) as session:
        account, _ = create_account(session, "alice")
        bot, _ = add_bot(session, name="mine", game=GAME, source=builtin_source("greedy", GAME))
        bot.owner_id = account.id
        session.add(bot)
        mine = bot.id

    def played_by_mine() -> int:
        return sum(mine in seats for _, seats in games_of(engine, ladder_id))

    with LadderPlayer(engine, executor="local", tables=4, seed=10) as player:
        for _ in range(6):
            player.play_batch(ladder_id)
            if played_by_mine() >= 4:
                break
        reached = played_by_mine()
        assert reached >= 4  # the owner's turn comes every other pairing
        for _ in range(3):
            assert player.play_batch(ladder_id) is not None  # the operator's bots play on
    assert played_by_mine() == reached


def a_person(session: Session, name: str) -> int:
    """A browser player's version, as arena/web/humans.py makes it."""
    from arena.players.loader import HUMAN
    from arena.store.models import BotVersion

    bot = BotVersion(
        name=name, version=1, game=GAME, kind=HUMAN, entry="browser", params={}, code_hash=name
    )
    session.add(bot)
    session.flush()
    assert bot.id is not None
    return bot.id


def test_people_never_play_a_ladder(engine: Engine) -> None:
    """A browser player is no ladder member, however it got there: one made while the
    ladder runs is never synced in, and one an older release let join is never
    matched nor shown; no game seats a person, none is forfeited for it."""
    ladder_id = started(engine, "random", "greedy")
    with session_scope(engine) as session:
        alice = a_person(session, "alice")
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None
        bob = a_person(session, "bob")  # as an older release let it join
        session.add(
            Participant(tournament_id=ladder.tournament_id, bot_id=bob, role="player", position=9)
        )
    with LadderPlayer(engine, executor="local", tables=4, seed=2) as player:
        for _ in range(3):
            player.play_batch(ladder_id)
    seated = {bot for _, seats in games_of(engine, ladder_id) for bot in seats}
    assert seated and not seated & {alice, bob}
    with Session(engine) as session:
        ladder = session.get(Ladder, ladder_id)
        assert ladder is not None
        members = session.exec(
            select(Participant.bot_id).where(Participant.tournament_id == ladder.tournament_id)
        ).all()
        labels = {line.label for line in standings(session, ladder)}
        reasons = session.connection().execute(sa.text("SELECT DISTINCT reason FROM game")).all()
    assert alice not in members
    assert labels == {"random@1", "greedy@1"}
    assert all(reason is None for (reason,) in reasons)
