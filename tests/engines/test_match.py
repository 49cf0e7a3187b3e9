"""Match formats: what each game declares, and penalties matches (Kings in the Corner),
where penalties add up until someone reaches the limit."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.errors import OptionError
from engines.kings_corner import GAME
from engines.match import PENALTY_LIMITS, MatchKind, MatchSpec, PenaltyMatch
from engines.registry import get_game


def test_a_match_adds_penalties_until_someone_reaches_the_limit_and_the_lowest_total_wins() -> None:
    match = PenaltyMatch(players=3, limit=25)
    match.record([0, 12, 1])
    match.record([7, 0, 3])
    assert match.totals == [7, 12, 4]
    assert not match.is_over
    assert match.winners == ()
    match.record([1, 13, 0])
    assert match.totals == [8, 25, 4]
    assert match.is_over
    assert match.winners == (2,)
    assert match.ranking == (2, 3, 1)
    with pytest.raises(ValueError, match="already over"):
        match.record([0, 0, 0])


def test_a_match_to_50_and_shared_lowest_totals() -> None:
    assert PENALTY_LIMITS == (25, 50)
    match = PenaltyMatch(players=2, limit=50)
    match.record([30, 30])
    assert not match.is_over
    match.record([20, 20])
    assert match.is_over
    assert match.winners == (0, 1)


def test_the_first_player_moves_one_to_the_left_each_game() -> None:
    match = PenaltyMatch(players=4, limit=50)
    openers = []
    for _ in range(5):
        openers.append(match.next_opener)
        match.record([1, 1, 1, 1])
    assert openers == [0, 1, 2, 3, 0]


@pytest.mark.parametrize(
    ("players", "limit", "penalties"),
    [(1, 25, None), (2, 0, None), (2, 25, [1]), (2, 25, [1, -1])],
)
def test_bad_matches_and_results_are_rejected(
    players: int, limit: int, penalties: list[int] | None
) -> None:
    with pytest.raises(ValueError):
        match = PenaltyMatch(players=players, limit=limit)
        match.record(penalties or [])


@given(
    games=st.lists(st.lists(st.integers(0, 30), min_size=3, max_size=3), max_size=12),
    limit=st.sampled_from(PENALTY_LIMITS),
)
def test_the_match_ends_exactly_when_a_total_reaches_the_limit(
    games: list[list[int]], limit: int
) -> None:
    match = PenaltyMatch(players=3, limit=limit)
    totals = [0, 0, 0]
    for penalties in games:
        if max(totals) >= limit:
            break
        match.record(penalties)
        totals = [t + p for t, p in zip(totals, penalties, strict=True)]
        assert match.totals == totals
        assert match.is_over == (max(totals) >= limit)
    if match.is_over:
        assert set(match.winners) == {p for p in range(3) if totals[p] == min(totals)}


def test_game_penalties_come_from_a_finished_game() -> None:
    state = GAME.new_initial_state(seed=9, seats=3)
    with pytest.raises(ValueError, match="only at the end"):
        GAME.match_penalties(state)
    rng = random.Random(9)
    while not state.is_terminal():
        actions = state.legal_actions()
        state.apply_action(actions[rng.randrange(len(actions))])
    penalties = GAME.match_penalties(state)
    assert penalties == tuple(-int(r) for r in state.returns())
    match = PenaltyMatch(players=3)
    match.record(penalties)
    assert match.totals == list(penalties)


def test_every_game_declares_its_match_formats() -> None:
    assert GAME.match_formats() == ("single", "penalties-25", "penalties-50")
    assert get_game("koenigsgarten").match_formats() == (
        "single",
        "first-to-3",
        "points",
        "points-15",
        "points-20",
    )
    assert get_game("kardinal").match_formats() == ("single",)
    assert get_game("blumengarten").match_formats() == ("single",)


def test_a_game_parses_only_its_own_formats() -> None:
    assert GAME.parse_match_format("Penalties-50") == MatchSpec(MatchKind.PENALTIES, 50)
    assert str(GAME.parse_match_format("penalties-25")) == "penalties-25"
    koenigsgarten = get_game("koenigsgarten")
    assert koenigsgarten.parse_match_format("points") == MatchSpec(MatchKind.POINTS, 10)
    with pytest.raises(OptionError, match=r"koenigsgarten is not played in 'penalties-25'"):
        koenigsgarten.parse_match_format("penalties-25")
    with pytest.raises(OptionError, match=r"kardinal is not played in 'first-to-3'.*: single\)"):
        get_game("kardinal").parse_match_format("first-to-3")
    with pytest.raises(OptionError, match="unknown match format 'penalties-30'"):
        GAME.parse_match_format("penalties-30")


def test_games_without_penalty_points_refuse_to_count_them() -> None:
    koenigsgarten = get_game("koenigsgarten")
    state = koenigsgarten.new_initial_state(seed=1)
    with pytest.raises(OptionError, match="koenigsgarten keeps no penalty points"):
        koenigsgarten.match_penalties(state)
