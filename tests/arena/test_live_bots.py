"""The bots a process keeps between games (arena/players/live_bots.py): a bound on
live zygotes, a pool that lends a version's idle bot again, threads that outlive a
game. No sandbox starts here: a submitted bot starts its process at its first game."""

from __future__ import annotations

import threading

from arena.play.runner import TimeControl
from arena.players.live_bots import BotPool, GameThreads, LiveBots
from arena.players.loader import BUILTIN, PYTHON, BotSource, BotSpec
from bots.base import Bot
from bots.simple import FirstLegalBot
from tests.waiting import wait_until

CODE = """
class FirstLegal:
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
"""
MINE = BotSpec(7, "mine@1", "koenigsgarten", BotSource(PYTHON, "FirstLegal", {}, CODE))


class Counted(FirstLegalBot):
    def __init__(self) -> None:
        super().__init__()
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_live_bots_drop_the_least_recently_used_beyond_the_limit() -> None:
    live: LiveBots[str] = LiveBots(limit=2)
    a, b, c = Counted(), Counted(), Counted()
    assert live.keep("a", a) == [] and live.keep("b", b) == []
    assert live.keep("a", a) == []  # used again: b is now the oldest
    assert live.keep("c", c) == [b]
    assert live.keys() == ["a", "c"]
    assert live.take("a") is a and live.take("a") is None
    assert live.clear() == [c] and live.keys() == []


def test_a_pool_lends_a_versions_idle_bot_again_and_one_per_game_at_once() -> None:
    pool = BotPool()
    first = pool.lend(MINE)
    second = pool.lend(MINE)  # the first is still playing
    assert second is not first
    pool.give_back(first)
    assert pool.lend(MINE) is first
    timed = pool.lend(MINE, time_control=TimeControl(per_move=1.0))
    assert timed not in (first, second)  # made for its own time control
    builtin = BotSpec(1, "random@1", "koenigsgarten", BotSource(BUILTIN, "random"))
    made = pool.lend(builtin)
    pool.give_back(made)
    assert pool.lend(builtin) is not made  # a built-in bot is made for each game
    pool.close()


def test_a_full_pool_closes_the_bot_idle_longest_and_a_closed_pool_each_returned() -> None:
    pool = BotPool(limit=1)
    old, new = pool.lend(MINE), pool.lend(MINE)
    closed: list[Bot] = []
    for bot in (old, new):
        bot.close = lambda bot=bot: closed.append(bot)  # type: ignore[method-assign]
    pool.give_back(old)
    pool.give_back(new)
    assert closed == [old]
    pool.close()
    assert closed == [old, new]
    again = pool.lend(MINE)
    again.close = lambda: closed.append(again)  # type: ignore[method-assign]
    pool.give_back(again)
    assert closed == [old, new, again]


def test_a_game_thread_outlives_its_game_and_serves_the_next() -> None:
    threads = GameThreads("test-game")
    served: list[threading.Thread] = []
    done = threading.Semaphore(0)

    def game() -> None:
        served.append(threading.current_thread())
        done.release()

    for count in (1, 2):
        threads.run(game)
        assert done.acquire(timeout=60)
        wait_until(lambda: threads.idle == 1, what="the game's thread waiting for the next")
        assert len(served) == count and served[-1].is_alive()
    assert served[0] is served[1] and served[0].name == "test-game-1"
    threads.close()
    served[0].join(60)
    assert not served[0].is_alive()
