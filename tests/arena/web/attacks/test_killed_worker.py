"""A web worker killed outright (SIGKILL) mid-tournament: another worker takes the
tournament up, as ``arena tournament resume`` would after a killed driver
(arena/web/worker.py ``requeue_orphans``, the lease of arena/tournament/lease.py)."""

from __future__ import annotations

import pytest

from arena.tournament.lease import read_holder
from tests.arena.web.attacks.test_cancel import (
    Staller,
    cancel,
    end,
    start_stalling_tournament,
    start_worker,
)
from tests.arena.web.conftest import Web
from tests.waiting import wait_until

# Worker processes running sandboxed bots that stall.
pytestmark = [pytest.mark.xdist_group("worker"), pytest.mark.slow]


def test_another_worker_takes_up_the_tournament_of_a_killed_one(web: Web, db_url: str) -> None:
    staller = Staller()
    first = start_worker(db_url)
    try:
        url, owner = start_stalling_tournament(web, first, staller)
        killed_game = set(staller.processes())
    finally:
        first.kill()
        first.wait()  # reaped: its pid runs nothing any more
    tournament_id = int(url.rpartition("/")[2])
    assert web.client.get(url).json()["status"] == "running"  # what it left behind
    second = start_worker(db_url)
    try:

        def taken_up() -> bool:
            assert second.poll() is None, second.stderr.read() if second.stderr else ""
            holder = read_holder(web.engine, tournament_id)
            running = web.client.get(url).json()["status"] == "running"
            return holder is not None and holder.pid == second.pid and running

        wait_until(taken_up, what="no worker took the tournament up")
        wait_until(
            lambda: bool(set(staller.processes()) - killed_game),
            what="the game was not played again",
        )
        cancel(web, url, owner)  # the end of it: the staller would stall for ever
        wait_until(lambda: not staller.processes(), what="the staller outlived the cancel")
    finally:
        end(second)
