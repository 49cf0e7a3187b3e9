"""The tournament worker: runs tournaments queued over the web, one at a time, and
plays started ladders while the queue is empty.

``POST /api/tournaments`` stores a tournament (participants and schedule included)
with the status ``queued``. A worker (``arena worker``, or the one ``arena serve``
starts) claims the oldest queued tournament with a compare-and-set on its status, so
two workers never run the same one, and runs it with :class:`TournamentRunner` and the
worker's executor (``--executor``, ``auto`` by default: a web user names none), exactly
as ``arena tournament run`` would; the runner takes the tournament's driver lease
(:mod:`arena.tournament.lease`), so a tournament some other driver runs (an ``arena
tournament resume``) is left to it, untouched. A worker stopped mid-tournament (SIGTERM, Ctrl-C)
stores what finished and puts the tournament back in the queue: the next worker plays
exactly the games still missing. A worker killed outright (SIGKILL, a lost machine)
cannot: its claim names it (host and pid, in the lease's columns, until its driver
holds the lease), and the next worker to look at the queue puts back every tournament
whose worker is gone by the lease's rule (:func:`requeue_orphans`).

A cancel is durable and prompt: while a tournament runs, a thread of the worker looks
at its status every :data:`CANCEL_POLL_SECONDS` and, once it is cancelled, interrupts
the run (:class:`CancelWatch`); the game in progress is abandoned and its bots'
processes killed, what finished is stored, and the tournament stays cancelled, whether
the worker then goes on or is stopped.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
from types import FrameType, TracebackType

import sqlalchemy as sa
from rich.console import Console
from sqlalchemy.engine import Engine
from sqlmodel import Session

from arena.errors import ArenaError
from arena.ladder.worker import LadderPlayer
from arena.report.build import record_final_ratings
from arena.store.db import session_scope
from arena.store.games import read_status, set_status
from arena.store.models import Tournament, TournamentStatus, utcnow
from arena.tournament.driver import RunSummary, TournamentRunner
from arena.tournament.lease import STALE_SECONDS, Holder, TournamentBusyError

REQUEUED_MESSAGE = "interrupted: waiting for a worker to resume it"
ORPHAN_MESSAGE = "its worker stopped: waiting for another to resume it"
DEFAULT_EXECUTOR = "auto"
"""How a worker runs tournaments unless its operator says (``--executor``); never
what a queued configuration names (the web refuses ``executor`` and ``ray_address``)."""
CANCEL_POLL_SECONDS = 0.5
CANCEL_SIGNAL = signal.SIGUSR1

TOURNAMENTS = Tournament.__table__  # type: ignore[attr-defined]

log = logging.getLogger(__name__)


def requeue_orphans(engine: Engine, *, stale_seconds: float = STALE_SECONDS) -> list[int]:
    """Put back in the queue every web-queued tournament claimed or running whose worker
    is gone (a dead pid on this host, or no heartbeat for ``stale_seconds``: the rule of
    :mod:`arena.tournament.lease`); returns their ids. The next claim resumes each,
    playing exactly the games it misses.

    Raises:
        StorageError: the database failed.
    """
    t = TOURNAMENTS
    lease = (t.c.lease_token, t.c.lease_host, t.c.lease_pid, t.c.lease_since, t.c.lease_renewed)
    with engine.connect() as connection:
        rows = connection.execute(
            sa.select(t.c.id, t.c.status, *lease).where(
                t.c.owner_id.is_not(None),
                t.c.status.in_([TournamentStatus.CLAIMED, TournamentStatus.RUNNING]),
            )
        ).all()
    now = utcnow()
    requeued = []
    for tournament_id, status, token, host, pid, since, renewed in rows:
        holder = Holder.of(token, host, pid, since, renewed)
        if holder is None or not holder.gone(now, stale_seconds):
            continue
        with session_scope(engine) as session:
            # Unless its driver changed meanwhile (another worker took it over).
            same_token = t.c.lease_token.is_(None) if token is None else t.c.lease_token == token
            put_back = session.connection().execute(
                sa.update(t)
                .where(
                    t.c.id == tournament_id, t.c.status == status, same_token, t.c.lease_pid == pid
                )
                .values(
                    status=TournamentStatus.QUEUED,
                    message=f"{ORPHAN_MESSAGE} ({holder.describe(now)})",
                    **{column.name: None for column in lease},
                )
            )
        if put_back.rowcount == 1:
            log.warning(
                "tournament %s requeued: its worker %s is gone", tournament_id, holder.describe(now)
            )
            requeued.append(int(tournament_id))
    return requeued


def claim_next(engine: Engine) -> int | None:
    """Take the oldest queued tournament for this worker (after requeueing those whose
    worker is gone: :func:`requeue_orphans`); None when the queue is empty. The claim
    names this process in the lease's columns, without a token: until its driver takes
    the lease, another worker tells from them whether it still runs."""
    requeue_orphans(engine)
    while True:
        with engine.connect() as connection:
            candidate = connection.execute(
                sa.select(TOURNAMENTS.c.id)
                .where(TOURNAMENTS.c.status == TournamentStatus.QUEUED)
                .order_by(TOURNAMENTS.c.id)
                .limit(1)
            ).scalar()
        if candidate is None:
            return None
        now = utcnow()
        with session_scope(engine) as session:
            claimed = session.connection().execute(
                sa.update(TOURNAMENTS)
                .where(
                    TOURNAMENTS.c.id == candidate, TOURNAMENTS.c.status == TournamentStatus.QUEUED
                )
                .values(
                    status=TournamentStatus.CLAIMED,
                    message=None,
                    lease_host=socket.gethostname(),
                    lease_pid=os.getpid(),
                    lease_since=now,
                    lease_renewed=now,
                )
            )
        if claimed.rowcount == 1:
            return int(candidate)
        # Another worker took it between the two statements: look again.


class Cancelled(KeyboardInterrupt):
    """Raised in the worker's main thread when its running tournament is cancelled: the
    runner stops as on Ctrl-C, and finds the cancel in the database."""


class CancelWatch:
    """While entered, a thread looks at the tournament's status and, once it is
    cancelled, interrupts the main thread (a signal, so that even a wait for a bot's
    answer ends at once) with :class:`Cancelled`, at most once.

    Enter it from the main thread only (signal handlers run there)."""

    def __init__(self, engine: Engine, tournament_id: int, poll_seconds: float) -> None:
        self.engine = engine
        self.tournament_id = tournament_id
        self.poll_seconds = poll_seconds
        self.armed = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="cancel-watch", daemon=True)
        self._main = threading.main_thread().ident
        self._previous: signal.Handlers | None = None

    def __enter__(self) -> CancelWatch:
        self._previous = signal.signal(CANCEL_SIGNAL, self._interrupt)  # type: ignore[assignment]
        self.armed = True
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            self.armed = False  # a signal on its way now interrupts nothing
        finally:
            self._done.set()
            self._thread.join()
            signal.signal(CANCEL_SIGNAL, self._previous)

    def _interrupt(self, signum: int, frame: FrameType | None) -> None:
        if self.armed:
            self.armed = False
            raise Cancelled

    def _watch(self) -> None:
        while not self._done.wait(self.poll_seconds):
            try:
                with Session(self.engine) as session:
                    status = read_status(session, self.tournament_id)
            except ArenaError as exc:  # the database is away: look again later
                log.warning("cannot read the status of tournament %s: %s", self.tournament_id, exc)
                continue
            if status == TournamentStatus.CANCELLED:
                assert self._main is not None
                signal.pthread_kill(self._main, CANCEL_SIGNAL)
                return


def run_claimed(
    engine: Engine,
    tournament_id: int,
    *,
    executor: str | None,
    console: Console,
    cancel_poll_seconds: float = CANCEL_POLL_SECONDS,
) -> RunSummary | None:
    """Run a claimed tournament (from the main thread); put it back in the queue when
    the worker is stopped, stop it when it is cancelled (a cancel is never undone).

    A tournament another driver holds is left to that driver (its status included).
    ``executor`` is the worker's (None: ``auto``), never the configuration's. Errors of
    the tournament itself (a bot that cannot load, a failing executor) mark it failed
    with the message; the worker goes on with the next. Returns None when the
    tournament failed, or was cancelled as it ended.
    """
    try:
        with CancelWatch(engine, tournament_id, cancel_poll_seconds):
            runner = TournamentRunner(
                engine,
                tournament_id,
                console=console,
                executor=executor or DEFAULT_EXECUTOR,
                on_completed=record_final_ratings,
            )
            summary = runner.run()
    except Cancelled:
        return None  # the cancel came as the run ended: the database has it
    except TournamentBusyError as exc:
        log.warning("tournament %s left to its driver: %s", tournament_id, exc)
        return None
    except Exception as exc:  # one bad tournament must not stop the worker
        log.warning("tournament %s failed: %s", tournament_id, exc)
        message = str(exc) if isinstance(exc, ArenaError) else f"{type(exc).__name__}: {exc}"
        with session_scope(engine) as session:
            set_status(session, tournament_id, TournamentStatus.FAILED, message=message)
        return None
    if summary.status == TournamentStatus.INTERRUPTED:
        with session_scope(engine) as session:
            set_status(session, tournament_id, TournamentStatus.QUEUED, message=REQUEUED_MESSAGE)
    return summary


def run_worker(
    engine: Engine,
    *,
    poll_seconds: float = 2.0,
    executor: str | None = None,
    once: bool = False,
    console: Console | None = None,
    ladders: bool = True,
) -> int:
    """Claim and run queued tournaments until stopped (SIGTERM or Ctrl-C between
    tournaments ends the loop; during one, the runner stops and it is requeued).
    With ``once``, return when the queue is empty. Returns how many it ran.

    With ``ladders`` (and not ``once``), an empty queue has the worker play a batch of
    a started ladder (:mod:`arena.ladder.worker`) before it looks at the queue again;
    stopped during a batch, it stores the games finished."""
    console = console or Console(stderr=True)
    stop = threading.Event()
    running = False
    ladder_player = (
        LadderPlayer(engine, executor=executor or "auto") if ladders and not once else None
    )

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
                if ladder_player is not None:
                    running = True  # a stop now stores the batch's finished games
                    try:
                        played = _play_ladder(ladder_player, console)
                    finally:
                        running = False
                    if played:
                        continue
                stop.wait(poll_seconds)
                continue
            console.print(f"worker: running tournament {tournament_id}")
            running = True
            try:
                summary = run_claimed(engine, tournament_id, executor=executor, console=console)
            finally:
                running = False
                # Ray's shutdown resets the process's SIGTERM action behind Python's back.
                signal.signal(signal.SIGTERM, request_stop)
            ran += 1
            if summary is not None:
                console.print(
                    f"worker: tournament {tournament_id} {summary.status}, "
                    f"{summary.stored} of {summary.scheduled} games stored"
                )
                if summary.status == TournamentStatus.INTERRUPTED:
                    break
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        if ladder_player is not None:
            ladder_player.close()
    return ran


def _play_ladder(player: LadderPlayer, console: Console) -> bool:
    """One batch of a started ladder; False when none has anything to play (or the
    database is away: the worker looks again after its poll)."""
    try:
        summary = player.play_any()
    except ArenaError as exc:
        log.warning("ladder batch failed: %s", exc)
        return False
    if summary is None:
        return False
    console.print(f"worker: ladder {summary.ladder_id}: stored {summary.stored} games")
    return True
