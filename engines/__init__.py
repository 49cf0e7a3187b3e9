"""Game engines: pure rules, no I/O, every random choice from a seeded generator.

The names below are loaded on first use (PEP 562), so that importing one light module
such as ``engines.errors`` does not build the engines' pydantic models: the command
line catches our errors without paying for the engines.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engines.cards import Card, parse_card
    from engines.core import TERMINAL, Action, Game, OptionSpec, State, play_random
    from engines.errors import (
        GameError,
        GameOverError,
        IllegalActionError,
        InvalidActionError,
        InvalidCardError,
        InvalidDealError,
        InvalidStateError,
        OptionError,
        SeatCountError,
        UnknownGameError,
    )
    from engines.outcome import Outcome
    from engines.registry import all_games, get_game, register

_MODULE_OF = {
    "Card": "cards",
    "parse_card": "cards",
    "TERMINAL": "core",
    "Action": "core",
    "Game": "core",
    "OptionSpec": "core",
    "State": "core",
    "play_random": "core",
    "GameError": "errors",
    "GameOverError": "errors",
    "IllegalActionError": "errors",
    "InvalidActionError": "errors",
    "InvalidCardError": "errors",
    "InvalidDealError": "errors",
    "InvalidStateError": "errors",
    "OptionError": "errors",
    "SeatCountError": "errors",
    "UnknownGameError": "errors",
    "Outcome": "outcome",
    "all_games": "registry",
    "get_game": "registry",
    "register": "registry",
}

__all__ = [
    "TERMINAL",
    "Action",
    "Card",
    "Game",
    "GameError",
    "GameOverError",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidCardError",
    "InvalidDealError",
    "InvalidStateError",
    "OptionError",
    "OptionSpec",
    "Outcome",
    "SeatCountError",
    "State",
    "UnknownGameError",
    "all_games",
    "get_game",
    "parse_card",
    "play_random",
    "register",
]


def __getattr__(name: str) -> Any:
    """``engines.X`` and ``from engines import X``: import X's module on first use."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'engines' has no attribute {name!r}")
    __import__(f"engines.{module}")  # a name of the fixed table above, never a scan
    value = getattr(sys.modules[f"engines.{module}"], name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
