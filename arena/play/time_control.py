"""Time-control classes: tournaments whose bots had comparable time are rated together.

A search bot plays better with more time, and a bot may not finish a move at all in
a tight one, so ratings from a 50 ms tournament and from an unlimited one measure
different things. Each tournament falls in one class by the tighter of its two limits
(``docs/ratings.md``, "Time controls"):

=========== ================== ===================
class       seconds per move   seconds per game
=========== ================== ===================
bullet      below 0.1          below 3
blitz       0.1 to below 1     3 to below 30
rapid       1 to below 10      30 to below 300
classical   10 or more         300 or more
unlimited   no limit           no limit
=========== ================== ===================

The per-game bounds are the per-move ones times 30, about the moves a bot makes in
a long game of the arena's card games.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from arena.errors import ArenaError
from arena.play.runner import TimeControl


class TimeClass(StrEnum):
    BULLET = "bullet"
    BLITZ = "blitz"
    RAPID = "rapid"
    CLASSICAL = "classical"
    UNLIMITED = "unlimited"


MOVE_BOUNDS = ((0.1, TimeClass.BULLET), (1.0, TimeClass.BLITZ), (10.0, TimeClass.RAPID))
"""The seconds per move below which each class starts (tightest first)."""
MOVES_PER_GAME = 30
"""A game limit counts as this many moves' worth of the move limit."""
CLOCK_INCREMENTS = 1000
"""Moves a game clock's increments are counted for where a bound on a whole game is
needed (the sandbox's CPU-time limit, the caps of a configuration from the web)."""
ORDER = tuple(TimeClass)
CLASS_MOVE_SECONDS: dict[TimeClass, float | None] = {
    TimeClass.BULLET: 0.05,
    TimeClass.BLITZ: 0.5,
    TimeClass.RAPID: 5.0,
    TimeClass.CLASSICAL: 30.0,
    TimeClass.UNLIMITED: None,
}
"""Each class's own per-move limit (None: none): a ladder named by its class plays at
it (``st=0.5`` for blitz), and the submission check measures a bot's moves against it."""


def time_class(per_move: float | None, per_game: float | None) -> TimeClass:
    """The class of a time control (seconds; None: no limit)."""
    candidates = [TimeClass.UNLIMITED]
    for limit, scale in ((per_move, 1.0), (per_game, float(MOVES_PER_GAME))):
        if limit is None:
            continue
        found = next(
            (name for bound, name in MOVE_BOUNDS if limit < bound * scale), TimeClass.CLASSICAL
        )
        candidates.append(found)
    return min(candidates, key=ORDER.index)


def control_time_class(control: TimeControl) -> TimeClass:
    """The class of a time control; a game clock counts with MOVES_PER_GAME increments."""
    per_game = control.per_game
    if per_game is not None:
        per_game += MOVES_PER_GAME * control.increment
    return time_class(control.per_move, per_game)


def config_time_class(config: Mapping[str, Any]) -> TimeClass:
    """The class of a stored tournament configuration: its tightest time control
    (the one for every bot, and each bot's own)."""
    controls = config_time_controls(config)
    return min((control_time_class(c) for c in controls.values()), key=ORDER.index)


class TimeControlError(ArenaError):
    """A time control that is not ``tc=SECONDS[+INCREMENT]`` and/or ``st=SECONDS``."""


_WORD = re.compile(r"(tc|st)=([^+\s,]+)(?:\+([^\s,]+))?")


def parse_time_control(text: str) -> TimeControl:
    """A time control in cutechess's words: ``tc=60+0.5`` (a game clock of 60 s that
    gains 0.5 s after each move), ``st=1`` (at most 1 s per move), or both
    (``tc=60+0.5 st=1``, also with a comma).

    Raises:
        TimeControlError: anything else, or a time that is not a positive number (an
            increment may be 0).
    """
    words = [word for word in re.split(r"[\s,]+", text.strip()) if word]
    found: dict[str, tuple[float, float]] = {}
    for word in words:
        match = _WORD.fullmatch(word)
        if match is None or (match[1] == "st" and match[3] is not None) or match[1] in found:
            raise TimeControlError(
                f"bad time control {text!r}: write tc=SECONDS[+INCREMENT] (a game clock), "
                "st=SECONDS (per move) or both, e.g. 'tc=60+0.5 st=2'"
            )
        found[match[1]] = (_seconds(text, match[2], 0.0), _seconds(text, match[3] or "0", None))
    if not found:
        raise TimeControlError(f"empty time control {text!r}: write e.g. 'tc=60+0.5' or 'st=1'")
    clock = found.get("tc")
    move = found.get("st")
    return TimeControl(
        per_game=None if clock is None else clock[0],
        per_move=None if move is None else move[0],
        increment=0.0 if clock is None else clock[1],
    )


def _seconds(text: str, value: str, above: float | None) -> float:
    """``value`` as finite seconds, greater than ``above`` (None: at least 0)."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or (seconds <= above if above is not None else seconds < 0):
        raise TimeControlError(
            f"bad time {value!r} in time control {text!r}: "
            + ("positive seconds" if above is not None else "seconds, 0 or more")
        )
    return seconds


def config_time_controls(config: Mapping[str, Any]) -> dict[str | None, TimeControl]:
    """The time controls of a stored configuration: under None the one for every bot
    (``each``, or ``time_per_game`` and ``time_per_move``), under each bot reference
    in ``time_controls`` its own."""
    each = config.get("each")
    controls: dict[str | None, TimeControl] = {
        None: parse_time_control(each)
        if isinstance(each, str)
        else TimeControl(per_game=config.get("time_per_game"), per_move=config.get("time_per_move"))
    }
    for reference, text in (config.get("time_controls") or {}).items():
        controls[str(reference)] = parse_time_control(str(text))
    return controls


def describe_control(control: TimeControl) -> str:
    """``"60+0.5 s per game, 1 s per move"``, ``"no limit"`` …"""
    parts = []
    if control.per_game is not None:
        increment = f"+{control.increment:g}" if control.increment else ""
        parts.append(f"{control.per_game:g}{increment} s per game")
    if control.per_move is not None:
        parts.append(f"{control.per_move:g} s per move")
    return ", ".join(parts) or "no limit"


def describe_config(config: Mapping[str, Any]) -> str:
    """A configuration's time controls and class, for reports: ``"0.05 s per move
    (bullet)"``, ``"10 s per game; mine@2: 5+0.1 s per game (blitz)"``."""
    controls = config_time_controls(config)
    text = describe_control(controls.pop(None))
    for reference, control in controls.items():
        text += f"; {reference}: {describe_control(control)}"
    return f"{text} ({config_time_class(config)})"


def describe(per_move: float | None, per_game: float | None) -> str:
    """``"0.05 s per move (bullet)"``, ``"no limit (unlimited)"`` …"""
    return describe_config({"time_per_move": per_move, "time_per_game": per_game})
