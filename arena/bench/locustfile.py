"""The people ``arena bench load`` sends at a live server, for locust (run in its own
process: locust patches the standard library with gevent's).

Settings come from the environment: ARENA_LOAD_TOKENS (comma-separated bearer tokens
of accounts that play browser games), ARENA_LOAD_GAME (a two-seat game),
ARENA_LOAD_BOT (the bot they play), ARENA_LOAD_RECORDS (stored games,
numbered from 1, whose replays readers open) and ARENA_LOAD_BARE (set: only the bare app's
``GET /items``). Accepted moves and finished games are counted in
ARENA_LOAD_COUNTS (a file written at the end).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
from typing import Any

from locust import FastHttpUser, between, events, task

CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
GAME = os.environ.get("ARENA_LOAD_GAME", "kardinal")
BOT = os.environ.get("ARENA_LOAD_BOT", "random")
TOKENS = itertools.cycle([t for t in os.environ.get("ARENA_LOAD_TOKENS", "").split(",") if t])
RECORDS = int(os.environ.get("ARENA_LOAD_RECORDS", "1"))
BARE = bool(os.environ.get("ARENA_LOAD_BARE"))
COUNTS = {"moves": 0, "games_started": 0}


class Reader(FastHttpUser):
    """Someone reading pages and the API: leaderboards, tournaments, bots, games."""

    abstract = BARE
    weight = 3
    wait_time = between(0.5, 1.5)

    @task(3)
    def leaderboard(self) -> None:
        self.client.get(f"/api/leaderboards/{GAME}", name="GET /api/leaderboards/{game}")

    @task(2)
    def game_page(self) -> None:
        self.client.get(f"/games/{GAME}", name="GET /games/{game}")

    @task(2)
    def tournaments(self) -> None:
        self.client.get("/tournaments", name="GET /tournaments")

    @task(2)
    def api_tournaments(self) -> None:
        self.client.get("/api/tournaments", name="GET /api/tournaments")

    @task(2)
    def tournament_page(self) -> None:
        self.client.get("/tournaments/1", name="GET /tournaments/{id}")

    @task(2)
    def replay(self) -> None:
        game_id = random.randint(1, RECORDS)
        self.client.get(f"/records/{game_id}", name="GET /records/{id}")

    @task(1)
    def home(self) -> None:
        self.client.get("/", name="GET /")

    @task(2)
    def api_games(self) -> None:
        self.client.get("/api/games", name="GET /api/games")

    @task(1)
    def bots(self) -> None:
        self.client.get("/api/bots", name="GET /api/bots")


class Player(FastHttpUser):
    """A person playing browser games move by move through the play page's JSON."""

    abstract = BARE
    weight = 1
    wait_time = between(0.3, 0.8)

    def on_start(self) -> None:
        self.csrf = ""
        self.game_id = ""
        self.played = -1
        token = next(TOKENS, "")
        if not token:
            return
        found = CSRF.search(self.client.get("/signin", name="GET /signin").text or "")
        if found is None:
            return
        self.client.post("/signin", data={"token": token, "csrf": found[1]}, name="POST /signin")
        found = CSRF.search(self.client.get(f"/games/{GAME}", name="GET /games/{game}").text or "")
        self.csrf = found[1] if found else ""

    def _start(self) -> None:
        form = {"csrf": self.csrf, "seats": "2", "seat": "1", "opponent1": BOT}
        with self.client.post(
            f"/games/{GAME}/play",
            data=form,
            allow_redirects=False,
            name="POST /games/{game}/play",
            catch_response=True,
        ) as answer:
            if answer.status_code == 303:
                answer.success()
                self.game_id = str(answer.headers["location"]).removeprefix("/play/")
                self.played = -1
                COUNTS["games_started"] += 1
            else:
                answer.failure(f"{answer.status_code}")

    @task
    def play(self) -> None:
        if not self.csrf:
            return
        if not self.game_id:
            self._start()
            return
        answer = self.client.get(f"/play/{self.game_id}/state", name="GET /play/{id}/state")
        if answer.status_code != 200:
            self.game_id = ""
            return
        view: dict[str, Any] = answer.json()
        if view.get("over"):
            self.game_id = ""
        elif view.get("legal") and view["version"] != self.played:
            moved = self.client.post(
                f"/play/{self.game_id}/move",
                json={"version": view["version"], "action": view["legal"][0]},
                headers={"X-CSRF-Token": self.csrf},
                name="POST /play/{id}/move",
            )
            if moved.status_code == 202:
                self.played = view["version"]
                COUNTS["moves"] += 1


class Bare(FastHttpUser):
    """The reference: a bare FastAPI app's constant JSON list."""

    abstract = not BARE
    wait_time = between(0.5, 1.5)

    @task
    def items(self) -> None:
        self.client.get("/items", name="GET /items")


@events.quitting.add_listener  # type: ignore[untyped-decorator]
def _write_counts(environment: Any, **_: Any) -> None:
    path = os.environ.get("ARENA_LOAD_COUNTS")
    if path:
        with open(path, "w") as out:
            json.dump(COUNTS, out)
