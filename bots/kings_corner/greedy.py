"""A greedy player for Kings in the Corner: empty the hand as fast as possible.

It looks at its own hand and the piles only (no search, no memory) and ranks the
legal actions, best first:

1. a king from the hand into an empty corner (kings cost 10 and fit nothing else);
2. a pile with a king at the bottom into an empty corner (frees a side spot);
3. a whole side pile onto another pile (frees a side spot for a card that fits
   nowhere);
4. a card onto a pile, the one that lets the longest chain of further hand cards
   follow it first;
5. a card that fits no pile into an empty side spot, again the one that starts
   the longest chain (then the costliest card); cards that fit a pile are kept for
   the piles;
6. ``draw`` / ``end``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from bots.base import Bot
from bots.registry import BotKind
from engines.cards import Card
from engines.core import Action
from engines.kings_corner import CORNERS, NAME, card_fits, parse_action, penalty_points

# The classes of actions, best first (the module docstring's order); the heuristic
# simulation of bots.kings_corner.policies ranks actions by the same classes.
KING_TO_CORNER: Final = 6
KING_PILE_TO_CORNER: Final = 5
PILE_MOVE: Final = 4
ONTO_PILE: Final = 3
INTO_EMPTY_SPOT: Final = 2
END_TURN: Final = 1
WASTED_SPOT: Final = 0
"""A card that fits a pile put into an empty side spot: legal, but only when forced."""


class GreedyKingsCornerBot(Bot):
    """Sheds cards greedily: kings to corners, pile moves, long chains first."""

    name = "greedy"

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]  # the only legal action
        view = _View(observation)
        return max(legal_actions, key=view.score)


class _View:
    """The seat's hand and the piles' top cards, for scoring actions."""

    def __init__(self, observation: Mapping[str, Any]):
        options = observation["options"]
        self.in_suit = bool(options["corners_in_suit"])
        self.pip_values = bool(options["pip_values"])
        self.hand = [Card(text) for text in observation["hand"]]
        self.tops = {
            name: Card(cards[-1]) if cards else None for name, cards in observation["piles"].items()
        }
        self.empty_corner = any(self.tops[corner] is None for corner in CORNERS)

    def score(self, action: Action) -> tuple[int, ...]:
        parsed = parse_action(str(action))
        target = parsed.target
        if parsed.kind == "move":
            assert target is not None
            return (KING_PILE_TO_CORNER if self.tops[target] is None else PILE_MOVE,)
        card = parsed.card
        if card is None or target is None:
            return (END_TURN,)
        rest = [other for other in self.hand if other != card]
        chain = self.chain_below(card, rest, corner=target in CORNERS)
        cost = penalty_points([card], pip_values=self.pip_values)
        if self.tops[target] is not None:
            return (ONTO_PILE, chain, cost, card.rank)
        if target in CORNERS:
            return (KING_TO_CORNER, chain)
        if self.fits_somewhere(card):
            return (WASTED_SPOT, chain, cost, card.rank)
        return (INTO_EMPTY_SPOT, chain, cost, card.rank)

    def fits_somewhere(self, card: Card) -> bool:
        if card.rank == 13 and self.empty_corner:
            return True
        return any(
            top is not None and card_fits(card, top, in_suit=self.in_suit and name in CORNERS)
            for name, top in self.tops.items()
        )

    def chain_below(self, top: Card, cards: list[Card], *, corner: bool) -> int:
        """How many of ``cards`` can follow ``top`` one after another on its pile."""
        in_suit = self.in_suit and corner
        best = 0
        for card in cards:
            if card_fits(card, top, in_suit=in_suit):
                rest = [other for other in cards if other != card]
                best = max(best, 1 + self.chain_below(card, rest, corner=corner))
        return best


GREEDY: Final = BotKind(
    "greedy",
    GreedyKingsCornerBot,
    "Kings in the Corner: kings to corners, pile moves, longest chains first, "
    "cards that fit nothing into empty side spots",
    games=frozenset({NAME}),
)
