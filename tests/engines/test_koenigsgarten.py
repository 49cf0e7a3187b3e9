"""Königsgarten against rule text 000 and ../shared/RULINGS.md, one test per rule sentence.

The patterns are written out here as cell names, independently of the engine's
bitmasks, and a slow reference implementation of the rules (straight from the text)
is played against the engine on random games.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.cards import Card
from engines.errors import (
    IllegalActionError,
    InvalidActionError,
    InvalidDealError,
    SeatCountError,
)
from engines.koenigsgarten import (
    CELL_NAMES,
    GAME,
    KoenigsgartenState,
)
from engines.match import Match, MatchSpec, parse_match_spec
from engines.outcome import Termination

ROW_PATTERNS = ["a1 b1 c1 d1", "a2 b2 c2 d2", "a3 b3 c3 d3", "a4 b4 c4 d4"]
COLUMN_PATTERNS = ["a1 a2 a3 a4", "b1 b2 b3 b4", "c1 c2 c3 c4", "d1 d2 d3 d4"]
DIAGONAL_PATTERNS = ["a1 b2 c3 d4", "d1 c2 b3 a4"]
SQUARE_PATTERNS = [
    f"{f1}{r1} {f2}{r1} {f1}{r2} {f2}{r2}"
    for r1, r2 in ((1, 2), (2, 3), (3, 4))
    for f1, f2 in (("a", "b"), ("b", "c"), ("c", "d"))
]
ALL_PATTERNS = [
    frozenset(p.split())
    for p in ROW_PATTERNS + COLUMN_PATTERNS + DIAGONAL_PATTERNS + SQUARE_PATTERNS
]
# A layout written row by row: Anna's queen of clubs lies in the top-right corner (d1).
EXAMPLE_LAYOUT = "AS KS JS QC  AH KH QH JH  AD KD QD JD  AC KC JC QS".split()


def play(layout: list[str], moves: list[str]) -> KoenigsgartenState:
    state = GAME.state_from_deal({"layout": layout})
    for move in moves:
        state.apply_action(GAME.parse_action(move))
    return state


def cells_of(state: KoenigsgartenState, seat: int) -> frozenset[str]:
    return frozenset(CELL_NAMES[c] for c in range(16) if state.marker_at(c) == seat)


def legal(state: KoenigsgartenState) -> set[str]:
    return {str(a) for a in state.legal_actions()}


# -- a reference implementation, written from the rule text without the engine's tricks


def reference_legal(layout: dict[str, str | None], last: str | None) -> set[str]:
    """Rule text: first move any edge card; later the rank or suit of the last card."""
    if last is None:
        centre = {"b2", "c2", "b3", "c3"}
        return {card for cell, card in layout.items() if card and cell not in centre}
    return {card for card in layout.values() if card and (card[0] == last[0] or card[1] == last[1])}


def reference_game(
    layout_cards: list[str], choose: random.Random
) -> tuple[list[str], str, int | None]:
    layout: dict[str, str | None] = dict(zip(CELL_NAMES, layout_cards, strict=True))
    markers: list[set[str]] = [set(), set()]
    last: str | None = None
    moves: list[str] = []
    mover = 0
    while True:
        options = sorted(reference_legal(layout, last))
        card = options[choose.randrange(len(options))]
        cell = next(c for c, k in layout.items() if k == card)
        layout[cell] = None
        markers[mover].add(cell)
        moves.append(card)
        last = card
        if any(p <= markers[mover] for p in ALL_PATTERNS):
            return moves, Termination.FOUR_IN_A_PATTERN, mover
        if all(v is None for v in layout.values()):
            return moves, Termination.FULL_GARDEN_DRAW, None
        if not reference_legal(layout, last):
            return moves, Termination.NO_LEGAL_CARD, mover
        mover = 1 - mover


# -- Überblick and Die Karten


def test_sixteen_cards_the_aces_kings_queens_and_jacks_lie_face_up_in_a_4x4_square() -> None:
    state = GAME.new_initial_state(seed=1)
    garden = state.observation(0)["garden"]
    assert len(garden) == 16
    assert sorted(garden) == sorted(r + s for r in "AKQJ" for s in "SHDC")


def test_players_alternately_take_a_card_and_put_a_marker_in_its_place() -> None:
    state = play(EXAMPLE_LAYOUT, ["QC"])
    assert state.current_seat == 1
    assert state.card_at(CELL_NAMES.index("d1")) is None
    assert state.marker_at(CELL_NAMES.index("d1")) == 0
    state.apply_action(Card("AC"))
    assert state.marker_at(CELL_NAMES.index("a4")) == 1
    assert state.current_seat == 0


def test_players_exactly_two() -> None:
    for seats in (1, 3, 4):
        with pytest.raises(SeatCountError):
            GAME.new_initial_state(seed=0, seats=seats)
    assert GAME.new_initial_state(seed=0).num_seats == 2


@settings(max_examples=50)
@given(seed=st.integers(0, 2**32))
def test_each_player_has_eight_markers(seed: int) -> None:
    state = GAME.new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        assert all(len(cells_of(state, seat)) <= 8 for seat in (0, 1))


# -- Vorbereitung


def test_shuffle_the_sixteen_garden_cards_and_lay_them_out_in_four_rows_of_four() -> None:
    layouts = {tuple(GAME.new_initial_state(seed=s).deal()["layout"]) for s in range(50)}
    assert len(layouts) == 50
    assert all(sorted(layout) == sorted(EXAMPLE_LAYOUT) for layout in layouts)
    assert GAME.new_initial_state(seed=3).deal() == GAME.new_initial_state(seed=3).deal()


def test_a_layout_that_is_not_the_sixteen_garden_cards_is_rejected() -> None:
    with pytest.raises(InvalidDealError, match="15"):
        GAME.state_from_deal({"layout": EXAMPLE_LAYOUT[:15]})
    with pytest.raises(InvalidDealError, match="'AS' appears twice"):
        GAME.state_from_deal({"layout": ["AS", *EXAMPLE_LAYOUT[:15]]})
    with pytest.raises(InvalidDealError, match="'2H' at a1 is not a garden card"):
        GAME.state_from_deal({"layout": ["2H", *EXAMPLE_LAYOUT[1:]]})
    with pytest.raises(InvalidDealError, match="'XY'"):
        GAME.state_from_deal({"layout": ["XY", *EXAMPLE_LAYOUT[1:]]})


# -- Ein Zug


def test_take_a_card_onto_a_pile_only_the_last_taken_card_shows() -> None:
    state = play(EXAMPLE_LAYOUT, ["QC", "AC", "AS"])
    assert state.last_taken == "AS"
    assert state.observation(1)["last_taken"] == "AS"


def test_put_one_of_your_markers_on_the_empty_place() -> None:
    state = play(EXAMPLE_LAYOUT, ["QC", "AC", "AS"])
    assert cells_of(state, 0) == {"d1", "a1"}
    assert cells_of(state, 1) == {"a4"}


def test_first_move_any_card_at_the_edge_none_of_the_four_in_the_middle() -> None:
    state = GAME.state_from_deal({"layout": EXAMPLE_LAYOUT})
    centre = {EXAMPLE_LAYOUT[CELL_NAMES.index(c)] for c in ("b2", "c2", "b3", "c3")}
    assert legal(state) == set(EXAMPLE_LAYOUT) - centre
    assert len(legal(state)) == 12
    for card in centre:
        with pytest.raises(IllegalActionError, match=card):
            state.apply_action(Card(card))


def test_every_later_move_a_card_of_the_same_rank_or_suit_as_the_top_of_the_pile() -> None:
    state = play(EXAMPLE_LAYOUT, ["KS"])
    assert legal(state) == {"KH", "KD", "KC", "AS", "JS", "QS"}
    with pytest.raises(IllegalActionError, match="'QH' is not legal for seat 1"):
        state.apply_action(Card("QH"))


def test_worked_example_anna_takes_the_queen_of_clubs_from_the_top_right_corner() -> None:
    state = GAME.state_from_deal({"layout": EXAMPLE_LAYOUT})
    assert state.card_at(CELL_NAMES.index("d1")) == "QC"
    state.apply_action(Card("QC"))
    # Ben must take a queen or a club: QH, QS, QD, AC, KC or JC.
    assert legal(state) == {"QH", "QS", "QD", "AC", "KC", "JC"}
    state.apply_action(Card("AC"))
    # Now Anna must take an ace or a club.
    assert legal(state) == {"AS", "AH", "AD", "KC", "JC"}


# -- Spielende


def _find_game_ending_with(pattern: frozenset[str]) -> KoenigsgartenState:
    rng = random.Random(str(sorted(pattern)))
    for _ in range(200_000):
        state = GAME.new_initial_state(seed=rng.getrandbits(32))
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        outcome = state.outcome()
        assert outcome is not None
        if outcome.termination == Termination.FOUR_IN_A_PATTERN:
            winner = outcome.winners[0]
            if pattern <= cells_of(state, winner):
                return state
    raise AssertionError(f"no game ended with the pattern {sorted(pattern)}")


@pytest.mark.parametrize(
    "pattern",
    [pytest.param(p, id=p.replace(" ", "-")) for p in ROW_PATTERNS + COLUMN_PATTERNS],
)
def test_you_win_when_four_of_your_markers_form_a_row_or_column(pattern: str) -> None:
    _check_pattern_wins(frozenset(pattern.split()))


@pytest.mark.parametrize(
    "pattern", [pytest.param(p, id=p.replace(" ", "-")) for p in DIAGONAL_PATTERNS]
)
def test_you_win_when_four_of_your_markers_form_one_of_the_two_long_diagonals(pattern: str) -> None:
    _check_pattern_wins(frozenset(pattern.split()))


@pytest.mark.parametrize(
    "pattern", [pytest.param(p, id=p.replace(" ", "-")) for p in SQUARE_PATTERNS]
)
def test_you_win_when_four_of_your_markers_form_a_2x2_square_anywhere(pattern: str) -> None:
    _check_pattern_wins(frozenset(pattern.split()))


def _check_pattern_wins(pattern: frozenset[str]) -> None:
    state = _find_game_ending_with(pattern)
    outcome = state.outcome()
    assert outcome is not None
    winner = outcome.winners[0]
    last_seat, _ = state.history[-1]
    assert winner == last_seat, "the mover wins at once"
    assert outcome.returns[winner] == 1 and outcome.returns[1 - winner] == -1
    # The pattern was completed by the last move, and no pattern stood before it.
    before = GAME.state_from_deal(state.deal())
    for _, card in state.history[:-1]:
        before.apply_action(card)
    assert not any(p <= cells_of(before, s) for p in ALL_PATTERNS for s in (0, 1))
    assert not pattern <= cells_of(before, winner)


def test_exactly_nineteen_winning_patterns() -> None:
    from engines.koenigsgarten import WINNING_PATTERNS

    engine_patterns = {
        frozenset(CELL_NAMES[c] for c in range(16) if mask >> c & 1) for mask in WINNING_PATTERNS
    }
    assert engine_patterns == set(ALL_PATTERNS)
    assert len(ALL_PATTERNS) == 19


def test_three_in_a_line_does_not_win() -> None:
    state = GAME.new_initial_state(seed=4)
    rng = random.Random(4)
    while not state.is_terminal():
        before_end = not any(p <= cells_of(state, s) for p in ALL_PATTERNS for s in (0, 1))
        assert before_end
        state.apply_action(rng.choice(state.legal_actions()))


def test_worked_example_ben_takes_the_jack_of_hearts_and_anna_has_no_legal_card() -> None:
    # Every other jack and every other heart is gone when Ben takes the J♥; cards remain.
    moves = "JC JD AD AS QS JS KS KC KH AH AC QC QH JH".split()
    state = play(EXAMPLE_LAYOUT, moves)
    outcome = state.outcome()
    assert outcome is not None
    ben = 1
    assert state.history[-1] == (ben, "JH")
    gone = {str(card) for _, card in state.history}
    assert {"JS", "JD", "JC"} <= gone and {"AH", "KH", "QH"} <= gone
    remaining = {state.card_at(c) for c in range(16)} - {None}
    assert remaining and not any(c[0] == "J" or c[1] == "H" for c in remaining)  # type: ignore[index]
    assert outcome.termination == Termination.NO_LEGAL_CARD
    assert outcome.winners == (ben,)


def test_last_card_taken_without_a_winner_is_a_draw() -> None:
    rng = random.Random(99)
    for _ in range(20_000):
        state = GAME.new_initial_state(seed=rng.getrandbits(32))
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        outcome = state.outcome()
        assert outcome is not None
        if outcome.termination == Termination.FULL_GARDEN_DRAW:
            assert all(state.card_at(c) is None for c in range(16))
            assert outcome.is_draw and outcome.returns == (0.0, 0.0)
            assert len(cells_of(state, 0)) == len(cells_of(state, 1)) == 8
            assert not any(p <= cells_of(state, s) for p in ALL_PATTERNS for s in (0, 1))
            return
    raise AssertionError("no drawn game found")


def test_a_pattern_on_the_last_card_wins_rather_than_draws() -> None:
    # Ruling order: the pattern check comes before the full-garden draw.
    rng = random.Random(5)
    for _ in range(50_000):
        state = GAME.new_initial_state(seed=rng.getrandbits(32))
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        if len(state.history) == 16 and any(
            p <= cells_of(state, s) for p in ALL_PATTERNS for s in (0, 1)
        ):
            outcome = state.outcome()
            assert outcome is not None and outcome.termination == Termination.FOUR_IN_A_PATTERN
            assert outcome.winners == (state.history[-1][0],)
            return
    raise AssertionError("no game completed a pattern with the last card")


@settings(max_examples=300)
@given(seed=st.integers(0, 2**32))
def test_engine_agrees_with_the_reference_rules(seed: int) -> None:
    layout = list(GAME.new_initial_state(seed=seed).deal()["layout"])
    moves, termination, winner = reference_game(layout, random.Random(seed))
    state = GAME.state_from_deal({"layout": layout})
    for card in moves:
        ref_layout = {
            CELL_NAMES[c]: (None if state.card_at(c) is None else str(state.card_at(c)))
            for c in range(16)
        }
        last = None if state.last_taken is None else str(state.last_taken)
        assert legal(state) == reference_legal(ref_layout, last)
        state.apply_action(Card(card))
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.termination == termination
    assert (outcome.winners[0] if not outcome.is_draw else None) == winner


def test_actions_are_cards_and_other_text_is_rejected() -> None:
    assert GAME.parse_action("qc") == Card("QC")
    with pytest.raises(InvalidActionError, match="'7H' is not a garden card"):
        GAME.parse_action("7H")
    with pytest.raises(InvalidActionError, match="'Q'"):
        GAME.parse_action("Q")


# -- Ein Match


def _play_match(spec: MatchSpec, results: list[tuple[int | None, int]]) -> Match:
    match = Match(spec)
    for winner, points in results:
        match.record(winner, points)
    return match


def test_single_game_one_game_decides() -> None:
    match = _play_match(parse_match_spec("single"), [(1, 1)])
    assert match.is_over and match.winner == 1
    drawn = _play_match(parse_match_spec("single"), [(None, 0)])
    assert drawn.is_over and drawn.winner is None


def test_first_to_three_whoever_first_wins_three_games_wins_the_match() -> None:
    match = Match(parse_match_spec("first-to-3"))
    for winner in (0, 1, 1, 0):
        match.record(winner)
        assert not match.is_over
    match.record(0)
    assert match.is_over and match.winner == 0 and match.wins == [3, 2]


def test_in_later_games_the_loser_of_the_last_game_opens() -> None:
    match = Match(parse_match_spec("first-to-3"))
    assert match.next_opener == 0
    match.record(0)
    assert match.next_opener == 1
    match.record(1)
    assert match.next_opener == 0


def test_a_drawn_game_counts_for_no_one_and_is_replayed_by_the_other_opener() -> None:
    match = Match(parse_match_spec("first-to-3"))
    match.record(1)  # player 0 opened and lost: player 0 opens again
    assert match.next_opener == 0
    match.record(None)  # drawn: the player who did not open it opens the replay
    assert match.next_opener == 1 and match.wins == [0, 1]
    match.record(None)
    assert match.next_opener == 0
    points = Match(parse_match_spec("points"))
    points.record(None, 7)
    assert points.points == [0, 0] and points.next_opener == 1


@pytest.mark.parametrize("target", [10, 15, 20])
def test_points_match_one_point_per_card_left_first_to_the_target(target: int) -> None:
    spec = parse_match_spec("points" if target == 10 else f"points-{target}")
    assert spec.target == target
    match = Match(spec)
    match.record(0, target - 1)
    assert not match.is_over
    match.record(1, 3)
    match.record(0, 1)
    assert match.is_over and match.winner == 0 and match.points == [target, 3]


def test_the_winner_of_a_points_game_scores_the_cards_left_in_the_garden() -> None:
    state = play(EXAMPLE_LAYOUT, "JC JD AD AS QS JS KS KC KH AH AC QC QH JH".split())
    assert state.outcome() is not None
    assert GAME.match_points(state) == 2  # KD and QD are left


def test_unknown_match_formats_are_rejected() -> None:
    from engines.errors import OptionError

    for text in ("points-12", "best-of-5", ""):
        with pytest.raises(OptionError, match="unknown match format"):
            parse_match_spec(text)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ask_every=st.integers(1, 3))
def test_the_legal_cards_made_when_asked_follow_the_rule(seed: int, ask_every: int) -> None:
    """The legal cards after a move are made only when asked for: asked of the state or
    first of a clone, they are the garden's cards sharing the last card's rank or suit,
    in cell order, and a game ends for want of them exactly when there are none."""
    rng = random.Random(seed)
    state = GAME.new_initial_state(seed=seed)
    moves = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        card = legal[rng.randrange(len(legal))]
        state.apply_action(card)
        moves += 1
        left = [c for c in (state.card_at(cell) for cell in range(16)) if c is not None]
        expected = [c for c in left if c[0] == card[0] or c[1] == card[1]]
        if state.is_terminal():
            outcome = state.outcome()
            assert outcome is not None and state.legal_actions() == []
            if outcome.termination is Termination.NO_LEGAL_CARD:
                assert left and not expected
            elif outcome.termination is Termination.FULL_GARDEN_DRAW:
                assert not left
            continue
        assert expected
        if moves % ask_every == 0:
            assert state.clone().legal_actions() == expected  # the clone makes its own
        assert state.legal_actions() == expected
        assert state.legal_actions() is not state.legal_actions()  # a fresh list each time


def test_the_end_names_the_winning_pattern_of_four() -> None:
    won = 0
    for seed in range(200):
        state = GAME.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        outcome = state.outcome()
        assert outcome is not None
        if outcome.termination != Termination.FOUR_IN_A_PATTERN:
            continue
        won += 1
        winner = outcome.winners[0]
        line = state.render().splitlines()[-1]
        prefix = f"  seat {winner} wins with four in a pattern: "
        assert line.startswith(prefix)
        cells = line.removeprefix(prefix).split()
        assert len(cells) == 4 and set(cells) <= set(cells_of(state, winner))
    assert won > 0
