"""Squatting: a built-in kind's name (``greedy``) belongs to the built-in, in every game,
for every web user and for the command line; ``-b greedy`` always plays the built-in,
also in a database where a user took the name before."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import Session, col, select
from typer.testing import CliRunner

from arena.cli import app
from arena.players.loader import BUILTIN, PYTHON, BotSource
from arena.store.bots import add_bot, resolve_bot
from arena.store.db import open_database, session_scope, writer
from arena.store.migrations import migrate
from arena.store.models import BotVersion
from tests.arena.web.conftest import FIRST_LEGAL, Web
from tests.arena.web.test_submit import submit_python

RESERVED = ["greedy", "Greedy", "RANDOM", "first-legal", "greedy-seed2", "mcts", "solver-seed1"]


def bots(engine: sa.Engine) -> list[tuple[str, int, str]]:
    with Session(engine) as session:
        rows = session.exec(select(BotVersion).order_by(col(BotVersion.id))).all()
        return [(bot.name, bot.version, bot.kind) for bot in rows]


@pytest.mark.parametrize("name", RESERVED)
def test_a_web_user_cannot_take_a_built_in_name(web: Web, name: str) -> None:
    response = submit_python(web, web.auth(), name, FIRST_LEGAL)
    assert response.status_code == 422, response.text
    assert "is reserved for the built-in bot" in response.json()["detail"]
    assert bots(web.engine) == []


def test_a_built_in_name_cannot_be_retired_by_a_web_user(web: Web) -> None:
    with session_scope(web.engine) as session:
        resolve_bot(session, "greedy", "koenigsgarten")
    response = web.client.delete("/api/bots/greedy", headers=web.auth())
    assert response.status_code == 403
    assert "reserved for the built-in bot 'greedy'" in response.json()["detail"]


def test_the_command_line_cannot_register_code_under_a_built_in_name(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.db")
    file = tmp_path / "mine.py"
    file.write_text(FIRST_LEGAL)
    runner = CliRunner()
    for source in (["--python", str(file)], ["--builtin", "random"]):
        result = runner.invoke(
            app, ["bots", "add", "greedy", "-g", "koenigsgarten", *source, "--db", db]
        )
        assert result.exit_code == 2, result.output
        assert "the bot name 'greedy' is reserved for the built-in bot 'greedy'" in result.output
    assert bots(open_database(db)) == []


def test_a_built_in_name_always_means_the_built_in(engine: sa.Engine) -> None:
    # A database where code sits under a built-in's name (as when a later arena adds a
    # kind whose name a user had taken): the name still means the built-in.
    code = BotSource(PYTHON, "FirstLegal", {}, FIRST_LEGAL)
    with session_scope(engine) as session:  # straight into the table, past add_bot's rule
        session.add(
            BotVersion(
                name="greedy",
                version=1,
                game="koenigsgarten",
                kind=code.kind,
                entry=code.entry,
                params={},
                code=code.code,
                code_hash=code.code_hash,
            )
        )
    with session_scope(engine) as session:
        bot = resolve_bot(session, "greedy", "koenigsgarten")
        assert (bot.name, bot.kind, bot.entry, bot.version) == ("greedy", BUILTIN, "greedy", 2)
        again = resolve_bot(session, "Greedy", "koenigsgarten")
        assert again.id == bot.id
        seeded = resolve_bot(session, "greedy:seed=02", "koenigsgarten")
        assert (seeded.name, seeded.params) == ("greedy-seed2", {"seed": 2})


def test_the_upgrade_renames_squatters_keeping_their_rows(db_url: str) -> None:
    engine = open_database(db_url, migrate_schema=False)
    with writer(engine).begin() as connection:
        migrate(connection, upto=4)  # the schema before built-in names were reserved
        for id_, name, version, game, kind, entry in [
            (1, "greedy", 1, "koenigsgarten", "python", "FirstLegal"),
            (2, "greedy", 2, "koenigsgarten", "python", "FirstLegal"),
            (3, "greedy.submitted", 1, "koenigsgarten", "python", "Other"),
            (4, "random", 1, "koenigsgarten", "builtin", "random"),
            (5, "random", 1, "kardinal", "builtin", "greedy"),
            (6, "mine", 1, "koenigsgarten", "python", "FirstLegal"),
        ]:
            connection.execute(
                sa.text(
                    "INSERT INTO bot (name, version, game, kind, entry, params, code_hash, "
                    "created, retired) VALUES (:name, :version, :game, :kind, :entry, "
                    "'{}', :hash, '2026-01-01', false)"
                ),
                {
                    "name": name,
                    "version": version,
                    "game": game,
                    "kind": kind,
                    "entry": entry,
                    "hash": f"h{id_}",
                },
            )
    upgraded = open_database(db_url)
    with upgraded.connect() as connection:
        names = connection.execute(sa.text("SELECT id, name, version FROM bot ORDER BY id")).all()
    # Same rows (ids, versions): their games, ratings and owners stay theirs.
    assert [tuple(row) for row in names] == [
        (1, "greedy.submitted2", 1),
        (2, "greedy.submitted2", 2),
        (3, "greedy.submitted", 1),
        (4, "random", 1),
        (5, "random.submitted", 1),  # a built-in, but not the kind its name says
        (6, "mine", 1),
    ]
    with session_scope(upgraded) as session:
        assert resolve_bot(session, "greedy", "koenigsgarten").kind == BUILTIN
    upgraded.dispose()
    engine.dispose()


def test_add_bot_keeps_reserved_names_for_their_kind(engine: sa.Engine) -> None:
    with session_scope(engine) as session:
        bot, created = add_bot(
            session, name="greedy", game="koenigsgarten", source=BotSource(BUILTIN, "greedy")
        )
        assert created and bot.label == "greedy@1"
