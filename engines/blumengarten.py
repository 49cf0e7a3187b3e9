"""Blumengarten (rule text 004): Flower Garden patience, every card face up.

Thirty-six cards lie in six columns of six (the garden), the other sixteen are the
bouquet. Only the exposed card of a column moves; a bouquet card may be played at any
time. A card goes to its suit's foundation (ace up to king), onto the exposed card of a
column when it is one rank lower (any suit), or into an empty column (any card). One
card at a time. A card that reached a foundation or left the bouquet never comes back.
The game is won with all 52 cards on the foundations.

Rulings (``../shared/RULINGS.md``): an action is ``7H>c3`` (onto column 3's exposed
card or into empty column 3; columns count from 1), ``AS>f`` (to its foundation) or
``resign``. The game is lost when the player resigns, has no legal card move, or
reaches the move cap (option ``move_cap``, default 1000); the score is the number of
cards on the foundations. Variants, each an option: ``sequences`` (Wildflower:
``7H>c3`` moves the 7H together with every card on it when they descend by one, any
suit) and ``garden_7x5`` (seven columns of five, a bouquet of seventeen).

A deal lists each column from its deepest card to its exposed card, then the bouquet.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass as plain_dataclass
from typing import Any, Final

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from engines.cards import DECK, SUITS, Card, parse_card
from engines.core import JSON, TERMINAL, Game, State
from engines.errors import (
    InvalidActionError,
    InvalidCardError,
    InvalidDealError,
    InvalidStateError,
)
from engines.outcome import Outcome, Termination

FOUNDATION: Final = -1
"""The target of a move to the foundations (columns are 0, 1, …)."""

KING: Final = 13
TOTAL_CARDS: Final = 52


_SUIT_INDEX: Final = {suit: index for index, suit in enumerate(SUITS)}


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class BlumengartenOptions:
    """The variants of the rule text and the move cap of the rulings."""

    sequences: bool = Field(
        default=False,
        description="Wildflower: a move takes the card together with every card on it "
        "when they descend by one (any suit)",
    )
    garden_7x5: bool = Field(
        default=False, description="seven columns of five cards and a bouquet of seventeen"
    )
    move_cap: int = Field(default=1000, ge=1, description="the game is lost after this many moves")


def garden_shape(options: BlumengartenOptions) -> tuple[int, int]:
    """``(columns, cards per column)`` of a deal under ``options``."""
    return (7, 5) if options.garden_7x5 else (6, 6)


@plain_dataclass(frozen=True, slots=True)
class Move:
    """Move ``card`` (with the cards on it, in the ``sequences`` variant) to ``target``:
    a column index from 0, or :data:`FOUNDATION`."""

    card: Card
    target: int

    def __str__(self) -> str:
        if self.target == FOUNDATION:
            return f"{self.card}>f"
        return f"{self.card}>c{self.target + 1}"

    def __repr__(self) -> str:
        return f"GAME.parse_action({str(self)!r})"


@plain_dataclass(frozen=True, slots=True)
class Resign:
    """Give up: the game ends lost with the cards on the foundations as the score."""

    def __str__(self) -> str:
        return "resign"

    def __repr__(self) -> str:
        return "RESIGN"


RESIGN: Final = Resign()

BlumengartenAction = Move | Resign
"""An action of Blumengarten: a card move or resigning."""

MAX_COLUMNS: Final = 7
_MOVES: Final[dict[tuple[Card, int], Move]] = {
    (card, target): Move(card, target) for card in DECK for target in range(-1, MAX_COLUMNS)
}
"""Every possible move, built once, so that generating legal actions allocates nothing."""


def move(card: Card, target: int) -> Move:
    """The interned move of ``card`` to ``target`` (column index or FOUNDATION)."""
    return _MOVES[card, target]


class BlumengartenState(State[BlumengartenAction, BlumengartenOptions]):
    """A position: the columns (deepest card first), the bouquet (in deal order) and the
    height of each suit's foundation (in suit order S H D C)."""

    __slots__ = ("_bouquet", "_columns", "_foundations", "_legal", "_outcome")

    def __init__(
        self,
        game: Game[BlumengartenAction, BlumengartenOptions],
        options: BlumengartenOptions,
        columns: Sequence[Sequence[Card]],
        bouquet: Sequence[Card],
        deal: Mapping[str, Any],
    ):
        super().__init__(game, 1, options, deal)
        self._columns: list[list[Card]] = [list(column) for column in columns]
        self._bouquet: list[Card] = list(bouquet)
        self._foundations: list[int] = [0, 0, 0, 0]
        self._outcome: Outcome | None = None
        self._legal: list[BlumengartenAction] | None = None
        self._check_blocked()

    # -- queries --------------------------------------------------------------------

    @property
    def current_seat(self) -> int:
        return TERMINAL if self._outcome is not None else 0

    @property
    def columns(self) -> tuple[tuple[Card, ...], ...]:
        """Every column from its deepest card to its exposed card."""
        return tuple(tuple(column) for column in self._columns)

    @property
    def bouquet(self) -> tuple[Card, ...]:
        """The bouquet cards still in hand, in the order of the deal."""
        return tuple(self._bouquet)

    @property
    def foundations(self) -> dict[str, int]:
        """The number of cards on each suit's foundation (its top card's rank)."""
        return dict(zip(SUITS, self._foundations, strict=True))

    @property
    def score(self) -> int:
        """Cards on the foundations."""
        return sum(self._foundations)

    @property
    def moves_left(self) -> int:
        """Moves before the move cap ends the game."""
        return self.options.move_cap - len(self.history)

    def outcome(self) -> Outcome | None:
        return self._outcome

    def legal_actions(self) -> list[BlumengartenAction]:
        if self._outcome is not None:
            return []
        assert self._legal is not None, "a running game keeps its legal actions"
        return list(self._legal)

    def _card_moves(self) -> list[BlumengartenAction]:
        """Every legal card move: sources column by column, then the bouquet in order;
        for each source the foundation first, then the target columns from left to right."""
        columns = self._columns
        foundations = self._foundations
        # Which columns accept a card of each rank: its exposed card is one rank higher.
        takers: list[list[int]] = [[] for _ in range(KING + 1)]
        empty: list[int] = []
        for index, column in enumerate(columns):
            if column:
                takers[column[-1].rank - 1].append(index)
            else:
                empty.append(index)
        result: list[BlumengartenAction] = []
        sequences = self.options.sequences
        for source, column in enumerate(columns):
            if not column:
                continue
            exposed = column[-1]
            rank = exposed.rank
            if foundations[_SUIT_INDEX[exposed[1]]] == rank - 1:
                result.append(_MOVES[exposed, FOUNDATION])
            depth = len(column) - 1
            card = exposed
            while True:
                rank = card.rank
                for target in sorted(takers[rank] + empty) if empty else takers[rank]:
                    if target != source:
                        result.append(_MOVES[card, target])
                if not sequences or depth == 0:
                    break
                depth -= 1
                below = column[depth]
                if below.rank != rank + 1:
                    break
                card = below
        for card in self._bouquet:
            rank = card.rank
            if foundations[_SUIT_INDEX[card[1]]] == rank - 1:
                result.append(_MOVES[card, FOUNDATION])
            for target in sorted(takers[rank] + empty) if empty else takers[rank]:
                result.append(_MOVES[card, target])
        return result

    def observation(self, seat: int) -> JSON:
        # Perfect information: everything, plus the deal and the moves, which rebuild
        # the exact state (state_from_observation).
        return {
            "game": "blumengarten",
            "seat": seat,
            "options": self.game.options_to_dict(self.options),
            "deal": {
                "columns": [list(column) for column in self._deal["columns"]],
                "bouquet": list(self._deal["bouquet"]),
            },
            "moves": [str(action) for _, action in self.history],
            "columns": [[str(card) for card in column] for column in self._columns],
            "bouquet": [str(card) for card in self._bouquet],
            "foundations": self.foundations,
            "score": self.score,
            "moves_left": self.moves_left,
        }

    # -- moves ----------------------------------------------------------------------

    def _apply(self, action: BlumengartenAction) -> None:
        self._legal = None
        if isinstance(action, Resign):
            self._finish(Termination.RESIGNED)
            return
        card = action.card
        if card in self._bouquet:
            self._bouquet.remove(card)
            moved = [card]
        else:
            moved = self._take_from_columns(card)
        if action.target == FOUNDATION:
            self._foundations[_SUIT_INDEX[card[1]]] += 1
            if self.score == TOTAL_CARDS:
                self._finish(Termination.WON)
                return
        else:
            self._columns[action.target].extend(moved)
        if len(self.history) >= self.options.move_cap:
            self._finish(Termination.MOVE_CAP)
        else:
            self._check_blocked()

    def _take_from_columns(self, card: Card) -> list[Card]:
        for column in self._columns:
            if card in column:
                at = column.index(card)
                moved = column[at:]
                del column[at:]
                return moved
        raise AssertionError(f"{card!r} is neither in a column nor in the bouquet")

    def _check_blocked(self) -> None:
        """End the game when no card can move; otherwise keep the legal actions."""
        moves = self._card_moves()
        if moves:
            moves.append(RESIGN)
            self._legal = moves
        else:
            self._finish(Termination.NO_LEGAL_MOVE)

    def _finish(self, termination: Termination) -> None:
        score = self.score
        self._outcome = Outcome.from_scores([score], termination, details={"score": score})
        self._legal = None

    def _copy_into(self, copy: BlumengartenState) -> None:
        copy._columns = [list(column) for column in self._columns]
        copy._bouquet = list(self._bouquet)
        copy._foundations = list(self._foundations)
        copy._outcome = self._outcome
        copy._legal = None if self._legal is None else list(self._legal)

    def render(self, seat: int | None = None) -> str:
        lines = []
        for index, column in enumerate(self._columns):
            cards = " ".join(f"{card.pretty():>3}" for card in column)
            lines.append(f"  c{index + 1}: {cards or '(empty)'}")
        lines.append("  bouquet: " + (" ".join(c.pretty() for c in self._bouquet) or "(empty)"))
        tops = "  ".join(
            f"{suit}:{Card(_RANK_TEXT[height] + suit).pretty() if height else '—'}"
            for suit, height in zip(SUITS, self._foundations, strict=True)
        )
        lines.append(f"  foundations: {tops}   score {self.score}/{TOTAL_CARDS}")
        if self._outcome is None:
            lines.append(f"  {self.moves_left} moves left")
        return "\n".join(lines)


_RANK_TEXT: Final = " A23456789TJQK"


class Blumengarten(Game[BlumengartenAction, BlumengartenOptions]):
    name = "blumengarten"
    title = "Blumengarten (Flower Garden)"
    min_seats = 1
    max_seats = 1
    default_seats = 1
    perfect_information = True
    has_chance = True
    options_type = BlumengartenOptions

    def random_deal(self, seats: int, options: BlumengartenOptions, rng: random.Random) -> JSON:
        columns, height = garden_shape(self.parse_options(options))
        cards = list(DECK)
        rng.shuffle(cards)
        return {
            "columns": [
                [str(card) for card in cards[c * height : (c + 1) * height]] for c in range(columns)
            ],
            "bouquet": [str(card) for card in cards[columns * height :]],
        }

    def state_from_deal(
        self,
        deal: Mapping[str, Any],
        *,
        seats: int = 1,
        options: Mapping[str, Any] | BlumengartenOptions | None = None,
    ) -> BlumengartenState:
        self.check_seats(seats)
        parsed = self.parse_options(options)
        columns, bouquet = parse_deal(deal, parsed)
        canonical = {
            "columns": [[str(card) for card in column] for column in columns],
            "bouquet": [str(card) for card in bouquet],
        }
        return BlumengartenState(self, parsed, columns, bouquet, canonical)

    def parse_action(self, text: str) -> BlumengartenAction:
        if not isinstance(text, str):
            raise InvalidActionError(f"not a Blumengarten action: {text!r}")
        cleaned = text.strip().lower()
        if cleaned == "resign":
            return RESIGN
        card_text, sep, target_text = cleaned.partition(">")
        try:
            card = parse_card(card_text)
        except InvalidCardError:
            card = None
        target: int | None = None
        if target_text == "f":
            target = FOUNDATION
        elif target_text[:1] == "c" and target_text[1:].isdigit():
            number = int(target_text[1:])
            if 1 <= number <= MAX_COLUMNS:
                target = number - 1
        if card is None or not sep or target is None:
            raise InvalidActionError(
                f"not a Blumengarten action: {text!r} (write e.g. '7H>c3', 'AS>f' or 'resign')"
            )
        return _MOVES[card, target]

    def state_from_observation(
        self, observation: Mapping[str, Any], rng: random.Random
    ) -> BlumengartenState:
        # Perfect information: the deal and the moves give back the exact state.
        try:
            state = self.state_from_deal(observation["deal"], options=dict(observation["options"]))
            for text in observation["moves"]:
                state.apply_action(self.parse_action(text))
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"not a Blumengarten observation: {exc}") from exc
        return state

    def max_game_length(
        self, seats: int, options: Mapping[str, Any] | BlumengartenOptions | None
    ) -> int:
        return self.parse_options(options).move_cap

    def return_bounds(
        self, seats: int, options: Mapping[str, Any] | BlumengartenOptions | None
    ) -> tuple[float, float]:
        """The cards on the foundations: none to all 52 (a forfeit too)."""
        return (0.0, float(TOTAL_CARDS))

    def variants(self) -> dict[str, BlumengartenOptions]:
        """The classic game, Wildflower (``sequences``), the 7 × 5 garden, and both."""
        return {
            "classic": BlumengartenOptions(),
            "sequences": BlumengartenOptions(sequences=True),
            "garden_7x5": BlumengartenOptions(garden_7x5=True),
            "sequences_7x5": BlumengartenOptions(sequences=True, garden_7x5=True),
        }

    def forfeit_outcome(
        self, state: State[BlumengartenAction, BlumengartenOptions], offender: int, reason: str
    ) -> Outcome:
        """A forfeit (crash, timeout, illegal move) scores the cards on the foundations so far."""
        assert isinstance(state, BlumengartenState)
        score = state.score
        return Outcome.forfeit(offender, 1, reason, loss=float(score), details={"score": score})


def parse_deal(deal: Any, options: BlumengartenOptions) -> tuple[list[list[Card]], list[Card]]:
    """Parse and check a deal ``{"columns": [[deepest … exposed], …], "bouquet": […]}``.

    Raises:
        InvalidDealError: not that shape, a malformed or repeated card, the wrong number
            of columns or of cards in a column or in the bouquet; the message names the
            card or the column (and any card missing from the deal).
    """
    if not isinstance(deal, Mapping) or set(deal) != {"columns", "bouquet"}:
        raise InvalidDealError(
            "a Blumengarten deal is an object with exactly the keys 'columns' and 'bouquet', "
            f"not {deal!r:.120}"
        )
    raw_columns, raw_bouquet = deal["columns"], deal["bouquet"]
    if not isinstance(raw_columns, list) or not all(isinstance(c, list) for c in raw_columns):
        raise InvalidDealError(
            f"'columns' must be a list of lists of cards, not {raw_columns!r:.120}"
        )
    if not isinstance(raw_bouquet, list):
        raise InvalidDealError(f"'bouquet' must be a list of cards, not {raw_bouquet!r:.120}")
    places = [f"column {index + 1}" for index in range(len(raw_columns))] + ["the bouquet"]
    where: dict[Card, str] = {}
    parsed: list[list[Card]] = []
    for place, texts in zip(places, [*raw_columns, raw_bouquet], strict=True):
        cards = []
        for text in texts:
            try:
                card = parse_card(text)
            except InvalidCardError as exc:
                raise InvalidDealError(f"bad card in {place}: {exc}") from None
            if card in where:
                twice = "twice in" if where[card] == place else f"in {where[card]} and in"
                raise InvalidDealError(f"card {str(card)!r} appears {twice} {place}")
            where[card] = place
            cards.append(card)
        parsed.append(cards)
    columns, bouquet = parsed[:-1], parsed[-1]
    missing = [str(card) for card in DECK if card not in where]
    lacking = f" (missing from the deal: {', '.join(missing)})" if missing else ""
    count, height = garden_shape(options)
    shape = "a 7 × 5 garden" if options.garden_7x5 else "a classic garden"
    if len(columns) != count:
        raise InvalidDealError(f"{shape} has {count} columns, the deal has {len(columns)}{lacking}")
    for index, column in enumerate(columns):
        if len(column) != height:
            raise InvalidDealError(
                f"column {index + 1} has {len(column)} cards; {shape} has {height} in every "
                f"column{lacking}"
            )
    expected = TOTAL_CARDS - count * height
    if len(bouquet) != expected:
        raise InvalidDealError(
            f"the bouquet has {len(bouquet)} cards; with {shape} it has {expected}{lacking}"
        )
    return columns, bouquet


GAME: Final = Blumengarten()
