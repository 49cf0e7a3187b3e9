"""Fair shares of the submission check's slots between accounts.

A web process runs at most ``slots`` submission checks at once (each a child process
playing sample games: arena/web/checker.py). First come, first served would let one
account that sends many slow bots hold every slot while another account's upload
waits until it gives up. Instead:

* an account has at most ``per_account`` checks running or waiting at once; one more
  is refused at once (:class:`TooManyChecks`, 429);
* a slot that frees goes to the waiting account with the fewest checks running, and
  among equals to the one served least recently: accounts take turns, so another
  account's check waits at most for the first running check to end (with the default
  two slots, two per account);
* a request that got no slot within its wait gives up (:class:`Busy`, 503): the
  server is busy with other accounts' checks.

Slots and shares are this process's: each web process runs its own checks.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.players.sample_games import CHECK_BUDGET_SECONDS
from arena.web.accounts import RateLimited


class Busy(ArenaError):
    """The server cannot take this request now (every submission check slot stayed
    taken by other accounts' checks while it waited)."""


class TooManyChecks(RateLimited):
    """The account has as many submission checks running or waiting as it may."""


@dataclass(eq=False)
class _Ticket:
    account: int
    order: int
    granted: bool = False


class CheckSlots:
    """``slots`` submission checks at once, shared fairly between accounts."""

    def __init__(self, slots: int, per_account: int) -> None:
        self.slots = slots
        self.per_account = per_account
        self._changed = threading.Condition()
        self._free = slots
        self._running: Counter[int] = Counter()
        self._served: dict[int, int] = {}  # an account's latest ticket given a slot
        self._waiting: list[_Ticket] = []
        self._order = itertools.count()

    @property
    def waiting(self) -> int:
        """How many checks wait for a slot."""
        with self._changed:
            return len(self._waiting)

    @contextmanager
    def held(self, account: int, wait_seconds: float) -> Iterator[None]:
        """Hold a slot for ``account``'s check while the block runs.

        Raises:
            TooManyChecks: the account has ``per_account`` checks running or waiting.
            Busy: no slot came its way within ``wait_seconds``.
        """
        self._take(account, wait_seconds)
        try:
            yield
        finally:
            with self._changed:
                self._running[account] -= 1
                self._free += 1
                self._hand_out()
                self._forget_if_idle(account)

    def _take(self, account: int, wait_seconds: float) -> None:
        with self._changed:
            if self._running[account] + self._waiting_of(account) >= self.per_account:
                checks = "check" if self.per_account == 1 else "checks"
                raise TooManyChecks(
                    f"an account may have {self.per_account} submission {checks} running or "
                    "waiting at once: submit this bot again when one of yours has finished",
                    math.ceil(CHECK_BUDGET_SECONDS),
                )
            ticket = _Ticket(account, next(self._order))
            self._waiting.append(ticket)
            self._hand_out()
            if not self._changed.wait_for(lambda: ticket.granted, timeout=wait_seconds):
                self._waiting.remove(ticket)
                self._forget_if_idle(account)
                raise Busy(
                    f"every submission check slot stayed busy for {wait_seconds:g} s: "
                    "try again in a minute"
                )

    def _hand_out(self) -> None:
        """Give free slots to waiting tickets: the account running the fewest checks
        first, then the one served least recently, then the earliest ticket (the caller
        holds the lock)."""
        while self._free and self._waiting:
            ticket = min(self._waiting, key=self._turn)
            self._waiting.remove(ticket)
            ticket.granted = True
            self._running[ticket.account] += 1
            self._served[ticket.account] = ticket.order
            self._free -= 1
        self._changed.notify_all()

    def _turn(self, ticket: _Ticket) -> tuple[int, int, int]:
        return (self._running[ticket.account], self._served.get(ticket.account, -1), ticket.order)

    def _waiting_of(self, account: int) -> int:
        return sum(ticket.account == account for ticket in self._waiting)

    def _forget_if_idle(self, account: int) -> None:
        """Drop what is kept of an account with no check running or waiting."""
        if self._running[account] <= 0 and not self._waiting_of(account):
            self._running.pop(account, None)
            self._served.pop(account, None)
