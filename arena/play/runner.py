"""Playing one game between bots, with forfeits for bots that fail.

This is the loop every executor runs: tell each bot the game starts, ask the seat
to move for an action, check it, apply it, and build the record. A bot that raises,
runs out of time or answers with an illegal action forfeits; the game ends there and
the reason goes into the outcome, with a message made storable (a bot's text may hold
anything, :mod:`arena.play.bot_text`). The host's own failures (:class:`HostError`, and
the engine's) are never a bot's forfeit: they raise, and the executor stores the game
as an error.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.play.bot_text import bot_text
from arena.play.records import GameRecord, new_record
from bots.base import NO_OBSERVATION, Bot, BotFault, GameInfo
from engines.core import Action, State
from engines.outcome import ForfeitReason, Outcome

StepHook = Callable[[State, int, Action], None]
FORFEIT_MESSAGE_CHARS = 500
"""The longest message a forfeit's outcome keeps (it quotes the bot)."""


class HostError(ArenaError):
    """The arena itself failed while a bot played (a bug or a broken resource of the
    host, not something the bot did): the game is an error, never the bot's forfeit."""


@dataclass(frozen=True)
class TimeControl:
    """Per-game budget and per-move limit in seconds (None: unlimited), and the
    increment added to the game clock after each move (cutechess's ``tc=60+0.5``)."""

    per_game: float | None = None
    per_move: float | None = None
    increment: float = 0.0


def play_game(
    state: State,
    bots: Sequence[Bot],
    *,
    players: Sequence[str] | None = None,
    time_control: TimeControl | Sequence[TimeControl] = TimeControl(),
    on_step: StepHook | None = None,
) -> GameRecord:
    """Play ``state`` to the end with ``bots[seat]`` in each seat; returns the record.

    ``time_control`` is every seat's, or one per seat. A seat's game clock starts at
    its ``per_game`` and gains its ``increment`` after each of its moves; a move that
    takes longer than the clock holds or than ``per_move`` forfeits on time.
    ``on_step(state, seat, action)`` runs after every applied action. The state is
    played in place. Bot failures never raise: they end the game as a forfeit.

    Raises:
        ValueError: the number of bots is not the number of seats.
        HostError: the host failed while a bot played (not the bot's fault).
    """
    names = list(players) if players is not None else [bot.name for bot in bots]
    options = state.game.options_to_dict(state.options)
    deal = dict(state.deal())
    outcome, duration = play_outcome(
        state, bots, options=options, time_control=time_control, on_step=on_step
    )
    return new_record(
        state, players=names, deal=deal, outcome=outcome, duration=duration, options=options
    )


def play_outcome(
    state: State,
    bots: Sequence[Bot],
    *,
    options: Mapping[str, Any],
    time_control: TimeControl | Sequence[TimeControl] = TimeControl(),
    on_step: StepHook | None = None,
) -> tuple[Outcome, float]:
    """Play ``state`` to the end as :func:`play_game` does, and return the outcome and
    the seconds the game took, without building its record: for a caller that encodes
    many records itself (a tournament's worker, :class:`arena.play.records.RecordWriter`).
    ``options`` are the state's options as JSON data (what the bots are told).

    Raises:
        ValueError: the number of bots is not the number of seats.
        HostError: the host failed while a bot played (not the bot's fault).
    """
    if len(bots) != state.num_seats:
        raise ValueError(f"{state.game.name} needs {state.num_seats} bots, got {len(bots)}")
    controls = (
        [time_control] * len(bots) if isinstance(time_control, TimeControl) else list(time_control)
    )
    if len(controls) != len(bots):
        raise ValueError(f"{len(bots)} bots need as many time controls, got {len(controls)}")
    started = time.perf_counter()
    try:
        outcome = _play_to_the_end(state, bots, options, controls, on_step)
    except BaseException:
        # A host failure or an interrupt (Ctrl-C, a cancelled tournament): no bot's
        # process may outlive the game.
        for bot in bots:
            with contextlib.suppress(Exception):
                bot.close()
        raise
    for bot in bots:
        # A bot failing after the game changes nothing. (A plain try: suppress() builds
        # a context manager per call, and this runs twice a game.)
        try:  # noqa: SIM105
            bot.game_over(outcome)
        except Exception:
            pass
    return outcome, time.perf_counter() - started


def _play_to_the_end(
    state: State,
    bots: Sequence[Bot],
    options: Mapping[str, Any],
    controls: Sequence[TimeControl],
    on_step: StepHook | None,
) -> Outcome:
    """The game loop of :func:`play_game`: its outcome, a forfeit included."""
    game = state.game
    seed = state.seed if state.seed is not None else 0
    for seat, bot in enumerate(bots):
        try:
            bot.new_game(GameInfo.of(game, options, seat, state.num_seats, seed))
        except HostError:
            raise
        except Exception as exc:
            return _failed(state, seat, exc, "new_game")
    clocks = [control.per_game for control in controls]
    # A seat without a limit is never timed: no clock is read around its moves.
    timed = [control.per_game is not None or control.per_move is not None for control in controls]
    readers = [bot.reads_observation for bot in bots]
    while True:
        seat = state.current_seat
        if seat < 0:
            outcome = state.outcome()
            assert outcome is not None, "a finished state always has an outcome"
            return outcome
        legal = state.legal_actions()
        observation = state.observation(seat) if readers[seat] else NO_OBSERVATION
        tick = time.perf_counter() if timed[seat] else 0.0
        try:
            action = bots[seat].act(observation, legal, clocks[seat])
        except HostError:
            raise
        except Exception as exc:
            return _failed(state, seat, exc, "act")
        if timed[seat]:
            overtime = _overtime(time.perf_counter() - tick, controls[seat], clocks, seat)
            if overtime is not None:
                return forfeit(state, seat, ForfeitReason.TIMEOUT, overtime)
        try:
            # The engine's own object, so the history never holds a look-alike.
            action = legal[legal.index(action)]
        except ValueError:
            return forfeit(
                state, seat, ForfeitReason.ILLEGAL_ACTION, f"chose {str(action)!r}, not legal"
            )
        state.apply_unchecked(action)
        if on_step is not None:
            on_step(state, seat, action)


def _overtime(
    spent: float, control: TimeControl, clocks: list[float | None], seat: int
) -> str | None:
    """Charge ``spent`` seconds to ``seat``'s clock (and add the increment); why the
    move forfeits on time (over the clock, or over the per-move limit), else None."""
    left = clocks[seat]
    if left is not None:
        clocks[seat] = left - spent + control.increment
        if spent > left:
            return f"took {spent:.3f} s, {left:.3f} s on its clock"
    if control.per_move is not None and spent > control.per_move:
        return f"took {spent:.3f} s of at most {control.per_move:g} s per move"
    return None


def _failed(state: State, seat: int, exc: Exception, call: str) -> Outcome:
    """The forfeit a bot's exception in ``call`` ends the game with: its own reason for
    a :class:`BotFault`, else a crash."""
    if isinstance(exc, BotFault):
        return forfeit(state, seat, exc.reason, str(exc))
    return forfeit(state, seat, ForfeitReason.CRASH, f"{call} raised {exc!r}")


def forfeit(state: State, seat: int, reason: ForfeitReason, message: str) -> Outcome:
    """The outcome of ``state`` when ``seat`` forfeits it for ``reason``, with
    ``message`` (made storable, at most :data:`FORFEIT_MESSAGE_CHARS`) in its details."""
    outcome = state.game.forfeit_outcome(state, seat, reason)
    details = dict(outcome.details)
    details["message"] = bot_text(message, FORFEIT_MESSAGE_CHARS)
    return Outcome(
        returns=outcome.returns,
        ranking=outcome.ranking,
        termination=outcome.termination,
        offender=outcome.offender,
        reason=outcome.reason,
        details=details,
    )
