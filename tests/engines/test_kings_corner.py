"""Kings in the Corner: one test per rule sentence of text 002, its worked examples,
the rulings and every variant.

Positions are set up with :func:`make_deal` (given hands, side cards and top of the
stock). Side cards that are aces keep piles out of the way: nothing goes on an ace,
and an ace at the bottom of a pile fits only on a two.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

import pytest

from engines.cards import DECK, Card
from engines.core import State
from engines.errors import IllegalActionError, InvalidActionError, InvalidDealError
from engines.kings_corner import (
    CORNERS,
    GAME,
    PILES,
    KingsCornerAction,
    KingsCornerState,
    card_fits,
    make_deal,
    parse_action,
    penalty_points,
)
from engines.outcome import Termination

INERT_SIDES = ["AS", "AH", "AD"]
"""Three side cards nothing can be played on."""


def start(
    hands: Sequence[Sequence[str]],
    layout: Sequence[str],
    stock_top: Sequence[str] = (),
    **options: Any,
) -> KingsCornerState:
    state = GAME.state_from_deal(
        make_deal(hands, layout, stock_top), seats=len(hands), options=options
    )
    assert isinstance(state, KingsCornerState)
    return state


def play(state: State, *texts: str) -> None:
    for text in texts:
        state.apply_action(parse_action(text))


def legal(state: KingsCornerState) -> set[str]:
    return {str(action) for action in state.legal_actions()}


def cards(texts: str) -> list[Card]:
    return [Card(text) for text in texts.split()]


def rule_penalty(hand: Sequence[Card]) -> int:
    """Rulings: king 10, every other card 1 (computed here from the rule, not the engine)."""
    return sum(10 if card.rank == 13 else 1 for card in hand)


# Seat 1's hand when it only has to draw: no king, nothing fitting the test layouts.
QUIET_HAND = ["3D", "4D", "5D", "6S", "7S", "2S", "3S"]


# -- Reihenfolge und Farben ------------------------------------------------------------------


def test_each_card_you_play_is_one_rank_lower_and_the_other_colour_than_the_card_below() -> None:
    for card in DECK:
        for top in DECK:
            expected = card.rank == top.rank - 1 and card.is_red != top.is_red
            assert card_fits(card, top) is expected, (card, top)
    state = start([["8H", "8D", "8S", "8C", "7H", "TH", "2C"], QUIET_HAND], ["9S", *INERT_SIDES])
    plays_on_n = {a for a in legal(state) if a.endswith(">N")}
    assert plays_on_n == {"8H>N", "8D>N"}


def test_on_every_pile_the_order_runs_down_from_king_to_ace_and_nothing_goes_on_an_ace() -> None:
    state = start(
        [["2H", "2D", "2C", "3H", "3C", "QH", "JD"], QUIET_HAND], ["AS", "AH", "AD", "AC"]
    )
    assert legal(state) == {"draw"}
    ranks = "KQJT98765432A"
    for higher, lower in itertools.pairwise(ranks):
        assert card_fits(Card(lower + "H"), Card(higher + "S"))
    assert not any(card_fits(card, Card("AS")) for card in DECK)


# -- Vorbereitung ----------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_dealer_gives_each_player_seven_cards_and_turns_up_four_side_cards(
    seats: int,
) -> None:
    state = GAME.new_initial_state(seed=seats, seats=seats)
    assert isinstance(state, KingsCornerState)
    hands = [state.hand(seat) for seat in range(seats)]
    assert [len(hand) for hand in hands] == [7] * seats
    assert state.stock_size == 52 - 7 * seats - 4
    sides = [state.pile(name) for name in ("N", "E", "S", "W")]
    assert all(len(pile) == 1 for pile in sides)
    assert all(state.pile(name) == [] for name in CORNERS), "the four corners stay free"
    stock = [Card(text) for text in state.deal()["stock"]]
    everything = [card for hand in hands for card in hand] + [p[0] for p in sides] + stock
    assert sorted(everything) == sorted(DECK)


def test_the_player_left_of_the_dealer_begins_and_play_goes_clockwise() -> None:
    state = GAME.new_initial_state(seed=5, seats=3)
    order = []
    for _ in range(7):
        order.append(state.current_seat)
        play(state, "draw")
    assert order == [0, 1, 2, 0, 1, 2, 0]


# -- Spielablauf -----------------------------------------------------------------------------


def test_on_your_turn_you_may_make_any_number_of_moves_in_any_order() -> None:
    layout = ["9S", *INERT_SIDES]
    hand = ["8H", "7C", "6D", "KH", "2C", "3C", "4C"]
    in_order = start([hand, QUIET_HAND], layout)
    play(in_order, "8H>N", "KH>NE", "7C>N", "6D>N")
    other_order = start([hand, QUIET_HAND], layout)
    play(other_order, "KH>NE", "8H>N", "7C>N", "6D>N")
    for state in (in_order, other_order):
        assert state.current_seat == 0, "the turn goes on until the player draws"
        assert state.pile("N") == cards("9S 8H 7C 6D")
        assert state.pile("NE") == cards("KH")


def test_play_a_card_on_a_pile_when_it_is_one_lower_and_the_other_colour() -> None:
    state = start([["8H", "8S", "2C", "3C", "4C", "5C", "6C"], QUIET_HAND], ["9S", *INERT_SIDES])
    with pytest.raises(IllegalActionError, match="8S>N"):
        play(state, "8S>N")
    play(state, "8H>N")
    assert state.pile("N") == cards("9S 8H")
    assert Card("8H") not in state.hand(0)


def test_a_king_from_your_hand_opens_a_free_corner_and_is_built_on_as_usual() -> None:
    state = start([["KH", "QS", "QH", "QD", "JD", "2C", "3C"], QUIET_HAND], ["AC", *INERT_SIDES])
    assert {"KH>NE", "KH>SE", "KH>SW", "KH>NW"} <= legal(state)
    assert not any(a.endswith(">NE") for a in legal(state) - {"KH>NE"}), "corners only take kings"
    play(state, "KH>SW")
    assert {"QS>SW"} == {a for a in legal(state) if a.endswith(">SW")}
    play(state, "QS>SW", "JD>SW")
    assert state.pile("SW") == cards("KH QS JD")


def test_a_whole_pile_moves_when_its_bottom_card_fits_the_top_of_another_pile() -> None:
    # Second turn, so this is the general rule, not the opening one.
    state = start(
        [["8H", "7C", "5C", "9H", "2C", "3C", "4C"], QUIET_HAND],
        ["9S", "TD", "AS", "AH"],
    )
    play(state, "draw", "draw")
    play(state, "8H>N", "7C>N")
    assert "N>E" in legal(state)
    assert "E>N" not in legal(state), "TD does not fit on 7C"
    play(state, "N>E")
    assert state.pile("E") == cards("TD 9S 8H 7C")
    assert state.pile("N") == []


def test_a_freed_side_spot_takes_any_card_from_your_hand_and_corners_only_kings() -> None:
    hand = ["8H", "KC", "5C", "9H", "2C", "3C", "4C"]
    state = start([hand, QUIET_HAND], ["9S", "TD", "AS", "AH"])
    play(state, "N>E")
    assert {a for a in legal(state) if a.endswith(">N")} == {f"{c}>N" for c in hand}
    assert {a for a in legal(state) if a.endswith(">NE")} == {"KC>NE"}
    play(state, "2C>N")
    assert state.pile("N") == cards("2C")


def test_a_pile_never_moves_into_an_empty_side_spot_and_corner_piles_never_move() -> None:
    state = start(
        [["KC", "QH", "5C", "9H", "2C", "3C", "4C"], QUIET_HAND], ["9S", "TD", "AS", "8D"]
    )
    play(state, "N>E", "KC>NE", "QH>NE")
    moves = {a for a in legal(state) if parse_action(a).kind == "move"}
    assert "W>E" in moves
    assert not any(parse_action(m).target == "N" for m in moves)
    assert not any(parse_action(m).source in CORNERS for m in moves)
    with pytest.raises(InvalidActionError):
        parse_action("NE>SE")


def test_when_you_are_done_you_draw_a_card_from_the_stock_and_your_turn_ends() -> None:
    state = start(
        [["8H", "2C", "3C", "4C", "5C", "6C", "7C"], QUIET_HAND], ["9S", *INERT_SIDES], ["QD"]
    )
    assert "draw" in legal(state), "you may draw even when you could play"
    play(state, "draw")
    assert Card("QD") in state.hand(0)
    assert len(state.hand(0)) == 8
    assert state.current_seat == 1
    assert state.stock_size == 52 - 14 - 4 - 1


def test_example_annas_turn() -> None:
    # Anna (seat 0) plays 9S and 5H in her first turn and draws the 2D, Ben draws; on
    # her second turn the side piles show 9S, 5H, QD, 4C and she holds the six cards
    # of the example.
    anna = ["9S", "5H", "8H", "7C", "4S", "JS", "KH"]
    ben = ["2C", "3C", "6S", "2S", "3S", "6H", "7S"]
    state = start([anna, ben], ["TH", "6C", "QD", "4C"], ["2D"])
    play(state, "9S>N", "5H>E", "draw", "draw")
    assert state.current_seat == 0
    assert [state.pile(name)[-1] for name in ("N", "E", "S", "W")] == cards("9S 5H QD 4C")
    assert state.hand(0) == sorted(cards("8H 7C 4S JS KH 2D"))
    play(state, "8H>N", "7C>N", "4S>E", "JS>S", "KH>NE")
    assert state.pile("N")[-2:] == cards("8H 7C")
    assert state.pile("E")[-1] == Card("4S")
    assert state.pile("S") == cards("QD JS")
    assert state.pile("NE") == cards("KH")
    assert state.hand(0) == cards("2D")
    assert not any(a.startswith("2D>") for a in legal(state)), "the 2D needs a black 3"
    assert "draw" in legal(state)
    play(state, "draw")
    assert state.current_seat == 1
    assert len(state.hand(0)) == 2


def test_a_king_among_the_side_cards_may_go_to_a_corner_in_the_first_players_first_turn() -> None:
    hands = [["QH", "8H", "2C", "3C", "4C", "5C", "6C"], QUIET_HAND]
    state = start(hands, ["KS", *INERT_SIDES])
    assert {"N>NE", "N>SE", "N>SW", "N>NW"} <= legal(state)
    play(state, "QH>N", "N>SE")  # the king's pile goes with what was built on it
    assert state.pile("SE") == cards("KS QH")
    assert "8H>N" in legal(state), "the freed side spot is filled from the hand as usual"
    later = start(hands, ["KS", *INERT_SIDES])
    play(later, "draw")
    assert not any(a.startswith("N>") for a in legal(later)), "only in the first turn"


def test_king_piles_to_corner_anytime_lets_a_side_king_move_in_any_turn() -> None:
    state = start(
        [["QH", "8H", "2C", "3C", "4C", "5C", "6C"], QUIET_HAND],
        ["KS", *INERT_SIDES],
        king_piles_to_corner="anytime",
    )
    play(state, "draw")
    assert {"N>NE", "N>SE", "N>SW", "N>NW"} <= legal(state)


def test_two_side_cards_that_already_fit_may_be_laid_one_on_the_other_in_the_first_turn() -> None:
    state = start(
        [["8C", "2C", "3C", "4C", "5C", "6C", "7C"], QUIET_HAND], ["9S", "TD", "AS", "AH"]
    )
    assert "N>E" in legal(state)
    play(state, "N>E", "8C>N")
    assert state.pile("E") == cards("TD 9S")
    assert state.pile("N") == cards("8C")


def test_example_moving_a_whole_pile_onto_the_king_of_spades() -> None:
    state = start([["KS", "JS", "TD", "8C", "2C", "3C", "4C"], QUIET_HAND], ["QH", *INERT_SIDES])
    play(state, "KS>NE", "JS>N", "TD>N")
    assert state.pile("N") == cards("QH JS TD")
    play(state, "N>NE")
    assert state.pile("NE") == cards("KS QH JS TD")
    assert state.pile("N") == []
    play(state, "8C>N")
    assert state.pile("N") == cards("8C")


# -- Wenn der Ziehstapel leer ist -------------------------------------------------------------


def drain_stock(state: KingsCornerState) -> int:
    """Draw until the stock is empty; returns the number of draws."""
    draws = 0
    while state.stock_size:
        play(state, "draw")
        draws += 1
    return draws


def test_when_the_stock_is_empty_play_goes_on_without_drawing() -> None:
    state = start([["8H", "2C", "3C", "4C", "5C", "6C", "7C"], QUIET_HAND], ["9S", *INERT_SIDES])
    assert drain_stock(state) == 52 - 14 - 4
    assert state.current_seat == 0
    assert "8H>N" in legal(state), "playing goes on"
    size = len(state.hand(0))
    play(state, "8H>N", "draw")
    assert len(state.hand(0)) == size - 1, "draw takes no card"
    assert state.current_seat == 1
    assert not state.is_terminal()


# -- Ende eines Spiels -----------------------------------------------------------------------


def test_a_game_ends_as_soon_as_someone_plays_their_last_card_and_that_player_wins() -> None:
    other = ["KC", "7D", "2S", "9H", "3C", "3D", "4C"]
    state = start([["QH", "JC", "TD", "9S", "8H", "7C", "6D"], other], ["KS", *INERT_SIDES])
    play(state, "QH>N", "JC>N", "TD>N", "9S>N", "8H>N", "7C>N")
    assert not state.is_terminal()
    play(state, "6D>N")
    outcome = state.outcome()
    assert outcome is not None and state.is_terminal()
    assert outcome.termination == Termination.HAND_EMPTIED
    assert outcome.winners == (0,)
    assert outcome.returns == (0.0, -float(rule_penalty(cards(" ".join(other)))))


def test_a_game_ends_when_the_stock_is_empty_and_every_player_in_turn_draws_without_playing() -> (
    None
):
    hands = [["8H", "2C", "3C", "4C", "5C", "6C", "7C"], ["2D", "3D", "4D", "5D", "6D", "7D", "9D"]]
    state = start(hands, ["9S", *INERT_SIDES])
    drain_stock(state)  # 34 draws: seat 1 drew the last card
    assert state.current_seat == 0
    play(state, "draw")
    assert not state.is_terminal(), "the turn that drew the last card does not count"
    play(state, "draw")
    assert state.is_terminal()
    outcome = state.outcome()
    assert outcome is not None and outcome.termination == Termination.BLOCKED


def test_a_turn_with_a_play_after_the_stock_ran_out_starts_the_count_again() -> None:
    hands = [["8H", "2C", "3C", "4C", "5C", "6C", "7C"], ["2D", "3D", "4D", "5D", "6D", "7D", "9D"]]
    state = start(hands, ["9S", *INERT_SIDES])
    drain_stock(state)
    play(state, "8H>N", "draw", "draw")
    assert not state.is_terminal()
    play(state, "draw")
    assert state.is_terminal()


def test_a_blocked_game_is_won_by_the_fewest_penalty_points_and_ties_share_the_win() -> None:
    # Each seat draws 17 of the 34 stock cards; the stock holds the last two kings in
    # canonical order, KD for seat 0 and KC for seat 1.
    hands = [["KS", "2C", "3C", "4C", "5C", "6C", "7C"], ["KH", "3D", "4D", "5D", "6D", "7D", "9D"]]
    state = start(hands, [*INERT_SIDES, "AC"])
    while not state.is_terminal():
        play(state, "draw")
    outcome = state.outcome()
    assert outcome is not None
    penalties = [rule_penalty(state.hand(seat)) for seat in range(2)]
    assert penalties[0] == penalties[1]
    assert outcome.ranking == (1, 1)
    assert outcome.returns == (-penalties[0], -penalties[1])

    # Swapping seat 1's king with the ace on W leaves the stock as it was.
    unequal = start([hands[0], ["AC", *hands[1][1:]]], [*INERT_SIDES, "KH"])
    while not unequal.is_terminal():
        play(unequal, "draw")
    result = unequal.outcome()
    assert result is not None
    assert [rule_penalty(unequal.hand(seat)) for seat in range(2)] == [
        penalties[0],
        penalties[1] - 9,
    ]
    assert result.ranking == (2, 1)


# -- Punkte / Wer gewinnt? ----------------------------------------------------------------------


def test_example_carlas_and_dans_penalty_points() -> None:
    assert penalty_points(cards("KC 7D 2S")) == 10 + 1 + 1 == 12
    assert penalty_points(cards("9H")) == 1
    assert penalty_points([]) == 0


def test_penalty_points_of_a_finished_game_are_in_the_outcome() -> None:
    state = GAME.new_initial_state(seed=21, seats=4)
    rng = random.Random(21)
    while not state.is_terminal():
        actions = state.legal_actions()
        state.apply_action(actions[rng.randrange(len(actions))])
    assert isinstance(state, KingsCornerState)
    outcome = state.outcome()
    assert outcome is not None
    penalties = [rule_penalty(state.hand(seat)) for seat in range(4)]
    assert list(outcome.details["penalties"]) == penalties
    assert outcome.returns == tuple(-float(p) for p in penalties)
    assert outcome.ranking == tuple(1 + sum(q < p for q in penalties) for p in penalties)


# -- Varianten -------------------------------------------------------------------------------


def test_variant_must_play_forbids_drawing_while_a_hand_card_can_be_played() -> None:
    state = start(
        [["8H", "KD", "2C", "3C", "4C", "5C", "6C"], QUIET_HAND],
        ["9S", *INERT_SIDES],
        must_play=True,
    )
    assert "draw" not in legal(state)
    play(state, "8H>N")
    assert "draw" not in legal(state), "the king can still go to a corner"
    play(state, "KD>NE")
    assert legal(state) == {"draw"}


def test_variant_must_play_counts_an_empty_side_spot_as_a_place_to_play() -> None:
    state = start(
        [["8C", "2C", "3C", "4C", "5C", "6C", "7C"], QUIET_HAND],
        ["9S", "TD", "AS", "AH"],
        must_play=True,
    )
    assert "draw" in legal(state), "a pile move is not compulsory"
    play(state, "N>E")
    assert "draw" not in legal(state)


def test_variant_draw_first_draws_at_the_start_of_the_turn_and_ends_it_with_end() -> None:
    state = start(
        [["8H", "2C", "3C", "4C", "5C", "6C", "7C"], QUIET_HAND],
        ["9S", *INERT_SIDES],
        ["QD"],
        draw_first=True,
    )
    assert legal(state) == {"draw"}
    play(state, "draw")
    assert Card("QD") in state.hand(0)
    assert "draw" not in legal(state)
    assert {"8H>N", "end"} <= legal(state)
    play(state, "8H>N", "end")
    assert state.current_seat == 1
    assert legal(state) == {"draw"}
    with pytest.raises(IllegalActionError):
        play(state, "end")


def test_variant_draw_first_skips_the_draw_once_the_stock_is_empty() -> None:
    state = start(
        [["8H", "2C", "3C", "4C", "5C", "6C", "7C"], QUIET_HAND],
        ["9S", *INERT_SIDES],
        draw_first=True,
    )
    while state.stock_size:
        play(state, "draw", "end")
    assert "draw" not in legal(state)
    assert "end" in legal(state)
    play(state, "end")
    assert not state.is_terminal()
    play(state, "end")
    assert state.is_terminal()


def test_variant_kings_at_once_puts_a_king_in_a_corner_before_anything_else() -> None:
    hands = [["KD", "8H", "2C", "3C", "4C", "5C", "6C"], QUIET_HAND]
    state = start(hands, ["9S", *INERT_SIDES], kings_at_once=True)
    assert legal(state) == {"KD>NE", "KD>SE", "KD>SW", "KD>NW"}
    play(state, "KD>NW")
    assert {"8H>N", "draw"} <= legal(state)
    plain = start(hands, ["9S", *INERT_SIDES])
    assert {"8H>N", "draw", "KD>NE"} <= legal(plain)


def test_variant_kings_at_once_moves_a_side_king_in_the_first_turn() -> None:
    state = start(
        [["8H", "2C", "3C", "4C", "5C", "6C", "7C"], QUIET_HAND],
        ["KS", "9S", "AS", "AH"],
        kings_at_once=True,
    )
    assert legal(state) == {"N>NE", "N>SE", "N>SW", "N>NW"}


def test_variant_corners_in_suit_builds_corners_down_in_the_same_suit() -> None:
    hands = [["KH", "QH", "QS", "JH", "8D", "2C", "3C"], QUIET_HAND]
    state = start(hands, ["9S", *INERT_SIDES], corners_in_suit=True)
    play(state, "KH>NE")
    assert {a for a in legal(state) if a.endswith(">NE")} == {"QH>NE"}
    assert "8D>N" in legal(state), "side piles still alternate colours"
    play(state, "QH>NE", "JH>NE")
    assert state.pile("NE") == cards("KH QH JH")
    alternating = start(hands, ["9S", *INERT_SIDES])
    play(alternating, "KH>NE")
    assert {a for a in legal(alternating) if a.endswith(">NE")} == {"QS>NE"}


def test_variant_corners_in_suit_moves_a_pile_onto_a_corner_by_its_bottom_card() -> None:
    state = start(
        [["KH", "8H", "2C", "3C", "4C", "5C", "6C"], QUIET_HAND],
        ["QH", "QS", "AS", "AH"],
        corners_in_suit=True,
    )
    play(state, "KH>NE")
    moves = {a for a in legal(state) if parse_action(a).kind == "move"}
    assert moves == {"N>NE"}


def test_variant_pip_values_scores_ace_25_faces_10_and_other_cards_their_pips() -> None:
    assert penalty_points(cards("AS"), pip_values=True) == 25
    assert penalty_points(cards("KC QD JH"), pip_values=True) == 30
    assert penalty_points(cards("TS 9H 2C"), pip_values=True) == 10 + 9 + 2
    other = ["KC", "AD", "7D", "2S", "TH", "3C", "4C"]
    state = start(
        [["QH", "JC", "TD", "9S", "8H", "7C", "6D"], other],
        ["KS", "AS", "AH", "AC"],
        pip_values=True,
    )
    play(state, "QH>N", "JC>N", "TD>N", "9S>N", "8H>N", "7C>N", "6D>N")
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.returns == (0.0, -float(10 + 25 + 7 + 2 + 10 + 3 + 4))


def collect_corner_game(**options: Any) -> KingsCornerState:
    """Seat 0 completes corner NE (KS down to AC) in its second turn."""
    state = start(
        [
            ["KS", "JC", "TD", "8H", "7C", "5S", "4H"],
            ["2H", "AC", "9D", "8S", "7H", "5C", "4D"],
        ],
        ["QH", "9C", "6D", "3C"],
        ["2C", "JD", "2D"],
        **options,
    )
    play(state, "JC>N", "TD>N", "8H>E", "7C>E", "5S>S", "4H>S", "draw")
    play(state, "2H>W", "AC>W", "draw")
    play(state, "KS>NE", "N>NE", "E>NE", "S>NE", "W>NE")
    return state


def test_variant_collect_corners_gives_a_completed_corner_to_whoever_completed_it() -> None:
    state = collect_corner_game(collect_corners=True)
    assert state.pile("NE") == [], "the completed corner left the table"
    assert state.corners_collected(0) == 1
    assert state.observation(1)["corners_collected"] == [1, 0]
    assert "2C>N" in legal(state)
    assert "2C>NE" not in legal(state), "the free corner takes only a king again"
    play(state, "draw")
    play(state, "9D>N", "8S>N", "7H>N", "5C>E", "4D>E", "JD>S")  # seat 1 plays out
    outcome = state.outcome()
    assert outcome is not None and outcome.termination == Termination.HAND_EMPTIED
    assert outcome.ranking == (1, 2), "most corners wins, before the empty hand"
    assert outcome.details["corners"] == [1, 0]


def test_without_collect_corners_a_completed_corner_stays_on_the_table() -> None:
    state = collect_corner_game()
    assert state.pile("NE") == cards("KS QH JC TD 9C 8H 7C 6D 5S 4H 3C 2H AC")
    assert state.corners_collected(0) == 0


def test_variant_four_cards_deals_four_cards_each() -> None:
    state = GAME.new_initial_state(seed=3, seats=4, options={"four_cards": True})
    assert isinstance(state, KingsCornerState)
    assert [len(state.hand(seat)) for seat in range(4)] == [4] * 4
    assert state.stock_size == 52 - 16 - 4


# -- actions, deals, bounds ------------------------------------------------------------------


def test_action_texts_round_trip_and_parse_leniently() -> None:
    assert parse_action("10h > ne") is parse_action("TH>NE")
    assert parse_action(" Draw ") is parse_action("draw")
    action = parse_action("7h>n")
    assert isinstance(action, KingsCornerAction)
    assert (action.kind, action.card, action.source, action.target) == (
        "play",
        Card("7H"),
        None,
        "N",
    )
    move = parse_action("w>sw")
    assert (move.kind, move.card, move.source, move.target) == ("move", None, "W", "SW")
    assert KingsCornerAction("end").kind == "end"
    assert repr(action) == "KingsCornerAction('7H>N')"
    for bad in ("7H>X", "1H>N", "N>N", "NE>N", "7H", "draw 7H", "N>"):
        with pytest.raises(InvalidActionError, match="not a Kings in the Corner action"):
            parse_action(bad)


def test_every_pile_and_card_combination_is_an_action() -> None:
    texts = {f"{card}>{pile}" for card in DECK for pile in PILES}
    assert all(str(parse_action(text)) == text for text in texts)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["hands"][0].__setitem__(0, d["stock"][0]), "both in"),
        (lambda d: d["hands"][1].pop(), "has 7 cards"),
        (lambda d: d["layout"].__setitem__(2, "ZZ"), "bad card in the layout"),
        (lambda d: d.pop("stock"), "the stock is a list"),
        (lambda d: d.__setitem__("layout", {"N": "2C"}), "N E S W"),
    ],
)
def test_a_malformed_deal_is_rejected_naming_the_card_or_place(change: Any, message: str) -> None:
    deal = make_deal([QUIET_HAND, ["8H", "2C", "3C", "4C", "5C", "6C", "7C"]], ["9S", *INERT_SIDES])
    change(deal)
    with pytest.raises(InvalidDealError, match=message):
        GAME.state_from_deal(deal, seats=2)


def test_a_deal_accepts_lower_case_and_ten_as_10() -> None:
    deal = make_deal([QUIET_HAND, ["8H", "2C", "3C", "4C", "5C", "6C", "7C"]], ["9S", *INERT_SIDES])
    deal["hands"][1][0] = "8h"
    deal["layout"] = {"N": "9s", "E": "AS", "S": "AH", "W": "AD"}
    state = GAME.state_from_deal(deal, seats=2)
    assert state.deal()["hands"][1][0] == "8H"
    assert state.deal()["layout"]["N"] == "9S"
