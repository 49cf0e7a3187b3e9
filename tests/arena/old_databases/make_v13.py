"""Makes ``v13.db``: a database as the release at schema 13 wrote it (commit f34163f,
the oldest schema with ladders and live browser games), for the upgrade tests.

Run with that release's code, not this one's::

    git worktree add --detach /tmp/old f34163f
    cd /tmp/old && PYTHONPATH=$PWD python $THIS /tmp/v13.db

It registers bots (a submitted one and a built-in with parameters), plays
tournaments of every game, starts and plays a ladder, makes accounts (one an
operator), and has a person play browser games through the web app: one to its end
(a stored human game) and one left open (a live game).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from arena.store.db import open_database, session_scope
from arena.web.accounts import create_account
from arena.web.app import WebSettings, create_app
from tests.arena.web.test_play import play_first_legal, sign_in, start, state

BOT = """from bots.base import Bot


class First(Bot):
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
"""


def arena(*args: str, db: str) -> None:
    subprocess.run([sys.executable, "-m", "arena", *args, "--db", db], check=True)


def main(db: str) -> None:
    folder = Path(db).parent
    (folder / "first_bot.py").write_text(BOT)
    arena(
        "bots",
        "add",
        "mine",
        "-g",
        "koenigsgarten",
        "--python",
        f"{folder / 'first_bot.py'}:First",
        db=db,
    )
    arena(
        "bots",
        "add",
        "deep",
        "-g",
        "koenigsgarten",
        "--builtin",
        "mcts",
        "-p",
        "iterations=20",
        db=db,
    )
    run = ["tournament", "run", "--executor", "local", "--workers", "1"]
    arena(
        *run,
        "--game",
        "koenigsgarten",
        "--type",
        "round-robin",
        "-b",
        "random",
        "-b",
        "mine",
        "-b",
        "deep",
        "--games",
        "6",
        "--seed",
        "7",
        db=db,
    )
    arena(
        *run,
        "--game",
        "kings_corner",
        "--type",
        "round-robin",
        "-b",
        "random",
        "-b",
        "first-legal",
        "-b",
        "greedy",
        "--seats",
        "3",
        "--games",
        "3",
        "--seed",
        "8",
        db=db,
    )
    arena(
        *run,
        "--game",
        "blumengarten",
        "--type",
        "solitaire",
        "-b",
        "random",
        "-b",
        "greedy",
        "--games",
        "8",
        "--seed",
        "9",
        "-O",
        "sequences=true",
        db=db,
    )
    arena(
        *run,
        "--game",
        "kardinal",
        "--type",
        "gauntlet",
        "--candidate",
        "greedy",
        "--opponent",
        "random",
        "--opponent",
        "first-legal",
        "--seats",
        "3",
        "--games",
        "2",
        "--seed",
        "10",
        db=db,
    )
    arena("ladder", "start", "koenigsgarten", "--time-control", "blitz", db=db)
    arena(
        "ladder",
        "run",
        "koenigsgarten",
        "--time-control",
        "blitz",
        "--games",
        "40",
        "--executor",
        "local",
        "--workers",
        "1",
        db=db,
    )
    engine = open_database(db)
    with session_scope(engine) as session:
        _, token = create_account(session, "alice")
        create_account(session, "olga")
    arena("users", "grant", "olga", "--operator", db=db)
    settings = WebSettings(human_games_per_account=2, human_idle_seconds=3600.0)
    with TestClient(create_app(engine, settings=settings)) as client:
        csrf = sign_in(client, token)
        done = start(
            client, csrf, "koenigsgarten", seats="2", seat="0", opponent1="random", clock="none"
        )
        play_first_legal(client, csrf, done)
        open_game = start(client, csrf, "blumengarten", seats="1", seat="0", clock="none")
        view = state(client, open_game)
        client.post(
            f"/play/{open_game}/move",
            json={"version": view["version"], "action": view["legal"][0]},
            headers={"X-CSRF-Token": csrf},
        )
    engine.dispose()


if __name__ == "__main__":
    main(sys.argv[1])
