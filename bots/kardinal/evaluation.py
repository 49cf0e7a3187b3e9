"""The greedy Kardinal & König player's evaluation: the points every seat would score
if the game ended now, plus credit for ship and carriage sets still within reach of
the 5-symbol threshold; majorities that no one can overtake any more count in full,
contested ones less. The greedy player, its take planner and the search bots'
simulations all value positions with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from engines.kardinal import (
    CARD_COUNTRY,
    CARD_INDEX,
    CARRIAGE,
    COUNTRIES,
    SHIP,
    SYMBOL_THRESHOLD,
    DeckTables,
)

SYMBOL_CREDIT: Final = 0.5
"""Per symbol held toward a set of 5 that the cards left can still complete."""
CONTESTED_WEIGHT: Final = 0.6
"""How much a majority place counts while others could still overtake it."""


class Evaluator:
    """Points per seat from the cards held, for trying out what taking cards would do."""

    def __init__(self, observation: Mapping[str, Any], tables: DeckTables):
        self.tables = tables
        self.seats = int(observation["num_seats"])
        countries = len(COUNTRIES)
        self.counts = [[0] * countries for _ in range(self.seats)]
        self.circles = [[0] * countries for _ in range(self.seats)]
        self.symbols = [[0, 0, 0] for _ in range(self.seats)]
        for seat, cards in enumerate(observation["holdings"]):
            for card_id in cards:
                self._add(seat, CARD_INDEX[card_id], 1)
        self.left = [0] * countries
        self.symbols_left = [0, 0, 0]
        for row in observation["rows"]:
            for card_id in row:
                card = CARD_INDEX[card_id]
                self.left[CARD_COUNTRY[card]] += 1
                self.symbols_left[tables.symbol[card]] += 1

    def _add(self, seat: int, card: int, sign: int) -> None:
        country = CARD_COUNTRY[card]
        self.counts[seat][country] += sign
        self.circles[seat][country] += sign * self.tables.circles[card]
        self.symbols[seat][self.tables.symbol[card]] += sign

    def country_points(self, country: int) -> list[float]:
        counts = [self.counts[s][country] for s in range(self.seats)]
        levels = sorted({n for n in counts if n}, reverse=True)
        size = COUNTRIES[country].size
        left = self.left[country]
        circles = [self.circles[s][country] for s in range(self.seats)]
        most_circles = max(circles)
        points = []
        for seat, n in enumerate(counts):
            if n == 0:
                points.append(0.0)
                continue
            place = levels.index(n)
            value = float(size if place == 0 else levels[place - 1])
            rivals = [m for s, m in enumerate(counts) if s != seat]
            safe = n > max(rivals, default=0) + left or left == 0
            value *= 1.0 if safe else CONTESTED_WEIGHT
            if circles[seat] == most_circles:
                value += circles[seat] * (1.0 if left == 0 else CONTESTED_WEIGHT)
            points.append(value)
        return points

    def symbol_points(self, seat: int) -> float:
        total = 0.0
        for kind in (SHIP, CARRIAGE):
            held = self.symbols[seat][kind]
            if held >= SYMBOL_THRESHOLD:
                total += held
            elif held + self.symbols_left[kind] >= SYMBOL_THRESHOLD:
                total += SYMBOL_CREDIT * held
        return total

    def take(self, seat: int, cards: Iterable[int]) -> None:
        """Move ``cards`` from the rows to ``seat``'s holdings."""
        takes = takes_of(self.tables, cards)
        for country in range(len(COUNTRIES)):
            self._move_country(seat, country, takes, 1)
        self._move_symbols(seat, takes, 1)

    def _move_country(self, seat: int, country: int, takes: Takes, sign: int) -> None:
        """Move the cards of ``country`` that ``takes`` counts to ``seat`` (back: -1)."""
        count = sign * takes[2 * country]
        self.counts[seat][country] += count
        self.circles[seat][country] += sign * takes[2 * country + 1]
        self.left[country] -= count

    def _move_symbols(self, seat: int, takes: Takes, sign: int) -> None:
        """Move the ships and carriages ``takes`` counts to ``seat`` (back: -1)."""
        for kind, taken in ((SHIP, takes[_SHIPS]), (CARRIAGE, takes[_CARRIAGES])):
            self.symbols[seat][kind] += sign * taken
            self.symbols_left[kind] -= sign * taken

    def gains(self, seat: int, cards: Iterable[int]) -> list[float]:
        """How every seat's points change if ``seat`` takes ``cards``."""
        return self.gains_of(seat, takes_of(self.tables, cards))

    def gains_of(self, seat: int, takes: Takes, memo: GainMemo | None = None) -> list[float]:
        """How every seat's points change if ``seat`` takes what ``takes`` counts. A
        caller asking many times while the evaluator does not change passes a ``memo``
        (a country's change depends only on its cards and circles taken, the symbols'
        only on the ships and carriages)."""
        memo = {} if memo is None else memo
        changes = [0.0] * self.seats
        for country in range(len(COUNTRIES)):
            if takes[2 * country]:
                key = (seat, country, takes[2 * country], takes[2 * country + 1])
                if key not in memo:
                    before = self.country_points(country)
                    self._move_country(seat, country, takes, 1)
                    after = self.country_points(country)
                    self._move_country(seat, country, takes, -1)
                    memo[key] = [a - b for a, b in zip(after, before, strict=True)]
                for s, change in enumerate(memo[key]):
                    changes[s] += change
        key = (seat, -1, takes[_SHIPS], takes[_CARRIAGES])
        if key not in memo:
            symbols_before = self.symbol_points(seat)
            self._move_symbols(seat, takes, 1)
            memo[key] = [self.symbol_points(seat) - symbols_before]
            self._move_symbols(seat, takes, -1)
        changes[seat] += memo[key][0]
        return changes

    def advantage(self, seat: int, cards: Iterable[int]) -> float:
        """What ``seat`` gains by taking ``cards``, less what its rivals gain on average."""
        return self.advantage_of(seat, takes_of(self.tables, cards))

    def advantage_of(self, seat: int, takes: Takes, memo: GainMemo | None = None) -> float:
        """What ``seat`` gains by taking what ``takes`` counts, less its rivals'
        average (``memo``: as for :meth:`gains_of`)."""
        changes = self.gains_of(seat, takes, memo)
        rivals = [c for s, c in enumerate(changes) if s != seat]
        return changes[seat] - (sum(rivals) / len(rivals) if rivals else 0.0)


GainMemo = dict[tuple[int, int, int, int], list[float]]
"""An :class:`Evaluator`'s answers for one seat taking some cards of a country (seat,
country, cards, circles), or ships and carriages (seat, -1, ships, carriages)."""
Takes = tuple[int, ...]
"""What taking some cards changes for an :class:`Evaluator` (all it depends on): per
country the cards and the circles taken (at ``2 * country`` and ``2 * country + 1``),
then the ships and the carriages taken."""
_SHIPS: Final = 2 * len(COUNTRIES)
_CARRIAGES: Final = _SHIPS + 1
NO_TAKES: Final[Takes] = (0,) * (_CARRIAGES + 1)


def takes_of(tables: DeckTables, cards: Iterable[int]) -> Takes:
    """What taking ``cards`` changes (with the deck's ``tables``)."""
    takes = NO_TAKES
    for card in cards:
        takes = plus_take(tables, takes, card)
    return takes


def plus_take(tables: DeckTables, takes: Takes, card: int) -> Takes:
    """``takes`` and one more card."""
    changed = list(takes)
    country = CARD_COUNTRY[card]
    changed[2 * country] += 1
    changed[2 * country + 1] += tables.circles[card]
    symbol = tables.symbol[card]
    if symbol == SHIP:
        changed[_SHIPS] += 1
    elif symbol == CARRIAGE:
        changed[_CARRIAGES] += 1
    return tuple(changed)
