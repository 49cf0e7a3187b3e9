"""The Kardinal & König take planner: the best few plans of takes and tablet plays for
the seat to move, shared by the greedy player and the turn search of ``ismcts``.

A plan is the cards a seat takes this turn and the tablets it plays (only tablets it
really holds), found on a determinised state. It is worth what taking the cards gains
the seat over the average rival in the greedy player's evaluation (the points if the
game ended now), less the stones paid and the tablets used.

Many orders of the same takes reach the same position, and on some decks there are a
great many: with no circles on the cards a seat may take card after card of a country
(or any cards after a ``mixed`` tablet), and 8 row ends give 8⁵ orders of 5 takes;
every tablet held multiplies them again. Searching every order took up to 25 s a
move there, and up to 16 s on the rulings' deck for a seat holding four tablets. So
the planner searches positions, not orders: breadth first, one layer per action,
each position kept once with the cheapest way to it (the first in the engine's order
of legal actions among equally cheap ones). A position is the cards taken, the
tablets played and the stones paid since the last ``reclaim``; what can follow and
what it costs depend on nothing else. That finds the very plans the search of every
order found, ranked the same way (by value, then by the order in which that search
met them), in time that grows with the positions. A layer keeps at most
:data:`LAYER_WIDTH` positions (the most valuable), so that no deck can make a move
slow; play with the rulings' deck stays below it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, cast

from bots.kardinal.evaluation import Evaluator, GainMemo, Takes, plus_take, takes_of
from engines.core import Action
from engines.kardinal import TABLET_KINDS, KardinalAction, KardinalState, PlayTablet, Take

STONE_VALUE: Final = 1.5
"""What a stone in the supply is worth in points (to pay for blocked cards later)."""
TABLET_VALUE: Final = {"reclaim": 0.5, "three": 1.0, "mixed": 1.5}
"""What keeping a playable tablet is worth; playing it must gain more."""
FACE_DOWN_VALUE: Final = 0.25
"""A face-down tablet's expected worth with the default mix (three +1, one −2)."""
MAX_TAKES_PER_TURN: Final = 5
"""The most takes a plan holds (a longer turn is planned again after 5)."""
PLANS: Final = 5
"""How many take plans a search compares."""
LAYER_WIDTH: Final = 256
"""The most positions a layer of the search keeps (the most valuable ones). In play
with the rulings' deck a layer held at most 126 (random players hoarding tablets),
mostly under 25; a deck without circles needs well over a thousand
(``docs/benchmarks.md``, "Kardinal take planner")."""
_RECLAIM: Final = TABLET_KINDS.index("reclaim")


@dataclass(frozen=True)
class Part:
    """A part of the turn: the actions to play (empty: stop taking), and its value to
    the greedy planner (points over the average rival)."""

    actions: tuple[KardinalAction, ...]
    value: float


@dataclass(slots=True)
class _Way:
    """A way to a position of the search: the plan's cards (a bit set), what the
    evaluation counts of them and of the cards taken before in the turn, the tablets
    played per kind, stones paid since a reclaim, its cost, actions and their indices
    among the legal actions along the way (the order in which a depth-first search
    over every order meets it), and its value once known. ``before`` is the state
    before its last action (the start state for the empty way)."""

    before: KardinalState
    taken: int
    takes: Takes
    played: tuple[int, ...]
    spent: int
    cost: float
    actions: tuple[KardinalAction, ...]
    order: tuple[int, ...]
    value: float = 0.0

    def state(self) -> KardinalState:
        """The state the way leads to (a copy: ``before`` is shared)."""
        if not self.actions:
            return self.before
        state = self.before.clone()
        state.apply_unchecked(self.actions[-1])
        return state


Position = tuple[int, tuple[int, ...], int]
"""The cards taken (bit set), the tablets played per kind and the stones paid since the
last reclaim: all that decides what may follow in the turn and what it costs."""


def take_plans(state: KardinalState, evaluator: Evaluator, limit: int = PLANS) -> list[Part]:
    """The ``limit`` best distinct plans of takes and tablet plays for the seat to
    move, best first, valued by ``evaluator`` less stones paid and tablets used; with
    a card already taken this turn, stopping (no actions) is a plan too. Plans of the
    same cards and tablets are one plan, in its most valuable order. Among equal
    values the plan met first by a search of every order, in the engine's order of
    legal actions, comes first (module docstring)."""
    me = state.current_seat
    held = [0] * len(TABLET_KINDS)
    for kind in state.held_tablets(me):
        held[kind] += 1
    already = state.taken_this_turn()
    worth: dict[Takes, float] = {}
    memo: GainMemo = {}

    def value(way: _Way) -> float:
        if way.takes not in worth:
            worth[way.takes] = evaluator.advantage_of(me, way.takes, memo)
        return worth[way.takes] - way.cost

    none_played = (0,) * len(TABLET_KINDS)
    takes = takes_of(evaluator.tables, already)
    layer = [_Way(state, 0, takes, none_played, state.spent(me), 0.0, (), ())]
    best: dict[tuple[int, tuple[int, ...]], _Way] = {}
    while layer:
        ways: dict[Position, _Way] = {}
        for way in layer:
            way.value = value(way)
            if already or way.taken:
                plan = (way.taken, way.played)
                found = best.get(plan)
                if found is None or (-way.value, way.order) < (-found.value, found.order):
                    best[plan] = way
            if way.taken.bit_count() < MAX_TAKES_PER_TURN:
                node = way.state()
                if not node.is_terminal():
                    _extend(way, node, me, held, ways)
        layer = list(ways.values())
        if len(layer) > LAYER_WIDTH:
            for way in layer:
                way.value = value(way)
            layer.sort(key=lambda way: (-way.value, way.order))
            del layer[LAYER_WIDTH:]
    ranked = sorted(best.values(), key=lambda way: (-way.value, way.order))
    return [Part(way.actions, way.value) for way in ranked[:limit]]


def _extend(
    way: _Way, node: KardinalState, me: int, held: Sequence[int], ways: dict[Position, _Way]
) -> None:
    """Add the takes and plays of held tablets that may follow ``way`` (at ``node``)
    to ``ways``, keeping the cheapest way to each position, then the first."""
    for index, action in enumerate(node.taking_actions()):
        taken, takes, played, spent, cost = way.taken, way.takes, way.played, way.spent, way.cost
        if type(action) is Take:
            card = action.card
            owner = node.stone_on(card)
            if owner is not None and owner != me:
                cost += STONE_VALUE
                spent += 1
            if node.has_face_down_tablet(card):
                cost -= FACE_DOWN_VALUE
            taken |= 1 << card
            takes = plus_take(node.tables, takes, card)
        else:
            kind = cast(PlayTablet, action).kind
            if played[kind] >= held[kind]:
                continue  # picked up this turn: its kind is a guess on a determinised state
            cost += TABLET_VALUE[TABLET_KINDS[kind]]
            if kind == _RECLAIM:
                cost -= STONE_VALUE * spent
                spent = 0
            played = (*played[:kind], played[kind] + 1, *played[kind + 1 :])
        position = (taken, played, spent)
        known = ways.get(position)
        if known is None or cost <= known.cost:
            order = (*way.order, index)
            if known is None or (cost, order) < (known.cost, known.order):
                actions = (*way.actions, action)
                ways[position] = _Way(node, taken, takes, played, spent, cost, actions, order)


def can_take(legal: Sequence[Action]) -> bool:
    """Whether the taking part of the turn is still open (a take or a tablet play)."""
    return any(type(a) is Take or type(a) is PlayTablet for a in legal)
