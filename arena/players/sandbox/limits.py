"""What a submitted bot may use: :class:`SandboxLimits`."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB


@dataclass(frozen=True)
class SandboxLimits:
    """What a submitted bot may use. Times in seconds, sizes in bytes.

    Attributes:
        move_seconds: the per-move deadline when the tournament sets none.
        game_seconds: the per-game time budget when the tournament sets none.
        startup_seconds: start-up, handshake and ``new_game`` together, from when the
            program runs (setting up its sandbox is the host's time).
        memory_bytes: memory of the whole bot, every process it starts together
            (its cgroup), and address space of each process (RLIMIT_AS).
        file_bytes: the largest file it may write (RLIMIT_FSIZE).
        scratch_bytes: the size of each fresh tmpfs (working directory, /tmp, /dev/shm).
        processes: processes and threads of the whole bot (its cgroup, and
            RLIMIT_NPROC of its user id).
        stderr_bytes: how much of the end of its stderr is kept for its owner.
        line_bytes: the longest message line it may write.
        quit_seconds: how long it may take to exit after ``quit``.
        isolate: use a user id, namespaces, a fresh root and a cgroup of its own
            where possible.
        warm: start a Python SDK bot once and play each game in a fresh fork of it
            (docs/protocol.md, "Every game from a pristine bot"); off: one process
            per game for every bot. On by default; ``ARENA_WARM_BOTS=0`` in the
            environment turns it off in :data:`DEFAULT_LIMITS` (for debugging).
    """

    move_seconds: float = 10.0
    game_seconds: float = 600.0
    startup_seconds: float = 10.0
    memory_bytes: int = 2 * GIB
    file_bytes: int = 16 * MIB
    scratch_bytes: int = 64 * MIB
    processes: int = 64
    stderr_bytes: int = 64 * KIB
    line_bytes: int = 1 * MIB
    quit_seconds: float = 0.2
    isolate: bool = True
    warm: bool = True

    def __post_init__(self) -> None:
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if item.name not in ("isolate", "warm") and not value > 0:
                raise ValueError(f"sandbox limit {item.name} must be positive, not {value!r}")

    def cpu_seconds(self, game_seconds: float) -> int:
        """The CPU-time limit for a game with this budget: no more than one busy core."""
        return int(game_seconds + self.startup_seconds) + 1


WARM_SETTING = "ARENA_WARM_BOTS"
"""The environment variable that turns ``warm`` off in :data:`DEFAULT_LIMITS`: ``0``
(or ``false``, ``no``, ``off``); anything else, or nothing, leaves it on."""
COLD_WORDS = frozenset({"0", "false", "no", "off"})


def warm_by_default(environment: Mapping[str, str] = os.environ) -> bool:
    """Whether :data:`DEFAULT_LIMITS` plays Python bots warm: yes, unless
    :data:`WARM_SETTING` turns it off."""
    return environment.get(WARM_SETTING, "").strip().lower() not in COLD_WORDS


DEFAULT_LIMITS = SandboxLimits(warm=warm_by_default())
