"""Rendering an environment's game as text, the same way in every environment."""

from __future__ import annotations

import gymnasium

from engines.core import State
from engines.errors import InvalidStateError, OptionError

RENDER_MODES = ("ansi", "human")
"""``ansi`` returns the board as text, ``human`` prints it."""


def check_render_mode(mode: str | None) -> str | None:
    """Raises OptionError for a mode that is not None or one of RENDER_MODES."""
    if mode is not None and mode not in RENDER_MODES:
        raise OptionError(f"render_mode {mode!r} is not one of {', '.join(RENDER_MODES)} or None")
    return mode


def render(state: State | None, mode: str | None, seat: int | None = None) -> str | None:
    """The board of ``state`` (as ``seat`` sees it) for ``mode``.

    Raises:
        InvalidStateError: no game yet (the environment was not reset).
    """
    if mode is None:
        gymnasium.logger.warn("render() without a render_mode: make the env with one")
        return None
    if state is None:
        raise InvalidStateError("reset() the environment before render()")
    text = state.render(seat)
    if mode == "human":
        print(text)
        return None
    return text
