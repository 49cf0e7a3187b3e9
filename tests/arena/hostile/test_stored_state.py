"""A database row never runs code: the driver state stored with each batch of games is
data, read back through a strict schema (arena/tournament/state.py).

The state was a pickle read through an allow-list of modules, and pickle follows a
dotted name attribute by attribute: module ``arena.store.tally`` (allowed) with name
``contextlib.os.system`` gave ``os.system``, so a forged row ran a shell command when
the tournament was resumed. These tests forge such rows, and malformed ones: a resume
says the state is unreadable, counts the stored games instead and completes, every
game stored once; and every format's state reads back as it was written.
"""

from __future__ import annotations

import io
import json
import logging
import pickle
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from rich.console import Console
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from arena.cli import app
from arena.ladder.service import LadderSettings, start_ladder
from arena.ladder.worker import LadderPlayer
from arena.store.bots import resolve_bot
from arena.store.db import open_database, session_scope, writer
from arena.store.migrations import LATEST, current_version, migrate
from arena.store.tally import Tallies
from arena.tournament import driver, execution
from arena.tournament.config import validate_config
from arena.tournament.driver import TournamentRunner, create_tournament
from arena.tournament.state import DriverState, LadderHealthState, StoredStateError
from tests.arena.test_driver_batches import as_data

QUIET = Console(file=io.StringIO())
PICKLES_DELETED = 15
"""The migration that deletes the driver's pickled states."""
ROUND_ROBIN = {
    "game": "koenigsgarten",
    "bots": ["random", "random:seed=1", "greedy"],
    "games": 10,
    "seed": 5,
}
ROUND_ROBIN_GAMES = 30
FORMATS: dict[str, dict[str, Any]] = {
    "round robin": ROUND_ROBIN,
    "3-seat round robin": {
        "game": "kardinal",
        "bots": ["random", "random:seed=1", "random:seed=2", "first-legal"],
        "seats": 3,
        "games": 4,
        "seed": 9,
    },
    "gauntlet": {
        "game": "koenigsgarten",
        "format": "gauntlet",
        "candidates": ["greedy"],
        "opponents": ["random", "random:seed=1"],
        "games": 10,
        "seed": 2,
    },
    "elo": {
        "game": "koenigsgarten",
        "format": "elo",
        "bots": ["random", "random:seed=1", "greedy"],
        "elo": {"batch": 12, "max_games": 60},
    },
    "sprt": {
        "game": "koenigsgarten",
        "format": "sprt",
        "bots": ["random", "greedy"],
        "sprt": {"batch": 40, "max_games": 200},
    },
    "solitaire": {
        "game": "blumengarten",
        "format": "solitaire",
        "bots": ["random", "greedy"],
        "games": 10,
    },
}


def interrupted(
    path: Path, config: dict[str, Any], monkeypatch: pytest.MonkeyPatch, *, upgrade: bool = True
) -> int:
    """A tournament of ``config`` in the database at ``path`` (not upgraded: as it is),
    interrupted (as Ctrl-C) once its first batch of games is stored with the driver's
    state; its id."""
    monkeypatch.setattr(driver, "FLUSH_GAMES", 7)
    monkeypatch.setattr(driver, "FLUSH_SECONDS", 3600.0)
    # Small chunks: the first flush must leave games to play, however fast they run.
    monkeypatch.setattr(execution, "LOCAL_MAX_CHUNK_GAMES", 2)
    engine = open_database(str(path), migrate_schema=upgrade)
    with session_scope(engine) as session:
        tournament_id = create_tournament(
            session, validate_config({**config, "executor": "local"}, "test")
        )

    def interrupt(stored: int) -> None:
        raise KeyboardInterrupt

    summary = TournamentRunner(
        engine, tournament_id, console=QUIET, rating_interval=5, on_flush=interrupt
    ).run()
    assert summary.status == "interrupted" and summary.stored > 0
    engine.dispose()
    return tournament_id


def stored_state(engine: Engine, tournament_id: int) -> bytes:
    with engine.connect() as connection:
        state = connection.execute(
            sa.text("SELECT state FROM driver_state WHERE tournament_id = :id"),
            {"id": tournament_id},
        ).scalar_one()
    return bytes(state)


def forge(engine: Engine, tournament_id: int, state: bytes) -> None:
    with engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE driver_state SET state = :state WHERE tournament_id = :id"),
            {"state": state, "id": tournament_id},
        )


def _text(value: str) -> bytes:
    data = value.encode()
    return b"\x8c" + bytes([len(data)]) + data  # SHORT_BINUNICODE


def pickled_global(module: str, name: str) -> bytes:
    """A pickle (protocol 4) of the object ``name`` names in ``module``: a dotted name
    is followed attribute by attribute when it is loaded."""
    return b"\x80\x04" + _text(module) + _text(name) + b"\x93."  # STACK_GLOBAL, STOP


def pickled_call(module: str, name: str, *args: str) -> bytes:
    """A pickle that, loaded, calls what :func:`pickled_global` names with ``args``."""
    call = b"(" + b"".join(map(_text, args)) + b"tR."  # MARK, …, TUPLE, REDUCE, STOP
    return pickled_global(module, name)[:-1] + call


def assert_completed_once_each(engine: Engine, tournament_id: int, games: int) -> None:
    """The tournament is completed with ``games`` games, each index stored once."""
    with engine.connect() as connection:
        status = connection.execute(
            sa.text("SELECT status FROM tournament WHERE id = :id"), {"id": tournament_id}
        ).scalar_one()
        counts = connection.execute(
            sa.text('SELECT count(*), count(DISTINCT "index") FROM game WHERE tournament_id = :id'),
            {"id": tournament_id},
        ).one()
    assert (status, tuple(counts)) == ("completed", (games, games))


def counted_state(engine: Engine, tournament_id: int) -> DriverState:
    """The state a runner builds from the stored games alone (the state row deleted)."""
    with engine.begin() as connection:
        connection.execute(
            sa.text("DELETE FROM driver_state WHERE tournament_id = :id"), {"id": tournament_id}
        )
    runner = TournamentRunner(engine, tournament_id, console=QUIET, rating_interval=5)
    buffer, _ = runner._buffer(runner._sprt_test())
    return DriverState.decode(buffer.running_state(), tournament_id)


def test_a_pickled_dotted_name_is_never_resolved() -> None:
    """The attack of the issue: ``contextlib.os.getpid`` in ``arena.store.tally`` was
    let through the allow-list and gave the live function. Now no row is unpickled:
    it is not JSON of the state's fields, and refused as such."""
    for forged in (
        pickled_global("arena.store.tally", "contextlib.os.getpid"),
        pickled_call("arena.store.tally", "contextlib.os.system", "true"),
    ):
        with pytest.raises(StoredStateError, match=r"tournament 3: .*not one this arena reads"):
            DriverState.decode(forged, 3)


@pytest.mark.parametrize("name", ["contextlib.os.system", "contextlib.os.mkdir"])
def test_a_forged_pickle_runs_nothing_and_the_resume_counts_the_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """A state row forged to run a command (``touch``) or make a directory when
    unpickled: the resume runs nothing, says so, and completes from the stored games.
    (The pickled state made the marker.)"""
    path = tmp_path / "arena.db"
    tournament_id = interrupted(path, ROUND_ROBIN, monkeypatch)
    marker = tmp_path / "ran"
    argument = f"touch {marker}" if name.endswith("system") else str(marker)
    engine = open_database(str(path))
    forge(engine, tournament_id, pickled_call("arena.store.tally", name, argument))
    output = io.StringIO()

    summary = TournamentRunner(
        engine, tournament_id, console=Console(file=output, width=200), rating_interval=5
    ).run()

    assert not marker.exists(), f"the forged state ran {name}"
    assert (summary.status, summary.stored) == ("completed", ROUND_ROBIN_GAMES)
    assert f"tournament {tournament_id}: its stored driver state is not one" in output.getvalue()
    assert_completed_once_each(engine, tournament_id, ROUND_ROBIN_GAMES)
    # The state the resumed run stored counts every game, as the games do.
    resumed = DriverState.decode(stored_state(engine, tournament_id), tournament_id)
    assert as_data(resumed, ordered=False) == as_data(
        counted_state(engine, tournament_id), ordered=False
    )


def _malformed(state: dict[str, Any]) -> dict[str, bytes]:
    """Rows that are not a state, each from a good ``state``."""

    def changed(path: list[str | int], value: Any) -> bytes:
        copy = json.loads(json.dumps(state))
        held = copy
        for key in path[:-1]:
            held = held[key]
        held[path[-1]] = value
        return json.dumps(copy).encode()

    bot = next(iter(state["standings"]["bots"]))
    elo = state["statistics"]["elo"]
    return {
        "not JSON": b"\x00\xffnot json",
        "empty": b"",
        "a list": b"[1, 2, 3]",
        "deeply nested": b"[" * 100_000,
        "no fields": b"{}",
        "version 1": changed(["version"], 1),
        "version 3": changed(["version"], 3),
        "a count as text": changed(["standings", "bots", bot, "games"], "many"),
        "a bot id as text": changed(["games"], {"bot": 3}),
        "a field unknown": changed(["code"], "os.system"),
        "a float as a player": changed(["statistics", "elo", "players", 0], 1.5),
        "a player number out of range": changed(
            ["statistics", "elo", "wins"], [[0, 99, 1], *elo["wins"]]
        ),
        "a pair out of order": changed(["statistics", "elo", "draws"], [[2, 1, 1]]),
        "a negative count": changed(["statistics", "elo", "draws"], [[0, 1, -5]]),
        "an infinite sum": changed(["statistics", "elo", "sums"], [[0, 1, 0, 1, 1e999, 0, 1]]),
        "another tournament's bots": changed(["statistics", "elo", "players"], ["x", "y", "z"]),
    }


MALFORMED = [
    "not JSON",
    "empty",
    "a list",
    "deeply nested",
    "no fields",
    "version 1",
    "version 3",
    "a count as text",
    "a bot id as text",
    "a field unknown",
    "a float as a player",
    "a player number out of range",
    "a pair out of order",
    "a negative count",
    "an infinite sum",
    "another tournament's bots",
]


@pytest.mark.parametrize("case", MALFORMED)
def test_a_malformed_state_is_refused_and_arena_tournament_resume_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """``arena tournament resume`` on a state row that is not JSON, of wrong types, of
    another version or of other bots: no traceback, the games counted instead, each
    game stored once."""
    path = tmp_path / "arena.db"
    tournament_id = interrupted(path, ROUND_ROBIN, monkeypatch)
    engine = open_database(str(path))
    good = json.loads(stored_state(engine, tournament_id))
    forge(engine, tournament_id, _malformed(good)[case])

    result = CliRunner().invoke(
        app,
        ["tournament", "resume", str(tournament_id), "--executor", "local", "--db", str(path)],
    )

    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and result.exception is None
    if case != "another tournament's bots":  # a state of other bots is simply not taken
        assert f"tournament {tournament_id}: its stored driver state is not one" in result.output
    assert_completed_once_each(engine, tournament_id, ROUND_ROBIN_GAMES)


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_s_state_reads_back_as_written_and_as_the_games_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Round trip: the state stored reads back equal, written again byte for byte, and
    equal (in value) to the state counted from the stored games."""
    path = tmp_path / "arena.db"
    tournament_id = interrupted(path, FORMATS[name], monkeypatch)
    engine = open_database(str(path))
    saved = stored_state(engine, tournament_id)
    state = DriverState.decode(saved, tournament_id)
    assert state.encode() == saved

    runner = TournamentRunner(engine, tournament_id, console=QUIET, rating_interval=5)
    with monkeypatch.context() as patched:  # the state is taken up, not the games counted
        patched.setattr(TournamentRunner, "_count_stored", _unexpected)
        buffer, _ = runner._buffer(runner._sprt_test())
    assert buffer.running_state() == saved
    if name == "sprt":
        assert state.test is not None and state.test.next_index > 0
    else:
        assert state.statistics is not None and state.statistics.rated > 0
    assert as_data(state, ordered=False) == as_data(
        counted_state(engine, tournament_id), ordered=False
    )


def _unexpected(*args: object) -> None:
    raise AssertionError("read the stored games instead of the stored state")


def test_the_upgrade_deletes_pickled_states_unread_and_the_resume_loses_no_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database from before v15 whose running tournaments hold pickled states (one as
    the old driver wrote them, one forged to run a command): the upgrade deletes both
    rows without unpickling them and keeps the ladder's JSON state; each tournament then
    resumes from its stored games to completion, the games stored before kept as they
    were, none stored twice."""
    path = tmp_path / "arena.db"
    old = open_database(str(path), migrate_schema=False)
    with writer(old).begin() as connection:
        migrate(connection, upto=PICKLES_DELETED - 1)  # before v15, the driver state as data
    old.dispose()
    plain, forged = (interrupted(path, ROUND_ROBIN, monkeypatch, upgrade=False) for _ in "ab")
    monkeypatch.undo()
    engine = open_database(str(path), migrate_schema=False)
    with session_scope(engine) as session:
        ladder_tournament = create_tournament(
            session, validate_config({**ROUND_ROBIN, "executor": "local"}, "test")
        )
    marker = tmp_path / "ran"
    health = b'{"games": {"1": 12}, "crashes": {"1": 2}}'
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO ladder (tournament_id, game, seats, time_class, elo0, elo1, alpha, "
                "beta, next_index, rated_games, created) VALUES (:id, 'koenigsgarten', 2, "
                "'blitz', 0, 5, 0.05, 0.05, 0, 0, '2026-01-01')"
            ),
            {"id": ladder_tournament},
        )
        connection.execute(
            sa.text("INSERT INTO driver_state VALUES (:id, 14, :state)"),
            {"id": ladder_tournament, "state": health},
        )
        before = dict(connection.execute(sa.text('SELECT id, "index" FROM game')).all())
    # The old driver's state: a pickle of its tallies, the bots' health and the rest.
    old_state = pickle.dumps((1, Tallies(), (Counter({1: 7}), Counter()), None, None))
    forge(engine, plain, old_state)
    command = pickled_call("arena.store.tally", "contextlib.os.system", f"touch {marker}")
    forge(engine, forged, command)
    engine.dispose()

    upgraded = open_database(str(path))

    with upgraded.connect() as connection:
        assert current_version(connection) == LATEST
        rows = connection.execute(sa.text("SELECT tournament_id, state FROM driver_state")).all()
    assert [(row[0], bytes(row[1])) for row in rows] == [(ladder_tournament, health)]
    assert not marker.exists()
    for tournament_id in (plain, forged):
        summary = TournamentRunner(upgraded, tournament_id, console=QUIET).run()
        assert summary.status == "completed"
        assert_completed_once_each(upgraded, tournament_id, ROUND_ROBIN_GAMES)
    assert not marker.exists()
    with upgraded.connect() as connection:
        after = dict(connection.execute(sa.text('SELECT id, "index" FROM game')).all())
    assert {key: after[key] for key in before} == before, "the games stored before are kept"


@pytest.mark.parametrize("case", ["a game of other bots", "a negative count", "a game taken"])
def test_a_malformed_sprt_state_is_refused_and_the_test_counted_from_the_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """A ``sprt``'s test in the state that cannot be this test's: refused, said, and the
    resume tests the stored games instead, as a resume without a state does."""
    path = tmp_path / "arena.db"
    tournament_id = interrupted(path, FORMATS["sprt"], monkeypatch)
    engine = open_database(str(path))
    state = json.loads(stored_state(engine, tournament_id))
    test = state["test"]
    bots = [int(bot) for bot in state["standings"]["bots"]]
    game = {
        "tournament_id": 0,
        "index": test["next_index"] + 10,
        "seed": 1,
        "seats": bots,
        "ranking": [1, 2],
        "returns": [1.0, -1.0],
        "termination": "won",
        "offender": None,
        "reason": None,
        "status": "ok",
    }
    if case == "a game of other bots":
        test["waiting"].append({**game, "seats": [91, 92]})
    elif case == "a negative count":
        test["counts"]["ll"] = -3
    else:
        test["waiting"].append({**game, "index": 0})
    forge(engine, tournament_id, json.dumps(state).encode())
    output = io.StringIO()
    runner = TournamentRunner(engine, tournament_id, console=Console(file=output, width=200))

    buffer, _ = runner._buffer(runner._sprt_test())

    assert f"tournament {tournament_id}: its stored driver state is not one" in output.getvalue()
    assert buffer.test is not None
    assert as_data(buffer.test.running_state()) == as_data(
        counted_state(engine, tournament_id).test
    )


@pytest.mark.parametrize(
    "forged",
    [
        b"not json",
        b'{"games": {"1": "many"}, "crashes": {}}',
        b'{"games": {"1": -5}, "crashes": {}}',
        pickled_call("arena.store.tally", "contextlib.os.system", "true"),
    ],
    ids=["not JSON", "a count that is text", "a negative count", "a pickle"],
)
def test_a_ladders_forged_health_row_is_counted_anew_and_the_ladder_plays_on(
    tmp_path: Path, forged: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    """The ladder keeps its bots' health as its tournament's driver state: a row that is
    not such JSON is said (a warning naming the ladder), counted anew from the batch's
    games, and written back as JSON; the batch is stored (it was a traceback)."""
    engine = open_database(str(tmp_path / "arena.db"))
    with session_scope(engine) as session:
        for bot in ("random", "greedy"):
            resolve_bot(session, bot, "koenigsgarten")
        ladder, _ = start_ladder(
            session, "koenigsgarten", time_control="unlimited", settings=LadderSettings()
        )
        ladder_id, tournament_id = ladder.id, ladder.tournament_id
    with LadderPlayer(engine, executor="local", tables=2, seed=1) as player:
        assert player.play_batch(ladder_id) is not None
        forge(engine, tournament_id, forged)
        with caplog.at_level(logging.WARNING, logger="arena.ladder.worker"):
            assert player.play_batch(ladder_id) is not None
    assert f"ladder tournament {tournament_id}: its stored health" in caplog.text
    health = LadderHealthState.decode(stored_state(engine, tournament_id), tournament_id)
    assert sum(health.games.values()) > 0
