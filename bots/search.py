"""What the generic search bots share, and what a game's bot package may lend them.

A *simulation* plays a (determinised) state on with a cheap policy — to the end, or
for a number of turns after which an *evaluation* estimates each seat's final score —
and returns per-seat scores, higher better (the outcome's returns at the end). It
must be cheap: a search runs hundreds of them per move. Every game can be simulated
``random`` (uniformly random legal actions, to the end).

A game's bot package describes its game to the search bots with a
:class:`GameSearch`, registered in :mod:`bots.builtin`:

* ``simulations``: named playout policies of its own (``heuristic``, Kardinal's
  ``greedy``); a game without a ``heuristic`` one simulates ``heuristic`` at random;
* ``tree_actions``: which legal actions a search tree expands (all by default);
* ``turn_search``: a search over whole turns that replaces the tree search of
  :mod:`bots.ismcts` when the bot searches by turns (``ismcts:turns=true``).

So :mod:`bots.ismcts` and :mod:`bots.mcts` never name a game.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from bots.registry import BotParameterError
from engines.core import Action, Game, State

Step = Callable[[State, random.Random], Action]
"""One action of a simulated game for the seat to move."""
TreeActions = Callable[[State, list[Action]], list[Action]]
"""The legal actions of a state that a search tree expands."""

RANDOM: Final = "random"
HEURISTIC: Final = "heuristic"


def random_step(state: State, rng: random.Random) -> Action:
    legal: list[Action] = state.legal_actions()
    return legal[rng.randrange(len(legal))]


def all_actions(state: State, legal: list[Action]) -> list[Action]:
    return legal


def lead(values: Sequence[float], seat: int) -> float:
    """``seat``'s value less the average of the others'."""
    others = len(values) - 1
    return values[seat] - (sum(values) - values[seat]) / others if others else values[seat]


def squash(gain: float, scale: float) -> float:
    """A gain in points as a reward in 0..1: ``(1 + tanh(gain / scale)) / 2``."""
    return (1.0 + math.tanh(gain / scale)) / 2.0


@dataclass(frozen=True)
class Simulation:
    """How a search plays on from a leaf: a policy made per simulation from its start
    state, and an evaluation for simulations cut short (None: always to the end)."""

    policy: Callable[[State], Step]
    evaluation: Callable[[State], Sequence[float]] | None = None
    scale: float = 1.0
    """A clear lead in the game's scores (points), for rewards by margin."""
    margin: float = 0.0
    """The weight of the score margin in a search's rewards that served this game
    best (measured: ``docs/strength.md``)."""

    def run(self, state: State, rng: random.Random, turns: int = 0) -> Sequence[float]:
        """Play ``state`` on in place: to the end, or for ``turns`` changes of the seat
        to move when ``turns`` > 0 and the game has an evaluation; return per-seat
        scores (the returns at the end, else the evaluation)."""
        step = self.policy(state)
        seat = state.current_seat
        changes = 0
        limited = turns > 0 and self.evaluation is not None
        while not state.is_terminal():
            if limited and changes >= turns:
                assert self.evaluation is not None
                return self.evaluation(state)
            state.apply_unchecked(step(state, rng))
            if state.current_seat != seat:
                seat = state.current_seat
                changes += 1
        outcome = state.outcome()
        assert outcome is not None
        return outcome.returns


def stateless(step: Step) -> Callable[[State], Step]:
    """A simulation policy that keeps nothing between its steps."""
    return lambda state: step


RANDOM_SIMULATION: Final = Simulation(stateless(random_step))


@dataclass(frozen=True)
class SearchRequest:
    """One decision of a search bot: what its seat sees, and how it may search."""

    game: Game
    observation: Mapping[str, Any]
    legal_actions: Sequence[Action]
    rng: random.Random
    """The bot's seeded generator: every random choice of the search comes from it."""
    simulation: Simulation
    iterations: int
    deadline: float
    """A ``time.perf_counter()`` value to stop by (``math.inf``: no time limit)."""
    exploration: float
    """The UCB1 constant."""
    depth: int | None
    """Changes of the seat to move to simulate before evaluating (0: to the end;
    None: the search's own default)."""


@dataclass(frozen=True)
class SearchResult:
    action: Action
    iterations: int


TurnSearch = Callable[[SearchRequest], SearchResult]
"""A search over whole turns of one game (see the module docstring)."""


@dataclass(frozen=True)
class GameSearch:
    """What a game's bot package lends the generic search bots (module docstring)."""

    simulations: Mapping[str, Simulation] = field(default_factory=dict)
    tree_actions: TreeActions = all_actions
    turn_search: TurnSearch | None = None


GENERIC_SEARCH: Final = GameSearch()
"""How a game whose bot package lends nothing is searched."""

_SEARCH: dict[str, GameSearch] = {}


def register_game_search(game: str, search: GameSearch) -> GameSearch:
    """Lend ``search`` to the search bots playing ``game`` (:mod:`bots.builtin` does,
    for the built-in games).

    Raises:
        ValueError: ``game`` already has a different one.
    """
    existing = _SEARCH.setdefault(game, search)
    if existing is not search:
        raise ValueError(f"game {game!r} already lends its search bots something else")
    return search


def game_search(game: str) -> GameSearch:
    """What ``game``'s bot package lends the search bots (:data:`GENERIC_SEARCH` if
    nothing)."""
    _load_builtin_bots()
    return _SEARCH.get(game, GENERIC_SEARCH)


def simulation(game: str, playout: str) -> Simulation:
    """The simulation named ``playout`` for ``game``: ``random``, ``heuristic`` (at
    random when the game has no heuristic of its own), or one the game offers.

    Raises:
        BotParameterError: ``game`` offers no such playout; the message lists them.
    """
    offered = game_search(game).simulations
    found = offered.get(playout)
    if found is not None:
        return found
    if playout in (RANDOM, HEURISTIC):
        return RANDOM_SIMULATION
    names = [RANDOM, HEURISTIC, *sorted(set(offered) - {RANDOM, HEURISTIC})]
    raise BotParameterError(
        f"unknown playout policy {playout!r} for {game} (policies: {', '.join(names)})"
    )


def _load_builtin_bots() -> None:
    import bots.builtin  # noqa: F401  (registers the built-in search knowledge)
