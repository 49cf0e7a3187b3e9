"""The ladder package's error type."""

from __future__ import annotations

from arena.errors import ArenaError


class LadderError(ArenaError):
    """Bad input to the ladder's algorithms: an unknown or repeated bot, a score other
    than 0, ½ or 1, a bad setting, or stored state that does not load."""
