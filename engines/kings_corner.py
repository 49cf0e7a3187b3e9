"""Kings in the Corner (rule text 002, rulings in ../shared/RULINGS.md).

Two to four players build shared piles downwards in alternating colours: four side
piles ``N E S W`` dealt face up around the stock and four corners ``NE SE SW NW``
that only a king may open. A turn is a sequence of single actions by the same
player, ended by ``draw``:

* ``7H>N``: play a hand card on a pile (one rank lower and the other colour than its
  top card; any card on an empty side spot; only a king on an empty corner);
* ``N>NE``: move the whole side pile ``N`` onto another pile whose top card its
  bottom card fits (which empties ``N``), or a pile with a king at the bottom into an
  empty corner (first player's first turn only, unless ``king_piles_to_corner`` is
  ``"anytime"``);
* ``draw``: draw one card (none when the stock is empty) and end the turn. With the
  ``draw_first`` variant the turn starts with the ``draw`` and ends with ``end``.

The game ends when a player plays their last card, or when the stock is empty and
every player in turn has ended a turn without playing (a blocked game). Cards left
in hand are penalty points: king 10, every other card 1 (variant ``pip_values``:
ace 25, faces 10, others their pip value). ``docs/games/kings_corner.md`` lists
every choice made where the texts are silent, and why the game always ends.

Inside the state a card is its ordinal 0..51 (rank-major: ``ordinal // 4`` is the
rank from ace 0 to king 12, ``ordinal % 4`` the suit S H D C), hands are sets and
piles are lists from bottom to top, so the hot path works on small ints.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass as pydantic_dataclass

from engines.cards import DECK, Card, parse_card
from engines.core import JSON, TERMINAL, Game, State
from engines.errors import (
    InvalidActionError,
    InvalidCardError,
    InvalidDealError,
    InvalidStateError,
)
from engines.match import PENALTY_FORMATS, SINGLE_FORMAT
from engines.outcome import Outcome, Termination

NAME: Final = "kings_corner"
SIDES: Final = ("N", "E", "S", "W")
CORNERS: Final = ("NE", "SE", "SW", "NW")
PILES: Final = SIDES + CORNERS
"""Pile names by index: 0..3 the side piles, 4..7 the corners."""
HAND_SIZE: Final = 7
SHORT_HAND_SIZE: Final = 4


CORNER_SCORE: Final = 1000
"""With ``collect_corners`` a seat's return is ``CORNER_SCORE × corners − penalty``;
no hand can hold 1000 penalty points (all 52 cards are worth 436 with pip values),
so corners decide and penalties break ties."""

_ACE_RANK: Final = 0
_KING_RANK: Final = 12
_FIRST_KING: Final = 4 * _KING_RANK
_KINGS: Final = tuple(range(_FIRST_KING, 52))
_TEXT: Final = tuple(str(card) for card in DECK)
_ID_BY_TEXT: Final = {text: ordinal for ordinal, text in enumerate(_TEXT)}


def _is_red(ordinal: int) -> bool:
    return ordinal % 4 in (1, 2)


def _cards_below(top: int, in_suit: bool) -> tuple[int, ...]:
    rank, suit = divmod(top, 4)
    if rank == _ACE_RANK:
        return ()
    if in_suit:
        return (4 * (rank - 1) + suit,)
    return tuple(4 * (rank - 1) + s for s in range(4) if _is_red(s) != _is_red(top))


_BELOW_ALTERNATING: Final = tuple(_cards_below(top, False) for top in range(52))
_BELOW_IN_SUIT: Final = tuple(_cards_below(top, True) for top in range(52))
_ABOVE_ALTERNATING: Final = tuple(
    tuple(top for top in range(52) if card in _BELOW_ALTERNATING[top]) for card in range(52)
)
"""``_ABOVE_ALTERNATING[card]``: the cards ``card`` may be played on (none for a king)."""
_ABOVE_IN_SUIT: Final = tuple(card + 4 if card < 48 else -1 for card in range(52))


def card_fits(card: Card, top: Card, *, in_suit: bool = False) -> bool:
    """True when ``card`` may be played on ``top``: one rank lower and the other colour
    (the same suit when ``in_suit``, as on the corners with ``corners_in_suit``)."""
    table = _BELOW_IN_SUIT if in_suit else _BELOW_ALTERNATING
    return card.ordinal in table[top.ordinal]


def penalty_points(cards: Iterable[Card], *, pip_values: bool = False) -> int:
    """Penalty points for cards left in hand: king 10, every other card 1; with
    ``pip_values`` ace 25, jack, queen and king 10, the others their pip value."""
    table = _PIP_PENALTY if pip_values else _PENALTY
    return sum(table[card.ordinal] for card in cards)


_PENALTY: Final = tuple(10 if ordinal // 4 == _KING_RANK else 1 for ordinal in range(52))
_PIP_PENALTY: Final = tuple(
    25 if rank == _ACE_RANK else 10 if rank >= 10 else rank + 1
    for rank in (ordinal // 4 for ordinal in range(52))
)


# -- actions ------------------------------------------------------------------------

_PLAY, _MOVE, _DRAW, _END = range(4)
_KIND_NAMES: Final = ("play", "move", "draw", "end")


class KingsCornerAction(str):
    """An action, its own canonical text: ``7H>N``, ``N>NE``, ``draw`` or ``end``.

    The actions are interned: ``KingsCornerAction("7h > n") is KingsCornerAction("7H>N")``.
    Construct them with :func:`parse_action` or this class (both raise
    InvalidActionError for text that is no action of the game).
    """

    __slots__ = ()

    def __new__(cls, text: str) -> KingsCornerAction:
        return parse_action(text)

    @property
    def kind(self) -> str:
        """``play``, ``move``, ``draw`` or ``end``."""
        return _KIND_NAMES[_INFO[self][0]]

    @property
    def card(self) -> Card | None:
        """The hand card a ``play`` puts on a pile (None for the other kinds)."""
        ordinal = _INFO[self][1]
        return DECK[ordinal] if ordinal >= 0 else None

    @property
    def source(self) -> str | None:
        """The side pile a ``move`` takes (None for the other kinds)."""
        index = _INFO[self][2]
        return PILES[index] if index >= 0 else None

    @property
    def target(self) -> str | None:
        """The pile a ``play`` or ``move`` goes to (None for ``draw`` and ``end``)."""
        index = _INFO[self][3]
        return PILES[index] if index >= 0 else None

    def __repr__(self) -> str:
        return f"KingsCornerAction({str.__str__(self)!r})"

    def __str__(self) -> str:
        return str.__str__(self)

    def __reduce__(self) -> tuple[type[KingsCornerAction], tuple[str]]:
        return (KingsCornerAction, (str.__str__(self),))


def _intern(text: str, kind: int, card: int, source: int, target: int) -> KingsCornerAction:
    action = str.__new__(KingsCornerAction, text)
    _INFO[action] = (kind, card, source, target)
    _BY_TEXT[text] = action
    return action


_INFO: dict[str, tuple[int, int, int, int]] = {}
_BY_TEXT: dict[str, KingsCornerAction] = {}
_PLAY_ACTIONS: Final = tuple(
    tuple(_intern(f"{_TEXT[card]}>{PILES[pile]}", _PLAY, card, -1, pile) for card in range(52))
    for pile in range(8)
)
"""``_PLAY_ACTIONS[pile][card]``."""
_MOVE_ACTIONS: Final = {
    (source, target): _intern(f"{SIDES[source]}>{PILES[target]}", _MOVE, -1, source, target)
    for source in range(4)
    for target in range(8)
    if target != source
}
"""``_MOVE_ACTIONS[source, target]``: only side piles move (a corner pile has a king at
the bottom, which fits on nothing, and corner-to-corner moves could cycle)."""
DRAW: Final = _intern("draw", _DRAW, -1, -1, -1)
END: Final = _intern("end", _END, -1, -1, -1)


def parse_action(text: str) -> KingsCornerAction:
    """Parse ``7H>N``, ``10h > ne``, ``N>NE``, ``draw`` or ``end``.

    Raises:
        InvalidActionError: ``text`` is no action of Kings in the Corner (also a move
            from a corner, or a pile onto itself); the message quotes it.
    """
    if not isinstance(text, str):
        raise InvalidActionError(f"not a Kings in the Corner action: {text!r}")
    action = _BY_TEXT.get(text)
    if action is not None:
        return action
    cleaned = "".join(text.split()).upper()
    action = _BY_TEXT.get(cleaned.lower() if cleaned in ("DRAW", "END") else cleaned)
    if action is None:
        left, arrow, right = cleaned.partition(">")
        if arrow and right in PILES and left not in PILES:
            try:
                card = parse_card(left)
            except InvalidCardError:
                pass
            else:
                return _PLAY_ACTIONS[PILES.index(right)][card.ordinal]
        raise InvalidActionError(
            f"not a Kings in the Corner action: {text!r} (write CARD>PILE such as '7H>N', "
            f"SIDE>PILE such as 'N>NE', 'draw' or 'end'; piles {' '.join(PILES)})"
        )
    return action


# -- options --------------------------------------------------------------------------


@pydantic_dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class KingsCornerOptions:
    """The rulings' options and the seven variants of rule text 002 (all off by default)."""

    king_piles_to_corner: Literal["opening", "anytime"] = Field(
        default="opening",
        description="when a side pile with a king at the bottom may move into an empty "
        "corner: only in the first player's first turn, or at any time",
    )
    must_play: bool = Field(
        default=False, description="Legepflicht: no draw while a hand card can be played"
    )
    draw_first: bool = Field(
        default=False,
        description="Zuerst ziehen: draw at the start of the turn, end it with 'end'",
    )
    kings_at_once: bool = Field(
        default=False,
        description="Könige sofort: a king that can go to an empty corner goes there first",
    )
    corners_in_suit: bool = Field(
        default=False, description="Ecken in Farbe: corners are built down in the same suit"
    )
    pip_values: bool = Field(
        default=False,
        description="Augenwerte: penalties ace 25, faces 10, other cards their pip value",
    )
    collect_corners: bool = Field(
        default=False,
        description="Ecken sammeln: a corner completed down to the ace goes to whoever "
        "completed it; most corners win, penalties break ties",
    )
    four_cards: bool = Field(default=False, description="Vier Karten: deal 4 cards each, not 7")

    @property
    def hand_size(self) -> int:
        return SHORT_HAND_SIZE if self.four_cards else HAND_SIZE


@dataclass(frozen=True)
class _Rules:
    """What the hot path needs from the options, looked up once per game."""

    options: KingsCornerOptions
    options_json: JSON
    below: tuple[tuple[tuple[int, ...], ...], ...]
    """``below[pile][top]``: the cards that may be played on ``top`` on that pile."""
    penalty: tuple[int, ...]
    king_piles_anytime: bool
    must_play: bool
    draw_first: bool
    kings_at_once: bool
    corners_in_suit: bool
    collect_corners: bool
    end_action: KingsCornerAction
    """``draw`` ends a turn, or ``end`` with ``draw_first``."""


@functools.lru_cache(maxsize=64)
def _rules_for(options: KingsCornerOptions) -> _Rules:
    corner_table = _BELOW_IN_SUIT if options.corners_in_suit else _BELOW_ALTERNATING
    return _Rules(
        options=options,
        options_json=GAME.options_to_dict(options),
        below=(_BELOW_ALTERNATING,) * 4 + (corner_table,) * 4,
        penalty=_PIP_PENALTY if options.pip_values else _PENALTY,
        king_piles_anytime=options.king_piles_to_corner == "anytime",
        must_play=options.must_play,
        draw_first=options.draw_first,
        kings_at_once=options.kings_at_once,
        corners_in_suit=options.corners_in_suit,
        collect_corners=options.collect_corners,
        end_action=END if options.draw_first else DRAW,
    )


def _lay(piles: list[list[int]], target: int, collect_corners: bool) -> bool:
    """Settle ``target`` after cards landed on it. With ``collect_corners`` a corner
    whose top card is an ace is complete (king down to ace) and leaves the table;
    returns whether it did."""
    if collect_corners and target >= 4 and piles[target][-1] < 4:
        piles[target] = []
        return True
    return False


def _playable(piles: list[list[int]], rules: _Rules) -> frozenset[int]:
    """Every card that could be played from a hand onto ``piles`` now."""
    cards: set[int] = set()
    for index, pile in enumerate(piles):
        if pile:
            cards.update(rules.below[index][pile[-1]])
        elif index < 4:
            return _ALL_CARDS
        else:
            cards.update(_KINGS)
    return frozenset(cards)


_ALL_CARDS: Final = frozenset(range(52))


# -- the state -------------------------------------------------------------------------


class KingsCornerState(State[KingsCornerAction, KingsCornerOptions]):
    """A position: hands, piles, the stock and where the current turn stands."""

    __slots__ = (
        "_acted",
        "_bare_turns",
        "_collected",
        "_dealt",
        "_drawers",
        "_hands",
        "_layout",
        "_legal",
        "_needs_draw",
        "_outcome",
        "_piles",
        "_rules",
        "_seat",
        "_started_empty",
        "_stock",
        "_turn",
    )

    def __init__(
        self,
        game: Game[KingsCornerAction, KingsCornerOptions],
        rules: _Rules,
        hands: Sequence[Sequence[int]],
        layout: Sequence[int],
        stock: Sequence[int],
        deal: Mapping[str, Any],
    ):
        super().__init__(game, len(hands), rules.options, deal)
        self._rules = rules
        self._dealt = tuple(tuple(sorted(hand)) for hand in hands)
        self._layout = tuple(layout)
        self._hands = [set(hand) for hand in hands]
        self._piles: list[list[int]] = [[card] for card in layout] + [[] for _ in CORNERS]
        self._stock = tuple(stock)
        """The stock from its top card down; ``len(self._drawers)`` cards are gone."""
        self._drawers: list[int] = []
        """The seat that drew each stock card, in order."""
        self._collected = [0] * len(hands)
        self._seat = 0
        self._turn = 0
        self._acted = False
        """Whether the player to move has played a card or moved a pile this turn."""
        self._started_empty = not stock
        self._needs_draw = rules.draw_first and bool(stock)
        self._bare_turns = 0
        """Turns in a row that began with an empty stock and ended without a play."""
        self._outcome: Outcome | None = None
        self._legal: list[KingsCornerAction] | None = None

    # -- queries ----------------------------------------------------------------------

    @property
    def current_seat(self) -> int:
        return self._seat

    def outcome(self) -> Outcome | None:
        return self._outcome

    def hand(self, seat: int) -> list[Card]:
        """The cards in ``seat``'s hand, in canonical order (the full truth, not an
        observation: for tests, referees and displays that may see every hand)."""
        return [DECK[card] for card in sorted(self._hands[seat])]

    def pile(self, name: str) -> list[Card]:
        """The pile ``name`` (``N`` … ``NW``) from its bottom card to its top card.

        Raises:
            KeyError: ``name`` is not a pile.
        """
        if name not in PILES:
            raise KeyError(f"no pile {name!r} (piles: {' '.join(PILES)})")
        return [DECK[card] for card in self._piles[PILES.index(name)]]

    @property
    def stock_size(self) -> int:
        return len(self._stock) - len(self._drawers)

    @property
    def turn(self) -> int:
        """Turns completed so far; turn 0 is the first player's first turn."""
        return self._turn

    def corners_collected(self, seat: int) -> int:
        """Corners ``seat`` has completed and taken (variant ``collect_corners``)."""
        return self._collected[seat]

    def legal_actions(self) -> list[KingsCornerAction]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate() if self._seat != TERMINAL else []
        return list(legal)

    def _generate(self) -> list[KingsCornerAction]:
        rules = self._rules
        if self._needs_draw:
            return [DRAW]
        hand = self._hands[self._seat]
        piles = self._piles
        below = rules.below
        actions: list[KingsCornerAction] = []
        append = actions.append
        pile_of_top: dict[int, int] = {}
        empty_corners: list[int] = []
        hand_in_order: list[int] | None = None
        for index in range(8):
            pile = piles[index]
            plays = _PLAY_ACTIONS[index]
            if pile:
                top = pile[-1]
                pile_of_top[top] = index
                for card in below[index][top]:
                    if card in hand:
                        append(plays[card])
            elif index < 4:
                if hand_in_order is None:
                    hand_in_order = sorted(hand)
                for card in hand_in_order:
                    append(plays[card])
            else:
                empty_corners.append(index)
                for card in _KINGS:
                    if card in hand:
                        append(plays[card])
        played_cards = bool(actions)
        king_piles_may_move = rules.king_piles_anytime or self._turn == 0
        in_suit_corners = rules.corners_in_suit
        for source in range(4):
            pile = piles[source]
            if not pile:
                continue
            bottom = pile[0]
            if bottom >= _FIRST_KING:
                if king_piles_may_move:
                    for target in empty_corners:
                        append(_MOVE_ACTIONS[source, target])
                continue
            # The piles whose top the bottom card fits; never the source itself, whose
            # top is at most as high as its bottom.
            targets = [
                target
                for top in _ABOVE_ALTERNATING[bottom]
                if (target := pile_of_top.get(top, -1)) >= 0 and (target < 4 or not in_suit_corners)
            ]
            if in_suit_corners and pile_of_top.get(_ABOVE_IN_SUIT[bottom], -1) >= 4:
                targets.append(pile_of_top[_ABOVE_IN_SUIT[bottom]])
            if len(targets) > 1:
                targets.sort()
            for target in targets:
                append(_MOVE_ACTIONS[source, target])
        if rules.kings_at_once and empty_corners:
            to_corners = [action for action in actions if _INFO[action][3] in empty_corners]
            if to_corners:
                return to_corners
        if not (rules.must_play and played_cards):
            append(rules.end_action)
        return actions

    # -- moves ----------------------------------------------------------------------------

    def _apply(self, action: KingsCornerAction) -> None:
        kind, card, source, target = _INFO[action]
        self._legal = None
        if kind == _PLAY:
            hand = self._hands[self._seat]
            hand.remove(card)
            self._piles[target].append(card)
            self._acted = True
            if _lay(self._piles, target, self._rules.collect_corners):
                self._collected[self._seat] += 1
            if not hand:
                self._finish(Termination.HAND_EMPTIED)
        elif kind == _MOVE:
            piles = self._piles
            piles[target].extend(piles[source])
            piles[source] = []
            self._acted = True
            if _lay(piles, target, self._rules.collect_corners):
                self._collected[self._seat] += 1
        elif kind == _DRAW and self._needs_draw:
            self._draw()
            self._needs_draw = False
        else:
            if kind == _DRAW and len(self._drawers) < len(self._stock):
                self._draw()
            self._end_turn()

    def _draw(self) -> None:
        self._hands[self._seat].add(self._stock[len(self._drawers)])
        self._drawers.append(self._seat)

    def _end_turn(self) -> None:
        if self._started_empty and not self._acted:
            self._bare_turns += 1
            if self._bare_turns >= self.num_seats:
                self._finish(Termination.BLOCKED)
                return
        else:
            self._bare_turns = 0
        self._seat = (self._seat + 1) % self.num_seats
        self._turn += 1
        self._acted = False
        stock_left = len(self._drawers) < len(self._stock)
        self._started_empty = not stock_left
        self._needs_draw = self._rules.draw_first and stock_left

    def _finish(self, termination: Termination) -> None:
        rules = self._rules
        penalty = rules.penalty
        penalties = [sum(penalty[card] for card in hand) for hand in self._hands]
        details: JSON = {
            "penalties": penalties,
            "cards_left": [[_TEXT[card] for card in sorted(hand)] for hand in self._hands],
        }
        if rules.collect_corners:
            details["corners"] = list(self._collected)
            scores = [
                CORNER_SCORE * corners - points
                for corners, points in zip(self._collected, penalties, strict=True)
            ]
            self._outcome = Outcome.from_scores(scores, termination, details=details)
        else:
            self._outcome = Outcome.from_scores(
                penalties, termination, higher_is_better=False, details=details
            )
        self._seat = TERMINAL
        self._legal = None

    def _copy_into(self, copy: KingsCornerState) -> None:
        copy._rules = self._rules
        copy._dealt = self._dealt
        copy._layout = self._layout
        copy._hands = [set(hand) for hand in self._hands]
        copy._piles = [list(pile) for pile in self._piles]
        copy._stock = self._stock
        copy._drawers = list(self._drawers)
        copy._collected = list(self._collected)
        copy._seat = self._seat
        copy._turn = self._turn
        copy._acted = self._acted
        copy._started_empty = self._started_empty
        copy._needs_draw = self._needs_draw
        copy._bare_turns = self._bare_turns
        copy._outcome = self._outcome
        copy._legal = self._legal

    # -- what a seat sees -------------------------------------------------------------

    def observation(self, seat: int) -> JSON:
        """What ``seat`` knows: its own hand (and the cards it was dealt and drew),
        every pile, every hand's size, the stock's size, the turn and the public
        actions. ``draw`` never names the card drawn."""
        return {
            "game": NAME,
            "seats": self.num_seats,
            "seat": seat,
            "options": dict(self._rules.options_json),
            "layout": {name: _TEXT[card] for name, card in zip(SIDES, self._layout, strict=True)},
            "dealt": [_TEXT[card] for card in self._dealt[seat]],
            "drawn": [
                _TEXT[self._stock[index]]
                for index, drawer in enumerate(self._drawers)
                if drawer == seat
            ],
            "hand": [_TEXT[card] for card in sorted(self._hands[seat])],
            "hand_sizes": [len(hand) for hand in self._hands],
            "stock_size": self.stock_size,
            "piles": {
                name: [_TEXT[card] for card in pile]
                for name, pile in zip(PILES, self._piles, strict=True)
            },
            "corners_collected": list(self._collected),
            "to_move": self._seat,
            "turn": self._turn,
            "opening_turn": self._turn == 0 and self._seat != TERMINAL,
            "played_this_turn": self._acted,
            "draw_pending": self._needs_draw,
            "bare_turns": self._bare_turns,
            "history": [[actor, str(action)] for actor, action in self.history],
        }

    def render(self, seat: int | None = None) -> str:
        def cards(ordinals: Iterable[int]) -> str:
            return " ".join(DECK[card].pretty() for card in ordinals) or "—"

        lines = [f"{name:>2}  {cards(pile)}" for name, pile in zip(PILES, self._piles, strict=True)]
        lines.append(f"stock: {self.stock_size} cards")
        for other in range(self.num_seats):
            size = len(self._hands[other])
            shown = seat is None or seat == other
            held = cards(sorted(self._hands[other])) if shown else f"{size} cards"
            collected = f", corners {self._collected[other]}" if self._rules.collect_corners else ""
            lines.append(f"seat {other}: {held}{collected}")
        if self._seat != TERMINAL:
            lines.append(f"seat {self._seat} to move (turn {self._turn + 1})")
        return "\n".join(lines)


# -- the game -----------------------------------------------------------------------------


class KingsCorner(Game[KingsCornerAction, KingsCornerOptions]):
    name = NAME
    title = "Kings in the Corner"
    min_seats = 2
    max_seats = 4
    default_seats = 4
    perfect_information = False
    has_chance = True
    options_type = KingsCornerOptions

    def random_deal(self, seats: int, options: KingsCornerOptions, rng: random.Random) -> JSON:
        """Shuffle, deal the hands one card at a time starting with seat 0 (left of the
        dealer), turn up the next four cards as N E S W; the rest is the stock."""
        deck = list(_TEXT)
        rng.shuffle(deck)
        dealt = seats * options.hand_size
        return {
            "hands": [deck[seat:dealt:seats] for seat in range(seats)],
            "layout": dict(zip(SIDES, deck[dealt : dealt + 4], strict=True)),
            "stock": deck[dealt + 4 :],
        }

    def state_from_deal(
        self,
        deal: Mapping[str, Any],
        *,
        seats: int,
        options: Mapping[str, Any] | KingsCornerOptions | None = None,
    ) -> KingsCornerState:
        """The state before the first action. ``deal`` has ``hands`` (one list per seat),
        ``layout`` (the cards for N E S W, as a mapping or a list) and ``stock`` (from
        its top card down); together they hold each of the 52 cards once.

        Raises:
            SeatCountError, OptionError: bad seats or options.
            InvalidDealError: a malformed deal; the message names the card or place.
        """
        self.check_seats(seats)
        parsed = self.parse_options(options)
        rules = _rules_for(parsed)
        hands, layout, stock = _parse_deal(deal, seats, parsed.hand_size)
        normal = {
            "hands": [[_TEXT[card] for card in hand] for hand in hands],
            "layout": {name: _TEXT[card] for name, card in zip(SIDES, layout, strict=True)},
            "stock": [_TEXT[card] for card in stock],
        }
        return KingsCornerState(self, rules, hands, layout, stock, normal)

    def parse_action(self, text: str) -> KingsCornerAction:
        return parse_action(text)

    def state_from_observation(
        self, observation: Mapping[str, Any], rng: random.Random
    ) -> KingsCornerState:
        """A full game consistent with ``observation``, replayed from a sampled deal.

        The observer's dealt and drawn cards stay where it saw them. Every card another
        seat played goes to a random place of that seat's hand that was filled before
        the play (a dealt card or an earlier draw); every card nobody has seen is then
        shuffled over the remaining places of the other hands and the stock. The public
        actions are replayed on that deal, so the sample is a real game with the same
        history, and its observation for the observer is ``observation`` itself.

        Raises:
            InvalidStateError: the observation is malformed or contradicts itself.
        """
        try:
            seats = self.check_seats(int(observation["seats"]))
            observer = int(observation["seat"])
            if not 0 <= observer < seats:
                raise ValueError(f"seat {observer} outside 0..{seats - 1}")
            options = self.parse_options(observation["options"])
            layout = [_card_ordinal(observation["layout"][name]) for name in SIDES]
            dealt = [_card_ordinal(text) for text in observation["dealt"]]
            drawn = [_card_ordinal(text) for text in observation["drawn"]]
            history = [(int(seat), parse_action(text)) for seat, text in observation["history"]]
            deal = _sample_deal(
                seats, _rules_for(options), observer, layout, dealt, drawn, history, rng
            )
            state = self.state_from_deal(deal, seats=seats, options=options)
            for seat, action in history:
                if seat != state.current_seat:
                    raise ValueError(f"{str(action)!r} by seat {seat} out of turn")
                state.apply_action(action)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InvalidStateError):
                raise
            raise InvalidStateError(f"not a consistent {NAME} observation: {exc}") from exc
        if state.observation(observer) != dict(observation):
            raise InvalidStateError(
                f"not a consistent {NAME} observation: its hand, piles or sizes do not "
                "follow from its deal and history"
            )
        return state

    def max_game_length(
        self, seats: int, options: Mapping[str, Any] | KingsCornerOptions | None
    ) -> int:
        """A proven bound (docs/games/kings_corner.md): at most 48 cards are played, a
        pile move onto a pile removes one of the ≤ 4 + 48 piles ever started, at most 4
        kings' piles go to a corner; every turn either draws from the stock, contains one
        of those ≤ 104 actions, or is one of fewer than ``seats`` bare turns in a row."""
        parsed = self.parse_options(options)
        stock = 52 - 4 - seats * parsed.hand_size
        cards_in_hands = 52 - 4
        active = cards_in_hands + (4 + cards_in_hands) + len(_KINGS)
        turns = stock + (active + 1) * seats
        draws_first = stock if parsed.draw_first else 0
        return active + turns + draws_first

    def return_bounds(
        self, seats: int, options: Mapping[str, Any] | KingsCornerOptions | None
    ) -> tuple[float, float]:
        """At worst one hand holds every card's penalty points; at best a seat empties
        its hand, or with ``collect_corners`` also collects all four corners. A forfeit
        scores -1 and +1."""
        parsed = self.parse_options(options)
        worst = sum(_PIP_PENALTY if parsed.pip_values else _PENALTY)
        best = CORNER_SCORE * len(CORNERS) if parsed.collect_corners else 0
        return (-float(max(worst, 1)), float(max(best, 1)))

    def variants(self) -> dict[str, KingsCornerOptions]:
        """The rulings' game, each of the seven variants of rule text 002 alone, the
        rulings' option ``king_piles_to_corner = "anytime"``, and every one at once."""
        flags = [spec.name for spec in self.option_specs() if spec.kind == "boolean"]
        named: dict[str, dict[str, Any]] = {"standard": {}}
        named |= {flag: {flag: True} for flag in flags}
        named["king_piles_anytime"] = {"king_piles_to_corner": "anytime"}
        named["every_variant"] = dict.fromkeys(flags, True) | named["king_piles_anytime"]
        return {name: self.parse_options(options) for name, options in named.items()}

    def match_formats(self) -> tuple[str, ...]:
        """A single game, or penalties added up over games to 25 or 50
        (``docs/games/kings_corner.md``)."""
        return SINGLE_FORMAT + PENALTY_FORMATS

    def match_penalties(
        self, state: State[KingsCornerAction, KingsCornerOptions]
    ) -> tuple[int, ...]:
        """The penalty points per seat of a finished game, in every variant.

        Raises:
            InvalidStateError: the game is not over yet, or was forfeited.
        """
        outcome = state.outcome()
        if outcome is None or "penalties" not in outcome.details:
            raise InvalidStateError(
                f"penalties are counted only at the end of a {NAME} game, not in {state.position()}"
            )
        return tuple(int(points) for points in outcome.details["penalties"])


def _card_ordinal(text: Any) -> int:
    ordinal = _ID_BY_TEXT.get(text) if isinstance(text, str) else None
    return ordinal if ordinal is not None else parse_card(text).ordinal


def _parse_deal(
    deal: Mapping[str, Any], seats: int, hand_size: int
) -> tuple[list[list[int]], list[int], list[int]]:
    if not isinstance(deal, Mapping):
        raise InvalidDealError(f"a {NAME} deal maps hands, layout and stock; got {deal!r}")
    seen: dict[int, str] = {}

    def cards(texts: Any, where: str, count: int | None) -> list[int]:
        if not isinstance(texts, list | tuple):
            raise InvalidDealError(f"{where} is a list of cards, not {texts!r}")
        if count is not None and len(texts) != count:
            raise InvalidDealError(f"{where} has {count} cards, got {len(texts)}: {texts!r}")
        result = []
        for text in texts:
            try:
                card = _card_ordinal(text)
            except InvalidCardError as exc:
                raise InvalidDealError(f"bad card in {where}: {exc}") from None
            if card in seen:
                raise InvalidDealError(
                    f"card {_TEXT[card]!r} is both in {seen[card]} and in {where}"
                )
            seen[card] = where
            result.append(card)
        return result

    hands = deal.get("hands")
    if not isinstance(hands, list | tuple) or len(hands) != seats:
        raise InvalidDealError(f"a deal for {seats} seats has {seats} hands, got {hands!r}")
    parsed_hands = [
        cards(hand, f"the hand of seat {seat}", hand_size) for seat, hand in enumerate(hands)
    ]
    layout = deal.get("layout")
    if isinstance(layout, Mapping):
        if sorted(layout) != sorted(SIDES):
            raise InvalidDealError(f"the layout names the side piles N E S W, got {layout!r}")
        layout = [layout[name] for name in SIDES]
    parsed_layout = cards(layout, "the layout", 4)
    stock_size = 52 - 4 - seats * hand_size
    parsed_stock = cards(deal.get("stock"), "the stock", stock_size)
    return parsed_hands, parsed_layout, parsed_stock


def _sample_deal(
    seats: int,
    rules: _Rules,
    observer: int,
    layout: list[int],
    dealt: list[int],
    drawn: list[int],
    history: list[tuple[int, KingsCornerAction]],
    rng: random.Random,
) -> JSON:
    """A deal consistent with what ``observer`` saw; raises ValueError when none is.

    The hidden places are the other seats' dealt cards and draws and the stock cards
    not drawn yet. Each card another seat played must have sat in one of that seat's
    places filled before the play; with ``must_play`` or ``kings_at_once`` a card
    must also not have been in a hand at a moment its holder's action shows it was
    not there (a ``draw`` while it could be played; any other action while it was a
    king and a corner was free). The places are matched to the cards at random, with
    augmenting paths where the first random choices leave a card without a place.
    """
    hand_size = rules.options.hand_size
    stock_size = 52 - 4 - seats * hand_size
    stock: list[int] = [-1] * stock_size
    place_seat: list[int] = []
    """Per hidden place: the seat holding it, or -1 for the stock."""
    place_since: list[int] = []
    """Per hidden place: the history index of the draw that filled it (-1: dealt)."""
    place_index: list[int] = []
    """Per hidden place: its slot in that seat's dealt hand, or its stock position."""
    for seat in range(seats):
        if seat != observer:
            for slot in range(hand_size):
                place_seat.append(seat)
                place_since.append(-1)
                place_index.append(slot)
    played: list[tuple[int, int, int]] = []
    """(history index, seat, card) of every card another seat played."""
    absent_at: dict[tuple[int, int], list[int]] = {}
    """(seat, card) → history indices at which the seat cannot have held the card."""
    piles: list[list[int]] = [[card] for card in layout] + [[] for _ in CORNERS]
    drawn_so_far = 0
    own_draws = 0
    infers_absence = rules.must_play or rules.kings_at_once
    for index, (seat, action) in enumerate(history):
        kind, card, source, target = _INFO[action]
        if seat != observer and infers_absence:
            absent: frozenset[int] | tuple[int, ...] = ()
            if rules.must_play and action is rules.end_action:
                absent = _playable(piles, rules)
            free_corner = any(not piles[corner] for corner in range(4, 8))
            opens_corner = target >= 4 and not piles[target]
            is_start_draw = rules.draw_first and kind == _DRAW
            if rules.kings_at_once and free_corner and not opens_corner and not is_start_draw:
                absent = frozenset(absent).union(_KINGS)
            for gone in absent:
                absent_at.setdefault((seat, gone), []).append(index)
        if kind == _PLAY:
            if seat != observer:
                played.append((index, seat, card))
            piles[target].append(card)
            _lay(piles, target, rules.collect_corners)
        elif kind == _MOVE:
            piles[target].extend(piles[source])
            piles[source] = []
            _lay(piles, target, rules.collect_corners)
        elif kind == _DRAW and drawn_so_far < stock_size:
            if seat == observer:
                if own_draws < len(drawn):
                    stock[drawn_so_far] = drawn[own_draws]
                own_draws += 1
            else:
                place_seat.append(seat)
                place_since.append(index)
                place_index.append(drawn_so_far)
            drawn_so_far += 1
    if len(dealt) != hand_size or own_draws != len(drawn):
        raise ValueError(
            f"seat {observer} holds {len(dealt)} dealt and {len(drawn)} drawn cards, which "
            f"does not fit a hand of {hand_size} and the draws in the history"
        )
    in_hand_until = {card: index for index, _, card in played}
    player_of = {card: seat for _, seat, card in played}
    for position in range(drawn_so_far, stock_size):
        place_seat.append(-1)
        place_since.append(-1)
        place_index.append(position)
    unseen = set(range(52)).difference(layout, dealt, drawn)
    if len(unseen) != 52 - 4 - len(dealt) - len(drawn):
        raise ValueError("the layout, dealt and drawn cards repeat a card")
    if not unseen.issuperset(in_hand_until):
        raise ValueError("another seat played a card the observer saw elsewhere")

    def fits(card: int, place: int) -> bool:
        seat = place_seat[place]
        if seat < 0:
            return card not in in_hand_until
        since = place_since[place]
        until = in_hand_until.get(card, len(history))
        if card in in_hand_until and (player_of[card] != seat or since >= until):
            return False
        return not any(since < t <= until for t in absent_at.get((seat, card), ()))

    holder: list[int] = [-1] * len(place_seat)
    """Per place: the card matched to it, or -1."""
    free = list(range(len(place_seat)))
    where_free = list(range(len(place_seat)))
    """Per place: its position in ``free`` while it is free."""
    options: dict[int, list[int]] = {}

    def take(place: int, card: int) -> None:
        if holder[place] < 0:
            last = free.pop()
            if last != place:
                free[where_free[place]] = last
                where_free[last] = where_free[place]
        holder[place] = card

    def places_for(card: int) -> list[int]:
        if card not in options:
            options[card] = [place for place in range(len(place_seat)) if fits(card, place)]
            rng.shuffle(options[card])
        return options[card]

    def augment(card: int, visited: set[int]) -> bool:
        for place in places_for(card):
            if place not in visited:
                visited.add(place)
                if holder[place] < 0 or augment(holder[place], visited):
                    take(place, card)
                    return True
        return False

    rest = sorted(unseen.difference(in_hand_until))
    rng.shuffle(rest)
    for card in [card for _, _, card in played] + rest:
        # A uniformly random free place that fits: a few blind tries (enough when
        # nothing constrains the card), then every free place, then augmenting paths.
        for _ in range(4):
            place = free[rng.randrange(len(free))]
            if fits(card, place):
                take(place, card)
                break
        else:
            fitting = [place for place in free if fits(card, place)]
            if fitting:
                take(fitting[rng.randrange(len(fitting))], card)
            elif not augment(card, set()):
                raise ValueError(f"no hidden place can hold {_TEXT[card]!r}")
    hands = [list(dealt) if seat == observer else [-1] * hand_size for seat in range(seats)]
    for place, card in enumerate(holder):
        if place_seat[place] < 0 or place_since[place] >= 0:
            stock[place_index[place]] = card
        else:
            hands[place_seat[place]][place_index[place]] = card
    return {
        "hands": [[_TEXT[card] for card in hand] for hand in hands],
        "layout": [_TEXT[card] for card in layout],
        "stock": [_TEXT[card] for card in stock],
    }


def make_deal(
    hands: Sequence[Sequence[str]],
    layout: Sequence[str],
    stock_top: Sequence[str] = (),
) -> JSON:
    """A deal with the given hands, side cards (N E S W) and top of the stock; the
    remaining cards follow in the stock in canonical order. For set positions
    (examples, puzzles, tests); ``state_from_deal`` checks the result.

    Raises:
        InvalidCardError: a text that is not a card.
    """
    named = {parse_card(text) for group in (*hands, layout, stock_top) for text in group}
    rest = [str(card) for card in DECK if card not in named]
    return {
        "hands": [[str(parse_card(text)) for text in hand] for hand in hands],
        "layout": [str(parse_card(text)) for text in layout],
        "stock": [str(parse_card(text)) for text in stock_top] + rest,
    }


GAME: Final = KingsCorner()
