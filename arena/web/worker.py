"""The tournament worker: runs tournaments queued over the web, one at a time.

``POST /api/tournaments`` stores a tournament (participants and schedule included)
with the status ``queued``. A worker (``arena worker``, or the one ``arena serve``
starts) claims the oldest queued tournament with a compare-and-set on its status, so
two workers never run the same one, and runs it with :class:`TournamentRunner` and the
executor its configuration names (or the worker's ``--executor``), exactly as
``arena tournament run`` would. A worker stopped mid-tournament (SIGTERM, Ctrl-C)
stores what finished and puts the tournament back in the queue: the next worker plays
exactly the games still missing.
"""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType

import sqlalchemy as sa
from rich.console import Console
from sqlalchemy.engine import Engine

from arena.db import session_scope
from arena.errors import ArenaError
from arena.models import Tournament
from arena.storage import set_status
from arena.tournament import FAILED, INTERRUPTED, RunSummary, TournamentRunner

QUEUED = "queued"
CLAIMED = "pending"
REQUEUED_MESSAGE = "interrupted: waiting for a worker to resume it"

TOURNAMENTS = Tournament.__table__  # type: ignore[attr-defined]

log = logging.getLogger(__name__)


def claim_next(engine: Engine) -> int | None:
    """Take the oldest queued tournament for this worker; None when the queue is empty."""
    while True:
        with engine.connect() as connection:
            candidate = connection.execute(
                sa.select(TOURNAMENTS.c.id)
                .where(TOURNAMENTS.c.status == QUEUED)
                .order_by(TOURNAMENTS.c.id)
                .limit(1)
            ).scalar()
        if candidate is None:
            return None
        with session_scope(engine) as session:
            claimed = session.connection().execute(
                sa.update(TOURNAMENTS)
                .where(TOURNAMENTS.c.id == candidate, TOURNAMENTS.c.status == QUEUED)
                .values(status=CLAIMED, message=None)
            )
        if claimed.rowcount == 1:
            return int(candidate)
        # Another worker took it between the two statements: look again.


def run_claimed(
    engine: Engine, tournament_id: int, *, executor: str | None, console: Console
) -> RunSummary | None:
    """Run a claimed tournament; put it back in the queue when the worker is stopped.

    Errors of the tournament itself (a bot that cannot load, a failing executor) mark
    it failed with the message; the worker goes on with the next.
    """
    try:
        summary = TournamentRunner(engine, tournament_id, console=console, executor=executor).run()
    except Exception as exc:  # one bad tournament must not stop the worker
        log.warning("tournament %s failed: %s", tournament_id, exc)
        message = str(exc) if isinstance(exc, ArenaError) else f"{type(exc).__name__}: {exc}"
        set_status(engine, tournament_id, FAILED, message=message)
        return None
    if summary.status == INTERRUPTED:
        set_status(engine, tournament_id, QUEUED, message=REQUEUED_MESSAGE)
    return summary


def run_worker(
    engine: Engine,
    *,
    poll_seconds: float = 2.0,
    executor: str | None = None,
    once: bool = False,
    console: Console | None = None,
) -> int:
    """Claim and run queued tournaments until stopped (SIGTERM or Ctrl-C between
    tournaments ends the loop; during one, the runner stops and it is requeued).
    With ``once``, return when the queue is empty. Returns how many it ran."""
    console = console or Console(stderr=True)
    stop = threading.Event()
    running = False

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()
        if running:  # the runner turns this into a clean stop of the tournament
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, request_stop)
    ran = 0
    try:
        while not stop.is_set():
            tournament_id = claim_next(engine)
            if tournament_id is None:
                if once:
                    break
                stop.wait(poll_seconds)
                continue
            console.print(f"worker: running tournament {tournament_id}")
            running = True
            try:
                summary = run_claimed(engine, tournament_id, executor=executor, console=console)
            finally:
                running = False
            ran += 1
            if summary is not None:
                console.print(
                    f"worker: tournament {tournament_id} {summary.status}, "
                    f"{summary.stored} of {summary.scheduled} games stored"
                )
                if summary.status == INTERRUPTED:
                    break
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    return ran
