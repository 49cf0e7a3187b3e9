"""PettingZoo's own conformance test, api_test, over every game and seat count."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from pettingzoo.test import api_test

from engines.envs import env
from engines.registry import all_games

CASES = [
    pytest.param(game.name, seats, id=f"{game.name}-{seats}")
    for game in all_games()
    for seats in game.seat_counts
]
VARIANTS = [
    pytest.param("blumengarten", 1, {"garden_7x5": True, "sequences": True}, id="blumengarten-7x5"),
    pytest.param("kings_corner", 3, {"draw_first": True, "must_play": True}, id="kc-draw-first"),
    pytest.param("kings_corner", 2, {"collect_corners": True, "four_cards": True}, id="kc-corners"),
]
EXPECTED_WARNINGS = (
    # api_test says these of every env with dict observations; it lists its own
    # classic games (chess, connect four …) by name to keep them quiet.
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box",
)


def run_api_test(
    game: str, seats: int, options: dict[str, bool] | None = None, **kwargs: Any
) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(game, seats=seats, options=options, **kwargs), num_cycles=150)
    # A ResourceWarning is the garbage collector finishing some other test's object.
    messages = [str(w.message) for w in caught if not issubclass(w.category, ResourceWarning)]
    assert [text for text in messages if not text.startswith(EXPECTED_WARNINGS)] == []


@pytest.mark.parametrize(("game", "seats"), CASES)
def test_every_game_passes_api_test(game: str, seats: int) -> None:
    run_api_test(game, seats)


@pytest.mark.parametrize(("game", "seats", "options"), VARIANTS)
def test_variants_pass_api_test(game: str, seats: int, options: dict[str, bool]) -> None:
    run_api_test(game, seats, options)


def test_the_forfeit_policy_passes_api_test() -> None:
    run_api_test("kings_corner", 2, illegal_actions="forfeit")


@pytest.mark.parametrize(("game", "seats"), [("koenigsgarten", 2), ("kardinal", 3)])
def test_json_observations_in_infos_pass_api_test(game: str, seats: int) -> None:
    run_api_test(game, seats, text_observations=True)
