"""The games under Gymnasium ids and as PettingZoo-style modules, default settings."""

from __future__ import annotations

import importlib
import warnings

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from engines.envs import GYMNASIUM_IDS, CardGameEnv


@pytest.mark.parametrize("game", sorted(GYMNASIUM_IDS))
def test_every_registered_game_passes_the_checker_with_default_settings(game: str) -> None:
    environment = gymnasium.make(GYMNASIUM_IDS[game])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(environment.unwrapped)
    # The checker steps with unmasked samples: by default an illegal one forfeits the game.
    assert [str(w.message) for w in caught if "forfeits" not in str(w.message)] == []
    assert environment.unwrapped.game_spec.game.name == game


def test_the_module_form_of_make_imports_the_envs() -> None:
    environment = gymnasium.make("engines.envs:arena/Kardinal-v0", opponents=["greedy"], seats=2)
    assert environment.unwrapped.game_spec.seats == 2


@pytest.mark.parametrize("game", sorted(GYMNASIUM_IDS))
def test_each_game_is_a_pettingzoo_style_module(game: str) -> None:
    module = importlib.import_module(f"engines.envs.{game}_v0")
    environment = module.env()
    assert isinstance(environment, CardGameEnv)
    assert environment.game_spec.game.name == game
    assert module.raw_env is module.env
