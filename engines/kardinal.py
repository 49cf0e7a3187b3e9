"""Kardinal & König, the card game (rule text 003 and ../shared/RULINGS.md).

56 country cards of 9 countries lie face up in 4 rows of 14; 8 of them carry a
face-down law tablet. On a turn a player takes cards one at a time from the ends of
the rows — all of one country and at most 2 circles in total unless a played tablet
lifts a limit — may play tablets before or between takes, may then place (or, with an
empty supply, move) one claim stone, and ends the turn. A card under another
player's stone costs a stone from the supply to take. When every card is taken, each
country scores its majorities and its circle leaders, 5 or more ships or carriages
score one point each, and every ``minus2`` tablet costs 2 points.

A card is named by its country code and its number within the country: ``FR3`` is
the third Frankreich card of the deck. Actions (any case on input):

* ``take FR3``      take the end card FR3 (paying a stone when another's stone is on it)
* ``play mixed``    play a held tablet: ``reclaim``, ``three`` or ``mixed``
* ``stone FR3``     after taking: place a stone from the supply on FR3
* ``move FR3>EN2``  after taking, with an empty supply: move your stone from FR3 to EN2
* ``end``           end a turn in which you took a card
* ``skip``          end a turn in which you took none, because none could be taken

Internally a card is its index in :data:`CARD_IDS`; the deck (circles and symbols
per card, the tablet mix) is data (:class:`Deck`), the default one built here from
the rulings and written out card by card in ``configs/kardinal/deck.toml``.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import random
import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal, cast

import pydantic
from pydantic import ConfigDict, Field, field_validator, model_validator
from pydantic.dataclasses import dataclass

from engines.core import JSON, TERMINAL, Game, State
from engines.errors import (
    InvalidActionError,
    InvalidCardError,
    InvalidDealError,
    InvalidStateError,
    OptionError,
    short_repr,
)
from engines.outcome import Outcome, Termination

# -- countries, cards, tablets --------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Country:
    code: str
    name: str
    size: int
    """How many cards of this country the deck has (also what its majority scores)."""


COUNTRIES: Final = (
    Country("DK", "Dänemark", 4),
    Country("EN", "England", 5),
    Country("IT", "Italien", 6),
    Country("BY", "Bayern", 6),
    Country("HU", "Ungarn", 6),
    Country("KA", "Kastilien", 7),
    Country("FK", "Franken", 7),
    Country("SN", "Sachsen", 7),
    Country("FR", "Frankreich", 8),
)
CARD_IDS: Final = tuple(f"{c.code}{n}" for c in COUNTRIES for n in range(1, c.size + 1))
CARD_COUNTRY: Final = tuple(k for k, c in enumerate(COUNTRIES) for _ in range(c.size))
"""The country (an index into COUNTRIES) of every card."""
NUM_CARDS: Final = len(CARD_IDS)
NUM_ROWS: Final = 4
ROW_LENGTH: Final = 14
STONES_PER_SEAT: Final = 3
NUM_TABLETS: Final = 8
BASE_CIRCLE_LIMIT: Final = 2
RAISED_CIRCLE_LIMIT: Final = 3
SYMBOL_THRESHOLD: Final = 5

CARD_INDEX: Final = {card_id: index for index, card_id in enumerate(CARD_IDS)}
_COUNTRY_BY_KEY: Final = {
    key.lower(): country for country in COUNTRIES for key in (country.code, country.name)
}
_CARD_RANGES: Final = ", ".join(f"{c.code}1–{c.code}{c.size}" for c in COUNTRIES)

SYMBOLS: Final = ("none", "ship", "carriage")
NO_SYMBOL, SHIP, CARRIAGE = 0, 1, 2
TABLET_KINDS: Final = ("reclaim", "three", "mixed", "minus2")
RECLAIM, THREE, MIXED, MINUS2 = 0, 1, 2, 3
PLAYABLE_TABLETS: Final = (RECLAIM, THREE, MIXED)


SymbolName = Literal["none", "ship", "carriage"]


def card_index(text: str) -> int:
    """``"fr3"`` → the index of FR3 in :data:`CARD_IDS`.

    Raises:
        InvalidCardError: ``text`` names no card of the game.
    """
    index = CARD_INDEX.get(text.strip().upper()) if isinstance(text, str) else None
    if index is None:
        raise InvalidCardError(f"not a Kardinal card: {text!r} (cards are {_CARD_RANGES})")
    return index


# -- the deck as data -----------------------------------------------------------------

_STRICT = ConfigDict(extra="forbid")


@dataclass(frozen=True, config=_STRICT)
class DeckCard:
    """One country card: its country, 0–2 circles and at most one symbol."""

    country: str = Field(description="a country's name (Frankreich) or code (FR)")
    circles: int = Field(description="0, 1 or 2")
    symbol: SymbolName = Field(default="none", description="ship, carriage or none")

    @field_validator("country", mode="before")
    @classmethod
    def _known_country(cls, value: Any) -> str:
        country = _COUNTRY_BY_KEY.get(value.strip().lower()) if isinstance(value, str) else None
        if country is None:
            names = ", ".join(c.name for c in COUNTRIES)
            raise ValueError(f"unknown country {value!r} (countries: {names})")
        return country.name

    @field_validator("circles")
    @classmethod
    def _circles_in_range(cls, value: int) -> int:
        if not 0 <= value <= 2:
            raise ValueError(f"a card has 0, 1 or 2 circles, not {value!r}")
        return value

    @field_validator("symbol", mode="before")
    @classmethod
    def _one_symbol(cls, value: Any) -> Any:
        words = (
            re.findall(r"[a-z0-9]+", value.lower())
            if isinstance(value, str)
            else list(value)
            if isinstance(value, list | tuple)
            else None
        )
        if words is None:
            return value
        if len(words) > 1:
            raise ValueError(f"a card carries at most one symbol, not {value!r}")
        return words[0] if words else "none"


@dataclass(frozen=True, config=_STRICT)
class TabletMix:
    """How many law tablets of each kind lie face down at the start (8 in all)."""

    reclaim: int = Field(default=2, ge=0, description="spent stones return to the supply")
    three: int = Field(default=2, ge=0, description="up to 3 circles this turn")
    mixed: int = Field(default=2, ge=0, description="several countries this turn")
    minus2: int = Field(default=2, ge=0, description="-2 points at the end; not playable")

    def counts(self) -> tuple[int, int, int, int]:
        """The counts in the order of :data:`TABLET_KINDS`."""
        return (self.reclaim, self.three, self.mixed, self.minus2)


@dataclass(frozen=True, config=_STRICT)
class Deck:
    """A whole deck: the 56 cards and the tablet mix.

    The countries and their card counts are fixed by the rulings; the circles and
    symbols of each card and the mix of the 8 tablets may vary. The n-th card of a
    country in ``cards`` is that country's card n (``FR3``).

    Raises (on validation, as pydantic errors):
        a country's card count or the total is not the rulings', the tablets do not
        add up to 8, an unknown country, circles outside 0–2, two symbols on a card.
    """

    cards: tuple[DeckCard, ...]
    tablets: TabletMix = Field(default_factory=TabletMix)

    @model_validator(mode="after")
    def _totals(self) -> Deck:
        counts = Counter(card.country for card in self.cards)
        wrong = [
            f"{c.name} {counts[c.name]} (not {c.size})"
            for c in COUNTRIES
            if counts[c.name] != c.size
        ]
        if wrong:
            raise ValueError(
                f"cards: {NUM_CARDS} expected (the rulings' deck), {len(self.cards)} found; "
                f"wrong counts: {', '.join(wrong)}"
            )
        total = sum(self.tablets.counts())
        if total != NUM_TABLETS:
            mix = ", ".join(
                f"{kind} {count}"
                for kind, count in zip(TABLET_KINDS, self.tablets.counts(), strict=True)
            )
            raise ValueError(f"tablets: {NUM_TABLETS} law tablets expected, {total} found ({mix})")
        return self


def _default_deck() -> Deck:
    """The default deck of the rulings: circles alternate 1, 2, … (Dänemark 0) and the
    symbols lie on each country's first cards, ships before carriages."""
    ships = {"DK": 2, "EN": 2, "KA": 2, "FR": 2, "IT": 1}
    carriages = {"BY": 2, "FK": 2, "SN": 2, "HU": 2, "FR": 1}
    cards = []
    for country in COUNTRIES:
        symbols: list[SymbolName] = ["ship"] * ships.get(country.code, 0)
        symbols += ["carriage"] * carriages.get(country.code, 0)
        for n in range(country.size):
            circles = 0 if country.code == "DK" else 1 + n % 2
            symbol: SymbolName = symbols[n] if n < len(symbols) else "none"
            cards.append(DeckCard(country=country.name, circles=circles, symbol=symbol))
    return Deck(cards=tuple(cards), tablets=TabletMix())


DEFAULT_DECK: Final = _default_deck()
_DECK_ADAPTER: Final = pydantic.TypeAdapter(Deck)


class DeckError(OptionError):
    """Deck data or a deck file that is not a valid deck. The message is one line
    naming the file (when there is one) and each problem's place, never the deck."""

    def __init__(self, problem: str, *, source: str | None = None):
        where = "bad deck" if source is None else f"bad deck file {source!r}"
        super().__init__(f"{where}: {problem}")
        self.problem = problem


def deck_from_data(data: Any) -> Deck:
    """Validate deck data (a mapping with ``cards`` and ``tablets``).

    Raises:
        DeckError: the data is not a valid deck; the message names every problem
            (up to five) with its place, e.g. ``cards[12].circles (card 13: England)``.
    """
    try:
        return _DECK_ADAPTER.validate_python(data)
    except pydantic.ValidationError as exc:
        problems = []
        for error in exc.errors()[:5]:
            message = str(error["msg"]).removeprefix("Value error, ")
            if not error["loc"]:  # the whole deck's counts: the message names its place
                problems.append(message)
                continue
            got = error.get("input")
            said = isinstance(got, Mapping | list | tuple) or f"not {got}" in message
            said = said or repr(got) in message
            shown = "" if said else f" (got {short_repr(got)})"
            problems.append(f"{_place(error['loc'], data)}: {message}{shown}")
        raise DeckError("; ".join(problems)) from None


def _place(location: Sequence[int | str], data: Any) -> str:
    """``cards[12].circles (card 13: England)``: the path of a problem in deck data,
    with the card it is on."""
    place = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in location)
    place = place.lstrip(".")
    if len(location) > 1 and location[0] == "cards" and isinstance(location[1], int):
        try:
            country = data["cards"][location[1]]["country"]
        except (KeyError, IndexError, TypeError):
            country = None
        place += f" (card {location[1] + 1}{f': {country}' if isinstance(country, str) else ''})"
    return place


def deck_from_toml_text(text: str) -> Deck:
    """Parse a deck file's text (the format of ``configs/kardinal/deck.toml``).

    Pure: the caller reads the file. Raises DeckError for bad TOML or a bad deck.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DeckError(f"not TOML ({exc})") from None
    return deck_from_data(data)


def deck_to_data(deck: Deck) -> JSON:
    """The deck as JSON data (what the ``deck`` option holds in a record)."""
    data: JSON = _DECK_ADAPTER.dump_python(deck, mode="json")
    return data


@dataclasses.dataclass(frozen=True)
class DeckTables:
    """A deck as flat per-card tables for the engine's inner loops."""

    circles: tuple[int, ...]
    symbol: tuple[int, ...]
    tablet_mix: tuple[int, ...]
    """Count of each tablet kind, in the order of TABLET_KINDS."""


@functools.lru_cache(maxsize=32)
def deck_tables(deck: Deck | None) -> DeckTables:
    """The tables of ``deck`` (None: the default deck)."""
    deck = DEFAULT_DECK if deck is None else deck
    circles = [0] * NUM_CARDS
    symbol = [0] * NUM_CARDS
    seen: Counter[str] = Counter()
    offsets = {c.name: CARD_INDEX[f"{c.code}1"] for c in COUNTRIES}
    for card in deck.cards:
        index = offsets[card.country] + seen[card.country]
        seen[card.country] += 1
        circles[index] = card.circles
        symbol[index] = SYMBOLS.index(card.symbol)
    return DeckTables(tuple(circles), tuple(symbol), deck.tablets.counts())


DEFAULT_TABLES: Final = deck_tables(None)


# -- options ----------------------------------------------------------------------------


@dataclass(frozen=True, config=_STRICT)
class KardinalOptions:
    """The deck is the only option; everything else is fixed by the rulings."""

    deck: Deck | None = Field(
        default=None,
        description="deck data (cards and tablets); null: the default deck of the "
        "rulings (configs/kardinal/deck.toml); on the command line deck=FILE",
    )

    @field_validator("deck", mode="before")
    @classmethod
    def _data_not_path(cls, value: Any) -> Any:
        if isinstance(value, str):
            raise ValueError(
                f"the deck option holds deck data, not the file name {value!r}: read the "
                "file with arena.play.decks.load_deck_file (what deck=FILE does on the "
                "command line)"
            )
        return value


# -- scoring ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SeatScore:
    """One seat's points by source."""

    majorities: int
    circles: int
    ships: int
    carriages: int
    tablets: int

    @property
    def total(self) -> int:
        return self.majorities + self.circles + self.ships + self.carriages + self.tablets

    def to_dict(self) -> JSON:
        return {
            "majorities": self.majorities,
            "circles": self.circles,
            "ships": self.ships,
            "carriages": self.carriages,
            "tablets": self.tablets,
            "total": self.total,
        }


@dataclasses.dataclass(frozen=True)
class CountryScore:
    """How one country scored: per seat its cards, majority place and points."""

    country: str
    cards: tuple[int, ...]
    places: tuple[int | None, ...]
    """1 for the most cards; tied seats share a place and the next place is skipped
    (1, 1, 3); None for a seat without a card of the country."""
    majority_points: tuple[int, ...]
    circles: tuple[int, ...]
    circle_points: tuple[int, ...]

    def to_dict(self) -> JSON:
        """Per seat lists, keyed as the fields (without the country's name)."""
        return {
            "cards": list(self.cards),
            "places": list(self.places),
            "majority_points": list(self.majority_points),
            "circles": list(self.circles),
            "circle_points": list(self.circle_points),
        }


def score_holdings(
    holdings: Sequence[Iterable[int]],
    minus2_tablets: Sequence[int],
    tables: DeckTables = DEFAULT_TABLES,
) -> tuple[tuple[SeatScore, ...], tuple[CountryScore, ...]]:
    """Score the cards each seat holds (card indices) and its ``minus2`` tablets.

    Per country, among the seats holding a card of it: the most cards score the
    country's card count, every lower count scores the next higher count (so after
    a tie the next seat scores the tied seats' count); the most circles score their
    own circle count. 5 or more ships (carriages) score one point each. Each
    ``minus2`` tablet is −2.
    """
    seats = len(holdings)
    cards = [[0] * len(COUNTRIES) for _ in range(seats)]
    circles = [[0] * len(COUNTRIES) for _ in range(seats)]
    symbols = [[0, 0, 0] for _ in range(seats)]
    for seat, held in enumerate(holdings):
        for card in held:
            k = CARD_COUNTRY[card]
            cards[seat][k] += 1
            circles[seat][k] += tables.circles[card]
            symbols[seat][tables.symbol[card]] += 1
    majority = [0] * seats
    circle_total = [0] * seats
    countries = []
    for k, country in enumerate(COUNTRIES):
        counts = [cards[seat][k] for seat in range(seats)]
        levels = sorted({n for n in counts if n}, reverse=True)
        points = [
            0 if n == 0 else country.size if n == levels[0] else levels[levels.index(n) - 1]
            for n in counts
        ]
        places = tuple(None if n == 0 else 1 + sum(m > n for m in counts) for n in counts)
        own_circles = [circles[seat][k] for seat in range(seats)]
        most = max(own_circles)
        circle_points = [c if c == most else 0 for c in own_circles]
        for seat in range(seats):
            majority[seat] += points[seat]
            circle_total[seat] += circle_points[seat]
        countries.append(
            CountryScore(
                country.name,
                tuple(counts),
                places,
                tuple(points),
                tuple(own_circles),
                tuple(circle_points),
            )
        )
    scores = tuple(
        SeatScore(
            majorities=majority[seat],
            circles=circle_total[seat],
            ships=_symbol_points(symbols[seat][SHIP]),
            carriages=_symbol_points(symbols[seat][CARRIAGE]),
            tablets=-2 * minus2_tablets[seat],
        )
        for seat in range(seats)
    )
    return scores, tuple(countries)


def _symbol_points(count: int) -> int:
    return count if count >= SYMBOL_THRESHOLD else 0


# -- actions ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Take:
    """Take the end card ``card`` (an index into CARD_IDS)."""

    card: int

    def __str__(self) -> str:
        return f"take {CARD_IDS[self.card]}"


@dataclasses.dataclass(frozen=True, slots=True)
class PlaceStone:
    """Place a stone from the supply on ``card``."""

    card: int

    def __str__(self) -> str:
        return f"stone {CARD_IDS[self.card]}"


@dataclasses.dataclass(frozen=True, slots=True)
class MoveStone:
    """Move one's stone from ``source`` to ``target``."""

    source: int
    target: int

    def __str__(self) -> str:
        return f"move {CARD_IDS[self.source]}>{CARD_IDS[self.target]}"


@dataclasses.dataclass(frozen=True, slots=True)
class PlayTablet:
    """Play a held tablet of kind ``kind`` (an index into TABLET_KINDS)."""

    kind: int

    def __str__(self) -> str:
        return f"play {TABLET_KINDS[self.kind]}"


@dataclasses.dataclass(frozen=True, slots=True)
class EndTurn:
    """End a turn in which a card was taken."""

    def __str__(self) -> str:
        return "end"


@dataclasses.dataclass(frozen=True, slots=True)
class Skip:
    """End a turn in which no card could be taken."""

    def __str__(self) -> str:
        return "skip"


KardinalAction = Take | PlaceStone | MoveStone | PlayTablet | EndTurn | Skip

TAKES: Final = tuple(Take(card) for card in range(NUM_CARDS))
STONES: Final = tuple(PlaceStone(card) for card in range(NUM_CARDS))
MOVES: Final = tuple(
    tuple(MoveStone(source, target) for target in range(NUM_CARDS)) for source in range(NUM_CARDS)
)
PLAYS: Final = tuple(PlayTablet(kind) for kind in range(len(TABLET_KINDS)))
END: Final = EndTurn()
SKIP: Final = Skip()

_ACTION_TEXT: Final = re.compile(r"\s*(take|stone|move|play|end|skip)\b\s*(.*?)\s*", re.I | re.S)


def parse_action(text: str) -> KardinalAction:
    """Parse ``take FR3``, ``play mixed``, ``stone FR3``, ``move FR3>EN2``, ``end``, ``skip``.

    Raises:
        InvalidActionError: not an action of the game (also ``play minus2``, which no
            one can play, and a move onto the card the stone stands on).
    """
    found = _ACTION_TEXT.fullmatch(text) if isinstance(text, str) else None
    if found is None:
        raise InvalidActionError(
            f"not a Kardinal action: {text!r} (actions: take FR3, play mixed, stone FR3, "
            "move FR3>EN2, end, skip)"
        )
    verb, rest = found.group(1).lower(), found.group(2)
    try:
        if verb in ("end", "skip"):
            if rest:
                raise InvalidActionError(f"not a Kardinal action: {text!r} ({verb} takes nothing)")
            return END if verb == "end" else SKIP
        if verb == "take":
            return TAKES[card_index(rest)]
        if verb == "stone":
            return STONES[card_index(rest)]
        if verb == "move":
            source, sep, target = rest.partition(">")
            if not sep:
                raise InvalidActionError(f"not a Kardinal action: {text!r} (write move FR3>EN2)")
            first, second = card_index(source), card_index(target)
            if first == second:
                raise InvalidActionError(f"not a Kardinal action: {text!r} (moves nowhere)")
            return MOVES[first][second]
    except InvalidCardError as exc:
        raise InvalidActionError(f"not a Kardinal action: {text!r}: {exc}") from None
    kind = rest.lower()
    if kind in TABLET_KINDS and TABLET_KINDS.index(kind) in PLAYABLE_TABLETS:
        return PLAYS[TABLET_KINDS.index(kind)]
    playable = ", ".join(TABLET_KINDS[k] for k in PLAYABLE_TABLETS)
    raise InvalidActionError(
        f"not a Kardinal action: {text!r} (playable tablets: {playable}; minus2 cannot be played)"
    )


# -- the state ----------------------------------------------------------------------------


class KardinalState(State[KardinalAction, KardinalOptions]):
    """A position: the rows, stones, face-down tablets, holdings and the turn so far."""

    def __init__(
        self,
        game: Game[KardinalAction, KardinalOptions],
        num_seats: int,
        options: KardinalOptions,
        deal: Mapping[str, Any],
        layout: tuple[tuple[int, ...], ...],
        tablets: Mapping[int, int],
    ):
        super().__init__(game, num_seats, options, deal)
        self._tables = deck_tables(options.deck)
        self._options_data = game.options_to_dict(options)
        self._layout = layout
        position = [0] * NUM_CARDS
        for row, cards in enumerate(layout):
            for column, card in enumerate(cards):
                position[card] = row * ROW_LENGTH + column
        self._position = tuple(position)
        self._tablet_cards = tuple(c for row in layout for c in row if c in tablets)
        self._lo = [0] * NUM_ROWS
        self._hi = [ROW_LENGTH - 1] * NUM_ROWS
        self._stone = [-1] * NUM_CARDS
        self._tablet = [tablets.get(card, -1) for card in range(NUM_CARDS)]
        self._supply = [STONES_PER_SEAT] * num_seats
        self._spent = [0] * num_seats
        self._placed: list[list[int]] = [[] for _ in range(num_seats)]
        self._held = [[0] * len(TABLET_KINDS) for _ in range(num_seats)]
        self._cards: list[list[int]] = [[] for _ in range(num_seats)]
        self._played: list[tuple[int, int]] = []
        self._remaining = NUM_CARDS
        self._seat = 0
        self._taken_now: list[int] = []
        self._circles_now = 0
        self._circle_limit = BASE_CIRCLE_LIMIT
        self._mixed = False
        self._stone_done = False
        self._skips = 0
        self._outcome: Outcome | None = None

    # -- queries ------------------------------------------------------------------------

    @property
    def current_seat(self) -> int:
        return TERMINAL if self._outcome is not None else self._seat

    @property
    def tables(self) -> DeckTables:
        return self._tables

    def outcome(self) -> Outcome | None:
        return self._outcome

    def rows(self) -> list[list[int]]:
        """The cards still in each row, left to right."""
        return [list(row[self._lo[r] : self._hi[r] + 1]) for r, row in enumerate(self._layout)]

    def end_cards(self) -> list[int]:
        """The cards at the ends of the rows (each once), row by row, left end first."""
        ends: list[int] = []
        for r, row in enumerate(self._layout):
            lo, hi = self._lo[r], self._hi[r]
            if lo < hi:
                ends += (row[lo], row[hi])
            elif lo == hi:
                ends.append(row[lo])
        return ends

    def stone_on(self, card: int) -> int | None:
        """The seat whose stone lies on ``card``, or None."""
        seat = self._stone[card]
        return None if seat < 0 else seat

    def has_face_down_tablet(self, card: int) -> bool:
        return self._tablet[card] >= 0

    def holdings(self, seat: int) -> list[int]:
        """The cards ``seat`` has taken, in order."""
        return list(self._cards[seat])

    def supply(self, seat: int) -> int:
        return self._supply[seat]

    def spent(self, seat: int) -> int:
        """Stones ``seat`` paid to unblock cards (out of play until a ``reclaim``)."""
        return self._spent[seat]

    def placed(self, seat: int) -> list[int]:
        """The cards carrying ``seat``'s stones."""
        return list(self._placed[seat])

    def held_tablets(self, seat: int) -> list[int]:
        """The kinds of the tablets ``seat`` holds (hidden from the others)."""
        return [kind for kind, n in enumerate(self._held[seat]) for _ in range(n)]

    def taken_this_turn(self) -> list[int]:
        return list(self._taken_now)

    def current_scores(self) -> tuple[SeatScore, ...]:
        """The score if the game ended now (cards taken so far, ``minus2`` tablets held)."""
        scores, _ = score_holdings(self._cards, [held[MINUS2] for held in self._held], self._tables)
        return scores

    def legal_actions(self) -> list[KardinalAction]:
        if self._outcome is not None:
            return []
        if self._stone_done:
            return [END]
        me = self._seat
        actions = self.taking_actions()
        if not self._taken_now:
            if not actions or type(actions[-1]) is not Take:  # takes come last
                actions.append(SKIP)
            return actions
        stone = self._stone
        layout = self._layout
        free = [
            card
            for r in range(NUM_ROWS)
            for card in layout[r][self._lo[r] : self._hi[r] + 1]
            if stone[card] < 0
        ]
        if self._supply[me] > 0:
            actions += [STONES[card] for card in free]
        else:
            for source in self._placed[me]:
                moves = MOVES[source]
                actions += [moves[card] for card in free]
        actions.append(END)
        return actions

    def taking_actions(self) -> list[KardinalAction]:
        """The legal tablet plays and takes, first among the legal actions and in their
        order: what the taking part of the turn may still do (none once a stone is
        placed or the game is over). Cheaper than :meth:`legal_actions` for a search
        over takes, which need not list every stone."""
        if self._outcome is not None or self._stone_done:
            return []
        me = self._seat
        held = self._held[me]
        actions: list[KardinalAction] = [PLAYS[k] for k in PLAYABLE_TABLETS if held[k]]
        can_pay = self._supply[me] > 0
        circles_left = self._circle_limit - self._circles_now
        taken_now = self._taken_now
        country_now = CARD_COUNTRY[taken_now[0]] if taken_now and not self._mixed else -1
        circles = self._tables.circles
        stone = self._stone
        layout = self._layout
        for r in range(NUM_ROWS):
            lo, hi = self._lo[r], self._hi[r]
            if lo > hi:
                continue
            row = layout[r]
            for card in (row[lo], row[hi]) if lo < hi else (row[lo],):
                owner = stone[card]
                if owner >= 0 and owner != me and not can_pay:
                    continue
                if circles[card] > circles_left:
                    continue
                if country_now >= 0 and CARD_COUNTRY[card] != country_now:
                    continue
                actions.append(TAKES[card])
        return actions

    # -- moves ----------------------------------------------------------------------------

    def _apply(self, action: KardinalAction) -> None:
        kind = type(action)
        me = self._seat
        if kind is Take:
            self._take(me, cast(Take, action).card)
        elif kind is PlaceStone:
            card = cast(PlaceStone, action).card
            self._supply[me] -= 1
            self._stone[card] = me
            self._placed[me].append(card)
            self._stone_done = True
        elif kind is MoveStone:
            move = cast(MoveStone, action)
            placed = self._placed[me]
            placed[placed.index(move.source)] = move.target
            self._stone[move.source] = -1
            self._stone[move.target] = me
            self._stone_done = True
        elif kind is PlayTablet:
            tablet = cast(PlayTablet, action).kind
            self._held[me][tablet] -= 1
            self._played.append((me, tablet))
            if tablet == RECLAIM:
                self._supply[me] += self._spent[me]
                self._spent[me] = 0
            elif tablet == THREE:
                self._circle_limit = RAISED_CIRCLE_LIMIT
            else:
                self._mixed = True
        elif kind is EndTurn:
            self._skips = 0
            self._next_turn()
        else:
            self._skips += 1
            if self._skips == self.num_seats:
                self._finish(Termination.EVERY_PLAYER_SKIPPED)
            else:
                self._next_turn()

    def _take(self, me: int, card: int) -> None:
        position = self._position[card]
        row = position // ROW_LENGTH
        if position % ROW_LENGTH == self._lo[row]:
            self._lo[row] += 1
        else:
            self._hi[row] -= 1
        owner = self._stone[card]
        if owner >= 0:
            self._stone[card] = -1
            self._placed[owner].remove(card)
            self._supply[owner] += 1
            if owner != me:
                self._supply[me] -= 1
                self._spent[me] += 1
        tablet = self._tablet[card]
        if tablet >= 0:
            self._tablet[card] = -1
            self._held[me][tablet] += 1
        self._cards[me].append(card)
        self._taken_now.append(card)
        self._circles_now += self._tables.circles[card]
        self._remaining -= 1
        if self._remaining == 0:
            self._finish(Termination.ALL_CARDS_TAKEN)

    def _next_turn(self) -> None:
        self._seat = (self._seat + 1) % self.num_seats
        self._taken_now = []
        self._circles_now = 0
        self._circle_limit = BASE_CIRCLE_LIMIT
        self._mixed = False
        self._stone_done = False

    def _finish(self, termination: Termination) -> None:
        minus2 = [held[MINUS2] for held in self._held]
        scores, countries = score_holdings(self._cards, minus2, self._tables)
        tables = self._tables
        details = {
            "scores": [score.to_dict() for score in scores],
            "countries": {country.country: country.to_dict() for country in countries},
            "symbols": {
                name: [sum(tables.symbol[c] == symbol for c in cards) for cards in self._cards]
                for symbol, name in ((SHIP, "ships"), (CARRIAGE, "carriages"))
            },
            "minus2_tablets": minus2,
        }
        self._outcome = Outcome.from_scores(
            [score.total for score in scores], termination, details=details
        )

    def _copy_into(self, copy: KardinalState) -> None:
        # The base fields live in the base class's slots; the instance dictionary holds
        # this game's own fields, shared where immutable and copied below where not.
        copy.__dict__.update(self.__dict__)
        copy._lo = list(self._lo)
        copy._hi = list(self._hi)
        copy._stone = list(self._stone)
        copy._tablet = list(self._tablet)
        copy._supply = list(self._supply)
        copy._spent = list(self._spent)
        copy._placed = [list(p) for p in self._placed]
        copy._held = [list(h) for h in self._held]
        copy._cards = [list(c) for c in self._cards]
        copy._played = list(self._played)
        copy._taken_now = list(self._taken_now)

    # -- what a seat sees ---------------------------------------------------------------

    def observation(self, seat: int) -> JSON:
        """Everything public plus ``seat``'s own tablets.

        A tablet's kind is known to nobody while it lies face down and only to its
        holder until it is played; the others see how many tablets each holds and
        which cards carry (or carried) one.
        """
        ids = CARD_IDS
        stone = self._stone
        display = [card for row in self.rows() for card in row]
        options = self._options_data
        return {
            "game": self.game.name,
            "seat": seat,
            "num_seats": self.num_seats,
            "options": copy.deepcopy(options) if options.get("deck") else dict(options),
            "to_move": self.current_seat,
            "layout": [[ids[card] for card in row] for row in self._layout],
            "tablet_cards": [ids[card] for card in self._tablet_cards],
            "rows": [[ids[card] for card in row] for row in self.rows()],
            "stones": {ids[card]: stone[card] for card in display if stone[card] >= 0},
            "face_down": [ids[card] for card in display if self._tablet[card] >= 0],
            "holdings": [[ids[card] for card in cards] for cards in self._cards],
            "supply": list(self._supply),
            "spent": list(self._spent),
            "tablet_counts": [sum(held) for held in self._held],
            "my_tablets": [TABLET_KINDS[kind] for kind in self.held_tablets(seat)],
            "played_tablets": [[s, TABLET_KINDS[kind]] for s, kind in self._played],
            "turn": {
                "taken": [ids[card] for card in self._taken_now],
                "circles": self._circles_now,
                "circle_limit": self._circle_limit,
                "mixed": self._mixed,
                "stone_done": self._stone_done,
            },
            "skips_in_a_row": self._skips,
            "history": [[s, str(action)] for s, action in self.history],
        }

    def render(self, seat: int | None = None) -> str:
        """Rows left to right: ``FR3○○⚓`` (circles, ⚓ ship, ♞ carriage), ``▣`` a
        face-down tablet, ``●2`` seat 2's stone; then every seat's holdings."""
        tables = self._tables
        glyph = ("", "⚓", "♞")

        def show(card: int) -> str:
            text = CARD_IDS[card] + "○" * tables.circles[card] + glyph[tables.symbol[card]]
            if self._tablet[card] >= 0:
                text += "▣"
            if self._stone[card] >= 0:
                text += f"●{self._stone[card]}"
            return text

        lines = [
            f"row {r + 1}: " + (" ".join(show(card) for card in row) or "—")
            for r, row in enumerate(self.rows())
        ]
        for s in range(self.num_seats):
            counts = Counter(COUNTRIES[CARD_COUNTRY[c]].code for c in self._cards[s])
            held = (
                ", ".join(TABLET_KINDS[k] for k in self.held_tablets(s)) or "no tablets"
                if s == seat
                else f"{sum(self._held[s])} tablets"
            )
            lines.append(
                f"seat {s}: "
                + (" ".join(f"{code}×{n}" for code, n in sorted(counts.items())) or "no cards")
                + f"   stones {self._supply[s]} in supply, {self._spent[s]} spent   {held}"
            )
        if self._outcome is None:
            taken = " ".join(CARD_IDS[c] for c in self._taken_now) or "nothing yet"
            lines.append(
                f"seat {self._seat} to move; taken this turn: {taken} "
                f"(circles {self._circles_now}/{self._circle_limit}"
                f"{', mixed countries' if self._mixed else ''})"
            )
        return "\n".join(lines)


# -- the game ---------------------------------------------------------------------------


class Kardinal(Game[KardinalAction, KardinalOptions]):
    name = "kardinal"
    title = "Kardinal & König"
    min_seats = 2
    max_seats = 5
    default_seats = 4
    perfect_information = False
    has_chance = True
    options_type = KardinalOptions

    def random_deal(self, seats: int, options: KardinalOptions, rng: random.Random) -> JSON:
        mix = deck_tables(self.parse_options(options).deck).tablet_mix
        cards = list(CARD_IDS)
        rng.shuffle(cards)
        layout = [cards[r * ROW_LENGTH : (r + 1) * ROW_LENGTH] for r in range(NUM_ROWS)]
        kinds = [TABLET_KINDS[kind] for kind, n in enumerate(mix) for _ in range(n)]
        rng.shuffle(kinds)
        chosen = set(rng.sample(range(NUM_CARDS), len(kinds)))
        carriers = [card for i, card in enumerate(cards) if i in chosen]
        return {"layout": layout, "tablets": dict(zip(carriers, kinds, strict=True))}

    def state_from_deal(
        self,
        deal: Mapping[str, Any],
        *,
        seats: int | None = None,
        options: Mapping[str, Any] | KardinalOptions | None = None,
    ) -> KardinalState:
        """The initial state of a deal ``{"layout": 4 rows of 14 card ids, "tablets":
        {card id: kind}}``.

        Raises:
            InvalidDealError: a row of the wrong length, an unknown or repeated card,
                a tablet on no card of the layout, or a tablet mix unlike the deck's.
            SeatCountError, OptionError: bad seats or options.
        """
        seats = self.check_seats(self.default_seats if seats is None else seats)
        parsed = self.parse_options(options)
        if not isinstance(deal, Mapping):
            raise InvalidDealError(
                f"a Kardinal deal is a mapping with layout and tablets: {deal!r}"
            )
        layout = parse_layout(deal.get("layout"))
        tablets = parse_tablets(deal.get("tablets"), deck_tables(parsed.deck).tablet_mix)
        in_order = {card: tablets[card] for row in layout for card in row if card in tablets}
        canonical = {
            "layout": [[CARD_IDS[card] for card in row] for row in layout],
            "tablets": {CARD_IDS[card]: TABLET_KINDS[kind] for card, kind in in_order.items()},
        }
        return KardinalState(self, seats, parsed, canonical, layout, in_order)

    def parse_action(self, text: str) -> KardinalAction:
        return parse_action(text)

    def state_from_observation(
        self, observation: Mapping[str, Any], rng: random.Random
    ) -> KardinalState:
        """Spread the tablet kinds the observer does not know over the face-down
        tablets and the tablets the others hold, then replay the public history.

        A tablet another seat played is given to one of the tablets that seat had
        picked up before playing it; the observer's own tablets keep their kinds.

        Raises:
            InvalidStateError: the observation is malformed or inconsistent.
        """
        try:
            options = self.parse_options(observation["options"])
            me = int(observation["seat"])
            seats = int(observation["num_seats"])
            carriers = {card_index(card) for card in observation["tablet_cards"]}
            history = [(int(s), parse_action(text)) for s, text in observation["history"]]
            kinds_of = {kind: k for k, kind in enumerate(TABLET_KINDS)}
            my_kinds = [kinds_of[kind] for kind in observation["my_tablets"]]
            picked_up: list[list[int]] = [[] for _ in range(seats)]
            assigned: dict[int, int] = {}
            pool = Counter({k: n for k, n in enumerate(deck_tables(options.deck).tablet_mix)})
            for seat, action in history:
                if isinstance(action, Take) and action.card in carriers:
                    picked_up[seat].append(action.card)
                elif isinstance(action, PlayTablet):
                    held = picked_up[seat]
                    assigned[held.pop(rng.randrange(len(held)))] = action.kind
                    pool[action.kind] -= 1
            if len(my_kinds) != len(picked_up[me]):
                raise InvalidStateError(
                    f"seat {me} holds {observation['my_tablets']!r} but picked up "
                    f"{len(picked_up[me])} unplayed tablets"
                )
            assigned.update(zip(picked_up[me], my_kinds, strict=True))
            pool.subtract(my_kinds)
            taken = {action.card for _, action in history if isinstance(action, Take)}
            unknown = [
                card for seat in range(seats) if seat != me for card in picked_up[seat]
            ] + sorted(card for card in carriers if card not in taken)
            kinds = list(pool.elements())
            if any(n < 0 for n in pool.values()) or len(kinds) != len(unknown):
                raise InvalidStateError(
                    f"the tablets seen do not fit the deck's mix {dict(pool)!r}"
                )
            rng.shuffle(kinds)
            assigned.update(zip(unknown, kinds, strict=True))
            deal = {
                "layout": observation["layout"],
                "tablets": {CARD_IDS[card]: TABLET_KINDS[kind] for card, kind in assigned.items()},
            }
            state = self.state_from_deal(deal, seats=seats, options=options)
            for seat, action in history:
                if seat != state.current_seat:
                    raise InvalidStateError(
                        f"action {str(action)!r} by seat {seat}, but seat "
                        f"{state.current_seat} is to move"
                    )
                state.apply_unchecked(action)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            if isinstance(exc, InvalidStateError):
                raise
            raise InvalidStateError(f"not a Kardinal observation: {exc!r}") from exc
        return state

    def variants(self) -> dict[str, KardinalOptions]:
        """The default deck, and the same deck without circles (no circle limit ever
        ends a turn: the longest turns; ``configs/kardinal/no-circles.toml``)."""
        no_circles = Deck(
            cards=tuple(dataclasses.replace(card, circles=0) for card in DEFAULT_DECK.cards),
            tablets=DEFAULT_DECK.tablets,
        )
        return {"standard": KardinalOptions(), "no_circles": KardinalOptions(deck=no_circles)}

    def max_game_length(
        self, seats: int, options: Mapping[str, Any] | KardinalOptions | None
    ) -> int:
        # Every card is taken once and each taking turn places at most one stone; a
        # turn ends with end or skip, and fewer than `seats` skips come between two
        # taking turns (that many in a row end the game).
        turns = NUM_CARDS + (NUM_CARDS + 1) * (seats - 1) + 1
        return NUM_CARDS + NUM_TABLETS + NUM_CARDS + turns

    def return_bounds(
        self, seats: int, options: Mapping[str, Any] | KardinalOptions | None
    ) -> tuple[float, float]:
        """At best one seat holds every card: every country's majority and circles,
        and every ship and carriage; at worst a seat holds nothing and every ``minus2``
        tablet of the deck's mix. A forfeit scores -1 and +1."""
        tables = deck_tables(self.parse_options(options).deck)
        best = (
            sum(country.size for country in COUNTRIES)
            + sum(tables.circles)
            + sum(1 for symbol in tables.symbol if symbol in (SHIP, CARRIAGE))
        )
        worst = 2 * tables.tablet_mix[MINUS2]
        return (-float(max(worst, 1)), float(max(best, 1)))


def parse_layout(rows: Any) -> tuple[tuple[int, ...], ...]:
    """Parse 4 rows of 14 card ids that use every card once.

    Raises:
        InvalidDealError: wrong shape, an unknown card or a repeated one.
    """
    if not isinstance(rows, list | tuple) or len(rows) != NUM_ROWS:
        raise InvalidDealError(f"a Kardinal layout is {NUM_ROWS} rows of {ROW_LENGTH}: {rows!r}")
    layout = []
    seen: set[int] = set()
    for r, row in enumerate(rows):
        if not isinstance(row, list | tuple) or len(row) != ROW_LENGTH:
            raise InvalidDealError(f"row {r + 1} of the layout is not {ROW_LENGTH} cards: {row!r}")
        cards = []
        for text in row:
            try:
                card = card_index(text)
            except InvalidCardError as exc:
                raise InvalidDealError(f"bad layout: {exc}") from None
            if card in seen:
                raise InvalidDealError(f"bad layout: {CARD_IDS[card]!r} appears twice")
            seen.add(card)
            cards.append(card)
        layout.append(tuple(cards))
    return tuple(layout)


def parse_tablets(tablets: Any, mix: Sequence[int]) -> dict[int, int]:
    """Parse ``{card id: tablet kind}``; the kinds must be the deck's mix.

    Raises:
        InvalidDealError: not a mapping, an unknown card or kind, or the wrong mix.
    """
    if not isinstance(tablets, Mapping):
        raise InvalidDealError(f"the deal's tablets are a mapping card → kind: {tablets!r}")
    parsed: dict[int, int] = {}
    for text, kind in tablets.items():
        try:
            card = card_index(text)
        except InvalidCardError as exc:
            raise InvalidDealError(f"bad tablets: {exc}") from None
        if kind not in TABLET_KINDS:
            raise InvalidDealError(
                f"bad tablets: {kind!r} on {text!r} is no tablet kind ({', '.join(TABLET_KINDS)})"
            )
        if card in parsed:
            raise InvalidDealError(f"bad tablets: two tablets on {CARD_IDS[card]!r}")
        parsed[card] = TABLET_KINDS.index(kind)
    counts = Counter(parsed.values())
    found = tuple(counts[kind] for kind in range(len(TABLET_KINDS)))
    if found != tuple(mix):
        raise InvalidDealError(
            f"bad tablets: the deal has {dict(zip(TABLET_KINDS, found, strict=True))!r}, "
            f"the deck {dict(zip(TABLET_KINDS, mix, strict=True))!r}"
        )
    return parsed


GAME: Final = Kardinal()
