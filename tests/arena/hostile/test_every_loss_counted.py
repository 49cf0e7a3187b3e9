"""Every loss is counted (issue 28, point 4): whatever text a bot sends (lone surrogates,
NUL characters, invalid UTF-8), its faults are its own forfeits, stored with the text
escaped, counted towards its suspension, and shown on the web; never a host error."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlmodel import Session
from typer.testing import CliRunner

from arena.cli import app
from arena.play import runner
from arena.play.bot_text import bot_text
from arena.play.records import GameRecord
from arena.play.results import PlannedGame
from arena.play.runner import play_game
from arena.players.loader import BotSource, BotSpec
from arena.store.bots import add_bot
from arena.store.db import open_database, session_scope
from arena.store.listing import bot_forfeits
from arena.tournament import execution
from arena.tournament.execution import TournamentContext, play_chunk
from arena.web.app import create_app
from bots.base import Bot, BotCrash
from bots.registry import make_bot as make_builtin
from bots.simple import RandomBot
from engines.core import Action
from engines.registry import get_game
from tests.arena.hostile import HERE, command_source, make_bot
from tests.arena.web.conftest import TEST_SETTINGS, Web
from tests.arena.web.test_submit import tar_gz

ESCAPED = "boom \\ud800 and \\x00 end"
"""The bot's error report (tests/arena/hostile/bad_text.py) as a forfeit stores it."""


BAD_TEXT_ARCHIVE = tar_gz({"bad_text.py": (HERE / "bad_text.py").read_text()})


def rows(db: str, sql: str) -> list[tuple[object, ...]]:
    with open_database(db).connect() as connection:
        return [tuple(row) for row in connection.execute(sa.text(sql))]


@pytest.mark.slow  # a tournament of 40 games of a sandboxed bot
def test_a_bot_sending_unencodable_text_forfeits_is_suspended_and_its_games_show(
    db_url: str,
) -> None:
    with session_scope(open_database(db_url)) as session:
        source = command_source("bad_text.py", "crash")
        add_bot(session, name="bad", game="koenigsgarten", source=source)
    result = CliRunner().invoke(
        app,
        [
            "tournament", "run", "--game", "koenigsgarten", "--type", "gauntlet",
            "--candidate", "bad", "--opponent", "random", "--games", "40",
            "--executor", "local", "--db", db_url,
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert "40 of 40 games stored" in result.stdout
    statuses = dict(rows(db_url, "SELECT status, count(*) FROM game GROUP BY status"))
    assert "error" not in statuses
    reasons = dict(rows(db_url, "SELECT reason, count(*) FROM game GROUP BY reason"))
    # Suspended like a plainly crashing bot: after its first 10 games, all lost.
    assert (
        reasons.get("crash", 0) >= 10
        and reasons.get("crash", 0) + reasons.get("suspended", 0) == 40
    )
    assert "suspended bad@1" in result.stdout
    assert rows(
        db_url,
        "SELECT suspended FROM participant p JOIN bot b ON b.id = p.bot_id WHERE b.name = 'bad'",
    ) == [(1,)]
    (game_id, record), (old_id, old), *_ = rows(
        db_url, "SELECT id, record FROM game WHERE reason = 'crash' ORDER BY id DESC"
    )
    # The latest but one as an older writer could have left it: a lone surrogate,
    # escaped in JSON (the web reads it, and `arena bots show` its message).
    unescaped = str(old).replace("\\\\ud800", "\\ud800")
    assert unescaped != old
    with open_database(db_url).begin() as connection:
        update = "UPDATE game SET record = :record WHERE id = :id"
        connection.execute(sa.text(update), {"record": unescaped, "id": old_id})
    message = GameRecord.model_validate_json(str(record)).outcome["details"]["message"]
    assert ESCAPED in message
    assert "stderr: stderr \ufffd\ufffd invalid \\x00 bytes" in message
    with TestClient(create_app(db_url, settings=TEST_SETTINGS)) as client:
        shown = client.get(f"/api/records/{game_id}")
        assert shown.status_code == 200, shown.text
        assert shown.json()["record"]["outcome"]["details"]["message"] == message
        for path in (
            f"/records/{game_id}",
            f"/api/records/{game_id}/replay",
            "/api/tournaments/1",
            "/api/tournaments/1/games",
            "/tournaments/1",
        ):
            assert client.get(path).status_code == 200, path
        old_record = client.get(f"/api/records/{old_id}")
        assert old_record.status_code == 200, old_record.text
        assert ESCAPED in old_record.json()["record"]["outcome"]["details"]["message"]
        old_replay = client.get(f"/api/records/{old_id}/replay")
        assert old_replay.status_code == 200, old_replay.text
        assert ESCAPED in old_replay.json()["outcome"]["details"]["message"]
    with Session(open_database(db_url)) as session:  # `arena bots show`'s forfeits
        forfeits = bot_forfeits(session, 1, latest=40).latest
    assert all(bot_text(forfeit.message) == forfeit.message for forfeit in forfeits)
    assert sum(ESCAPED in forfeit.message for forfeit in forfeits) == reasons["crash"]


def test_a_forfeit_message_is_escaped_and_capped_in_a_played_game() -> None:
    state = get_game("koenigsgarten").new_initial_state(seed=3)
    record = play_game(state, [make_bot(command_source("bad_text.py", "crash")), RandomBot()])
    message = record.outcome["details"]["message"]
    assert record.outcome["reason"] == "crash" and ESCAPED in message
    assert len(message) <= 500
    assert json.loads(record.model_dump_json())["outcome"]["details"]["message"] == message


class Unencodable(Bot):
    """Crashes with a message holding a lone surrogate, in the host's process."""

    reads_observation = False

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        raise BotCrash("boom \ud800")


def test_a_forfeit_whose_record_does_not_encode_is_still_the_bots_loss(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As if some path let a bot's text through unescaped: the record, as it is, does
    # not encode. The loss is still the bot's crash, never the host's error.
    monkeypatch.setattr(runner, "bot_text", lambda text, limit=None: text)
    bots = {
        1: BotSpec(1, "unencodable", "koenigsgarten", BotSource("builtin", "unencodable")),
        2: BotSpec(2, "random", "koenigsgarten", BotSource("builtin", "random")),
    }
    monkeypatch.setattr(
        execution,
        "instantiate",
        lambda spec, **_: Unencodable() if spec.bot_id == 1 else make_builtin("random", spec.game),
    )
    context = TournamentContext(1, "koenigsgarten", {}, 2, bots)
    planned = [PlannedGame(index, 900 + index, (1, 2)) for index in range(3)]
    games = [*play_chunk(context, planned).games, execution.play_planned_game(context, planned[0])]
    for game in games:
        assert (game.status, game.offender, game.reason) == ("forfeit", 0, "crash")
        assert "boom \\\\ud800" in game.record  # escaped, and escaped again as JSON


# -- submissions over the web --------------------------------------------------------------


def submit(web: Web, mode: str) -> tuple[int, str]:
    response = web.client.post(
        "/api/bots",
        headers=web.auth(),
        data={
            "name": "bad",
            "game": "koenigsgarten",
            "command": f"python3 {{code}}/bad_text.py {mode}",
        },
        files={"archive": ("bad.tar.gz", BAD_TEXT_ARCHIVE, "application/gzip")},
    )
    return response.status_code, response.json()["detail"]


@pytest.mark.slow  # the submission check starts the bot in the sandbox
def test_a_handshake_name_holding_a_lone_surrogate_is_refused_naming_it(web: Web) -> None:
    status, detail = submit(web, "name")
    assert status == 422
    assert "'name' must be text without NUL characters or lone surrogates" in detail
    assert "'bad\\ud800name'" in detail


@pytest.mark.slow  # the submission check starts the bot in the sandbox
def test_a_check_failing_with_a_lone_surrogate_is_refused_quoting_it_escaped(web: Web) -> None:
    status, detail = submit(web, "start")
    assert status == 422
    assert f"reported an error: {ESCAPED}" in detail
