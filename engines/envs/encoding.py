"""Fixed-shape observation vectors: what one seat may see, as small whole numbers.

Every encoder turns a seat's observation — the JSON data ``State.observation(seat)``
gives, exactly what a bot is sent — into a vector of a fixed length for the game's seat
count and options. Because the vector is computed from that observation alone, it
can never hold hidden information the engine does not show the seat. Seats are
counted from the observer: "seat +1" is the next seat after it in turn order.

A vector is a concatenation of named :class:`Block` s, each with an upper bound for
its numbers (the lower bound is 0 everywhere), so the layout documents itself:
``encoder.describe()`` lists it. Every number is a count or a flag, so a vector is of
the smallest unsigned integer type that holds the largest bound (:attr:`Layout.dtype`:
``uint8`` for every game but Blumengarten, whose move cap needs ``uint16``): a step
copies a quarter of the memory a float32 vector needs, and learners cast it anyway.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from engines.core import Action, State
from engines.envs.actions import ActionIndex, Mask

Vector = npt.NDArray[np.unsignedinteger[Any]]


@dataclass(frozen=True)
class Block:
    """``size`` consecutive numbers of an observation vector, each a whole number in
    ``0 .. high``."""

    name: str
    size: int
    high: int
    meaning: str


class Layout:
    """Named blocks laid out one after another."""

    def __init__(self, blocks: Sequence[Block]):
        self.blocks = tuple(blocks)
        self.offsets: dict[str, int] = {}
        offset = 0
        for block in self.blocks:
            self.offsets[block.name] = offset
            offset += block.size
        self.size = offset
        self.dtype: np.dtype[np.unsignedinteger[Any]] = np.min_scalar_type(
            max(block.high for block in self.blocks)
        )
        """The vectors' type: the smallest unsigned integer that holds every bound."""
        self.high = np.concatenate(
            [np.full(block.size, block.high, dtype=self.dtype) for block in self.blocks]
        )

    def __getitem__(self, name: str) -> int:
        """The offset of block ``name``."""
        return self.offsets[name]

    def zeros(self) -> Vector:
        return np.zeros(self.size, dtype=self.dtype)


@cache
def idle_mask(count: int) -> Mask:
    """The mask of a seat that is not to act: ``count`` zeros, read-only and shared."""
    mask = np.zeros(count, dtype=np.int8)
    mask.flags.writeable = False
    return mask


class Tracker(ABC):
    """Keeps the observation vectors of one game up to date as it is played.

    Vectors are fresh arrays (the caller may keep and change them); masks are read-only
    arrays that never change under the caller (a tracker may hand out the same one
    again), so a learner that keeps an observation never sees it change.
    """

    def __init__(self, state: State, actions: ActionIndex):
        self.state = state
        """The tracked state: whoever applies an action to it calls :meth:`advance`."""
        self.idle_mask = idle_mask(len(actions.actions))

    @abstractmethod
    def advance(self, seat: int, action: Action) -> None:
        """``seat`` just played ``action`` on the tracked state."""

    @abstractmethod
    def vector(self, seat: int) -> Vector:
        """A fresh vector (the caller may keep it) of what ``seat`` sees now."""

    @abstractmethod
    def mask(self) -> Mask:
        """The read-only mask of the legal actions of the seat to act."""

    @abstractmethod
    def is_legal(self, index: int) -> bool:
        """Whether action number ``index`` (in range) is legal for the seat to act."""

    def observe(self, seat: int) -> dict[str, Any]:
        """``seat``'s observation as the AEC environment hands it out: its vector and
        its mask (:attr:`idle_mask` unless ``seat`` is to act)."""
        mask = self.mask() if self.state.current_seat == seat else self.idle_mask
        return {"observation": self.vector(seat), "action_mask": mask}

    def play(self, seat: int, index: int, action: Action) -> int | None:
        """Apply ``action`` (number ``index``) for ``seat``, the seat to act, to the
        tracked state and track it, if it is legal: the seat to act next (``TERMINAL``
        once the game is over); None (and nothing changed) if it is illegal."""
        if not self.is_legal(index):
            return None
        self.state.apply_unchecked(action)
        self.advance(seat, action)
        return self.state.current_seat


class Encoder(ABC):
    """Encodes the observations of one game for one seat count and options."""

    layout: Layout

    @abstractmethod
    def encode(self, observation: Mapping[str, Any]) -> Vector:
        """The vector of one seat's observation (``State.observation(seat)``)."""

    def tracker(self, state: State, actions: ActionIndex) -> Tracker:
        """A tracker of ``state``; the default encodes the observation afresh each time
        and masks the engine's legal actions in ``actions``."""
        return _Reencoding(self, state, actions)

    def describe(self) -> list[tuple[str, int, int, int, str]]:
        """``(block, offset, size, high, meaning)`` for every block, in order."""
        return [
            (block.name, self.layout[block.name], block.size, block.high, block.meaning)
            for block in self.layout.blocks
        ]


class _Reencoding(Tracker):
    """Encodes the observation afresh for every vector; the legal actions are read from
    the engine once per position."""

    def __init__(self, encoder: Encoder, state: State, actions: ActionIndex):
        super().__init__(state, actions)
        self._encoder = encoder
        self._actions = actions
        self._legal: frozenset[Action] | None = None
        self._mask: Mask | None = None

    def advance(self, seat: int, action: Action) -> None:
        self._legal = self._mask = None  # vector() reads the state itself

    def vector(self, seat: int) -> Vector:
        return self._encoder.encode(self.state.observation(seat))

    def mask(self) -> Mask:
        if self._mask is None:
            self._mask = self._actions.mask(self.state.legal_actions())
            self._mask.flags.writeable = False
        return self._mask

    def is_legal(self, index: int) -> bool:
        if self._legal is None:
            self._legal = frozenset(self.state.legal_actions())
        return self._actions.actions[index] in self._legal


def relative(seat: int, observer: int, seats: int) -> int:
    """``seat`` counted from ``observer`` in turn order (the observer is 0)."""
    return (seat - observer) % seats
