"""The conformance suite: every registered game, every allowed seat count, every
named variant (``Game.variants()``).

A game added to the registry is covered here without new code (the model is
OpenSpiel's random_sim_test). Seeds come from hypothesis, so a failure prints the
seed that reproduces it.
"""

from __future__ import annotations

import json
import pickle
import random
import typing
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.play.records import replay
from arena.play.runner import play_game
from bots.simple import RandomBot
from engines.core import TERMINAL, Game, State
from engines.errors import GameOverError, IllegalActionError, InvalidActionError
from engines.outcome import ForfeitReason, Termination
from engines.registry import all_games

LONG_GAMES = {"kardinal", "kings_corner"}
"""Games whose seeded playouts take up to seconds each: the checks that play seeded games
run their cases in `make test`, not in `make test-fast`."""


def variant_cases(game: Game, *, long_is_slow: bool = False) -> list[Any]:
    """The defaults at every seat count, and every other variant at the fewest seats
    (the cheapest; ``test_every_option_set_plays_within_its_declared_length_and_bounds``
    plays every variant at every seat count). With ``long_is_slow``, the cases of
    :data:`LONG_GAMES` are marked ``slow``."""
    marks = [pytest.mark.slow] if long_is_slow and game.name in LONG_GAMES else []
    (_, defaults), *others = game.variants().items()
    seats = game.min_seats
    return [
        pytest.param(game, n, defaults, id=f"{game.name}-{n}", marks=marks)
        for n in game.seat_counts
    ] + [
        pytest.param(game, seats, options, id=f"{game.name}-{seats}-{name}", marks=marks)
        for name, options in others
    ]


CASES = [case for game in all_games() for case in variant_cases(game)]
LONG_CASES = [case for game in all_games() for case in variant_cases(game, long_is_slow=True)]
seeds = st.integers(min_value=0, max_value=2**63 - 1)


def option_sets(game: Game) -> list[Any]:
    """Every named variant, and every yes/no or choice option set to each other value."""
    sets: list[Any] = list(game.variants().values())
    for spec in game.option_specs():
        choices = spec.kind.split(" | ")
        if spec.kind == "boolean":
            sets.append({spec.name: not spec.default})
        elif len(choices) > 1 and all(choice.startswith('"') for choice in choices):
            sets += [
                {spec.name: value} for value in map(json.loads, choices) if value != spec.default
            ]
    unique: list[Any] = []
    for options in sets:
        parsed = game.parse_options(options)
        if parsed not in unique:
            unique.append(parsed)
    return unique


OPTION_CASES = [
    pytest.param(
        game, seats, options, id=f"{game.name}-{seats}-{json.dumps(game.options_to_dict(options))}"
    )
    for game in all_games()
    for seats in game.seat_counts
    for options in option_sets(game)
]
EXAMPLES = settings(max_examples=15)


def random_playout(game: Game, seats: int, seed: int, options: Any = None) -> list[State]:
    """Every state of one seeded random game, from the deal to the end."""
    state = game.new_initial_state(seed=seed, seats=seats, options=options)
    rng = random.Random(seed)
    states = [state.clone()]
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        states.append(state.clone())
    return states


@pytest.mark.parametrize("game", all_games(), ids=lambda game: game.name)
def test_variants_are_named_option_sets_the_defaults_first(game: Game) -> None:
    variants = game.variants()
    names = list(variants)
    assert names and all(name.isidentifier() for name in names), names
    assert next(iter(variants.values())) == game.parse_options()
    for name, options in variants.items():
        assert isinstance(options, game.options_type), name
        assert game.parse_options(game.options_to_dict(options)) == options, name
    distinct = [game.options_to_dict(options) for options in variants.values()]
    assert all(distinct.count(options) == 1 for options in distinct), names


@pytest.mark.parametrize(("game", "seats", "options"), LONG_CASES)
@EXAMPLES
@given(seed=seeds)
def test_playouts_end_within_declared_length(
    game: Game, seats: int, options: Any, seed: int
) -> None:
    states = random_playout(game, seats, seed, options)
    final = states[-1]
    assert len(final.history) <= game.max_game_length(seats, final.options)
    outcome = final.outcome()
    assert outcome is not None
    assert type(outcome.termination) is Termination and not outcome.is_forfeit
    assert len(outcome.returns) == len(outcome.ranking) == seats
    low, high = game.return_bounds(seats, final.options)
    assert all(low <= r <= high for r in outcome.returns), (outcome.returns, (low, high))
    assert all(1 <= place <= seats for place in outcome.ranking)
    assert min(outcome.ranking) == 1
    assert final.current_seat == TERMINAL


@pytest.mark.parametrize(("game", "seats", "options"), OPTION_CASES)
def test_every_option_set_plays_within_its_declared_length_and_bounds(
    game: Game, seats: int, options: dict[str, object]
) -> None:
    low, high = game.return_bounds(seats, options)
    assert low < high
    for seed in range(2):
        state = game.new_initial_state(seed=seed, seats=seats, options=options)
        rng = random.Random(seed)
        while not state.is_terminal():
            if len(state.history) % 16 == 0:
                for seat in range(seats):
                    forfeit = game.forfeit_outcome(state, seat, ForfeitReason.TIMEOUT)
                    assert forfeit.reason is ForfeitReason.TIMEOUT and forfeit.offender == seat
                    assert forfeit.is_forfeit and forfeit.ranking[seat] == seats
                    assert all(low <= r <= high for r in forfeit.returns)
            legal = state.legal_actions()
            assert len(set(legal)) == len(legal)
            state.apply_action(legal[rng.randrange(len(legal))])
        assert len(state.history) <= game.max_game_length(seats, state.options)
        outcome = state.outcome()
        assert outcome is not None and type(outcome.termination) is Termination
        assert all(low <= r <= high for r in outcome.returns), (outcome.returns, (low, high))


@pytest.mark.parametrize(("game", "seats", "options"), LONG_CASES)
@EXAMPLES
@given(seed=seeds)
def test_legal_actions_unique_ordered_and_present_until_the_end(
    game: Game, seats: int, options: Any, seed: int
) -> None:
    for state in random_playout(game, seats, seed, options):
        legal = state.legal_actions()
        assert legal == state.clone().legal_actions(), "order must not depend on the object"
        assert len(set(legal)) == len(legal), f"duplicate legal actions: {legal}"
        if state.is_terminal():
            assert legal == []
            assert state.outcome() is not None
        else:
            assert legal, "a running game must offer an action"
            assert 0 <= state.current_seat < seats
            assert state.outcome() is None


@pytest.mark.parametrize(("game", "seats", "options"), LONG_CASES)
@EXAMPLES
@given(seed=seeds)
def test_action_text_round_trips(game: Game, seats: int, options: Any, seed: int) -> None:
    for state in random_playout(game, seats, seed, options):
        for action in state.legal_actions():
            text = str(action)
            assert game.parse_action(text) == action
            assert str(game.parse_action(text)) == text
            assert game.parse_action(text.lower()) == action


@pytest.mark.parametrize(("game", "seats", "options"), CASES)
def test_malformed_action_text_is_rejected(game: Game, seats: int, options: Any) -> None:
    for text in ("", "??", "not an action at all", "ZZ>q9"):
        with pytest.raises(InvalidActionError):
            game.parse_action(text)


@pytest.mark.parametrize(("game", "seats", "options"), LONG_CASES)
@EXAMPLES
@given(seed=seeds)
def test_clones_are_independent(game: Game, seats: int, options: Any, seed: int) -> None:
    states = random_playout(game, seats, seed, options)
    middle = states[len(states) // 2]
    before = (middle.to_dict(), [middle.observation(s) for s in range(seats)])
    twin = middle.clone()
    rng = random.Random(seed + 1)
    while not twin.is_terminal():
        legal = twin.legal_actions()
        twin.apply_action(legal[rng.randrange(len(legal))])
    after = (middle.to_dict(), [middle.observation(s) for s in range(seats)])
    assert before == after


@pytest.mark.parametrize(("game", "seats", "options"), LONG_CASES)
@EXAMPLES
@given(seed=seeds)
def test_checked_path_rejects_illegal_and_late_actions(
    game: Game, seats: int, options: Any, seed: int
) -> None:
    states = random_playout(game, seats, seed, options)
    every_action = {a for s in states for a in s.legal_actions()}
    for state in states[:-1]:
        assert all(state.is_legal(action) for action in state.legal_actions())
        illegal = sorted(every_action - set(state.legal_actions()), key=str)
        if illegal:
            assert not state.is_legal(illegal[0])
            before = state.to_dict()
            with pytest.raises(IllegalActionError) as excinfo:
                state.apply_action(illegal[0])
            message = str(excinfo.value)
            assert str(illegal[0]) in message
            assert f"{game.name} after {len(state.history)} action" in message
            assert f"from seed {seed}" in message
            assert state.to_dict() == before, "a rejected action must not change the state"
    final = states[-1]
    assert not any(final.is_legal(action) for action in every_action)
    with pytest.raises(GameOverError, match=f"{game.name} after {len(final.history)} action"):
        final.apply_action(next(iter(every_action)))


@pytest.mark.parametrize(("game", "seats", "options"), LONG_CASES)
@EXAMPLES
@given(seed=seeds)
def test_record_replay_reproduces_outcome_and_observations(
    game: Game, seats: int, options: Any, seed: int
) -> None:
    state = game.new_initial_state(seed=seed, seats=seats, options=options)
    seen: list[list[object]] = [[state.observation(s) for s in range(seats)]]
    bots = [RandomBot(seed=seat) for seat in range(seats)]
    record = play_game(
        state,
        bots,
        on_step=lambda st, _seat, _a: seen.append([st.observation(s) for s in range(seats)]),
    )
    replayed: list[list[object]] = []
    start = game.state_from_deal(record.deal, seats=record.seats, options=record.options)
    replayed.append([start.observation(s) for s in range(seats)])
    final = replay(
        record,
        on_step=lambda _i, _seat, _a, st: replayed.append(
            [st.observation(s) for s in range(seats)]
        ),
    )
    assert replayed == seen
    assert final.outcome() == state.outcome()
    assert record.outcome == state.outcome().to_dict()  # type: ignore[union-attr]


@pytest.mark.parametrize(("game", "seats", "options"), LONG_CASES)
@EXAMPLES
@given(seed=seeds)
def test_observations_are_json_data(game: Game, seats: int, options: Any, seed: int) -> None:
    for state in random_playout(game, seats, seed, options):
        for seat in range(seats):
            observation = state.observation(seat)
            assert isinstance(observation, dict)
            assert json.loads(json.dumps(observation)) == observation


@pytest.mark.parametrize(("game", "seats", "options"), LONG_CASES)
@settings(max_examples=8)
@given(seed=seeds)
def test_determinisation_agrees_with_the_observation(
    game: Game, seats: int, options: Any, seed: int
) -> None:
    rng = random.Random(seed)
    for state in random_playout(game, seats, seed, options)[:-1]:
        for seat in range(seats):
            observation = state.observation(seat)
            sample = game.state_from_observation(observation, rng)
            assert sample.observation(seat) == observation
            assert sample.current_seat == state.current_seat
            if seat == state.current_seat:
                assert sample.legal_actions() == state.legal_actions()
            while not sample.is_terminal():  # a sampled state plays on legally
                legal = sample.legal_actions()
                sample.apply_action(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize(("game", "seats", "options"), CASES)
def test_hidden_information_is_really_resampled(game: Game, seats: int, options: Any) -> None:
    """For hidden-information games, a determinisation must not just copy the truth:
    over a game, some sample shows another seat something different."""
    if game.perfect_information:
        pytest.skip("perfect information: nothing is hidden")
    rng = random.Random(7)
    differs = False
    for state in random_playout(game, seats, 7, options)[:-1]:
        observer = state.current_seat
        sample = game.state_from_observation(state.observation(observer), rng)
        others = [s for s in range(seats) if s != observer] or [observer]
        if any(sample.observation(s) != state.observation(s) for s in others):
            differs = True
            break
    assert differs


@pytest.mark.parametrize(("game", "seats", "options"), LONG_CASES)
@EXAMPLES
@given(seed=seeds)
def test_states_pickle_and_serialise(game: Game, seats: int, options: Any, seed: int) -> None:
    states = random_playout(game, seats, seed, options)
    for state in (states[0], states[len(states) // 2], states[-1]):
        copy = pickle.loads(pickle.dumps(state))
        assert copy.to_dict() == state.to_dict()
        assert copy.legal_actions() == state.legal_actions()
        data = json.loads(json.dumps(state.to_dict()))
        restored = game.state_from_dict(data)
        assert restored == state
        assert restored.outcome() == state.outcome()
        assert [restored.observation(s) for s in range(seats)] == [
            state.observation(s) for s in range(seats)
        ]


@pytest.mark.parametrize(("game", "seats", "options"), LONG_CASES)
@EXAMPLES
@given(seed=seeds)
def test_one_seed_one_game(game: Game, seats: int, options: Any, seed: int) -> None:
    first = random_playout(game, seats, seed, options)[-1]
    second = random_playout(game, seats, seed, options)[-1]
    assert first.to_dict() == second.to_dict()
    if game.has_chance:
        other = game.new_initial_state(seed=seed + 1, seats=seats, options=options)
        assert other.deal() != first.deal()


@pytest.mark.parametrize(("game", "seats", "options"), CASES)
def test_deal_round_trips_through_state_from_deal(game: Game, seats: int, options: Any) -> None:
    state = game.new_initial_state(seed=11, seats=seats, options=options)
    again = game.state_from_deal(json.loads(json.dumps(state.deal())), seats=seats, options=options)
    assert again.deal() == state.deal()
    assert [again.observation(s) for s in range(seats)] == [
        state.observation(s) for s in range(seats)
    ]


def declared_types(cls: type, base: type) -> tuple[Any, ...]:
    """The type arguments ``cls`` gives its generic base ``base`` (``State[Card, …]``)."""
    for klass in cls.__mro__:
        for origin in getattr(klass, "__orig_bases__", ()):
            if typing.get_origin(origin) is base:
                return typing.get_args(origin)
    raise AssertionError(f"{cls.__name__} does not parametrise {base.__name__}")


@pytest.mark.parametrize(("game", "seats", "options"), CASES)
def test_game_and_state_declare_the_action_and_options_types(
    game: Game, seats: int, options: Any
) -> None:
    states = random_playout(game, seats, 5, options)
    action_type, options_type = declared_types(type(states[0]), State)
    assert declared_types(type(game), Game) == (action_type, options_type)
    assert options_type is game.options_type
    for state in states:
        assert isinstance(state.options, options_type)
        assert all(isinstance(action, action_type) for action in state.legal_actions())
    assert all(isinstance(action, action_type) for _, action in states[-1].history)
