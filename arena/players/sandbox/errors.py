"""The sandbox's error type."""

from __future__ import annotations

from arena.errors import ArenaError


class SandboxError(ArenaError):
    """A bot program could not be started in the sandbox (the message says why)."""
