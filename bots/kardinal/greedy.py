"""A greedy player for Kardinal & König.

It values a position by the points every seat would score if the game ended now,
plus credit for ship and carriage sets still within reach of the 5-symbol
threshold; majorities that no one can overtake any more count in full, contested
ones less. On its turn it searches every sequence of takes and tablet plays it may
make (on a determinised state, with only the tablets it really holds) and follows
the one that gains it the most over the average rival, counting stones paid and
tablets used. Then it puts a stone on the end card a rival would profit from most
(the rival's gain plus this player's loss), or on one it wants itself, keeping a
stone in reserve unless the card is worth a lot; with an empty supply it moves a
stone when that is clearly better.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from bots.base import Bot
from bots.registry import BotKind
from engines.core import Action, Game
from engines.errors import InvalidStateError
from engines.kardinal import (
    CARD_COUNTRY,
    CARD_INDEX,
    CARRIAGE,
    COUNTRIES,
    SHIP,
    SYMBOL_THRESHOLD,
    TABLET_KINDS,
    DeckTables,
    EndTurn,
    KardinalOptions,
    KardinalState,
    MoveStone,
    PlaceStone,
    PlayTablet,
    Skip,
    Take,
    deck_tables,
)

STONE_VALUE: Final = 1.5
"""What a stone in the supply is worth in points (to pay for blocked cards later)."""
TABLET_VALUE: Final = {"reclaim": 0.5, "three": 1.0, "mixed": 1.5}
"""What keeping a playable tablet is worth; playing it must gain more."""
FACE_DOWN_VALUE: Final = 0.25
"""A face-down tablet's expected worth with the default mix (three +1, one −2)."""
SYMBOL_CREDIT: Final = 0.5
"""Per symbol held toward a set of 5 that the cards left can still complete."""
CONTESTED_WEIGHT: Final = 0.6
"""How much a majority place counts while others could still overtake it."""
NEXT_TO_END_WEIGHT: Final = 0.4
"""How urgent blocking a card one step from an end is, against an end card."""
OWN_CARD_WEIGHT: Final = 0.7
"""A stone on a card one wants oneself counts less than one denying a rival."""
MOVE_MARGIN: Final = 2.0
MAX_TAKES_PER_TURN: Final = 5


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

    def gains(self, seat: int, cards: Sequence[int]) -> list[float]:
        """How every seat's points change if ``seat`` takes ``cards``."""
        touched = sorted({CARD_COUNTRY[card] for card in cards})
        before = [self.country_points(k) for k in touched]
        symbols_before = self.symbol_points(seat)
        for card in cards:
            self._add(seat, card, 1)
            self.left[CARD_COUNTRY[card]] -= 1
            self.symbols_left[self.tables.symbol[card]] -= 1
        after = [self.country_points(k) for k in touched]
        symbols_after = self.symbol_points(seat)
        for card in cards:
            self._add(seat, card, -1)
            self.left[CARD_COUNTRY[card]] += 1
            self.symbols_left[self.tables.symbol[card]] += 1
        changes = [
            sum(a[s] - b[s] for a, b in zip(after, before, strict=True)) for s in range(self.seats)
        ]
        changes[seat] += symbols_after - symbols_before
        return changes

    def advantage(self, seat: int, cards: Sequence[int]) -> float:
        """What ``seat`` gains by taking ``cards``, less what its rivals gain on average."""
        changes = self.gains(seat, cards)
        rivals = [c for s, c in enumerate(changes) if s != seat]
        return changes[seat] - (sum(rivals) / len(rivals) if rivals else 0.0)


class KardinalGreedyBot(Bot):
    """Greedy turn planner with blocking stones (see the module docstring)."""

    name = "greedy"

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]  # the only legal action
        game = self.game_info(observation).game
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


PLANS: Final = 5
"""How many take plans a search compares."""


@dataclass(frozen=True)
class Part:
    """A part of the turn: the actions to play (empty: stop taking), and its value to
    the greedy planner (points over the average rival)."""

    actions: tuple[Action, ...]
    value: float


def take_plans(state: KardinalState, evaluator: Evaluator, limit: int = PLANS) -> list[Part]:
    """The ``limit`` best distinct plans of takes and tablet plays for the seat to
    move, best first, valued by ``evaluator`` (the points if the game ended now) less
    stones paid and tablets used; with a card already taken this turn, stopping (no
    actions) is a plan too. Every sequence is searched on ``state`` (a determinised
    state: only tablets the seat really holds are played). Among equal values the
    plan found first in the search's order comes first."""
    me = state.current_seat
    held: dict[int, int] = {}
    for kind in state.held_tablets(me):
        held[kind] = held.get(kind, 0) + 1
    already = state.taken_this_turn()
    best: dict[tuple[frozenset[int], tuple[int, ...]], Part] = {}

    def search(
        node: KardinalState,
        held: dict[int, int],
        cards: list[int],
        actions: list[Action],
        tablets: list[int],
        cost: float,
    ) -> None:
        if already or cards:
            key = (frozenset(cards), tuple(sorted(tablets)))
            value = evaluator.advantage(me, already + cards) - cost
            if key not in best or best[key].value < value:
                best.pop(key, None)  # a better order of the same plan ranks where found
                best[key] = Part(tuple(actions), value)
        if len(cards) >= MAX_TAKES_PER_TURN or node.is_terminal():
            return
        for action in node.legal_actions():
            if type(action) is Take:
                step = 0.0
                owner = node.stone_on(action.card)
                if owner is not None and owner != me:
                    step += STONE_VALUE
                if node.has_face_down_tablet(action.card):
                    step -= FACE_DOWN_VALUE
                child = cast(KardinalState, node.clone())
                child.apply_unchecked(action)
                search(child, held, [*cards, action.card], [*actions, action], tablets, cost + step)
            elif type(action) is PlayTablet and held.get(action.kind, 0) > 0:
                kind = TABLET_KINDS[action.kind]
                step = TABLET_VALUE[kind]
                if kind == "reclaim":
                    step -= STONE_VALUE * node.spent(me)
                child = cast(KardinalState, node.clone())
                child.apply_unchecked(action)
                less = {**held, action.kind: held[action.kind] - 1}
                search(child, less, cards, [*actions, action], [*tablets, action.kind], cost + step)

    search(state, held, [], [], [], 0.0)
    ranked = sorted(best.values(), key=lambda part: -part.value)
    return ranked[:limit]


def can_take(legal: Sequence[Action]) -> bool:
    """Whether the taking part of the turn is still open (a take or a tablet play)."""
    return any(type(a) is Take or type(a) is PlayTablet for a in legal)


GREEDY: Final = BotKind(
    "greedy",
    KardinalGreedyBot,
    "Kardinal & König: greedy turn planner, blocks rivals' best end cards with stones",
    games=frozenset({"kardinal"}),
)
