"""The Gymnasium environment for one learner: Blumengarten, or any game against bots."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from bots.envs import versus_bots_env
from bots.simple import RandomBot
from engines.envs import SingleAgentEnv
from engines.errors import IllegalActionError, InvalidStateError, OptionError, SeatCountError
from engines.registry import get_game

EXPECTED_WARNINGS = (
    "Not able to test alternative render modes",  # made directly, not by gymnasium.make
)


def checked(environment: SingleAgentEnv) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(environment, skip_render_check=False)
    messages = [str(warning.message) for warning in caught]
    # check_env steps with unmasked samples: the forfeit policy ends those games.
    expected = ("forfeits", *EXPECTED_WARNINGS)
    assert [text for text in messages if not any(part in text for part in expected)] == []


def test_blumengarten_passes_gymnasiums_env_checker() -> None:
    checked(SingleAgentEnv("blumengarten", render_mode="ansi", illegal_actions="forfeit"))


@pytest.mark.parametrize(
    ("game", "opponents"),
    [
        ("koenigsgarten", ["greedy"]),
        ("kings_corner", ["random", "greedy"]),
        ("kardinal", ["random"]),
    ],
)
def test_any_game_against_bots_passes_the_checker(game: str, opponents: list[str]) -> None:
    checked(versus_bots_env(game, opponents, render_mode="ansi", illegal_actions="forfeit"))


def play(environment: SingleAgentEnv, seed: int) -> tuple[list[str], float, dict]:
    rng = random.Random(seed)
    _, info = environment.reset(seed=seed)
    total, terminated = 0.0, False
    while not terminated:
        assert info["observation"]["seat"] == environment.seat
        legal = np.flatnonzero(info["action_mask"])
        assert np.array_equal(info["action_mask"], environment.action_masks())
        action = int(legal[rng.randrange(len(legal))])
        _, reward, terminated, truncated, info = environment.step(action)
        assert not truncated
        total += reward
    return [str(action) for _, action in environment.game_state.history], total, info  # type: ignore[union-attr]


def test_the_learner_gets_its_return_and_the_bots_replay_from_the_seed() -> None:
    environment = versus_bots_env("kings_corner", ["random", RandomBot(seed=3)])
    seats_played = set()
    for seed in range(6):
        moves, total, info = play(environment, seed)
        assert total == environment.game_state.returns()[environment.seat]  # type: ignore[union-attr]
        assert info["outcome"]["returns"][environment.seat] == total
        assert play(environment, seed)[0] == moves  # the same seed replays the same game
        seats_played.add(environment.seat)
    assert seats_played == {0, 1, 2}  # seat None: the learner's seat follows the deal seed


def test_the_deal_is_the_engines_for_the_seed() -> None:
    environment = versus_bots_env("koenigsgarten", ["random"], seat=1)
    environment.reset(seed=11)
    expected = get_game("koenigsgarten").new_initial_state(seed=11)
    assert environment.game_state.deal() == expected.deal()  # type: ignore[union-attr]
    assert environment.seat == 1 and len(environment.game_state.history) == 1  # type: ignore[union-attr]


def test_blumengarten_rewards_the_cards_on_the_foundations() -> None:
    environment = SingleAgentEnv("blumengarten")
    _, total, info = play(environment, 3)
    assert total == info["outcome"]["details"]["score"]


def test_an_illegal_learner_action_forfeits_by_default() -> None:
    environment = SingleAgentEnv("blumengarten")
    _, info = environment.reset(seed=2)
    with pytest.warns(UserWarning, match="seat 0 forfeits"):
        _, _, terminated, _, info = environment.step(
            int(np.flatnonzero(info["action_mask"] == 0)[0])
        )
    assert terminated
    assert environment.outcome is not None
    assert info["outcome"]["termination"] == "forfeit"


def test_an_illegal_learner_action_raises_when_asked() -> None:
    environment = SingleAgentEnv("blumengarten", illegal_actions="raise")
    _, info = environment.reset(seed=2)
    with pytest.raises(IllegalActionError, match="is not legal for seat 0"):
        environment.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))


def test_step_after_the_end_or_before_reset_is_refused() -> None:
    environment = SingleAgentEnv("blumengarten")
    with pytest.raises(InvalidStateError, match=r"call reset\(\) first"):
        environment.step(0)
    play(environment, 1)
    with pytest.raises(InvalidStateError, match=r"call reset\(\) first"):
        environment.step(0)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"game": "kings_corner", "seats": 4}, SeatCountError, "needs 3 fixed"),
        ({"game": "koenigsgarten", "seat": 2}, OptionError, "seat 2 is not in 0..1"),
        ({"game": "koenigsgarten", "render_mode": "rgb"}, OptionError, "'rgb'"),
    ],
)
def test_bad_arguments_get_clear_errors(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        versus_bots_env(opponents=["random"], **kwargs)
