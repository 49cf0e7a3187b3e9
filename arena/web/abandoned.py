"""Browser games nobody plays any more end on their own, and free their slots.

A live game's row (:mod:`arena.store.live_games`) is written at every action, and no
game that a process plays leaves it unwritten for long: the person forfeits after
``idle_seconds`` without a move, and each bot has its start-up and its clock
(:attr:`arena.web.humans.HumanLimits.abandoned_seconds`, 7 min 20 s by default). A row
unmoved for longer has nobody playing it — its server was stopped or killed, and its
owner did not open it again in time — and the first web process that finds it ends it
for good, as the game thread would have:

* the person was to move: they forfeit on time (``timeout``);
* the game was over (its last action written, the game not stored yet): it is stored
  as played;
* a bot was to move: the host failed (the server stopped while the bot thought): it is
  stored as an ``error``, which counts for nobody.

Each web process looks every ``sweep_seconds`` (:class:`Sweeper`) and before a game
starts, so the caps on open games count a game exactly until it ends. Ending is
guarded like every write of the row: two processes never both end one game.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy.engine import Engine

from arena.errors import ArenaError
from arena.play.records import new_record
from arena.play.results import PlannedGame, PlayedGame
from arena.play.runner import forfeit
from arena.store.db import session_scope
from arena.store.live_games import (
    LivePosition,
    in_utc,
    replay_live_game,
    store_ended_game,
)
from arena.store.models import LiveGame
from engines.core import TERMINAL
from engines.outcome import ForfeitReason

WORKER = "web"
"""What stored browser games name as the worker that played them."""

log = logging.getLogger(__name__)


def end_abandoned_game(engine: Engine, row: LiveGame, *, idle_seconds: float) -> int | None:
    """End the game of ``row``, found abandoned, as this module says; the stored game's
    id, or None when the row had moved on or was ended by another process meanwhile.

    Raises:
        StorageError: the database failed.
    """
    with session_scope(engine) as session:
        position = replay_live_game(session, row)
        return store_ended_game(
            session,
            game_id=row.id,
            moves=row.moves,
            account_id=row.account_id,
            game=row.game,
            seed=row.seed,
            bot_ids=row.bot_ids,
            played=_ending(position, row, idle_seconds),
        )


def _ending(
    position: LivePosition, row: LiveGame, idle_seconds: float
) -> Callable[[PlannedGame], PlayedGame]:
    """How the abandoned game of ``row``, at ``position``, is stored."""
    state = position.state
    players = [bot.label for bot in position.bots]
    duration = max(0.0, (in_utc(row.updated) - in_utc(row.created)).total_seconds())
    seat = state.current_seat
    if seat == TERMINAL:
        outcome = state.outcome()
        assert outcome is not None, "a finished state always has an outcome"
    elif seat == row.seat:
        outcome = forfeit(
            state, seat, ForfeitReason.TIMEOUT, f"no move for {idle_seconds:g} s: left the game"
        )
    else:
        message = (
            f"the server stopped while {players[seat]} was to move, and nobody took the "
            "game up again"
        )
        return lambda planned: PlayedGame.host_error(
            planned,
            game=row.game,
            players=players,
            message=message,
            duration=duration,
            worker=WORKER,
        )
    record = new_record(
        state, players=players, deal=position.deal, outcome=outcome, duration=duration
    )
    return lambda planned: PlayedGame.from_record(planned, record, worker=WORKER)


class Sweeper:
    """While started, a thread calls ``sweep`` every ``seconds``; a failure (the
    database away) is logged and tried again at the next turn."""

    def __init__(self, sweep: Callable[[], object], seconds: float) -> None:
        self.sweep = sweep
        self.seconds = seconds
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread (if it is not running)."""
        if self._thread is None:
            self._stopped.clear()
            self._thread = threading.Thread(target=self._run, name="sweeper", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread, waiting for a sweep under way."""
        if self._thread is not None:
            self._stopped.set()
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        while not self._stopped.wait(self.seconds):
            try:
                self.sweep()
            except ArenaError as exc:
                log.warning("cannot end abandoned browser games: %s", exc)
