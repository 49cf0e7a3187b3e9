"""The search bots stay generic and never guess: they name no game, and a missing
game, a missing observation or an exhausted clock never makes them play an action
they did not search."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

import bots
from bots.base import Bot, GameInfo, GameNotStartedError
from bots.ismcts import IsMctsBot
from bots.kardinal.greedy import can_take
from bots.registry import make_bot
from engines.core import Game, State
from engines.errors import InvalidStateError
from engines.games import BUILTIN_GAMES
from engines.kardinal import GAME as KARDINAL
from engines.registry import get_game

GENERIC_MODULES = ("base", "registry", "simple", "search", "mcts", "ismcts")
"""The modules of bots/ that every game shares (bots/builtin.py lists the games)."""
SEARCHING = [
    ("mcts", "koenigsgarten"),
    ("ismcts", "kings_corner"),
    ("ismcts", "kardinal"),
    ("greedy", "kardinal"),
    ("greedy", "blumengarten"),
    ("solver", "blumengarten"),
]
"""Bots that rebuild a state from their observation, so they need the game."""


def start(kind: str, game: Game, *, seed: int = 3, **params: object) -> tuple[Bot, State]:
    bot = make_bot(kind, game.name, {"iterations": 20, **params} if "cts" in kind else params)
    state = game.new_initial_state(seed=seed)
    bot.new_game(GameInfo(game, {}, state.current_seat, state.num_seats, seed))
    return bot, state


@pytest.mark.parametrize("module", GENERIC_MODULES)
def test_the_generic_bot_modules_name_no_game(module: str) -> None:
    game_modules = {type(game).__module__.rsplit(".", 1)[-1] for game in BUILTIN_GAMES}
    game_names = {game.name for game in BUILTIN_GAMES} | game_modules
    tree = ast.parse((Path(bots.__file__).parent / f"{module}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = set(node.module.split("."))
            assert not parts & game_modules, f"bots/{module}.py imports {node.module}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert node.value not in game_names, f"bots/{module}.py names {node.value!r}"


@pytest.mark.parametrize(("kind", "game_name"), SEARCHING)
def test_acting_before_new_game_is_an_error_not_a_first_legal_move(
    kind: str, game_name: str
) -> None:
    game = get_game(game_name)
    state = game.new_initial_state(seed=5)
    assert len(state.legal_actions()) > 1
    bot = make_bot(kind, game_name)
    with pytest.raises(GameNotStartedError, match=rf"bot {bot.name!r} has no GameInfo"):
        bot.act(state.observation(state.current_seat), state.legal_actions(), None)


@pytest.mark.parametrize(("kind", "game_name"), SEARCHING)
def test_a_missing_observation_is_an_error_naming_what_is_missing(
    kind: str, game_name: str
) -> None:
    bot, state = start(kind, get_game(game_name))
    with pytest.raises(InvalidStateError, match="observation") as excinfo:
        bot.act({}, state.legal_actions(), None)
    assert "'" in str(excinfo.value) or "no " in str(excinfo.value)


@pytest.mark.parametrize(
    ("kind", "game_name"), [("mcts", "koenigsgarten"), ("ismcts", "kings_corner")]
)
def test_an_exhausted_clock_still_searches(kind: str, game_name: str) -> None:
    # The clock is read every few iterations; with none left, the first few still run
    # and the move is the search's, not the first legal action.
    bot, state = start(kind, get_game(game_name), iterations=500)
    action = bot.act(state.observation(state.current_seat), state.legal_actions(), 0.0)
    assert action in state.legal_actions()
    assert 0 < bot.last_iterations < 500  # type: ignore[attr-defined]


def test_the_kardinal_turn_search_takes_random_playouts_too() -> None:
    bot, state = start("ismcts", KARDINAL, playout="random", iterations=12)
    assert isinstance(bot, IsMctsBot) and bot.turns
    legal = state.legal_actions()
    assert can_take(legal)
    action = bot.act(state.observation(state.current_seat), legal, None)
    assert action in legal and bot.last_iterations == 12


def single_action_state(game: Game) -> State:
    """A position of ``game`` with exactly one legal action, from seeded random play."""
    for seed in range(50):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) == 1:
                return state
            state.apply_action(legal[rng.randrange(len(legal))])
    raise AssertionError(f"no position of {game.name} with a single legal action")


@pytest.mark.parametrize(
    ("kind", "game_name"),
    [
        ("mcts", "koenigsgarten"),
        ("ismcts", "kings_corner"),
        ("ismcts", "kardinal"),
        ("greedy", "kardinal"),
    ],
)
def test_a_single_legal_action_is_no_excuse_to_skip_the_checks(kind: str, game_name: str) -> None:
    game = get_game(game_name)
    state = single_action_state(game)
    observation, legal = state.observation(state.current_seat), state.legal_actions()
    bot = make_bot(kind, game_name)
    with pytest.raises(GameNotStartedError):
        bot.act(observation, legal, None)
    bot.new_game(GameInfo(game, {}, state.current_seat, state.num_seats, 3))
    with pytest.raises(InvalidStateError, match=rf"no observation of {game_name}"):
        bot.act({}, legal, None)
    assert bot.act(observation, legal, None) == legal[0]
