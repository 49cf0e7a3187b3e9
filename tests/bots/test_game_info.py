"""GameInfo.of: the host's cheap constructor gives what the dataclass's own gives."""

from __future__ import annotations

import dataclasses

import pytest

from bots.base import GameInfo
from engines.registry import get_game


def test_of_is_the_constructor_frozen_and_all() -> None:
    game = get_game("kings_corner")
    fast = GameInfo.of(game, {"draw_first": True}, 2, 3, 77)
    slow = GameInfo(game, {"draw_first": True}, 2, 3, 77)
    assert fast == slow and repr(fast) == repr(slow) and type(fast) is GameInfo
    assert dataclasses.astuple(fast) == dataclasses.astuple(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.seat = 0  # type: ignore[misc]
    assert dataclasses.replace(fast, seat=1) == GameInfo(game, {"draw_first": True}, 1, 3, 77)
