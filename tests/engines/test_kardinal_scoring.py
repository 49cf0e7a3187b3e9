"""Kardinal & König: the final scoring (rule text 003, "Endauswertung", and the rulings).

Holdings are built by hand. With the default deck a country's cards have 1, 2, 1,
2, … circles (FR1 1, FR2 2, FR3 1 …), Dänemark none; ships lie on DK1 DK2 EN1 EN2
KA1 KA2 FR1 FR2 IT1, carriages on BY1 BY2 FK1 FK2 SN1 SN2 HU1 HU2 FR3.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.kardinal import GAME, SeatScore, card_index, score_holdings
from engines.outcome import competition_ranking


def score(*holdings: str, minus2: list[int] | None = None) -> tuple[SeatScore, ...]:
    """Score hand-built holdings, one string of card ids per seat."""
    cards = [[card_index(card) for card in text.split()] for text in holdings]
    scores, _ = score_holdings(cards, minus2 or [0] * len(holdings))
    return scores


def majorities(*holdings: str) -> list[int]:
    return [s.majorities for s in score(*holdings)]


def country(name: str, *holdings: str) -> dict[str, list[object]]:
    cards = [[card_index(card) for card in text.split()] for text in holdings]
    _, countries = score_holdings(cards, [0] * len(holdings))
    return next(c.to_dict() for c in countries if c.country == name)


def test_the_most_cards_score_as_many_points_as_the_country_has_cards() -> None:
    # "Der Spieler, der in einem Land die Mehrheit errungen hat, ... bekommt soviel
    # Punkte gutgeschrieben, wie es Länderkarten dieses Landes gibt (bei Frankreich
    # sind dies z.B. 8 Punkte)."
    assert majorities("FR1 FR3", "") == [8, 0]
    assert majorities("DK1", "") == [4, 0]
    assert majorities("", "EN1 EN2 EN3") == [0, 5]


def test_several_players_with_the_most_cards_all_score_it() -> None:
    # "Haben mehrere Spieler die Mehrheit, bekommen sie beide diese Punkte."
    assert majorities("FR1 FR3", "FR5 FR7", "FR2") == [8, 8, 2]


def test_the_second_most_cards_score_the_leaders_card_count() -> None:
    # "Der Spieler, der die zweitmeisten Karten eines Landes besitzt bekommt soviel
    # Punkte gutgeschrieben, wie der in diesem Land führende Spieler Karten besitze."
    assert majorities("FR1 FR2 FR3 FR4", "FR5 FR6", "") == [8, 4, 0]


def test_several_second_places_all_score_the_leaders_count() -> None:
    # "Auch hier ist es möglich, dass mehrere Spieler diese Punkte zugeteilt bekommen."
    assert majorities("FR1 FR2 FR3", "FR4", "FR5") == [8, 3, 3]


def test_then_the_third_most_cards_score_the_second_places_count() -> None:
    # "Nun geht das Spielchen mit dem Spieler mit den drittmeisten Karten...."
    # Rulings: "the next score the second's count, and so on".
    assert majorities("FR1 FR2 FR3 FR4", "FR5 FR6", "FR7", "") == [8, 4, 2, 0]
    assert majorities("KA1 KA2 KA3 KA4", "KA5 KA6", "KA7") == [7, 4, 2]


@pytest.mark.parametrize(
    ("counts", "points", "places"),
    [
        # ties at the first place: the next seat scores the tied leaders' count
        ([2, 2, 1, 1, 0], [8, 8, 2, 2, 0], [1, 1, 3, 3, None]),
        ([3, 3, 2, 0, 0], [8, 8, 3, 0, 0], [1, 1, 3, None, None]),
        # a tie at the second place
        ([4, 1, 1, 1, 1], [8, 4, 4, 4, 4], [1, 2, 2, 2, 2]),
        ([3, 2, 2, 1, 0], [8, 3, 3, 2, 0], [1, 2, 2, 4, None]),
        # a tie at the third place
        ([3, 2, 1, 1, 0], [8, 3, 2, 2, 0], [1, 2, 3, 3, None]),
        # everybody tied
        ([1, 1, 1, 1, 1], [8, 8, 8, 8, 8], [1, 1, 1, 1, 1]),
        # four places in a row, no tie
        ([4, 2, 1, 0, 1], [8, 4, 2, 0, 2], [1, 2, 3, None, 3]),
    ],
)
def test_ties_share_a_place_and_each_scores_it(
    counts: list[int], points: list[int], places: list[int | None]
) -> None:
    # Rulings: "Ties share a place and each scores it." A seat after a tie scores the
    # count of the tied seats just above it.
    france = iter(f"FR{n}" for n in range(1, 9))
    holdings = [" ".join(next(france) for _ in range(n)) for n in counts]
    result = country("Frankreich", *holdings)
    assert result["cards"] == counts
    assert result["majority_points"] == points
    assert result["places"] == places


def test_a_country_no_one_holds_scores_nothing() -> None:
    result = country("Italien", "FR1", "DK1", "EN1")
    assert result["cards"] == [0, 0, 0]
    assert result["majority_points"] == [0, 0, 0]
    assert result["places"] == [None, None, None]
    assert result["circle_points"] == [0, 0, 0]
    assert majorities("", "") == [0, 0]


def test_the_most_circles_of_a_country_score_their_own_count_the_rest_nothing() -> None:
    # "Ein Spieler, der die meisten gleichen Symbole in diesem Land besitzt, bekommt die
    # Anzahl der Symbole in Punkte gutgeschrieben. Alle anderen Spieler gehen leer aus."
    # FR1 1 + FR2 2 = 3 circles against FR3 1 + FR5 1 = 2 (and 2 cards each).
    result = country("Frankreich", "FR1 FR2", "FR3 FR5", "FR4")
    assert result["circles"] == [3, 2, 2]
    assert result["circle_points"] == [3, 0, 0]
    assert [s.circles for s in score("FR1 FR2", "FR3 FR5", "FR4")] == [3, 0, 0]


def test_tied_circle_leaders_each_score_their_circles() -> None:
    result = country("Frankreich", "FR2", "FR1 FR3", "FR5")
    assert result["circles"] == [2, 2, 1]
    assert result["circle_points"] == [2, 2, 0]


def test_daenemark_has_no_circles_so_no_circle_points() -> None:
    result = country("Dänemark", "DK1 DK2", "DK3")
    assert result["circle_points"] == [0, 0]
    assert [s.circles for s in score("DK1 DK2", "DK3")] == [0, 0]


def test_ships_and_carriages_score_one_each_from_5_of_a_kind() -> None:
    # "Um hierfür Punkte zu bekommen, muss man mindestens 5 Kutschen oder Schiffe einer
    # Sorte besitzen. Ist dies der Fall zählt jedes Symbol dieser Sorte je einen Punkt."
    four_ships = "DK1 DK2 EN1 EN2"
    five_ships = four_ships + " KA1"
    six_ships = five_ships + " IT1"
    four_carriages = "BY1 BY2 FK1 FK2"
    five_carriages = four_carriages + " HU1"
    assert [(s.ships, s.carriages) for s in score(four_ships, five_ships, six_ships)] == [
        (0, 0),
        (5, 0),
        (6, 0),
    ]
    assert [(s.ships, s.carriages) for s in score(four_carriages, five_carriages)] == [
        (0, 0),
        (0, 5),
    ]
    # the threshold is per kind: 4 ships and 4 carriages are not 5 of a kind
    mixed = score(four_ships + " " + four_carriages)[0]
    assert (mixed.ships, mixed.carriages) == (0, 0)
    both = score(five_ships + " " + five_carriages + " FR3")[0]
    assert (both.ships, both.carriages) == (5, 6)


def test_every_minus2_tablet_costs_2_points() -> None:
    # "-2 Siegpunkte: ... bei der Endwertung 2 Punkte Abzug bedeuten."
    scores = score("FR1", "", "DK1", minus2=[0, 1, 2])
    assert [s.tablets for s in scores] == [0, -2, -4]
    assert scores[1].total == -2
    assert scores[2].total == 4 - 4


def test_the_total_adds_up_every_source() -> None:
    # "Nachdem alle Punkte addiert wurden, steht der Sieger fest."
    holdings = ("FR1 FR2 FR3 DK1 DK2 EN1 EN2 KA1", "FR4 BY1")
    first, second = score(*holdings, minus2=[1, 0])
    # seat 0: FR 8 + DK 4 + EN 5 + KA 7 majorities; circles FR 4, EN 3, KA 1;
    # 7 ships (FR1 FR2 DK1 DK2 EN1 EN2 KA1); 1 carriage (FR3); one minus2
    assert (first.majorities, first.circles, first.ships, first.carriages, first.tablets) == (
        24,
        8,
        7,
        0,
        -2,
    )
    assert first.total == 24 + 8 + 7 - 2
    # seat 1: FR second (the leader's 3), BY 6; circles BY 1
    assert (second.majorities, second.circles, second.total) == (3 + 6, 1, 10)


@settings(max_examples=10)
@given(seed=st.integers(min_value=0, max_value=2**32), seats=st.integers(2, 5))
def test_the_outcome_carries_the_breakdown_and_equal_totals_share_a_rank(
    seed: int, seats: int
) -> None:
    # Rulings: "Equal totals share a rank." Returns are the total points.
    state = GAME.new_initial_state(seed=seed, seats=seats)
    rng = random.Random(seed)
    while not state.is_terminal():
        actions = state.legal_actions()
        state.apply_unchecked(actions[rng.randrange(len(actions))])
    outcome = state.outcome()
    assert outcome is not None
    expected, _ = score_holdings(
        [state.holdings(s) for s in range(seats)],
        [state.held_tablets(s).count(3) for s in range(seats)],
        state.tables,
    )
    assert outcome.details["scores"] == [s.to_dict() for s in expected]
    assert outcome.returns == tuple(float(s.total) for s in expected)
    assert outcome.ranking == competition_ranking([s.total for s in expected])
    assert set(outcome.details["countries"]) == {
        "Dänemark", "England", "Italien", "Bayern", "Ungarn", "Kastilien", "Franken",
        "Sachsen", "Frankreich",
    }  # fmt: skip
    for s in range(seats):
        breakdown = outcome.details["scores"][s]
        parts = ("majorities", "circles", "ships", "carriages", "tablets")
        assert sum(breakdown[part] for part in parts) == breakdown["total"]


def test_a_shared_first_place_is_a_shared_rank() -> None:
    for seed in range(400):
        state = GAME.new_initial_state(seed=seed, seats=2)
        rng = random.Random(seed)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_unchecked(actions[rng.randrange(len(actions))])
        outcome = state.outcome()
        assert outcome is not None
        if outcome.returns[0] == outcome.returns[1]:
            assert outcome.ranking == (1, 1)
            return
    pytest.fail("no drawn 2-player game in 400 random games")
