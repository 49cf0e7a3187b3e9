"""The AEC environment: the engine's deals, returns, illegal actions and bad input."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo import AECEnv

from arena.tournament.scheduling import schedule_tables
from engines.envs import CardGameEnv, SingleAgentEnv, env
from engines.errors import (
    IllegalActionError,
    InvalidActionError,
    InvalidStateError,
    OptionError,
    SeatCountError,
    UnknownGameError,
)
from engines.registry import all_games, get_game
from engines.seeding import derive_seed


@pytest.mark.parametrize("game", [game.name for game in all_games()])
def test_reset_deals_what_the_engine_deals_for_the_seed(game: str) -> None:
    engine = get_game(game)
    seats = engine.max_seats
    environment = env(game, seats=seats)
    for seed in (0, 17, 2**62 + 5):
        environment.reset(seed=seed)
        expected = engine.new_initial_state(seed=seed, seats=seats)
        assert environment.game_state == expected
        assert environment.game_state.seed == seed  # type: ignore[union-attr]
    environment.reset(seed=9)
    for k in (1, 2, 3):  # later resets without a seed continue from it
        environment.reset()
        assert environment.game_state == engine.new_initial_state(
            seed=derive_seed(9, k), seats=seats
        )


def test_a_tournaments_deals_replay_in_the_environment() -> None:
    planned = schedule_tables([(1, 2, 3)], games_per_table=6, seed=2026)
    environment = env("kardinal", seats=3)
    for game in planned:
        environment.reset(seed=game.seed)
        expected = get_game("kardinal").new_initial_state(seed=game.seed, seats=3)
        assert environment.game_state.deal() == expected.deal()  # type: ignore[union-attr]


def play_randomly(environment: CardGameEnv, seed: int) -> dict[str, float]:
    """Play one game with random legal actions; every agent's reward as last() gave it."""
    rng = random.Random(seed)
    environment.reset(seed=seed)
    final = {}
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, info = environment.last()
        if terminated or truncated:
            final[agent] = reward
            assert "outcome" in info and info["observation"]["seat"] == int(agent[-1])
            environment.step(None)
            continue
        assert info["observation"] == environment.game_state.observation(int(agent[-1]))  # type: ignore[union-attr]
        legal = np.flatnonzero(observation["action_mask"])
        environment.step(int(legal[rng.randrange(len(legal))]))
    return final


PLAYED = [("kings_corner", 3), ("kardinal", 4), ("blumengarten", 1)]


@pytest.mark.parametrize(("game", "seats"), PLAYED)
def test_rewards_are_the_engines_returns_at_the_end(game: str, seats: int) -> None:
    environment = CardGameEnv(game, seats=seats, text_observations=True)
    for seed in range(3):
        final = play_randomly(environment, seed)
        returns = environment.game_state.returns()  # type: ignore[union-attr]
        assert final == {f"seat_{seat}": returns[seat] for seat in range(seats)}
        assert environment.agents == []


def test_infos_hold_the_json_observation_only_when_asked() -> None:
    environment = CardGameEnv("kings_corner", seats=2)
    environment.reset(seed=3)
    assert environment.infos == {"seat_0": {}, "seat_1": {}}
    for _agent in environment.agent_iter():
        observation, _, terminated, _, info = environment.last()
        if terminated:
            assert list(info) == ["outcome"]
            environment.step(None)
            continue
        assert info == {}
        environment.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert environment.agents == []


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    environment = env("koenigsgarten")
    environment.reset(seed=4)
    before = environment.game_state.to_dict()  # type: ignore[union-attr]
    mask = environment.observe("seat_0")["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    message = rf"action {illegal} for seat_0: '..' is not legal for seat 0"
    with pytest.raises(IllegalActionError, match=message):
        environment.step(illegal)
    assert environment.game_state.to_dict() == before  # type: ignore[union-attr]
    environment.step(np.int64(np.flatnonzero(mask)[0]))  # NumPy integers are accepted
    assert environment.agent_selection == "seat_1"


@pytest.mark.parametrize("bad", [16, -1, 1.0, True, "AS"])
def test_an_action_that_is_no_number_of_the_game_is_refused(bad: object) -> None:
    environment = env("koenigsgarten")
    environment.reset(seed=4)
    with pytest.raises(InvalidActionError, match=r"0\.\.15"):
        environment.step(bad)  # type: ignore[arg-type]


def test_the_forfeit_policy_ends_the_game_as_the_arena_does() -> None:
    environment = env("kings_corner", seats=3, illegal_actions="forfeit")
    environment.reset(seed=1)
    offender = environment.agent_selection
    mask = environment.observe(offender)["action_mask"]
    with pytest.warns(UserWarning, match="seat 0 forfeits"):
        environment.step(int(np.flatnonzero(mask == 0)[0]))
    outcome = environment.outcome
    assert outcome is not None and outcome.offender == 0 and outcome.reason == "illegal_action"
    assert environment.rewards == {"seat_0": -1.0, "seat_1": 1.0, "seat_2": 1.0}
    assert all(environment.terminations.values())
    assert environment.infos["seat_1"]["outcome"]["termination"] == "forfeit"
    blumengarten = env("blumengarten", illegal_actions="forfeit")
    blumengarten.reset(seed=1)
    with pytest.warns(UserWarning, match="forfeits"):
        mask = blumengarten.observe("seat_0")["action_mask"]
        blumengarten.step(int(np.flatnonzero(mask == 0)[0]))
    assert blumengarten.rewards == {"seat_0": 0.0}  # no card reached a foundation yet


def test_step_and_observe_before_reset_say_so() -> None:
    environment = env("koenigsgarten")
    with pytest.raises(InvalidStateError, match=r"reset\(\) the environment before step"):
        environment.step(0)
    with pytest.raises(InvalidStateError, match=r"before observe"):
        environment.observe("seat_0")
    with pytest.raises(InvalidStateError, match=r"before last"):
        environment.last()


def test_reset_to_refuses_a_state_of_another_configuration() -> None:
    environment = CardGameEnv("kings_corner", seats=2)
    with pytest.raises(InvalidStateError, match="does not fit this kings_corner environment of 2"):
        environment.reset_to(get_game("kings_corner").new_initial_state(seed=1, seats=3))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"game": "chess"}, UnknownGameError, "unknown game 'chess'"),
        ({"game": "koenigsgarten", "seats": 3}, SeatCountError, "played by 2 seats, not 3"),
        ({"game": "kings_corner", "options": {"fast": True}}, OptionError, "unknown option 'fast'"),
        ({"game": "koenigsgarten", "render_mode": "rgb_array"}, OptionError, "'rgb_array'"),
        ({"game": "koenigsgarten", "illegal_actions": "ignore"}, OptionError, "'ignore'"),
    ],
)
def test_bad_arguments_get_clear_errors(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        env(**kwargs)


def test_render_shows_the_board() -> None:
    environment = env("koenigsgarten", render_mode="ansi")
    environment.reset(seed=2)
    assert "last taken" in environment.render()  # type: ignore[operator]


def finish_a_game(environment: CardGameEnv, use_pettingzoos_dead_step: bool) -> list[object]:
    """Play seed 2 with the first legal action; what each finished agent's step left."""
    if use_pettingzoos_dead_step:
        environment._was_dead_step = lambda action: AECEnv._was_dead_step(environment, action)  # type: ignore[method-assign]
    environment.reset(seed=2)
    trail: list[object] = []
    for _agent in environment.agent_iter():
        observation, _, terminated, _, _ = environment.last()
        if terminated:
            environment.step(None)
            trail.append((environment.agent_selection, list(environment.agents)))
            trail.append((dict(environment.rewards), dict(environment._cumulative_rewards)))
            continue
        environment.step(int(np.flatnonzero(observation["action_mask"])[0]))
    return trail


def test_finished_agents_step_out_as_in_pettingzoo() -> None:
    ours = finish_a_game(env("kings_corner", seats=3), use_pettingzoos_dead_step=False)
    assert ours == finish_a_game(env("kings_corner", seats=3), use_pettingzoos_dead_step=True)
    environment = env("koenigsgarten")
    environment.reset(seed=1)
    while environment.outcome is None:
        environment.step(int(np.flatnonzero(environment.last()[0]["action_mask"])[0]))  # type: ignore[index]
    with pytest.raises(InvalidActionError, match="only action is None, not 3"):
        environment.step(3)
    environment.step(None)
    environment.step(None)
    with pytest.raises(InvalidStateError, match=r"every agent stepped: reset\(\)"):
        environment.step(None)


@pytest.mark.parametrize(
    ("game", "options", "dtype"),
    [
        ("koenigsgarten", None, np.uint8),
        ("kings_corner", {"collect_corners": True}, np.uint8),
        ("kardinal", None, np.uint8),
        ("blumengarten", None, np.uint16),  # moves_left counts down from the move cap, 1000
        ("blumengarten", {"move_cap": 200}, np.uint8),
        ("blumengarten", {"move_cap": 70_000}, np.uint32),
    ],
)
def test_vectors_are_the_smallest_unsigned_integers_that_hold_every_bound(
    game: str, options: dict | None, dtype: type
) -> None:
    playground = env(game, options=options)
    playground.reset(seed=3)
    space = playground.observation_space("seat_0")["observation"]
    assert space.dtype == dtype and space.low.min() == 0
    assert space.high.max() == max(
        block.high for block in playground.game_spec.encoder.layout.blocks
    )
    for agent in playground.agents:
        vector = playground.observe(agent)["observation"]
        assert vector.dtype == dtype and space.contains(vector)
    single = SingleAgentEnv(game, options=options) if game == "blumengarten" else None
    if single is not None:
        vector, _ = single.reset(seed=3)
        assert single.observation_space == space and vector.dtype == dtype


def test_agent_iter_stops_at_its_bound_or_when_every_agent_is_done() -> None:
    environment = env("koenigsgarten")
    environment.reset(seed=4)
    assert list(environment.agent_iter(max_iter=3)) == ["seat_0"] * 3  # nobody stepped
    environment.reset(seed=4)
    agents = []
    for agent in environment.agent_iter():  # the default bound, 2**63: never reached
        agents.append(agent)
        observation, _, terminated, _, _ = environment.last()
        action = None if terminated else int(np.flatnonzero(observation["action_mask"])[0])
        environment.step(action)
    played = len(environment.game_state.history)  # type: ignore[union-attr]
    assert len(agents) == played + 2 and environment.agents == []
    assert list(environment.agent_iter()) == []
