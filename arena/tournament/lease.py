"""One driver per tournament: a lease in the tournament's row.

A driver (``arena tournament run|resume``, a web worker) takes the lease before it
plays anything, by a compare-and-set on the lease's token, renews it every
:data:`HEARTBEAT_SECONDS` from a thread while it runs, and releases it at the end. A
second driver finds the lease held and stops with :class:`TournamentBusyError`,
naming the holder (host, pid, since when), so no game is played twice.

A lease is taken over when its holder is gone: on this host, a pid that no longer
runs (a SIGKILLed driver is resumed at once); anywhere, a heartbeat older than
:data:`STALE_SECONDS` (a dead machine, a lost network).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from arena.errors import ArenaError, NotFoundError
from arena.store.db import session_scope
from arena.store.models import Tournament, utcnow

HEARTBEAT_SECONDS = 10.0
STALE_SECONDS = 300.0
"""A heartbeat this old means the holder is gone: thirty missed renewals."""

TOURNAMENTS = Tournament.__table__  # type: ignore[attr-defined]

log = logging.getLogger(__name__)


class TournamentBusyError(ArenaError):
    """Another driver holds the tournament (or took it over from this one)."""


@dataclass(frozen=True)
class Holder:
    """Who holds a tournament's lease."""

    token: str
    host: str
    pid: int
    since: datetime
    renewed: datetime

    def describe(self, now: datetime | None = None) -> str:
        """``host:pid since 2026-12-02 00:01:02 UTC (last heartbeat 3 s ago)``."""
        age = ((now or utcnow()) - self.renewed).total_seconds()
        return (
            f"{self.host}:{self.pid} since {self.since:%Y-%m-%d %H:%M:%S} UTC "
            f"(last heartbeat {max(age, 0):.0f} s ago)"
        )

    @classmethod
    def of(
        cls,
        token: str | None,
        host: str | None,
        pid: int | None,
        since: datetime | None,
        renewed: datetime | None,
    ) -> Holder | None:
        """The holder the lease columns name, None when they name no host. A web worker
        writes its host and pid there when it claims a tournament, before its driver
        takes the lease (``token`` None: nobody holds it yet, but someone runs it)."""
        if host is None or since is None or renewed is None:
            return None
        return cls(token or "", host, int(pid or 0), _aware(since), _aware(renewed))

    def gone(self, now: datetime, stale_seconds: float) -> bool:
        """The holder no longer runs: a dead pid on this host, or a stale heartbeat."""
        if (now - self.renewed).total_seconds() > stale_seconds:
            return True
        return self.host == socket.gethostname() and not _process_alive(self.pid)


def _process_alive(pid: int) -> bool:
    """``pid`` runs on this host (a zombie, killed but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no procfs: trust the signal
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def _aware(moment: datetime) -> datetime:
    # SQLite hands timestamps back without their zone; they were written in UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def read_holder(engine: Engine, tournament_id: int) -> Holder | None:
    """The lease's holder, None when nobody holds it.

    Raises:
        NotFoundError: no such tournament.
    """
    t = TOURNAMENTS
    with engine.connect() as connection:
        row = connection.execute(
            sa.select(
                t.c.lease_token, t.c.lease_host, t.c.lease_pid, t.c.lease_since, t.c.lease_renewed
            ).where(t.c.id == tournament_id)
        ).one_or_none()
    if row is None:
        raise NotFoundError(f"no tournament {tournament_id} (see `arena tournament list`)")
    token, host, pid, since, renewed = row
    if token is None:
        return None
    return Holder.of(token, host or "?", pid, since, renewed)


class DriverLease:
    """This process's lease on one tournament; a context manager that keeps it renewed.

    ``lost`` turns true when a renewal finds the lease taken over (this driver was
    thought gone); the driver then stops without writing anything more.
    """

    def __init__(
        self,
        engine: Engine,
        tournament_id: int,
        *,
        heartbeat_seconds: float = HEARTBEAT_SECONDS,
        stale_seconds: float = STALE_SECONDS,
    ) -> None:
        self.engine = engine
        self.tournament_id = tournament_id
        self.heartbeat_seconds = heartbeat_seconds
        self.stale_seconds = stale_seconds
        self.token = uuid.uuid4().hex
        self.lost = False
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> None:
        """Take the lease: free, or held by a driver that is gone.

        Raises:
            TournamentBusyError: a live driver holds it; the message names it.
            NotFoundError: no such tournament.
        """
        while True:
            now = utcnow()
            holder = read_holder(self.engine, self.tournament_id)
            if holder is not None and not holder.gone(now, self.stale_seconds):
                raise TournamentBusyError(
                    f"tournament {self.tournament_id} is being run by {holder.describe(now)}; "
                    "wait for it to finish, or stop that driver and resume"
                )
            t = TOURNAMENTS
            token = t.c.lease_token
            previous = token.is_(None) if holder is None else token == holder.token
            with session_scope(self.engine) as session:
                taken = session.connection().execute(
                    sa.update(t)
                    .where(t.c.id == self.tournament_id, previous)
                    .values(
                        lease_token=self.token,
                        lease_host=socket.gethostname(),
                        lease_pid=os.getpid(),
                        lease_since=now,
                        lease_renewed=now,
                    )
                )
            if taken.rowcount == 1:
                if holder is not None:
                    log.warning(
                        "took tournament %s over from %s",
                        self.tournament_id,
                        holder.describe(now),
                    )
                return
            # Another driver changed the lease between the read and the write: look again.

    def renew(self) -> bool:
        """Write a heartbeat; False (and ``lost``) when the lease is no longer ours."""
        t = TOURNAMENTS
        with session_scope(self.engine) as session:
            renewed = session.connection().execute(
                sa.update(t)
                .where(t.c.id == self.tournament_id, t.c.lease_token == self.token)
                .values(lease_renewed=utcnow())
            )
        if renewed.rowcount != 1:
            self.lost = True
        return not self.lost

    def release(self) -> None:
        """Give the lease back (nothing happens when it was taken over)."""
        t = TOURNAMENTS
        with session_scope(self.engine) as session:
            session.connection().execute(
                sa.update(t)
                .where(t.c.id == self.tournament_id, t.c.lease_token == self.token)
                .values(
                    lease_token=None,
                    lease_host=None,
                    lease_pid=None,
                    lease_since=None,
                    lease_renewed=None,
                )
            )

    def holder(self) -> str:
        """Who holds the lease now, for messages."""
        holder = read_holder(self.engine, self.tournament_id)
        return holder.describe() if holder is not None else "nobody"

    def __enter__(self) -> DriverLease:
        self.acquire()
        self._thread = threading.Thread(target=self._beat, name="driver-lease", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        self.release()

    def _beat(self) -> None:
        while not self._done.wait(self.heartbeat_seconds):
            try:
                if not self.renew():
                    log.warning("lost the lease on tournament %s", self.tournament_id)
                    return
            except ArenaError as exc:  # the database is away: try again at the next beat
                log.warning("cannot renew the lease on tournament %s: %s", self.tournament_id, exc)
