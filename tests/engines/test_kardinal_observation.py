"""Kardinal & König: what each seat sees, and determinisations for search.

Rulings: a tablet's kind is known to nobody while it lies face down and only to its
holder until it is played; a played tablet is shown.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.errors import InvalidStateError
from engines.kardinal import (
    CARD_IDS,
    GAME,
    TABLET_KINDS,
    KardinalState,
    PlayTablet,
    Take,
)
from tests.engines.kardinal_support import play, start

seeds = st.integers(min_value=0, max_value=2**32)


def random_states(seed: int, seats: int) -> list[KardinalState]:
    state = GAME.new_initial_state(seed=seed, seats=seats)
    rng = random.Random(seed)
    states = [state.clone()]
    while not state.is_terminal():
        actions = state.legal_actions()
        state.apply_unchecked(actions[rng.randrange(len(actions))])
        states.append(state.clone())
    return states


def replay_with_tablets(state: KardinalState, tablets: dict[str, str]) -> KardinalState:
    """The same game from a deal whose tablets are ``tablets``."""
    other = GAME.state_from_deal(
        {**state.deal(), "tablets": tablets}, seats=state.num_seats, options=state.options
    )
    for _, action in state.history:
        other.apply_action(action)
    return other


def kinds_hidden_from(state: KardinalState, seat: int) -> list[str]:
    """Tablet cards whose kind ``seat`` cannot know: face down, or held by a seat
    that has played no tablet yet (so nothing of its hand was revealed)."""
    takers: dict[str, int] = {}
    revealed = {seat}
    for who, action in state.history:
        if isinstance(action, Take):
            takers[CARD_IDS[action.card]] = who
        if isinstance(action, PlayTablet):
            revealed.add(who)
    return [card for card in state.deal()["tablets"] if takers.get(card, -1) not in revealed]


@settings(max_examples=6)
@given(seed=seeds, seats=st.integers(min_value=2, max_value=5))
def test_no_observation_depends_on_a_tablet_kind_its_seat_cannot_know(
    seed: int, seats: int
) -> None:
    states = random_states(seed, seats)
    for state in states[:: max(1, len(states) // 12)]:
        taker = {CARD_IDS[a.card]: s for s, a in state.history if isinstance(a, Take)}
        for seat in range(seats):
            hidden = kinds_hidden_from(state, seat)
            tablets = dict(state.deal()["tablets"])
            kinds = [tablets[card] for card in hidden]
            rotated = kinds[1:] + kinds[:1]
            if rotated == kinds:
                continue
            tablets.update(zip(hidden, rotated, strict=True))
            other = replay_with_tablets(state, tablets)
            assert other.observation(seat) == state.observation(seat)
            for holder in range(seats):
                mine = [i for i, card in enumerate(hidden) if taker.get(card) == holder]
                if Counter(kinds[i] for i in mine) != Counter(rotated[i] for i in mine):
                    # the holder does see that its tablets changed
                    assert other.observation(holder) != state.observation(holder)


def strings_in(data: object) -> set[str]:
    """Every string value (not key) inside JSON data."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(strings_in(value) for value in data.values()))
    if isinstance(data, list):
        return set().union(*(strings_in(item) for item in data))
    return set()


@settings(max_examples=6)
@given(seed=seeds, seats=st.integers(min_value=2, max_value=5))
def test_tablet_kinds_appear_only_in_own_tablets_and_played_ones(seed: int, seats: int) -> None:
    words = set(TABLET_KINDS)
    for state in random_states(seed, seats)[::7]:
        for seat in range(seats):
            observation = state.observation(seat)
            assert Counter(observation["my_tablets"]) == Counter(
                TABLET_KINDS[k] for k in state.held_tablets(seat)
            )
            rest = {
                key: value
                for key, value in observation.items()
                if key not in ("my_tablets", "played_tablets", "history")
            }
            assert not strings_in(rest) & words, rest
            for _, action in observation["history"]:
                assert action.split()[0] != "play" or action.split()[1] in words


def test_taking_a_tablet_is_public_its_kind_is_not() -> None:
    state = start("DK1 | EN1", seats=3, tablets={"DK1": "minus2"})
    play(state, "take DK1")
    for seat in (1, 2):
        observation = state.observation(seat)
        assert observation["history"] == [[0, "take DK1"]]
        assert "DK1" in observation["tablet_cards"]
        assert observation["tablet_counts"] == [1, 0, 0]
        assert "minus2" not in json.dumps(observation)
    assert state.observation(0)["my_tablets"] == ["minus2"]


def test_a_determinisation_keeps_what_the_observer_knows() -> None:
    state = start("DK1 DK2 | EN1", "FR1 | IT1", seats=3, tablets={"DK1": "three", "DK2": "mixed"})
    play(state, "take DK1", "take DK2", "play mixed", "take FR1", "end", "take EN1", "end")
    rng = random.Random(1)
    for _ in range(20):
        sample = GAME.state_from_observation(state.observation(0), rng)
        assert sample.held_tablets(0) == state.held_tablets(0)
        assert sample.observation(0) == state.observation(0)
        assert sample.to_dict()["actions"] == state.to_dict()["actions"]
        assert Counter(sample.deal()["tablets"].values()) == Counter(
            {"reclaim": 2, "three": 2, "mixed": 2, "minus2": 2}
        )
        tablets = sample.deal()["tablets"]
        assert {tablets["DK1"], tablets["DK2"]} == {"three", "mixed"}


def test_determinisations_spread_the_unknown_kinds_at_random() -> None:
    state = GAME.new_initial_state(seed=4, seats=4)
    rng = random.Random(2)
    samples = {
        json.dumps(GAME.state_from_observation(state.observation(2), rng).deal()["tablets"])
        for _ in range(30)
    }
    assert len(samples) > 10
    cards = set(state.deal()["tablets"])
    assert all(set(json.loads(s)) == cards for s in samples), "the carriers are public"


def test_another_seats_played_tablet_comes_from_a_tablet_it_had_picked_up() -> None:
    state = start("DK1 DK2 | EN1", "FR1 | IT1", tablets={"EN1": "reclaim", "IT1": "three"})
    play(state, "take DK1", "stone EN1", "end", "take EN1", "end")
    play(state, "take DK2", "stone IT1", "end", "take IT1", "play reclaim")
    rng = random.Random(3)
    kinds_on_seat_1 = set()
    for _ in range(30):
        sample = GAME.state_from_observation(state.observation(0), rng)
        assert sample.observation(0) == state.observation(0)
        assert sample.supply(1) == state.supply(1)
        kinds_on_seat_1.add(tuple(sample.held_tablets(1)))
        assert "reclaim" in {sample.deal()["tablets"][card] for card in ("EN1", "IT1")}, (
            "seat 1 played a reclaim, so one of its tablets was one"
        )
    assert len(kinds_on_seat_1) > 1


def test_a_malformed_observation_is_an_invalid_state() -> None:
    observation = GAME.new_initial_state(seed=1).observation(0)
    with pytest.raises(InvalidStateError):
        GAME.state_from_observation({**observation, "history": [[0, "take XX1"]]}, random.Random())
    with pytest.raises(InvalidStateError):
        GAME.state_from_observation({**observation, "my_tablets": ["three"]}, random.Random())
    broken = dict(observation)
    del broken["layout"]
    with pytest.raises(InvalidStateError):
        GAME.state_from_observation(broken, random.Random())
    first = observation["rows"][0][0]
    with pytest.raises(InvalidStateError, match="seat 1"):
        GAME.state_from_observation(
            {**observation, "history": [[1, f"take {first}"]]}, random.Random()
        )
