"""Browser games a hostile person starts: their bots keep within the web's caps, play on
a clock outside the web process, and every game counts against the caps until it ends;
one left behind ends on its own and frees its slot (arena/web/humans.py, opponents.py,
abandoned.py)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

import bots.mcts
from arena.store.bots import add_bot, builtin_source
from arena.store.db import session_scope
from arena.store.models import BotVersion, GameResult, LiveGame, utcnow
from arena.web.app import WebSettings, create_app
from tests.arena.web.conftest import make_account
from tests.arena.web.test_live_games import kill_copies, live_row, your_turn
from tests.arena.web.test_play import sign_in, start, state
from tests.waiting import wait_until


def age(engine: Engine, game_id: str, seconds: float) -> None:
    """Make the game's row look unwritten for ``seconds``."""
    with engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE live_game SET updated = :t WHERE id = :i"),
            {"t": utcnow() - timedelta(seconds=seconds), "i": game_id},
        )


def refused_start(client: TestClient, csrf: str, game: str, **fields: str) -> str:
    answer = client.post(f"/games/{game}/play", data={"csrf": csrf, **fields})
    assert answer.status_code == 422, answer.text
    return answer.text


def test_a_browser_games_bots_keep_within_the_tournaments_caps(engine: Engine) -> None:
    with TestClient(create_app(engine, settings=WebSettings())) as client:
        csrf = sign_in(client, make_account(engine, "mallory"))
        page = refused_start(
            client, csrf, "kardinal", seats="2", seat="0", opponent1="ismcts:iterations=100000000"
        )
        assert "opponent1" in page and "parameter &#39;iterations&#39;: at most 100000" in page
        with session_scope(engine) as session:  # one the operator registered, over the caps
            add_bot(
                session,
                name="deep",
                game="kardinal",
                source=builtin_source("ismcts", "kardinal", {"iterations": 10**8}),
            )
        page = refused_start(client, csrf, "kardinal", seats="2", seat="0", opponent1="deep@1")
        assert "deep@1: parameter &#39;iterations&#39;: at most 100000" in page
    with Session(engine) as session:
        assert session.exec(select(LiveGame)).all() == []
        names = [bot.name for bot in session.exec(select(BotVersion))]
    assert names == ["deep"]  # nothing registered for the refused reference


def bot_frames(module: object) -> Iterator[str]:
    """Functions of ``module``'s file running now in any thread of this process."""
    filename = str(Path(str(getattr(module, "__file__", ""))).resolve())
    for frame in list(sys._current_frames().values()):
        walk = frame
        while walk is not None:
            if str(Path(walk.f_code.co_filename).resolve()) == filename:
                yield walk.f_code.co_name
            walk = walk.f_back


def test_no_thread_of_the_web_process_runs_a_bots_search(engine: Engine) -> None:
    with TestClient(create_app(engine, settings=WebSettings())) as client:
        csrf = sign_in(client, make_account(engine, "mallory"))
        # At the cap, and first to move: in the web process, a search of minutes.
        game_id = start(
            client,
            csrf,
            "koenigsgarten",
            seats="2",
            seat="1",
            opponent1="mcts:iterations=100000",
        )
        seen: list[str] = []

        def bot_moved() -> bool:
            seen.extend(bot_frames(bots.mcts))
            return bool(seen) or bool(state(client, game_id).get("legal"))

        wait_until(bot_moved, what="the bot's move", interval=0.01)
        assert seen == [], f"the bot searched in the web process: {sorted(set(seen))}"
        view = state(client, game_id)
        assert view["legal"] and len(view["moves"]) == 1  # it moved within its clock


@contextlib.contextmanager
def one_game_running(engine: Engine) -> Iterator[tuple[TestClient, str, str]]:
    """A server allowing one game per account, and mallory's game, her turn: yields
    the client, her anti-CSRF token and the game's id."""
    with TestClient(create_app(engine, settings=WebSettings(human_games_per_account=1))) as client:
        csrf = sign_in(client, make_account(engine, "mallory"))
        game_id = start(client, csrf, "blumengarten", seats="1", seat="0")
        your_turn(client, game_id)
        yield client, csrf, game_id


def test_an_open_game_counts_until_it_ends(engine: Engine) -> None:
    with one_game_running(engine) as (client, csrf, first):
        # Unwritten for longer than the old window (the idle limit and a minute), while
        # it still runs here: it still counts.
        age(engine, first, WebSettings().human_idle_seconds + 70)
        again = client.post(
            "/games/blumengarten/play", data={"csrf": csrf, "seats": "1", "seat": "0"}
        )
        assert again.status_code == 429 and "at most 1" in again.text
        assert live_row(engine, first) is not None


def test_an_abandoned_game_ends_on_its_own_and_frees_its_slot(engine: Engine) -> None:
    with one_game_running(engine) as (client, csrf, left):
        kill_copies(client)  # its server died, and nobody opened it again
        age(engine, left, 3600)  # longer than any game leaves its row unwritten
        other = start(client, csrf, "blumengarten", seats="1", seat="0")
        assert other != left
        assert live_row(engine, left) is None
        gone = client.get(f"/play/{left}/state")
        assert gone.status_code == 404
    with Session(engine) as session:
        stored = session.exec(select(GameResult)).one()
    assert stored.offender == 0 and stored.reason == "timeout"
    record = TestClient(create_app(engine)).get(f"/api/records/{stored.id}").json()
    assert "no move for 300 s: left the game" in record["record"]["outcome"]["details"]["message"]
