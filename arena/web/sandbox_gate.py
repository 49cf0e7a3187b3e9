"""Bots from the web run only in the sandbox the docs promise (docs/protocol.md).

``arena serve`` states at start what isolation this machine gives a bot, and the
server refuses bot uploads (503, naming what is missing and the flag) unless every
fence that hosted play relies on is in force: ``--allow-weak-sandbox`` lets them in
anyway, for local use among people who trust each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.errors import ArenaError
from arena.players.sandbox import Isolation

ALLOW_FLAG = "--allow-weak-sandbox"


class WeakSandbox(ArenaError):
    """This server's sandbox lacks isolation the docs promise, so it takes no uploads."""


@dataclass(frozen=True)
class SandboxGate:
    """What the sandbox gives here, and whether uploads may come in without all of it."""

    isolation: Isolation
    allow_weak: bool = False

    def statement(self) -> str:
        """One paragraph for the server's start: the isolation, and the upload policy."""
        missing = self.isolation.missing()
        text = f"sandbox: {self.isolation.describe()}."
        if not missing:
            return f"{text} Bot uploads: accepted (every promised fence is in force)."
        lacking = "; ".join(missing)
        if self.allow_weak:
            return f"{text} Bot uploads: accepted WITHOUT {lacking} ({ALLOW_FLAG})."
        return (
            f"{text} Bot uploads: refused, the sandbox lacks {lacking} "
            f"(start with {ALLOW_FLAG} to accept them anyway, for local use)."
        )

    def check_upload(self) -> None:
        """Raises WeakSandbox when a bot may not be taken from the web here."""
        missing = self.isolation.missing()
        if missing and not self.allow_weak:
            raise WeakSandbox(
                "this server does not take bots from the web: its sandbox lacks "
                f"{'; '.join(missing)} (docs/protocol.md). The operator can start it with "
                f"`arena serve {ALLOW_FLAG}` to accept them anyway, for local use."
            )
