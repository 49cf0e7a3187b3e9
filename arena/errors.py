"""The service's exception types. The CLI prints any of them as one line, exit code 2."""

from __future__ import annotations


class ArenaError(Exception):
    """Base of every error the service reports to users (bad input, unreachable things)."""


class RecordError(ArenaError):
    """A game record is unreadable, malformed, or does not replay."""


class ConfigError(ArenaError):
    """A tournament configuration is invalid."""


class StorageError(ArenaError):
    """The database cannot be reached or is in an unusable state."""


class NotFoundError(ArenaError):
    """A tournament, bot or game that does not exist was asked for."""
