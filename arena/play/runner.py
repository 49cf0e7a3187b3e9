"""Playing one game between bots, with forfeits for bots that fail.

This is the loop every executor runs: tell each bot the game starts, ask the seat
to move for an action, check it, apply it, and build the record. A bot that raises,
runs out of time or answers with an illegal action forfeits; the game ends there and
the reason goes into the outcome. The host's own failures (:class:`HostError`, and
the engine's) are never a bot's forfeit: they raise, and the executor stores the game
as an error.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.play.records import GameRecord, new_record
from bots.base import NO_OBSERVATION, Bot, BotFault, GameInfo
from engines.core import Action, State
from engines.outcome import ForfeitReason, Outcome

StepHook = Callable[[State, int, Action], None]


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
    game = state.game
    if len(bots) != state.num_seats:
        raise ValueError(f"{game.name} needs {state.num_seats} bots, got {len(bots)}")
    names = list(players) if players is not None else [bot.name for bot in bots]
    options = game.options_to_dict(state.options)
    deal = dict(state.deal())
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
        with contextlib.suppress(Exception):
            bot.game_over(outcome)
    return new_record(
        state,
        players=names,
        deal=deal,
        outcome=outcome,
        duration=time.perf_counter() - started,
        options=options,
    )


def _play_to_the_end(
    state: State,
    bots: Sequence[Bot],
    options: dict[str, Any],
    controls: Sequence[TimeControl],
    on_step: StepHook | None,
) -> Outcome:
    """The game loop of :func:`play_game`: its outcome, a forfeit included."""
    game = state.game
    seed = state.seed if state.seed is not None else 0
    outcome: Outcome | None = None
    for seat, bot in enumerate(bots):
        try:
            bot.new_game(GameInfo(game, options, seat, state.num_seats, seed))
        except BotFault as fault:
            outcome = _forfeit(state, seat, fault.reason, str(fault))
            break
        except HostError:
            raise
        except Exception as exc:
            outcome = _forfeit(state, seat, ForfeitReason.CRASH, f"new_game raised {exc!r}")
            break
    clocks = [control.per_game for control in controls]
    readers = [bot.reads_observation for bot in bots]
    while outcome is None:
        seat = state.current_seat
        if seat < 0:
            outcome = state.outcome()
            break
        legal = state.legal_actions()
        observation = state.observation(seat) if readers[seat] else NO_OBSERVATION
        left = clocks[seat]
        tick = time.perf_counter()
        try:
            action = bots[seat].act(observation, legal, left)
        except BotFault as fault:
            outcome = _forfeit(state, seat, fault.reason, str(fault))
            break
        except HostError:
            raise
        except Exception as exc:
            outcome = _forfeit(state, seat, ForfeitReason.CRASH, f"act raised {exc!r}")
            break
        spent = time.perf_counter() - tick
        per_move = controls[seat].per_move
        if left is not None:
            clocks[seat] = left - spent + controls[seat].increment
        if left is not None and spent > left:
            outcome = _forfeit(
                state,
                seat,
                ForfeitReason.TIMEOUT,
                f"took {spent:.3f} s, {left:.3f} s on its clock",
            )
            break
        if per_move is not None and spent > per_move:
            outcome = _forfeit(
                state,
                seat,
                ForfeitReason.TIMEOUT,
                f"took {spent:.3f} s of at most {per_move:g} s per move",
            )
            break
        try:
            # The engine's own object, so the history never holds a look-alike.
            action = legal[legal.index(action)]
        except ValueError:
            outcome = _forfeit(
                state, seat, ForfeitReason.ILLEGAL_ACTION, f"chose {str(action)!r}, not legal"
            )
            break
        state.apply_unchecked(action)
        if on_step is not None:
            on_step(state, seat, action)
    assert outcome is not None, "a finished state always has an outcome"
    return outcome


def _forfeit(state: State, seat: int, reason: ForfeitReason, message: str) -> Outcome:
    outcome = state.game.forfeit_outcome(state, seat, reason)
    details = dict(outcome.details)
    details["message"] = message[:500]
    return Outcome(
        returns=outcome.returns,
        ranking=outcome.ranking,
        termination=outcome.termination,
        offender=outcome.offender,
        reason=outcome.reason,
        details=details,
    )
