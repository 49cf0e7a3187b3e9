"""What every settings dataclass of the operator checks (the web's caps and limits, a
tournament's caps). It imports nothing of the arena, so a child process that is handed
settings (the archive reader, ``arena.web.unpacker``) starts without the rest."""

from __future__ import annotations

import dataclasses
import math
from typing import Any


def require_positive(settings: Any, skip: tuple[str, ...] = ()) -> None:
    """Raises ValueError for a field of the dataclass ``settings`` (but ``skip``) that
    is not a finite positive number."""
    for item in dataclasses.fields(settings):
        value = getattr(settings, item.name)
        if item.name in skip:
            continue
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            raise ValueError(f"{item.name} must be a positive number, not {value!r}")
