"""Königsgarten (rule text 000): Okiya played with the aces and court cards of a deck.

Sixteen cards (A K Q J of every suit) lie face up in a 4 × 4 garden. Players take
turns taking a card and putting a marker in its place. The first card must come
from the edge; every later card must share the rank or the suit of the card the
opponent just took. After a move, in this order: four markers in a row, a column,
a long diagonal or a 2 × 2 square win (19 patterns); else an empty garden is a
draw; else the mover wins when the opponent has no legal card.

Cells are numbered 0..15 row by row from the top left; for people they are
``a1``..``d4`` (file a–d left to right, rank 1–4 top to bottom). An action is the
card taken (a :class:`~engines.cards.Card`), since every card is unique.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from engines.cards import Card, check_distinct, make_deck, parse_card
from engines.core import JSON, TERMINAL, Game, State
from engines.errors import (
    InvalidActionError,
    InvalidCardError,
    InvalidDealError,
    InvalidStateError,
)
from engines.outcome import Outcome, Termination

SIZE: Final = 4
CELLS: Final = SIZE * SIZE
GARDEN_CARDS: Final = tuple(make_deck(ranks="AKQJ"))
_IS_GARDEN_CARD: Final = frozenset(GARDEN_CARDS)
CENTRE_CELLS: Final = frozenset({5, 6, 9, 10})
EDGE_CELLS: Final = tuple(cell for cell in range(CELLS) if cell not in CENTRE_CELLS)
CELL_NAMES: Final = tuple(f"{'abcd'[cell % SIZE]}{cell // SIZE + 1}" for cell in range(CELLS))


def _mask(cells: Sequence[int]) -> int:
    mask = 0
    for cell in cells:
        mask |= 1 << cell
    return mask


ROWS: Final = tuple(_mask([r * SIZE + c for c in range(SIZE)]) for r in range(SIZE))
COLUMNS: Final = tuple(_mask([r * SIZE + c for r in range(SIZE)]) for c in range(SIZE))
DIAGONALS: Final = (_mask([0, 5, 10, 15]), _mask([3, 6, 9, 12]))
SQUARES: Final = tuple(
    _mask([r * SIZE + c, r * SIZE + c + 1, (r + 1) * SIZE + c, (r + 1) * SIZE + c + 1])
    for r in range(SIZE - 1)
    for c in range(SIZE - 1)
)
WINNING_PATTERNS: Final = ROWS + COLUMNS + DIAGONALS + SQUARES
"""The 19 patterns: 4 rows, 4 columns, 2 long diagonals, 9 squares of 2 × 2."""

_PATTERNS_THROUGH: Final = tuple(
    tuple(p for p in WINNING_PATTERNS if p >> cell & 1) for cell in range(CELLS)
)

_ALL_CARDS: Final = (1 << len(GARDEN_CARDS)) - 1
"""The set of cards in the garden as bits, one per garden card: all at first."""
_TAKEN: Final = {
    card: (
        _ALL_CARDS & ~(1 << number),
        sum(1 << n for n, c in enumerate(GARDEN_CARDS) if c[0] == card[0] or c[1] == card[1]),
    )
    for number, card in enumerate(GARDEN_CARDS)
}
"""Per garden card: the bits of every other card (to take it out of the set), and the
bits of the cards that may follow it (those sharing its rank or suit)."""


def cell_index(name: str) -> int:
    """``"c2"`` → 6. Raises InvalidActionError for a name outside a1..d4."""
    try:
        return CELL_NAMES.index(name.strip().lower())
    except ValueError:
        raise InvalidActionError(f"not a garden cell: {name!r} (cells are a1..d4)") from None


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class KoenigsgartenOptions:
    """Königsgarten has no options: the rule text and the rulings fix everything."""


class KoenigsgartenState(State[Card, KoenigsgartenOptions]):
    """A position: the garden, both players' markers and the card last taken."""

    __slots__ = (
        "_garden",
        "_last",
        "_left",
        "_legal",
        "_marker_cells",
        "_marks",
        "_moves",
        "_outcome",
        "_positions",
        "_to_move",
    )

    def __init__(
        self,
        game: Game[Card, KoenigsgartenOptions],
        layout: Sequence[Card],
        deal: Mapping[str, Any],
    ):
        super().__init__(game, 2, KoenigsgartenOptions(), deal)
        self._garden: list[Card | None] = list(layout)
        self._positions: dict[Card, int] = {card: cell for cell, card in enumerate(layout)}
        self._marks = [0, 0]
        # Kept alongside the bitmasks so observations cost no scan of the garden.
        self._marker_cells: tuple[list[str], list[str]] = ([], [])
        self._moves: list[tuple[Card, str]] = []
        self._last: Card | None = None
        self._to_move = 0
        self._outcome: Outcome | None = None
        garden = self._garden
        self._left = _ALL_CARDS  # a layout holds every garden card
        self._legal: list[Card] | None = [c for i in EDGE_CELLS if (c := garden[i]) is not None]
        """The legal cards, or None until asked for after a move (a caller that tracks
        them itself, as the learning environment does, never pays for the list)."""

    # -- queries --------------------------------------------------------------------

    @property
    def current_seat(self) -> int:
        return self._to_move

    def legal_actions(self) -> list[Card]:
        legal = self._legal
        if legal is None:  # only a move leaves it to be made, so a card was taken
            last: Card = self._last  # type: ignore[assignment]
            rank, suit = last[0], last[1]
            legal = self._legal = [
                c for c in self._garden if c is not None and (c[0] == rank or c[1] == suit)
            ]
        return legal[:]

    def outcome(self) -> Outcome | None:
        return self._outcome

    @property
    def last_taken(self) -> Card | None:
        """The card on top of the taken pile (the one the opponent must match)."""
        return self._last

    def card_at(self, cell: int) -> Card | None:
        """The card still in ``cell``, or None once it was taken."""
        return self._garden[cell]

    def marker_at(self, cell: int) -> int | None:
        """The seat whose marker stands in ``cell``, or None."""
        for seat in (0, 1):
            if self._marks[seat] >> cell & 1:
                return seat
        return None

    def observation(self, seat: int) -> JSON:
        # Perfect information: every seat sees everything, including the move list.
        return {
            "game": "koenigsgarten",
            "seat": seat,
            "to_move": self._to_move,
            "garden": list(self._garden),
            "markers": [list(self._marker_cells[0]), list(self._marker_cells[1])],
            "last_taken": self._last,
            "moves": [[card, cell] for card, cell in self._moves],
        }

    # -- moves ------------------------------------------------------------------------

    def _apply(self, card: Card) -> None:
        mover = self._to_move
        cell = self._positions[card]
        garden = self._garden
        garden[cell] = None
        marks = self._marks[mover] | 1 << cell
        self._marks[mover] = marks
        name = CELL_NAMES[cell]
        self._marker_cells[mover].append(name)
        self._moves.append((card, name))
        self._last = card
        opponent = 1 - mover
        for pattern in _PATTERNS_THROUGH[cell]:
            if marks & pattern == pattern:
                self._finish(Outcome.win(mover, 2, Termination.FOUR_IN_A_PATTERN))
                return
        others, followers = _TAKEN[card]
        self._left = left = self._left & others
        if left & followers:
            self._legal = None  # made when asked for
            self._to_move = opponent
        elif left:
            self._finish(Outcome.win(mover, 2, Termination.NO_LEGAL_CARD))
        else:
            self._finish(Outcome.draw(2, Termination.FULL_GARDEN_DRAW))

    def _finish(self, outcome: Outcome) -> None:
        self._outcome = outcome
        self._to_move = TERMINAL
        self._legal = []

    def _copy_into(self, copy: KoenigsgartenState) -> None:
        copy._garden = list(self._garden)
        copy._positions = self._positions
        copy._marks = list(self._marks)
        copy._marker_cells = (list(self._marker_cells[0]), list(self._marker_cells[1]))
        copy._moves = list(self._moves)
        copy._last = self._last
        copy._to_move = self._to_move
        copy._outcome = self._outcome
        copy._left = self._left
        copy._legal = self._legal  # never changed in place, only replaced

    def render(self, seat: int | None = None) -> str:
        lines = ["      a    b    c    d"]
        for row in range(SIZE):
            cells = []
            for col in range(SIZE):
                cell = row * SIZE + col
                card = self._garden[cell]
                owner = self.marker_at(cell)
                cells.append(f"{card.pretty():>4}" if card else f"  ●{owner}")
            lines.append(f"  {row + 1} " + " ".join(cells))
        if self._outcome is None:
            if self._last is None:
                need = "any card at the edge"
            else:
                need = f"rank {self._last[0]} or suit {self._last.pretty()[-1]}"
            lines.append(
                f"  last taken: {self._last.pretty() if self._last else '—'}   "
                f"seat {self._to_move} to take {need}"
            )
        elif self._outcome.termination == Termination.FOUR_IN_A_PATTERN:
            winner = self._outcome.winners[0]
            pattern = next(p for p in WINNING_PATTERNS if self._marks[winner] & p == p)
            named = " ".join(CELL_NAMES[c] for c in range(CELLS) if pattern >> c & 1)
            lines.append(f"  seat {winner} wins with four in a pattern: {named}")
        return "\n".join(lines)


class Koenigsgarten(Game[Card, KoenigsgartenOptions]):
    name = "koenigsgarten"
    title = "Königsgarten"
    min_seats = 2
    max_seats = 2
    default_seats = 2
    perfect_information = True
    has_chance = True
    options_type = KoenigsgartenOptions

    def random_deal(self, seats: int, options: KoenigsgartenOptions, rng: random.Random) -> JSON:
        layout = list(GARDEN_CARDS)
        rng.shuffle(layout)
        return {"layout": layout}

    def state_from_deal(
        self,
        deal: Mapping[str, Any],
        *,
        seats: int = 2,
        options: Mapping[str, Any] | KoenigsgartenOptions | None = None,
    ) -> KoenigsgartenState:
        self.check_seats(seats)
        self.parse_options(options)
        layout = parse_layout(deal.get("layout") if isinstance(deal, Mapping) else deal)
        return KoenigsgartenState(self, layout, {"layout": [str(c) for c in layout]})

    def parse_action(self, text: str) -> Card:
        try:
            card = parse_card(text)
        except InvalidCardError as exc:
            raise InvalidActionError(f"not a Königsgarten action: {exc}") from None
        if card not in _IS_GARDEN_CARD:
            raise InvalidActionError(
                f"not a Königsgarten action: {text!r} is not a garden card (A, K, Q or J)"
            )
        return card

    def state_from_observation(
        self, observation: Mapping[str, Any], rng: random.Random
    ) -> KoenigsgartenState:
        # Perfect information: the garden plus the list of moves give back the layout.
        try:
            layout: list[str | None] = list(observation["garden"])
            moves = [(str(card), cell_index(cell)) for card, cell in observation["moves"]]
            for card, cell in moves:
                layout[cell] = card
            state = self.state_from_deal({"layout": layout})
            for card, _ in moves:
                state.apply_action(self.parse_action(card))
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"not a Königsgarten observation: {exc}") from exc
        return state

    def max_game_length(
        self, seats: int, options: Mapping[str, Any] | KoenigsgartenOptions | None
    ) -> int:
        return CELLS

    def return_bounds(
        self, seats: int, options: Mapping[str, Any] | KoenigsgartenOptions | None
    ) -> tuple[float, float]:
        """A loss, a draw or a win: -1, 0 or +1."""
        return (-1.0, 1.0)

    def match_points(self, state: State[Card, KoenigsgartenOptions]) -> int:
        """The winner scores one point per card left in the garden."""
        assert isinstance(state, KoenigsgartenState)
        return sum(1 for cell in range(CELLS) if state.card_at(cell) is not None)


def parse_layout(cards: Any) -> list[Card]:
    """Parse 16 garden cards given row by row from the top left.

    Accepts a list of card texts or one string separated by spaces or commas.

    Raises:
        InvalidDealError: not 16 cards, a card that is no garden card, or a repeat.
    """
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    if not isinstance(cards, list | tuple):
        raise InvalidDealError(f"a Königsgarten layout is a list of 16 cards, not {cards!r}")
    if len(cards) != CELLS:
        raise InvalidDealError(
            f"a Königsgarten layout has 16 cards (row by row), got {len(cards)}: {cards!r}"
        )
    try:
        layout = [parse_card(text) for text in cards]
        check_distinct(layout, "the layout")
    except InvalidCardError as exc:
        raise InvalidDealError(f"bad layout: {exc}") from None
    for cell, card in enumerate(layout):
        if card not in _IS_GARDEN_CARD:
            raise InvalidDealError(
                f"bad layout: {str(card)!r} at {CELL_NAMES[cell]} is not a garden card "
                "(A, K, Q or J)"
            )
    return layout


GAME: Final = Koenigsgarten()
