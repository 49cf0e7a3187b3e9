"""Kings in the Corner: what each seat sees, determinisation, and that every variant
ends within the declared bound. The generic conformance suite covers the default
options; these tests run every variant."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.cards import DECK, Card
from engines.errors import InvalidStateError
from engines.kings_corner import (
    GAME,
    PILES,
    KingsCornerAction,
    KingsCornerState,
    make_deal,
    parse_action,
)

VARIANTS = (
    "must_play",
    "draw_first",
    "kings_at_once",
    "corners_in_suit",
    "pip_values",
    "collect_corners",
    "four_cards",
)
option_sets = st.fixed_dictionaries(
    {name: st.booleans() for name in VARIANTS}
    | {"king_piles_to_corner": st.sampled_from(["opening", "anytime"])}
)
seeds = st.integers(min_value=0, max_value=2**32)
seat_counts = st.integers(min_value=2, max_value=4)
CARD_TEXT = re.compile(r"\b[A2-9TJQK][SHDC]\b")

Policy = Callable[[KingsCornerState, random.Random], KingsCornerAction]


def random_policy(state: KingsCornerState, rng: random.Random) -> KingsCornerAction:
    actions = state.legal_actions()
    return actions[rng.randrange(len(actions))]


def stalling_policy(state: KingsCornerState, rng: random.Random) -> KingsCornerAction:
    """Makes games long: at most one play or pile move per turn, pile moves first, and
    only once the stock is empty (so every turn after that restarts the bare count)."""
    actions = state.legal_actions()
    ending = [a for a in actions if a.kind in ("draw", "end")]
    if state.observation(state.current_seat)["played_this_turn"] and ending:
        return ending[0]
    if state.stock_size and ending:
        return ending[0]
    moves = [a for a in actions if a.kind == "move"]
    others = [a for a in actions if a.kind == "play"] or actions
    return rng.choice(moves or others)


def playout(
    seed: int, seats: int, options: dict[str, Any], policy: Policy = random_policy
) -> Iterator[KingsCornerState]:
    """The states of one game (the live object, advanced in place), start to end."""
    state = GAME.new_initial_state(seed=seed, seats=seats, options=options)
    assert isinstance(state, KingsCornerState)
    rng = random.Random(seed)
    yield state
    while not state.is_terminal():
        state.apply_action(policy(state, rng))
        yield state


def card_count(state: KingsCornerState) -> int:
    in_hands = sum(len(state.hand(seat)) for seat in range(state.num_seats))
    on_piles = sum(len(state.pile(name)) for name in PILES)
    collected = 13 * sum(state.corners_collected(seat) for seat in range(state.num_seats))
    return in_hands + on_piles + state.stock_size + collected


@settings(max_examples=40)
@given(seed=seeds, seats=seat_counts, options=option_sets, stall=st.booleans())
def test_every_variant_ends_within_the_declared_length_with_all_52_cards(
    seed: int, seats: int, options: dict[str, Any], stall: bool
) -> None:
    bound = GAME.max_game_length(seats, options)
    for state in playout(seed, seats, options, stalling_policy if stall else random_policy):
        assert card_count(state) == 52
        assert len(state.history) <= bound
        if not state.is_terminal():
            assert state.legal_actions()
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.termination in ("hand_emptied", "blocked")
    assert min(outcome.ranking) == 1


def strings(data: Any) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from strings(value)
    elif isinstance(data, list):
        for item in data:
            yield from strings(item)


@pytest.mark.parametrize("seats", [2, 3, 4])
@settings(max_examples=6)
@given(seed=seeds, options=option_sets)
def test_no_observation_names_a_card_its_seat_could_not_know(
    seats: int, seed: int, options: dict[str, Any]
) -> None:
    known: list[set[str]] | None = None
    previous_hands: list[list[Card]] = []
    for state in playout(seed, seats, options):
        if known is None:
            layout = set(state.deal()["layout"].values())
            known = [layout | set(state.deal()["hands"][seat]) for seat in range(seats)]
        else:
            actor, action = state.history[-1]
            assert isinstance(action, KingsCornerAction)
            if action.card is not None:
                for seen in known:
                    seen.add(str(action.card))
            for card in set(state.hand(actor)) - set(previous_hands[actor]):
                known[actor].add(str(card))  # what the actor drew, only for the actor
        previous_hands = [state.hand(seat) for seat in range(seats)]
        for seat in range(seats):
            observation = state.observation(seat)
            named = {m for text in strings(observation) for m in CARD_TEXT.findall(text)}
            assert named <= known[seat], f"seat {seat} sees {named - known[seat]}"
            assert observation["hand"] == [str(card) for card in state.hand(seat)]


def test_an_observation_shows_the_own_hand_every_pile_and_only_sizes_of_other_hands() -> None:
    state = GAME.new_initial_state(seed=4, seats=3)
    assert isinstance(state, KingsCornerState)
    for text in ("draw", "draw"):
        state.apply_action(parse_action(text))
    observation = state.observation(2)
    assert observation["hand"] == [str(card) for card in state.hand(2)]
    assert observation["hand_sizes"] == [8, 8, 7]
    assert observation["stock_size"] == 52 - 21 - 4 - 2
    assert observation["piles"] == {
        name: [str(card) for card in state.pile(name)] for name in PILES
    }
    assert observation["history"] == [[0, "draw"], [1, "draw"]]
    assert observation["to_move"] == 2
    for other in (0, 1):
        assert not set(map(str, state.hand(other))) & set(json.dumps(observation).split('"'))
    assert state.observation(0)["drawn"] == [state.deal()["stock"][0]]
    assert observation["drawn"] == []


@settings(max_examples=12)
@given(seed=seeds, seats=seat_counts, options=option_sets)
def test_a_determinisation_agrees_with_the_observation_and_plays_on_legally(
    seed: int, seats: int, options: dict[str, Any]
) -> None:
    rng = random.Random(seed)
    states = [state.clone() for state in playout(seed, seats, options)]
    for state in states[:: max(1, len(states) // 6)]:
        assert isinstance(state, KingsCornerState)
        for seat in range(seats):
            observation = state.observation(seat)
            sample = GAME.state_from_observation(observation, rng)
            assert isinstance(sample, KingsCornerState)
            assert sample.observation(seat) == observation
            assert sample.current_seat == state.current_seat
            if seat == state.current_seat:
                assert sample.legal_actions() == state.legal_actions()
            visible = {str(c) for name in PILES for c in state.pile(name)}
            for other in range(seats):
                if other != seat:
                    assert len(sample.hand(other)) == len(state.hand(other))
                    assert not {str(c) for c in sample.hand(other)} & (
                        visible | set(observation["hand"])
                    )
            assert GAME.state_from_dict(sample.to_dict()) == sample, "a real game"
            while not sample.is_terminal():
                actions = sample.legal_actions()
                sample.apply_action(actions[rng.randrange(len(actions))])


def test_determinisations_spread_the_unseen_cards_at_random() -> None:
    state = GAME.new_initial_state(seed=8, seats=4)
    assert isinstance(state, KingsCornerState)
    rng = random.Random(8)
    for _ in range(9):
        actions = state.legal_actions()
        state.apply_action(actions[rng.randrange(len(actions))])
    observer = state.current_seat
    observation = state.observation(observer)
    samples = [GAME.state_from_observation(observation, random.Random(i)) for i in range(30)]
    unseen = set(DECK) - set(state.hand(observer))
    for other in range(4):
        if other == observer:
            continue
        hands = {tuple(s.hand(other)) for s in samples}
        assert len(hands) > 20, "another hand is resampled"
        held = {card for hand in hands for card in hand}
        assert held <= unseen
    stocks = {tuple(s.deal()["stock"][-5:]) for s in samples}
    assert len(stocks) > 20, "the stock order is resampled"


def test_a_determinisation_keeps_the_cards_another_seat_played_in_that_seats_hand() -> None:
    # Seat 0 plays 8H in its first turn: any sampled deal must have dealt it the 8H.
    deal = make_deal(
        [["8H", "2C", "3C", "4C", "5C", "6C", "7C"], ["3D", "4D", "5D", "6S", "7S", "2S", "3S"]],
        ["9S", "AS", "AH", "AD"],
    )
    state = GAME.state_from_deal(deal, seats=2)
    for text in ("8H>N", "draw"):
        state.apply_action(parse_action(text))
    for seed in range(10):
        sample = GAME.state_from_observation(state.observation(1), random.Random(seed))
        assert "8H" in sample.deal()["hands"][0]


@pytest.mark.parametrize(
    "tamper",
    [
        lambda o: o["hand"].append("KS"),
        lambda o: o["piles"]["N"].append("2C"),
        lambda o: o["history"].append([0, "KS>NE"]),
        lambda o: o.__setitem__("drawn", ["AS", "AS"]),
        lambda o: o.pop("layout"),
        lambda o: o["options"].__setitem__("no_such_option", True),
    ],
)
def test_a_malformed_observation_is_rejected(tamper: Callable[[dict[str, Any]], Any]) -> None:
    state = GAME.new_initial_state(seed=2, seats=2)
    state.apply_action(parse_action("draw"))
    observation = state.observation(1)
    tamper(observation)
    with pytest.raises(InvalidStateError):
        GAME.state_from_observation(observation, random.Random(0))


@pytest.mark.parametrize(
    ("option", "never_dealt"),
    [
        ("must_play", {"8H", "8D", "KS", "KH", "KD", "KC"}),
        ("kings_at_once", {"KS", "KH", "KD", "KC"}),
    ],
)
def test_a_determinisation_respects_what_a_variant_reveals_about_a_hand(
    option: str, never_dealt: set[str]
) -> None:
    # Seat 0 draws at once. With must_play that shows it held no card that fit
    # (no red 8 for the 9S, no king for the free corners); with kings_at_once, no king.
    deal = make_deal(
        [["2C", "3C", "4C", "5C", "6C", "7C", "9C"], ["3D", "4D", "5D", "6S", "7S", "2S", "3S"]],
        ["9S", "AS", "AH", "AD"],
    )
    state = GAME.state_from_deal(deal, seats=2, options={option: True})
    state.apply_action(parse_action("draw"))
    observation = state.observation(1)
    dealt = set()
    for seed in range(40):
        sample = GAME.state_from_observation(observation, random.Random(seed))
        dealt |= set(sample.deal()["hands"][0])
    assert not dealt & never_dealt
    assert len(dealt) > 30, "everything else is spread over the hidden hand"


def test_render_shows_the_piles_with_suits_and_only_the_seats_own_hand() -> None:
    deal = make_deal(
        [["8H", "2C", "3C", "4C", "5C", "6C", "7C"], ["3D", "4D", "5D", "6S", "7S", "2S", "3S"]],
        ["9S", "AS", "AH", "AD"],
    )
    state = GAME.state_from_deal(deal, seats=2)
    state.apply_action(parse_action("8H>N"))
    text = state.render(0)
    assert " N  9♠ 8♥" in text
    assert "seat 0: 2♣ 3♣ 4♣ 5♣ 6♣ 7♣" in text
    assert "seat 1: 7 cards" in text
    assert "3♦" not in text
    assert "seat 1: 2♠ 3♠ 3♦ 4♦ 5♦ 6♠ 7♠" in state.render()
