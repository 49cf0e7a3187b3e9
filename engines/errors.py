"""The engines' exception types: one per kind of fault, each message quoting the input."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class GameError(Exception):
    """Base of every error the engines raise on bad input."""


class UnknownGameError(GameError, KeyError):
    """No game is registered under the requested name."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


class OptionError(GameError, ValueError):
    """A game option is unknown or has a bad value."""


class SeatCountError(GameError, ValueError):
    """The game cannot be played with that many seats."""


class InvalidCardError(GameError, ValueError):
    """Text that is not a card in the common notation."""


class InvalidActionError(GameError, ValueError):
    """Text that is not an action of the game at all (cannot be parsed)."""


class IllegalActionError(GameError, ValueError):
    """A well-formed action that is not legal in the current state."""


class GameOverError(IllegalActionError):
    """An action was applied to a finished game."""


class InvalidDealError(GameError, ValueError):
    """An initial deal (from a record or a deal file) is malformed or inconsistent."""


class InvalidStateError(GameError, ValueError):
    """Serialised state data that cannot be restored."""


class InvalidOutcomeError(GameError, ValueError):
    """An outcome whose fields disagree, or a termination or forfeit reason outside
    the closed vocabularies of :mod:`engines.outcome`."""


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"did you mean 'kardinal'? "`` when ``word`` is close to one or more of ``known``
    (a misspelling), else ``""``: put before the list of known names in a message."""
    import difflib  # only on an error: not on every start of the command line

    close = difflib.get_close_matches(word.strip().lower(), sorted(set(known)), n=3)
    return f"did you mean {' or '.join(repr(name) for name in close)}? " if close else ""


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters: an error message stays one short
    line however big the bad input (a whole deck, a whole config)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
