"""Outcomes: the closed vocabularies records store, ranking points, and checked values."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.errors import InvalidOutcomeError, InvalidStateError
from engines.outcome import (
    ForfeitReason,
    Outcome,
    Termination,
    competition_ranking,
    ranking_points,
)

STORED_TERMINATIONS = {
    "forfeit",
    "error",
    "four_in_a_pattern",
    "no_legal_card",
    "full_garden_draw",
    "hand_emptied",
    "blocked",
    "all_cards_taken",
    "every_player_skipped",
    "won",
    "resigned",
    "no_legal_move",
    "move_cap",
}
"""Every termination word that records and databases written before the enums hold."""
STORED_REASONS = {
    "timeout",
    "crash",
    "illegal_action",
    "protocol_violation",
    "malformed_output",
    "resigned",  # a person in the browser (arena/web/humans.py)
    "suspended",
}


def test_the_vocabularies_are_the_words_already_stored() -> None:
    assert {member.value for member in Termination} == STORED_TERMINATIONS
    assert {member.value for member in ForfeitReason} == STORED_REASONS
    assert Termination.WON == "won" and f"{Termination.WON}" == "won"
    assert json.dumps(ForfeitReason.ILLEGAL_ACTION) == '"illegal_action"'


def test_a_stored_outcome_reads_back_as_members_and_writes_the_same_json() -> None:
    stored = {
        "returns": [-1.0, 1.0],
        "ranking": [2, 1],
        "termination": "forfeit",
        "offender": 0,
        "reason": "timeout",
    }
    outcome = Outcome.from_dict(stored)
    assert outcome.termination is Termination.FORFEIT
    assert outcome.reason is ForfeitReason.TIMEOUT
    assert outcome.is_forfeit
    assert json.loads(json.dumps(outcome.to_dict())) == stored
    assert type(outcome.to_dict()["termination"]) is str


def test_text_and_members_make_equal_outcomes() -> None:
    by_text = Outcome((1.0, -1.0), (1, 2), "four_in_a_pattern")  # type: ignore[arg-type]
    by_member = Outcome.win(0, 2, Termination.FOUR_IN_A_PATTERN)
    assert by_text == by_member and hash(by_text) == hash(by_member)


@pytest.mark.parametrize(
    ("data", "quoted"),
    [
        ({"returns": [1], "ranking": [1], "termination": "checkmate"}, "'checkmate'"),
        (
            {
                "returns": [1, -1],
                "ranking": [1, 2],
                "termination": "forfeit",
                "offender": 1,
                "reason": "bored",
            },
            "'bored'",
        ),
        ({"returns": [1, -1], "ranking": [1]}, "'termination'"),
    ],
)
def test_an_outcome_outside_the_vocabulary_is_refused_by_name(
    data: dict[str, object], quoted: str
) -> None:
    with pytest.raises(InvalidStateError, match=quoted):
        Outcome.from_dict(data)


def test_bad_outcomes_raise_our_own_error() -> None:
    with pytest.raises(InvalidOutcomeError, match="unknown forfeit reason 'bored'"):
        Outcome.forfeit(0, 2, "bored")
    with pytest.raises(InvalidOutcomeError, match=r"offender seat 2 outside 0\.\.1"):
        Outcome.forfeit(2, 2, ForfeitReason.CRASH)
    with pytest.raises(InvalidOutcomeError, match="differ in length"):
        Outcome((1.0,), (1, 2), Termination.WON)
    assert Outcome.forfeit(1, 2, "crash").reason is ForfeitReason.CRASH


def test_ranking_points_give_ties_half_and_a_lone_seat_all_or_nothing() -> None:
    assert ranking_points([1, 2]) == (1.0, 0.0)
    assert ranking_points([1, 1]) == (0.5, 0.5)
    assert ranking_points([2, 1, 3]) == (0.5, 1.0, 0.0)
    assert ranking_points([1]) == (1.0,)
    assert ranking_points([2]) == (0.0,)
    assert Outcome.draw(3, Termination.BLOCKED).points == (0.5, 0.5, 0.5)


@given(st.lists(st.integers(-20, 20), min_size=2, max_size=6))
def test_ranking_points_follow_the_places_and_share_out_half_the_pairs(scores: list[int]) -> None:
    ranking = competition_ranking(scores)
    points = ranking_points(ranking)
    seats = len(scores)
    assert sum(points) == pytest.approx(seats / 2)  # every pair of seats shares one point
    for mine, my_points in zip(ranking, points, strict=True):
        assert 0.0 <= my_points <= 1.0
        for other, other_points in zip(ranking, points, strict=True):
            if mine < other:
                assert my_points > other_points
