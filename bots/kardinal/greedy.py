"""A greedy player for Kardinal & König.

It values a position as :mod:`bots.kardinal.evaluation` does (the points every seat
would score if the game ended now, and what is still within reach). On its turn it
plans its takes and tablet plays (:mod:`bots.kardinal.planner`, on a determinised
state, with only the tablets it really holds) and follows the plan that gains it the
most over the average rival, counting stones paid and tablets used. Then it puts a
stone on the end card a rival would profit from most (the rival's gain plus this
player's loss), or on one it wants itself, keeping a stone in reserve unless the card
is worth a lot; with an empty supply it moves a stone when that is clearly better.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from bots.base import Bot
from bots.kardinal.evaluation import Evaluator
from bots.kardinal.planner import can_take, take_plans
from bots.registry import BotKind
from engines.core import Action, Game
from engines.errors import InvalidStateError
from engines.kardinal import (
    CARD_INDEX,
    EndTurn,
    KardinalOptions,
    KardinalState,
    MoveStone,
    PlaceStone,
    Skip,
    deck_tables,
)

NEXT_TO_END_WEIGHT: Final = 0.4
"""How urgent blocking a card one step from an end is, against an end card."""
OWN_CARD_WEIGHT: Final = 0.7
"""A stone on a card one wants oneself counts less than one denying a rival."""
MOVE_MARGIN: Final = 2.0


class KardinalGreedyBot(Bot):
    """Greedy turn planner with blocking stones (see the module docstring)."""

    name = "greedy"

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        game = self.observed_game(observation)
        if len(legal_actions) == 1:
            return legal_actions[0]  # the only legal action
        evaluator = evaluator_for(game, observation)
        if can_take(legal_actions):
            plan = self._plan_takes(game, observation, evaluator)
            if plan is not None and plan in legal_actions:
                return plan
        return finish_turn(observation, evaluator, legal_actions)

    # -- taking -------------------------------------------------------------------------

    def _plan_takes(
        self, game: Game, observation: Mapping[str, Any], evaluator: Evaluator
    ) -> Action | None:
        """The first action of the best sequence of takes and plays; None to stop."""
        state = game.state_from_observation(observation, self.rng)
        assert isinstance(state, KardinalState)
        plans = take_plans(state, evaluator, 1)
        return plans[0].actions[0] if plans and plans[0].actions else None


OBSERVED: Final = ("options", "num_seats", "holdings", "rows", "seat", "supply", "turn")
"""The fields of an observation the greedy player reads."""


def evaluator_for(game: Game, observation: Mapping[str, Any]) -> Evaluator:
    """The greedy player's evaluator for ``observation`` (with the deck it names).

    Raises:
        InvalidStateError: a field the greedy player reads is missing; the message
            names it.
        OptionError: the observation's options are not Kardinal options.
    """
    missing = [name for name in OBSERVED if name not in observation]
    if missing:
        raise InvalidStateError(f"not a Kardinal observation: no {', '.join(missing)} in it")
    options = game.parse_options(observation["options"])
    assert isinstance(options, KardinalOptions)
    return Evaluator(observation, deck_tables(options.deck))


def finish_turn(
    observation: Mapping[str, Any], evaluator: Evaluator, legal_actions: Sequence[Action]
) -> Action:
    """The greedy player's move once it takes no more: ``skip`` when nothing was taken
    (nothing could be), else its stone (:func:`choose_stone`)."""
    if not observation["turn"]["taken"]:
        return next(a for a in legal_actions if isinstance(a, Skip))
    return choose_stone(observation, evaluator, legal_actions)


def choose_stone(
    observation: Mapping[str, Any], evaluator: Evaluator, legal_actions: Sequence[Action]
) -> Action:
    """The greedy player's stone after its takes: the placement worth most
    (:func:`stone_worth`) when it is worth at least 1 point (4 for the last stone in
    the supply); with an empty supply, a move that gains at least ``MOVE_MARGIN``;
    else ``end``. ``legal_actions`` must hold ``end``."""
    me = int(observation["seat"])
    value = stone_worth(evaluator, me, urgency(observation["rows"]))
    end_turn = next(a for a in legal_actions if isinstance(a, EndTurn))
    supply = observation["supply"][me]
    places = [a for a in legal_actions if isinstance(a, PlaceStone)]
    if places:
        best = max(places, key=lambda a: value(a.card))
        threshold = 1.0 if supply >= 2 else 4.0
        return best if value(best.card) >= threshold else end_turn
    moves = [a for a in legal_actions if isinstance(a, MoveStone)]
    if moves:
        best_move = max(moves, key=lambda a: value(a.target) - value(a.source))
        if value(best_move.target) - value(best_move.source) >= MOVE_MARGIN:
            return best_move
    return end_turn


def urgency(rows: Sequence[Sequence[str | int]]) -> dict[int, float]:
    """End cards 1, the cards next to them a little: what rivals may take soon. Rows
    as card ids (observations) or indices (states)."""
    weights: dict[int, float] = {}
    for row in rows:
        cards = [card if isinstance(card, int) else CARD_INDEX[card] for card in row]
        for card in cards[1:2] + cards[-2:-1]:
            weights[card] = NEXT_TO_END_WEIGHT
        for card in cards[:1] + cards[-1:]:
            weights[card] = 1.0
    return weights


def stone_worth(
    evaluator: Evaluator, me: int, weights: Mapping[int, float]
) -> Callable[[int], float]:
    """What a stone of ``me`` on a card is worth to the greedy player: the card's
    urgency times the most a rival would gain over ``me`` by taking it, or (weighted
    less) what ``me`` would gain; 0 for cards far from the ends. Memoised per card."""
    worth: dict[int, float] = {}

    def value(card: int) -> float:
        if card not in worth:
            weight = weights.get(card, 0.0)
            if weight == 0.0:
                worth[card] = 0.0
            else:
                rival_gain = max(
                    (
                        changes[s] - changes[me]
                        for s in range(evaluator.seats)
                        if s != me
                        for changes in [evaluator.gains(s, [card])]
                    ),
                    default=0.0,
                )
                own_gain = evaluator.advantage(me, [card])
                worth[card] = weight * max(rival_gain, OWN_CARD_WEIGHT * own_gain)
        return worth[card]

    return value


GREEDY: Final = BotKind(
    "greedy",
    KardinalGreedyBot,
    "Kardinal & König: greedy turn planner, blocks rivals' best end cards with stones",
    games=frozenset({"kardinal"}),
)
