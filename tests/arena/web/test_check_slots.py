"""The submission check's slots (arena/web/check_slots.py): accounts take turns, one
account's share is capped, and a request that waits too long gets a clear 503."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from arena.web.check_slots import Busy, CheckSlots, TooManyChecks
from tests.waiting import wait_until


def hold(
    slots: CheckSlots, account: int, until: threading.Event, log: list[int]
) -> Callable[[], None]:
    def run() -> None:
        with slots.held(account, wait_seconds=300):
            log.append(account)
            until.wait(300)

    return run


def test_accounts_take_turns_for_a_freed_slot() -> None:
    slots = CheckSlots(1, per_account=3)
    release = threading.Event()
    log: list[int] = []
    threads = [threading.Thread(target=hold(slots, 1, release, log)) for _ in range(3)]
    threads[0].start()
    wait_until(lambda: log == [1])
    for thread in threads[1:]:
        thread.start()
    other = threading.Thread(target=hold(slots, 2, release, log))
    wait_until(lambda: slots.waiting == 2)  # account 1's second and third wait
    other.start()
    wait_until(lambda: slots.waiting == 3)
    release.set()
    for thread in [*threads, other]:
        thread.join(300)
    assert log == [1, 2, 1, 1]  # account 2 came last but went before account 1's others


def test_the_share_is_capped_and_a_long_wait_is_busy() -> None:
    slots = CheckSlots(1, per_account=1)
    with slots.held(1, wait_seconds=1):
        second = "an account may have 1 submission check running or waiting"
        with pytest.raises(TooManyChecks, match=second), slots.held(1, wait_seconds=1):
            pass
        late = r"every submission check slot stayed busy for 0\.05 s"
        with pytest.raises(Busy, match=late), slots.held(2, wait_seconds=0.05):
            pass
    assert slots.waiting == 0
    with slots.held(1, wait_seconds=1):  # the refused and the timed-out left nothing behind
        pass
