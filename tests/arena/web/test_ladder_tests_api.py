"""An owner stops a version regression test over the API (the ladder's pages and read
routes: test_ladder_pages.py)."""

from __future__ import annotations

from arena.ladder.service import LadderSettings, start_ladder
from arena.ladder.worker import LadderPlayer
from arena.store.bots import add_bot, builtin_source, resolve_bot
from arena.store.db import session_scope
from arena.web.accounts import create_account
from tests.arena.web.conftest import Web

GAME = "koenigsgarten"


def played_ladder(web: Web, owner: int | None = None) -> None:
    """An unlimited ladder of random, greedy and mine@1, mine@2 (owned by ``owner``),
    one batch played."""
    with session_scope(web.engine) as session:
        for kind in ("random", "greedy"):
            resolve_bot(session, kind, GAME)
        ladder, _ = start_ladder(session, GAME, time_control="unlimited", settings=LadderSettings())
        for kind in ("random", "first-legal"):
            bot, _ = add_bot(session, name="mine", game=GAME, source=builtin_source(kind, GAME))
            bot.owner_id = owner
            session.add(bot)
        ladder_id = ladder.id
    assert ladder_id is not None
    with LadderPlayer(web.engine, executor="local", tables=6, seed=1) as player:
        assert player.play_batch(ladder_id) is not None


def test_only_the_owner_stops_a_regression_test(web: Web) -> None:
    with session_scope(web.engine) as session:
        account, token = create_account(session, "alice")
        owner = account.id
    alice = {"Authorization": f"Bearer {token}"}
    played_ladder(web, owner=owner)
    url = "/api/bots/mine@2/regression-tests/stop"
    assert web.client.post(url).status_code == 401
    assert web.client.post(url, headers=web.auth("bob")).status_code == 403
    stopped = web.client.post(url, headers=alice)
    assert stopped.status_code == 200, stopped.text
    (test,) = stopped.json()
    assert test["status"] == "stopped" and test["message"] == "stopped by its owner alice"
    again = web.client.post(url, headers=alice)
    assert again.status_code == 422 and "no running regression test" in again.json()["detail"]
