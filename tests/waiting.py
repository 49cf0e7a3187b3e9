"""Waiting in tests: on a condition, with a bound generous enough for a loaded machine.

A bound here only ends a test that is stuck; it never measures speed. A test that
asserts a time limit says so itself, beside what the limit means.
"""

from __future__ import annotations

import time
from collections.abc import Callable

GENEROUS_SECONDS = 300.0


def wait_until(
    condition: Callable[[], object],
    *,
    timeout: float = GENEROUS_SECONDS,
    what: str = "the condition",
    interval: float = 0.1,
) -> float:
    """Poll ``condition()`` until it is true; returns the seconds waited.

    Raises:
        AssertionError: ``condition()`` was still false after ``timeout`` seconds; the
            message names ``what`` was awaited.
    """
    started = time.monotonic()
    while not condition():
        waited = time.monotonic() - started
        assert waited < timeout, f"{what}: not met in {timeout:g} s"
        time.sleep(interval)
    return time.monotonic() - started
