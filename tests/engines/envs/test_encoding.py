"""Observation vectors: what a seat may see and nothing else, within their bounds."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engines.cards import Card
from engines.core import State
from engines.envs import CardGameEnv, env_spec
from engines.envs.koenigsgarten import CARD_NUMBER, LAYOUT
from engines.kardinal import DEFAULT_DECK, deck_to_data
from engines.koenigsgarten import CELL_NAMES
from engines.registry import get_game
from tests.engines.test_conformance import random_playout


def random_states(game: str, seats: int, seed: int, options: dict | None = None) -> list[State]:
    return random_playout(get_game(game), seats, seed, options)


HIDDEN = [("kings_corner", 2), ("kings_corner", 4), ("kardinal", 3)]


@pytest.mark.parametrize(("game", "seats"), HIDDEN)
def test_states_differing_only_in_hidden_information_look_the_same(game: str, seats: int) -> None:
    rng = random.Random(5)
    hidden_differed = 0
    for seed in range(4):
        states = random_states(game, seats, seed)
        for state in states[:: max(1, len(states) // 6)][1:-1]:
            seat = state.current_seat
            sample = state.game.state_from_observation(state.observation(seat), rng)
            hidden_differed += sample.to_dict()["deal"] != state.to_dict()["deal"]
            real, resampled = CardGameEnv(game, seats=seats), CardGameEnv(game, seats=seats)
            real.reset_to(state)
            resampled.reset_to(sample)
            agent = f"seat_{seat}"
            seen, seen_in_sample = real.observe(agent), resampled.observe(agent)
            assert np.array_equal(seen["observation"], seen_in_sample["observation"])
            assert np.array_equal(seen["action_mask"], seen_in_sample["action_mask"])
    assert hidden_differed >= 8  # the samples really hid other cards or tablets elsewhere


def test_a_seat_sees_its_own_hand_and_not_the_others() -> None:
    state = random_states("kings_corner", 3, seed=2)[10]
    environment = CardGameEnv("kings_corner", seats=3)
    environment.reset_to(state)
    layout = environment.game_spec.encoder.layout
    for seat in range(3):
        vector = environment.observe(f"seat_{seat}")["observation"]
        hand = vector[layout["hand"] : layout["hand"] + 52]
        assert [Card(text).ordinal for text in state.observation(seat)["hand"]] == list(
            np.flatnonzero(hand)
        )
        sizes = vector[layout["hand_sizes"] : layout["hand_sizes"] + 3]
        assert sizes[0] == len(state.observation(seat)["hand"])  # the observer first


CONFIGS = [
    ("koenigsgarten", 2, None),
    ("blumengarten", 1, None),
    ("blumengarten", 1, {"garden_7x5": True, "sequences": True}),
    ("kings_corner", 4, {"collect_corners": True, "draw_first": True}),
    ("kardinal", 5, None),
]


@pytest.mark.parametrize(("game", "seats", "options"), CONFIGS)
def test_every_vector_lies_within_its_bounds(game: str, seats: int, options: dict | None) -> None:
    encoder = env_spec(game, seats, options).encoder
    high = encoder.layout.high
    for seed in range(3):
        for state in random_states(game, seats, seed, options):
            for seat in range(seats):
                vector = encoder.encode(state.observation(seat))
                assert vector.shape == high.shape and vector.dtype == encoder.layout.dtype
                assert np.all(vector >= 0) and np.all(vector <= high), state.observation(seat)


def test_the_koenigsgarten_tracker_equals_encoding_and_masking_afresh() -> None:
    spec = env_spec("koenigsgarten")
    for seed in range(20):
        states = random_states("koenigsgarten", 2, seed)
        tracked = states[0].clone()
        tracker = spec.encoder.tracker(tracked, spec.actions)
        for state in states[1:]:
            seat, action = state.history[-1]
            tracked.apply_action(action)
            tracker.advance(seat, action)
            for observer in (0, 1):
                expected = spec.encoder.encode(state.observation(observer))
                assert np.array_equal(tracker.vector(observer), expected)
            if not state.is_terminal():
                assert np.array_equal(tracker.mask(), spec.actions.mask(state.legal_actions()))
        middle = states[len(states) // 2]
        resumed = spec.encoder.tracker(middle, spec.actions)
        assert np.array_equal(resumed.vector(1), spec.encoder.encode(middle.observation(1)))
        if not middle.is_terminal():
            assert np.array_equal(resumed.mask(), spec.actions.mask(middle.legal_actions()))


def test_the_koenigsgarten_vector_after_one_move() -> None:
    environment = CardGameEnv("koenigsgarten")
    environment.reset(seed=3)
    layout = environment.game_state.deal()["layout"]  # type: ignore[union-attr]
    environment.step(CARD_NUMBER[layout[0]])  # seat 0 takes the card in a1
    taken = CARD_NUMBER[layout[0]]
    mover = environment.observe("seat_0")["observation"]
    other = environment.observe("seat_1")["observation"]
    assert CELL_NAMES[0] == "a1"
    for vector in (mover, other):
        assert vector[LAYOUT["garden"] + taken] == 0  # cell 0 holds the card no more
        assert vector[LAYOUT["garden"] + 16 + CARD_NUMBER[layout[1]]] == 1
        assert vector[LAYOUT["last_taken"] + taken] == 1
    assert mover[LAYOUT["my_markers"]] == 1 and other[LAYOUT["their_markers"]] == 1
    assert mover[LAYOUT["to_move"]] == 0 and other[LAYOUT["to_move"]] == 1
    assert environment.observe("seat_0")["action_mask"].sum() == 0


@pytest.mark.parametrize(("game", "seats"), [("koenigsgarten", 2), ("kings_corner", 3)])
def test_a_kept_observation_never_changes(game: str, seats: int) -> None:
    environment = CardGameEnv(game, seats=seats)
    environment.reset(seed=1)
    first = environment.observe("seat_0")
    kept = {key: value.copy() for key, value in first.items()}
    first["observation"][:] = 7  # a vector is the caller's own
    with pytest.raises(ValueError, match="read-only"):
        first["action_mask"][:] = 0  # a mask is shared, so nobody may change it
    again = environment.observe("seat_0")
    assert np.array_equal(again["observation"], kept["observation"])
    assert again["action_mask"].sum() > 0
    first["observation"][:] = kept["observation"]
    for _ in range(4):
        environment.step(int(np.flatnonzero(environment.last()[0]["action_mask"])[-1]))
        assert all(np.array_equal(first[key], kept[key]) for key in kept)


def test_describe_lists_the_blocks_in_order() -> None:
    blocks = env_spec("kardinal", 4).encoder.describe()
    offsets = [offset for _, offset, _, _, _ in blocks]
    assert offsets == sorted(offsets) and blocks[0][:3] == ("card_row", 0, 56 * 4)
    assert sum(size for _, _, size, _, _ in blocks) == env_spec("kardinal", 4).encoder.layout.size


def test_kardinals_deck_option_is_in_the_vector() -> None:
    data = deck_to_data(DEFAULT_DECK)
    data["cards"][0] = {"country": "DK", "circles": 2, "symbol": "carriage"}  # DK1
    data["tablets"] = {"reclaim": 0, "three": 4, "mixed": 2, "minus2": 2}
    default, custom = env_spec("kardinal", 3), env_spec("kardinal", 3, {"deck": data})
    state = custom.game.new_initial_state(seed=4, seats=3, options=custom.options)
    vector = custom.encoder.encode(state.observation(0))
    layout = custom.encoder.layout
    assert (vector[layout["circles"]], vector[layout["carriage"]]) == (2, 1)
    plain = default.game.new_initial_state(seed=4, seats=3)
    baseline = default.encoder.encode(plain.observation(0))
    assert (baseline[layout["circles"]], baseline[layout["carriage"]]) == (0, 0)


def test_the_koenigsgarten_masks_are_shared_read_only_rows() -> None:
    # The same set of legal cards gets the same array again (no copy per step), and
    # nobody can change it: a kept mask stays the mask of its position.
    first, second = CardGameEnv("koenigsgarten"), CardGameEnv("koenigsgarten")
    first.reset(seed=3)
    second.reset(seed=3)
    mask = first.observe("seat_0")["action_mask"]
    assert second.observe("seat_0")["action_mask"] is mask
    assert not mask.flags.writeable
    kept = mask.copy()
    first.step(int(np.flatnonzero(mask)[0]))
    assert np.array_equal(mask, kept)
