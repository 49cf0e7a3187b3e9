"""The fixed action index: complete, stable, and strict about what it is given."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engines.envs import action_index, env_spec
from engines.errors import InvalidActionError, UnknownGameError
from engines.registry import get_game

CONFIGS = [
    ("koenigsgarten", 2, {}),
    ("blumengarten", 1, {}),
    ("blumengarten", 1, {"garden_7x5": True, "sequences": True}),
    ("kings_corner", 2, {}),
    ("kings_corner", 4, {"draw_first": True, "kings_at_once": True}),
    ("kings_corner", 3, {"collect_corners": True, "corners_in_suit": True}),
    ("kardinal", 2, {}),
    ("kardinal", 5, {}),
]


@pytest.mark.parametrize(("game", "seats", "options"), CONFIGS)
def test_every_legal_action_of_random_games_is_in_the_index(game, seats, options) -> None:
    spec = env_spec(game, seats, options)
    rng = random.Random(7)
    seen = set()
    for seed in range(12):
        state = spec.game.new_initial_state(seed=seed, seats=seats, options=spec.options)
        while not state.is_terminal():
            legal = state.legal_actions()
            mask = spec.actions.mask(legal)
            assert mask.dtype == np.int8 and mask.sum() == len(legal)
            for action in legal:
                index = spec.actions.index(action)
                assert spec.actions.action(index) == action
                assert spec.actions.texts[index] == str(action)
                seen.add(index)
            state.apply_action(legal[rng.randrange(len(legal))])
    assert len(seen) > 10


@pytest.mark.parametrize(
    ("game", "seats", "options", "size", "first", "last"),
    [
        ("koenigsgarten", 2, {}, 16, "AS", "KC"),
        ("blumengarten", 1, {}, 52 * 7 + 1, "AS>f", "resign"),
        ("blumengarten", 1, {"garden_7x5": True}, 52 * 8 + 1, "AS>f", "resign"),
        ("kings_corner", 4, {}, 52 * 8 + 4 * 7 + 1, "AS>N", "draw"),
        ("kings_corner", 2, {"draw_first": True}, 52 * 8 + 4 * 7 + 2, "AS>N", "end"),
        ("kardinal", 3, {}, 56 + 3 + 56 + 56 * 55 + 2, "take DK1", "skip"),
    ],
)
def test_the_index_is_fixed_per_game_and_options(game, seats, options, size, first, last) -> None:
    index = action_index(get_game(game), seats, get_game(game).parse_options(options))
    assert (len(index), index.texts[0], index.texts[-1]) == (size, first, last)
    assert index == action_index(get_game(game), seats, get_game(game).parse_options(options))


@pytest.mark.parametrize("bad", [-1, 16, 2.0, True, "AS", None])
def test_a_bad_action_number_is_refused_with_the_range(bad) -> None:
    index = env_spec("koenigsgarten").actions
    with pytest.raises(InvalidActionError, match=r"0\.\.15"):
        index.action(bad)


def test_numpy_integers_name_actions() -> None:
    index = env_spec("koenigsgarten").actions
    assert index.action(np.int32(3)) == index.action(3)


def test_an_action_outside_the_index_is_named() -> None:
    index = env_spec("blumengarten").actions  # six columns: no seventh
    with pytest.raises(InvalidActionError, match=r"'AS>c7' is not in the action index"):
        index.index(get_game("blumengarten").parse_action("AS>c7"))


def test_a_game_without_an_environment_is_refused() -> None:
    game = get_game("koenigsgarten")

    class Other(type(game)):  # type: ignore[misc]
        name = "other"

    with pytest.raises(UnknownGameError, match="no environment for game 'other'"):
        env_spec(Other())
