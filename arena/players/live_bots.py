"""Submitted bots kept between games, so that a warm bot's zygote serves many games.

A :class:`~arena.players.subprocess_bot.SubprocessBot` that plays warm (a Python bot,
``SandboxLimits.warm``) starts its zygote at its first game and keeps it, with its
sandbox, until it is closed: the same instance must play the next game of that bot
version for its start-up to be paid once (docs/protocol.md, "Every game from a
pristine bot"). Each live zygote holds a sandbox (a user id, a cgroup, a few MiB of
memory and whatever the bot loaded), so a process keeps at most
:data:`MAX_LIVE_BOTS`: keeping one more closes the one that played longest ago, which
starts again at its next game.

:class:`LiveBots` is that bound, for a caller that keeps its own bots (a tournament
worker's, :mod:`arena.tournament.execution`); :class:`BotPool` lends bots to games
that run at once in threads (the web's browser games), each instance to one game at a
time. A sandbox dies with the thread that started it (its supervisor's parent-death
signal), so a pool's games run in threads that live as long as the pool
(:class:`GameThreads`).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from arena.play.runner import TimeControl
from arena.players.loader import BotSpec, instantiate
from arena.players.subprocess_bot import UNTIMED, SubprocessBot
from bots.base import Bot

log = logging.getLogger(__name__)

MAX_LIVE_BOTS = 32
"""Warm bots a process keeps between games (each a zygote in a sandbox of its own)."""

Key = TypeVar("Key", bound=Hashable)


class LiveBots(Generic[Key]):
    """Bots kept between games, at most ``limit``, the least recently used dropped
    first. Not thread-safe: one thread, or the caller's lock."""

    def __init__(self, limit: int = MAX_LIVE_BOTS) -> None:
        self.limit = limit
        self._bots: OrderedDict[Key, Bot] = OrderedDict()

    def keep(self, key: Key, bot: Bot) -> list[Bot]:
        """``bot`` (known by ``key``) is about to play, or played last: it is the most
        recent. Returns the bots beyond the limit, dropped, for the caller to close."""
        self._bots[key] = bot
        self._bots.move_to_end(key)
        dropped = []
        while len(self._bots) > self.limit:
            dropped.append(self._bots.popitem(last=False)[1])
        return dropped

    def take(self, key: Key) -> Bot | None:
        """The bot kept under ``key``, no longer kept (None: there is none)."""
        return self._bots.pop(key, None)

    def keys(self) -> list[Key]:
        """The keys, the least recently used first."""
        return list(self._bots)

    def clear(self) -> list[Bot]:
        """Forget every bot; returns them (for the caller to close, or not)."""
        bots = list(self._bots.values())
        self._bots.clear()
        return bots


def close_all(bots: list[Bot]) -> None:
    for bot in bots:
        bot.close()


Version = tuple[int, str, str, str, TimeControl]
"""A bot version as a pool tells its instances apart: id, label, game, code hash and
the time control it was made for."""


class BotPool:
    """Bots lent to games that run at once: a submitted bot version's idle instance
    (of the same time control) is lent again, so its zygote serves the next game; a
    built-in bot is made for each game. Thread-safe."""

    def __init__(self, limit: int = MAX_LIVE_BOTS) -> None:
        self._idle: LiveBots[tuple[Version, int]] = LiveBots(limit)
        self._lent: dict[int, Version] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._returns = 0

    def lend(self, spec: BotSpec, *, time_control: TimeControl = UNTIMED) -> Bot:
        """A bot for ``spec``: an idle one of the same version, else a new one.

        Raises:
            BotLoadError: the stored bot cannot be loaded or run here.
        """
        version = (spec.bot_id, spec.label, spec.game, spec.source.code_hash, time_control)
        with self._lock:
            for key in reversed(self._idle.keys()):
                if key[0] == version:
                    bot = self._idle.take(key)
                    assert bot is not None
                    self._lent[id(bot)] = version
                    return bot
        bot = instantiate(spec, time_control=time_control)
        if isinstance(bot, SubprocessBot):
            with self._lock:
                self._lent[id(bot)] = version
        return bot

    def give_back(self, bot: Bot) -> None:
        """The game of ``bot`` (lent by :meth:`lend`) is over: a submitted one waits
        for the next game of its version, anything else is closed."""
        with self._lock:
            version = self._lent.pop(id(bot), None)
            if version is None or self._closed:
                dropped = [bot]
            else:
                self._returns += 1
                dropped = self._idle.keep((version, self._returns), bot)
        close_all(dropped)

    def close(self) -> None:
        """Close the idle bots; those lent are closed when given back."""
        with self._lock:
            self._closed = True
            idle = self._idle.clear()
        close_all(idle)


class GameThreads:
    """Threads that run games and live until :meth:`close` (daemons: an exiting
    server does not wait for a game): a sandbox a game starts (a pooled bot's zygote)
    outlives that game, and dies only with the thread that started it. A new thread
    starts when none is idle."""

    def __init__(self, name: str = "game") -> None:
        self.name = name
        self._work: queue.SimpleQueue[Callable[[], Any] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0

    def run(self, function: Callable[..., Any], *args: Any) -> None:
        """Run ``function(*args)`` in one of the threads (an exception it raises is
        logged; the thread goes on with the next)."""
        with self._lock:
            start = self._idle == 0
            if start:
                self._threads += 1
                number = self._threads
            else:
                self._idle -= 1
        self._work.put(lambda: function(*args))
        if start:
            threading.Thread(target=self._serve, name=f"{self.name}-{number}", daemon=True).start()

    @property
    def idle(self) -> int:
        """Threads waiting for a game."""
        with self._lock:
            return self._idle

    def close(self) -> None:
        """Let every thread end once its game is over."""
        with self._lock:
            threads = self._threads
        for _ in range(threads):
            self._work.put(None)

    def _serve(self) -> None:
        while True:
            task = self._work.get()
            if task is None:
                return
            try:
                task()
            except Exception:  # a game reports its own failures; this is a bug of one
                log.exception("a task of %s failed", threading.current_thread().name)
            with self._lock:
                self._idle += 1
