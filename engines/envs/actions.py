"""A fixed action index per game: every action text the game can ever produce, numbered.

Learning code wants a ``Discrete(n)`` action space and a mask of the legal actions over
it, so each game's actions are enumerated once, in a stable order, for a seat count and
options: index ``i`` always means the same action text. The enumeration is a superset
of what a game can reach (Kardinal's 3,080 stone moves are all there even though a game
uses a few); the mask says which are legal now.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from engines import blumengarten, kardinal, kings_corner, koenigsgarten
from engines.cards import DECK
from engines.core import Action, Game
from engines.errors import InvalidActionError, UnknownGameError

Mask = npt.NDArray[np.int8]


@dataclass(frozen=True)
class ActionIndex:
    """The numbered actions of one game under one seat count and options.

    ``texts[i]`` is the canonical text of action ``i`` and ``actions[i]`` the engine's
    action value (``game.parse_action(texts[i])``).
    """

    game: str
    texts: tuple[str, ...]
    actions: tuple[Action, ...]
    _positions: Mapping[Action, int] = field(repr=False, compare=False)

    @classmethod
    def from_texts(cls, game: Game, texts: Iterable[str]) -> ActionIndex:
        """Number ``texts`` in order.

        Raises:
            InvalidActionError: a text the game does not parse, one that is not the
                canonical text of its action, or a repeat.
        """
        ordered = tuple(texts)
        actions = tuple(game.parse_action(text) for text in ordered)
        for text, action in zip(ordered, actions, strict=True):
            if str(action) != text:
                raise InvalidActionError(f"{text!r} is not canonical (the engine writes {action})")
        positions = {action: index for index, action in enumerate(actions)}
        if len(positions) != len(actions):
            raise InvalidActionError(f"the action index of {game.name} repeats an action")
        return cls(game.name, ordered, actions, positions)

    def __len__(self) -> int:
        return len(self.texts)

    def index(self, action: Action) -> int:
        """The number of ``action``.

        Raises:
            InvalidActionError: the action is not in this index.
        """
        try:
            return self._positions[action]
        except KeyError:
            raise InvalidActionError(
                f"{str(action)!r} is not in the action index of {self.game}"
            ) from None

    def action(self, index: Any) -> Action:
        """The action numbered ``index`` (an int or a NumPy integer).

        Raises:
            InvalidActionError: ``index`` is not an integer in ``0 .. len - 1``.
        """
        if isinstance(index, bool) or not isinstance(index, int | np.integer):
            raise InvalidActionError(
                f"an action of {self.game} is an integer 0..{len(self) - 1}, not {index!r}"
            )
        if not 0 <= index < len(self.actions):
            raise InvalidActionError(
                f"action {int(index)} is outside 0..{len(self) - 1} for {self.game}"
            )
        return self.actions[index]

    def mask(self, legal: Sequence[Action]) -> Mask:
        """1 at the index of every action in ``legal``, 0 elsewhere (int8)."""
        mask = np.zeros(len(self.texts), dtype=np.int8)
        positions = self._positions
        mask[[positions[action] for action in legal]] = 1
        return mask


def _koenigsgarten_texts(seats: int, options: Any) -> list[str]:
    return [str(card) for card in koenigsgarten.GARDEN_CARDS]


def _blumengarten_texts(seats: int, options: Any) -> list[str]:
    columns, _ = blumengarten.garden_shape(options)
    texts = []
    for card in DECK:
        texts.append(str(blumengarten.move(card, blumengarten.FOUNDATION)))
        texts += [str(blumengarten.move(card, column)) for column in range(columns)]
    return [*texts, str(blumengarten.RESIGN)]


def _kings_corner_texts(seats: int, options: Any) -> list[str]:
    plays = [f"{card}>{pile}" for pile in kings_corner.PILES for card in DECK]
    moves = [
        f"{side}>{pile}"
        for side in kings_corner.SIDES
        for pile in kings_corner.PILES
        if pile != side
    ]
    ends = [str(kings_corner.DRAW)] + ([str(kings_corner.END)] if options.draw_first else [])
    return plays + moves + ends


def _kardinal_texts(seats: int, options: Any) -> list[str]:
    cards = kardinal.CARD_IDS
    plays = [str(kardinal.PLAYS[kind]) for kind in kardinal.PLAYABLE_TABLETS]
    return (
        [f"take {card}" for card in cards]
        + plays
        + [f"stone {card}" for card in cards]
        + [f"move {source}>{target}" for source in cards for target in cards if source != target]
        + [str(kardinal.END), str(kardinal.SKIP)]
    )


ENUMERATIONS: Mapping[str, Callable[[int, Any], list[str]]] = {
    "koenigsgarten": _koenigsgarten_texts,
    "blumengarten": _blumengarten_texts,
    "kings_corner": _kings_corner_texts,
    "kardinal": _kardinal_texts,
}
"""Per game: the action texts in index order for a seat count and parsed options."""


def action_index(game: Game, seats: int, options: Any) -> ActionIndex:
    """The action index of ``game`` for ``seats`` and ``options``.

    Blumengarten's index depends on the garden's width (``garden_7x5``), Kings in the
    Corner's on ``draw_first`` (which adds ``end``); the others on nothing.

    Raises:
        UnknownGameError: a game without an action enumeration here.
        SeatCountError, OptionError: bad seats or options.
    """
    enumerate_texts = ENUMERATIONS.get(game.name)
    if enumerate_texts is None:
        raise UnknownGameError(
            f"no action index for game {game.name!r} (environments exist for "
            f"{', '.join(sorted(ENUMERATIONS))})"
        )
    texts = enumerate_texts(game.check_seats(seats), game.parse_options(options))
    return ActionIndex.from_texts(game, texts)
