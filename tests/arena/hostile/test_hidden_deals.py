"""Hidden cards stay hidden (issue 28, point 1): a bot learns about the deal only
through its observation. A submitted bot can import the engines, so the seed it is
handed must not be the deal's (nor anything the deal's seed can be recomputed from)."""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from rich.console import Console

from arena.ladder.service import start_ladder
from arena.store.bots import add_bot
from arena.store.db import open_database, session_scope
from arena.tournament.scheduling import deal_seed
from arena.web.app import create_app
from arena.web.worker import run_worker
from bots.base import GameInfo
from engines.registry import get_game
from tests.arena.hostile import make_bot, python_source
from tests.arena.web.conftest import TEST_SETTINGS, Web, make_account
from tests.arena.web.test_play import sign_in, start, state
from tests.waiting import wait_until

DEAL_SEED = 1
"""A seed a person might pick (`--seed 1`): the least entropy a deal can have."""


def claims(stderr: bytes) -> list[dict[str, Any]]:
    """What the re-dealing bot reported on stderr."""
    lines = stderr.decode().splitlines()
    return [json.loads(line[6:]) for line in lines if line.startswith("CLAIM ")]


def hidden_from(seat: int, game: str, deal: dict[str, Any]) -> dict[str, Any]:
    """What ``seat`` may not know of a deal: in Kings in the Corner the other hands and
    the stock's order, in Kardinal & König which card carries which face-down tablet."""
    if game == "kings_corner":
        others = [hand for other, hand in enumerate(deal["hands"]) if other != seat]
        return {"hands": others, "stock": deal["stock"]}
    return {"tablets": deal["tablets"]}


@pytest.mark.parametrize("game", ["kings_corner", "kardinal"])
def test_a_bot_that_deals_the_game_again_learns_no_hidden_card(game: str) -> None:
    engine = get_game(game)
    bot = make_bot(python_source("redealer.py", "Redealer"), game)
    for seat in range(2):
        state = engine.new_initial_state(seed=DEAL_SEED, seats=2)
        options = engine.options_to_dict(state.options)
        try:
            bot.new_game(GameInfo.of(engine, options, seat, 2, DEAL_SEED))
        finally:
            bot.close()
        (claim,) = claims(bot.last_stderr)
        # The bot deals right: from the seed it was handed, its claim is that deal's.
        dealt = engine.new_initial_state(seed=claim["seed"], seats=2, options=options)
        assert claim["deal"] == json.loads(json.dumps(dealt.to_dict()["deal"]))
        truth = hidden_from(seat, game, json.loads(json.dumps(state.to_dict()["deal"])))
        claimed = hidden_from(seat, game, claim["deal"])
        assert claim["seed"] != DEAL_SEED
        assert claimed != truth
        for part, cards in truth.items():  # not one hidden part is named right
            assert claimed[part] != cards, part


# -- hosted play: the seed is secret until the end, committed to from the start ----------

QUIET = Console(file=io.StringIO())
CONFIG = {
    "game": "koenigsgarten",
    "bots": ["random", "first-legal"],
    "games": 2,
}
HEX64 = re.compile(r"[0-9a-f]{64}")


@pytest.fixture
def web(db_url: str) -> Iterator[Web]:
    engine = open_database(db_url)
    with TestClient(create_app(engine, settings=TEST_SETTINGS)) as client:
        yield Web(engine, client)
    engine.dispose()


def set_status(web: Web, tournament_id: int, status: str) -> None:
    with web.engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE tournament SET status = :status WHERE id = :id"),
            {"status": status, "id": tournament_id},
        )


def stored_seed(web: Web, tournament_id: int) -> int:
    with web.engine.connect() as connection:
        query = sa.text("SELECT seed FROM tournament WHERE id = :id")
        return int(connection.execute(query, {"id": tournament_id}).scalar_one())


def everything_shown(web: Web, tournament_id: int) -> str:
    """Every view of the tournament a user can fetch, its games' and records' too."""
    get = web.client.get
    games = get(f"/api/tournaments/{tournament_id}/games").json()
    shown = [
        get(f"/api/tournaments/{tournament_id}").text,
        get("/api/tournaments").text,
        get(f"/tournaments/{tournament_id}").text,
        get(f"/api/tournaments/{tournament_id}/report").text,
        json.dumps(games),
    ]
    for game in games["items"]:
        shown += [get(f"/api/records/{game['id']}").text, get(f"/records/{game['id']}").text]
    return "\n".join(shown)


def test_a_hosted_tournament_hides_its_own_seed_until_the_end(web: Web) -> None:
    alice = web.auth("alice")
    refused = web.client.post("/api/tournaments", headers=alice, json={**CONFIG, "seed": 1})
    assert refused.status_code == 422 and "field 'seed'" in refused.text
    first, second = (
        web.client.post("/api/tournaments", headers=alice, json=CONFIG).json() for _ in range(2)
    )
    for queued in (first, second):  # the commitment from the start, no seed
        assert queued["seed"] is None and queued["seed_nonce"] is None
        assert HEX64.fullmatch(queued["seed_commitment"])
        assert "seed" not in queued["config"]
    assert first["seed_commitment"] != second["seed_commitment"]
    seeds = {stored_seed(web, t["id"]) for t in (first, second)}
    assert len(seeds) == 2 and 1 not in seeds  # each its own, none the old default
    assert run_worker(web.engine, once=True, console=QUIET, executor="local") == 2
    tournament_id, seed = first["id"], stored_seed(web, first["id"])

    set_status(web, tournament_id, "running")  # as while it runs, with games stored
    games = web.client.get(f"/api/tournaments/{tournament_id}/games").json()["items"]
    assert games and all(game["seed"] is None for game in games)
    records = [web.client.get(f"/api/records/{g['id']}").json() for g in games]
    assert all(r["seed"] is None and r["record"]["seed"] is None for r in records)
    shown = everything_shown(web, tournament_id)
    with web.engine.connect() as connection:
        query = sa.text("SELECT seed FROM game WHERE tournament_id = :id")
        game_seeds = {int(s) for (s,) in connection.execute(query, {"id": tournament_id})}
    for secret in (seed, *game_seeds):
        assert str(secret) not in shown

    set_status(web, tournament_id, "completed")
    done = web.client.get(f"/api/tournaments/{tournament_id}").json()
    assert done["seed"] == seed and done["config"]["seed"] == seed
    # Anyone can check the revealed seed against the commitment shown from the start …
    text = "\x1f".join(["arena-tournament-seed-v1", str(seed), done["seed_nonce"], ""])
    assert hashlib.sha256(text.encode()).hexdigest() == first["seed_commitment"]
    # … and deal every game again from it.
    engine = get_game("koenigsgarten")
    for game in web.client.get(f"/api/tournaments/{tournament_id}/games").json()["items"]:
        assert game["seed"] in {deal_seed(seed, round_number) for round_number in range(2)}
        record = web.client.get(f"/api/records/{game['id']}").json()["record"]
        dealt = engine.new_initial_state(seed=game["seed"], seats=2)
        assert record["seed"] == game["seed"]
        assert record["deal"] == json.loads(json.dumps(dealt.to_dict()["deal"]))
    assert str(seed) in web.client.get(f"/tournaments/{tournament_id}").text


def test_a_hosted_tournaments_deals_are_committed_to_and_hidden_until_the_end(web: Web) -> None:
    engine = get_game("kings_corner")
    deals = [engine.new_initial_state(seed=n, seats=2).to_dict()["deal"] for n in range(2)]
    deals = json.loads(json.dumps(deals))
    config = {**CONFIG, "game": "kings_corner", "seats": 2, "deals": deals}
    alice = web.auth("alice")
    queued = web.client.post("/api/tournaments", headers=alice, json=config)
    assert queued.status_code == 202, queued.text
    tournament_id = queued.json()["id"]
    for shown in (queued.json(), web.client.get(f"/api/tournaments/{tournament_id}").json()):
        assert "deals" not in shown["config"] and shown["seed"] is None
    stock = " ".join(deals[0]["stock"][:6])  # a run of the first deal's hidden cards
    assert stock not in everything_shown(web, tournament_id).replace('", "', " ")
    cancelled = web.client.post(f"/api/tournaments/{tournament_id}/cancel", headers=alice)
    assert cancelled.status_code == 200, cancelled.text
    done = cancelled.json()
    assert done["config"]["deals"] == deals
    canonical = json.dumps(deals, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    text = "\x1f".join(["arena-tournament-seed-v1", str(done["seed"]), done["seed_nonce"], digest])
    assert hashlib.sha256(text.encode()).hexdigest() == done["seed_commitment"]


def test_a_bot_in_a_browser_game_learns_no_hidden_card_and_the_page_no_seed(web: Web) -> None:
    with session_scope(web.engine) as session:
        source = python_source("redealer.py", "ConfessingRedealer")
        bot, _ = add_bot(session, name="confessor", game="kings_corner", source=source)
        label = bot.label
    csrf = sign_in(web.client, make_account(web.engine, "alice"))
    game_id = start(web.client, csrf, "kings_corner", seats="2", seat="1", opponent1=label)
    with web.engine.connect() as connection:
        query = sa.text("SELECT seed FROM live_game WHERE id = :id")
        seed = connection.execute(query, {"id": game_id}).scalar_one()
    shown = web.client.get(f"/play/{game_id}").text + json.dumps(state(web.client, game_id))
    assert str(seed) not in shown  # nothing the page is sent while it runs names it
    wait_until(lambda: state(web.client, game_id)["over"], what="the bot's forfeit")
    record_id = state(web.client, game_id)["record_id"]
    stored = web.client.get(f"/api/records/{record_id}").json()
    assert stored["seed"] == seed  # shown once the game is over, the deal with it
    confessed = re.search(r"DEAL ([0-9a-f]{16})", json.dumps(stored))
    assert confessed, stored["reason"]
    truth = hashlib.sha256(json.dumps(stored["record"]["deal"], sort_keys=True).encode())
    assert confessed[1] != truth.hexdigest()[:16]


def test_a_ladder_plays_a_secret_seed_it_committed_to(web: Web) -> None:
    with session_scope(web.engine) as session:
        ladder, _ = start_ladder(session, "koenigsgarten")
        tournament_id = ladder.tournament_id
    shown = web.client.get(f"/api/tournaments/{tournament_id}").json()
    assert shown["seed"] is None and "seed" not in shown["config"]
    assert HEX64.fullmatch(shown["seed_commitment"])
    seed = stored_seed(web, tournament_id)
    assert seed != 1 and str(seed) not in everything_shown(web, tournament_id)
