"""Runaway settings: every number a web user can send has a cap the operator sets, and
the host's own failures (a timeout too long for poll(), a broken pipe on our side) are
never charged to a bot."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rich.console import Console
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

import arena.players.subprocess_bot
from arena.cli import app
from arena.players.loader import PYTHON, BotSource
from arena.store.bots import add_bot
from arena.store.db import session_scope
from arena.tournament.config import ConfigCaps, validate_config
from arena.tournament.driver import TournamentRunner, create_tournament
from arena.web.app import WebSettings, create_app, load_settings
from tests.arena.web.conftest import FIRST_LEGAL, TEST_SETTINGS, Web, make_account

BASE = {"game": "koenigsgarten", "bots": ["random", "first-legal"]}
SOLITAIRE = {"game": "blumengarten", "format": "solitaire", "bots": ["greedy"]}


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"workers": 100000}, "field 'workers': at most 16 over the web (got 100000)"),
        ({"time_per_move": 1e9}, "field 'time_per_move': at most 60 over the web"),
        ({"time_per_game": 1e9}, "field 'time_per_game': at most 3600 over the web"),
        ({"games": 10**6}, "field 'games': at most 10000 over the web"),
        ({"format": "elo", "elo": {"batch": 10**6}}, "field 'elo.batch': at most 1000"),
        (
            {"format": "sprt", "sprt": {"elo0": -1e9, "elo1": 5}},
            "field 'sprt.elo0': Input should be greater than or equal to -200",
        ),
        (
            {"bots": ["random", "mcts:iterations=10000000"]},
            "parameter 'iterations': at most 100000",
        ),
        ({"bots": ["random", "mcts:seconds=1e9"]}, "parameter 'seconds': at most 60 over the web"),
        ({"bots": ["random", "mcts:seconds=inf"]}, "parameter 'seconds' must be a finite number"),
        ({"bots": ["random", "mcts:exploration=1e300"]}, "parameter 'exploration': at most 1e+07"),
        ({"bots": ["random", "greedy:seed=x"]}, "bad value 'x' for parameter 'seed'"),
        ({"bots": ["random", f"greedy:seed={2**70}"]}, "parameter 'seed': at most"),
        ({**SOLITAIRE, "options": {"move_cap": 10**9}}, "field 'options.move_cap': at most 100000"),
        ({**SOLITAIRE, "bots": ["solver:time_limit=1e6"]}, "parameter 'time_limit': at most 60"),
        ({**SOLITAIRE, "bots": ["greedy:patience=1e12"]}, "parameter 'patience'"),
    ],
)
def test_every_number_from_the_web_is_capped(
    web: Web, changes: dict[str, object], words: str
) -> None:
    response = web.client.post("/api/tournaments", headers=web.auth(), json={**BASE, **changes})
    assert response.status_code == 422, response.text
    assert words in response.json()["detail"]
    assert web.client.get("/api/tournaments").json()["total"] == 0


def test_toml_infinities_and_json_constants_are_refused(web: Web) -> None:
    alice = web.auth()
    toml = 'game = "koenigsgarten"\nbots = ["random", "first-legal"]\ntime_per_move = inf\n'
    response = web.client.post(
        "/api/tournaments", headers={**alice, "Content-Type": "application/toml"}, content=toml
    )
    assert response.status_code == 422
    assert "field 'time_per_move': Input should be a finite number" in response.json()["detail"]
    body = json.dumps(BASE)[:-1] + ', "time_per_move": NaN}'
    response = web.client.post(
        "/api/tournaments", headers={**alice, "Content-Type": "application/json"}, content=body
    )
    assert response.status_code == 422
    assert "NaN is not a number here" in response.json()["detail"]


def test_the_operator_sets_the_caps(engine: Engine, tmp_path: Path) -> None:
    file = tmp_path / "web.toml"
    file.write_text("[caps]\nworkers = 2\ngames_per_table = 3\n[rate_limit]\nrequests = 3\n")
    settings = load_settings(file)
    assert settings.caps == ConfigCaps(workers=2, games_per_table=3)
    token = make_account(engine, "alice")
    with TestClient(create_app(engine, settings=settings)) as client:
        headers = {"Authorization": f"Bearer {token}"}
        refused = client.post(
            "/api/tournaments", headers=headers, json={**BASE, "workers": 3, "games": 3}
        )
        assert refused.status_code == 422
        assert "field 'workers': at most 2 over the web (got 3)" in refused.json()["detail"]
        refused = client.post("/api/tournaments", headers=headers, json={**BASE, "games": 4})
        assert "field 'games': at most 3 over the web (got 4)" in refused.json()["detail"]
        accepted = client.post(
            "/api/tournaments", headers=headers, json={**BASE, "workers": 2, "games": 3}
        )
        assert accepted.status_code == 202, accepted.text


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[caps]\nworkerz = 2\n", "unknown setting 'caps.workerz'"),
        ("[caps]\nworkers = 0\n", "workers must be a positive number, not 0"),
        ("check_seconds = -1\n", "check_seconds must be a positive number"),
        ("[uploads]\narchive_bytes = 'big'\n", "setting 'uploads.archive_bytes'"),
        ("config_bytes = inf\n", "setting 'config_bytes'"),
    ],
)
def test_bad_operator_settings_stop_the_server_with_a_clear_error(
    tmp_path: Path, text: str, words: str
) -> None:
    file = tmp_path / "web.toml"
    file.write_text(text)
    result = CliRunner().invoke(
        app, ["serve", "--settings", str(file), "--db", str(tmp_path / "a.db"), "--no-worker"]
    )
    assert result.exit_code == 2, result.output
    assert words in result.output


def _run(engine: Engine, **config: object) -> list[tuple[str, str | None, int | None]]:
    source = BotSource(PYTHON, "FirstLegal", {}, FIRST_LEGAL)
    with session_scope(engine) as session:
        add_bot(session, name="legal", game="koenigsgarten", source=source)
    settings = {**BASE, "bots": ["legal", "first-legal"], "games": 1, "executor": "local", **config}
    with session_scope(engine) as session:
        tournament_id = create_tournament(session, validate_config(settings))
    TournamentRunner(engine, tournament_id, console=Console(file=io.StringIO())).run()
    with engine.connect() as connection:
        rows = connection.exec_driver_sql(
            f"SELECT status, reason, offender FROM game WHERE tournament_id = {tournament_id}"
        ).all()
    return [tuple(row) for row in rows]


def test_a_huge_time_limit_is_no_limit_not_a_crash(engine: Engine) -> None:
    # The command line may ask for it (the web caps it): poll() takes int milliseconds.
    games = _run(engine, time_per_move=1e9, time_per_game=1e12)
    assert games == [("ok", None, None)] * 2


def _host_failure(*args: object, **kwargs: object) -> bytes:
    raise OSError(5, "Input/output error")  # the host's pipe or disk, not the bot


@pytest.mark.parametrize(
    ("target", "name"),
    [
        (arena.players.subprocess_bot._Channel, "receive"),
        (arena.players.subprocess_bot, "SandboxedProcess"),
    ],
)
def test_a_failure_of_the_host_is_not_the_bots_forfeit(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, target: object, name: str
) -> None:
    monkeypatch.setattr(target, name, _host_failure)
    games = _run(engine)
    assert [(status, offender) for status, _, offender in games] == [("error", None)] * 2


def test_the_default_settings_are_the_documented_ones() -> None:
    assert TEST_SETTINGS.caps == ConfigCaps() == WebSettings().caps
