"""``arena bench sandbox``: what each fence of the sandbox adds to a game's start and end.

A program that does nothing (``/bin/true``) is started and closed in the sandbox again
and again, with every fence this machine has and without each costly one in turn; the
variants take turns start by start, so the machine's load falls on all alike. A start
is :class:`~arena.players.sandbox.SandboxedProcess` until the program runs (user id lease,
directories, cgroup, the forks, namespaces, fresh root, exec); an end is ``close``
(killing, reaping, removing directories and cgroup). A real bot's start adds its
program's own start-up (``arena bench protocol``).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from arena.players.sandbox import DEFAULT_LIMITS, Isolation, SandboxedProcess, detect_isolation
from arena.players.sandbox.cgroups import NO_CGROUPS

PROGRAM = ["/bin/true"]


@dataclass(frozen=True)
class FenceCost:
    """The starts and ends of one variant, in seconds."""

    variant: str
    starts: list[float]
    ends: list[float]


def variants(full: Isolation) -> dict[str, Isolation]:
    """Every fence, and without each costly one that this machine has."""
    chosen = {"every fence": full}
    if full.cgroups.parents:
        chosen["without its cgroup"] = dataclasses.replace(full, cgroups=NO_CGROUPS)
    if full.filesystem:
        chosen["without the fresh root"] = dataclasses.replace(full, filesystem=False)
    if full.ipc or full.uts or full.cgroup_namespace:
        chosen["without IPC, UTS and cgroup namespaces"] = dataclasses.replace(
            full, ipc=False, uts=False, cgroup_namespace=False
        )
    if full.syscall_filter:
        chosen["without the seccomp filter"] = dataclasses.replace(full, syscall_filter=False)
    return chosen


def fence_costs(*, starts: int) -> list[FenceCost]:
    """``starts`` starts and ends per variant, interleaved.

    Raises:
        SandboxError: the sandbox cannot start ``/bin/true`` here.
    """
    chosen = variants(detect_isolation())
    costs = {name: FenceCost(name, [], []) for name in chosen}
    for _ in range(starts):
        for name, isolation in chosen.items():
            began = time.perf_counter()
            process = SandboxedProcess(
                PROGRAM, limits=DEFAULT_LIMITS, cpu_seconds=5, isolation=isolation
            )
            started = time.perf_counter()
            process.close()
            costs[name].starts.append(started - began)
            costs[name].ends.append(time.perf_counter() - started)
    return list(costs.values())
