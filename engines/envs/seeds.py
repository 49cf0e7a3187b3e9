"""The deal seeds of an environment's resets, the same rule in every environment."""

from __future__ import annotations

from engines.seeding import derive_seed


class DealSeeds:
    """``reset(seed=s)`` deals seed ``s`` (what the engine and a tournament deal for it);
    the k-th later reset without a seed deals ``derive_seed(s, k)``. ``s`` is 0 until a
    seed is given, so an environment that is never seeded still replays."""

    def __init__(self) -> None:
        self._base = 0
        self._count = 0

    def next(self, seed: int | None) -> int:
        """The deal seed of a reset given ``seed`` (None: continue from the last one)."""
        if seed is not None:
            self._base, self._count = int(seed), 0
            return self._base
        self._count += 1
        return derive_seed(self._base, self._count)
