"""Playing cards in the common notation of ../shared/RULINGS.md.

A card is two ASCII characters, rank then suit: ``TD`` is the ten of diamonds.
Parsing accepts lower case and ``10`` for ``T``; output is always canonical.

:class:`Card` is a ``str`` subclass holding the canonical text, so a card is its own
text form, hashes and compares as fast as a string and is JSON-able as it stands.
The 52 cards are interned: ``Card("qh") is Card("QH")``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Final

from engines.errors import InvalidCardError

RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"
RED_SUITS: Final = frozenset("HD")
SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_NAMES: Final = {"T": "10"}


class Card(str):
    """One of the 52 cards; construct with ``Card("QH")`` (raises InvalidCardError)."""

    __slots__ = ()

    def __new__(cls, text: str) -> Card:
        try:
            return _BY_TEXT[text]
        except (KeyError, TypeError):
            return parse_card(text)

    @property
    def rank(self) -> int:
        """Rank as a number: ace 1, two 2, …, ten 10, jack 11, queen 12, king 13."""
        return _RANK_VALUE[self]

    @property
    def suit(self) -> str:
        """Suit letter: S, H, D or C."""
        return self[1]

    @property
    def is_red(self) -> bool:
        """True for hearts and diamonds."""
        return self[1] in RED_SUITS

    @property
    def ordinal(self) -> int:
        """Position 0..51 in the canonical deck order (by rank, then suit S H D C)."""
        return _INDEX[self]

    def pretty(self) -> str:
        """Text for people: ``10♥``, ``Q♠``."""
        return RANK_NAMES.get(self[0], self[0]) + SUIT_SYMBOLS[self[1]]

    def __repr__(self) -> str:
        return f"Card({str.__str__(self)!r})"

    def __str__(self) -> str:
        return str.__str__(self)

    def __reduce__(self) -> tuple[type[Card], tuple[str]]:
        return (Card, (str.__str__(self),))


def _make(text: str) -> Card:
    return str.__new__(Card, text)


DECK: Final[tuple[Card, ...]] = tuple(_make(rank + suit) for rank in RANKS for suit in SUITS)
_BY_TEXT: Final[dict[str, Card]] = {str.__str__(card): card for card in DECK}
_RANK_VALUE: Final[dict[str, int]] = {c: RANKS.index(c[0]) + 1 for c in _BY_TEXT}
_INDEX: Final[dict[str, int]] = {c: i for i, c in enumerate(_BY_TEXT)}


def parse_card(text: str) -> Card:
    """Parse a card in the common notation (``QH``, ``qh``, ``10h``).

    >>> parse_card("10h"), parse_card(" qs ").pretty()
    (Card('TH'), 'Q♠')
    >>> parse_card("1H")
    Traceback (most recent call last):
    engines.errors.InvalidCardError: not a card: '1H' ...

    Raises:
        InvalidCardError: ``text`` is not a card; the message quotes it.
    """
    exact = _BY_TEXT.get(text) if isinstance(text, str) else None
    if exact is not None:
        return exact
    if not isinstance(text, str):
        raise InvalidCardError(f"not a card: {text!r} (expected text such as 'QH' or '10D')")
    cleaned = text.strip().upper()
    if cleaned.startswith("10"):
        cleaned = "T" + cleaned[2:]
    card = _BY_TEXT.get(cleaned)
    if card is None:
        raise InvalidCardError(
            f"not a card: {text!r} (a card is a rank {'/'.join(RANKS)} or 10 "
            f"followed by a suit {'/'.join(SUITS)}, e.g. 'QH')"
        )
    return card


def parse_cards(texts: Iterable[str]) -> list[Card]:
    """Parse several cards; raises InvalidCardError on the first bad one."""
    return [parse_card(t) for t in texts]


def make_deck(ranks: str = RANKS, suits: str = SUITS) -> list[Card]:
    """The cards with the given ranks and suits, in canonical order."""
    return [_BY_TEXT[r + s] for r in RANKS if r in ranks for s in SUITS if s in suits]


def shuffled(cards: Sequence[Card], rng: random.Random) -> list[Card]:
    """A shuffled copy of ``cards``; the only randomness is ``rng``."""
    result = list(cards)
    rng.shuffle(result)
    return result


def check_distinct(cards: Iterable[Card], where: str) -> None:
    """Raise InvalidCardError naming the first card that appears twice."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise InvalidCardError(f"card {str(card)!r} appears twice in {where}")
        seen.add(card)
