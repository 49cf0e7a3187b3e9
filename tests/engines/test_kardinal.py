"""Kardinal & König against rule text 003 and ../shared/RULINGS.md.

One test per rule sentence; the names quote or paraphrase it. The default deck of
the rulings gives every card of a country but Dänemark 1, 2, 1, 2, … circles, so
FR1 has 1 circle, FR2 has 2, FR3 has 1; Dänemark cards have none.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.core import TERMINAL
from engines.errors import IllegalActionError, InvalidActionError, InvalidDealError
from engines.kardinal import (
    CARD_IDS,
    GAME,
    SKIP,
    KardinalState,
    PlayTablet,
    Take,
    card_index,
)
from engines.outcome import Termination
from tests.engines.kardinal_support import deal, legal, play, start, takes

seeds = st.integers(min_value=0, max_value=2**32)


def ids(cards: list[int]) -> list[str]:
    return [CARD_IDS[c] for c in cards]


def random_states(seed: int, seats: int) -> list[KardinalState]:
    state = GAME.new_initial_state(seed=seed, seats=seats)
    rng = random.Random(seed)
    states = [state.clone()]
    while not state.is_terminal():
        actions = state.legal_actions()
        state.apply_action(actions[rng.randrange(len(actions))])
        states.append(state.clone())
    return states


# -- Vorbereitungen ---------------------------------------------------------------------


def test_56_country_cards_in_9_countries_daenemark_4_england_5_and_so_on() -> None:
    # "Das Spiel besteht aus 56 Länderkarten, welche sich auf 9 verschiedene Länder
    # (4xDänemark, 5xEngland, je 6x Italien, Bayern und Ungarn, je 7x Kastilien und
    # Franken sowie 8xFrankreich) aufteilen." The ninth country, Sachsen 7, is a ruling.
    expected = {
        "DK": 4, "EN": 5, "IT": 6, "BY": 6, "HU": 6, "KA": 7, "FK": 7, "SN": 7, "FR": 8,
    }  # fmt: skip
    state = GAME.new_initial_state(seed=3)
    cards = [card for row in state.observation(0)["layout"] for card in row]
    assert len(cards) == len(set(cards)) == 56
    assert Counter(card[:2] for card in cards) == expected


def test_the_cards_are_laid_out_in_4_rows_of_14() -> None:
    # "Die Karten werden in 4 Reihen á 14 Karten ausgelegt."
    for seed in range(5):
        rows = GAME.new_initial_state(seed=seed).observation(1)["rows"]
        assert [len(row) for row in rows] == [14, 14, 14, 14]
    layouts = {str(GAME.new_initial_state(seed=seed).deal()["layout"]) for seed in range(5)}
    assert len(layouts) == 5, "the layout is shuffled"


def test_law_tablets_lie_face_down_on_8_of_the_cards() -> None:
    # "Auf 8 der Länderkarten werden verdeckt Gesetzestafeln gelegt." Rulings: 2 of
    # each kind, on 8 cards chosen at random.
    carriers = set()
    for seed in range(5):
        state = GAME.new_initial_state(seed=seed, seats=3)
        assert Counter(state.deal()["tablets"].values()) == {
            "reclaim": 2, "three": 2, "mixed": 2, "minus2": 2,
        }  # fmt: skip
        for seat in range(3):
            observation = state.observation(seat)
            assert len(observation["face_down"]) == 8
            assert observation["my_tablets"] == []
            assert observation["tablet_counts"] == [0, 0, 0]
        carriers.add(frozenset(state.observation(0)["face_down"]))
    assert len(carriers) == 5


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_every_player_receives_3_claim_stones(seats: int) -> None:
    # "Jeder Spieler erhält 3 Anrechtssteine."
    state = GAME.new_initial_state(seed=1, seats=seats)
    assert [state.supply(s) for s in range(seats)] == [3] * seats
    assert state.observation(0)["supply"] == [3] * seats


def test_seat_counts_are_3_to_5_as_published_and_2_as_an_option() -> None:
    assert (GAME.min_seats, GAME.default_seats, GAME.max_seats) == (2, 4, 5)


# -- Die Länderkarten -----------------------------------------------------------------


def test_most_cards_have_1_or_2_circles_some_a_ship_or_a_carriage() -> None:
    # "Die meisten Karten haben 1-2 Kreissymbole"; "Einige Karten haben entweder eine
    # Kutschen- oder ein Schiffs-Symbol aufgedruckt." The default deck (rulings):
    # Dänemark 0 circles, elsewhere 1, 2, 1, …; 9 ships and 9 carriages.
    tables = GAME.new_initial_state(seed=0).tables
    circles = {card: tables.circles[card_index(card)] for card in CARD_IDS}
    assert all(circles[f"DK{n}"] == 0 for n in range(1, 5))
    assert [circles[f"FR{n}"] for n in range(1, 9)] == [1, 2, 1, 2, 1, 2, 1, 2]
    assert [circles[f"EN{n}"] for n in range(1, 6)] == [1, 2, 1, 2, 1]
    assert sum(1 for n in circles.values() if n in (1, 2)) == 52
    ships = Counter(card[:2] for card in CARD_IDS if tables.symbol[card_index(card)] == 1)
    carriages = Counter(card[:2] for card in CARD_IDS if tables.symbol[card_index(card)] == 2)
    assert ships == {"DK": 2, "EN": 2, "KA": 2, "FR": 2, "IT": 1}
    assert carriages == {"BY": 2, "FK": 2, "SN": 2, "HU": 2, "FR": 1}
    with_symbol = {card for card in CARD_IDS if tables.symbol[card_index(card)]}
    assert {"DK1", "DK2", "IT1", "FR1", "FR2", "FR3", "HU1", "HU2"} <= with_symbol


# -- a) Länderkarte nehmen --------------------------------------------------------------


def test_the_player_to_move_may_take_cards_from_the_table() -> None:
    # "Ein Spieler, der am Zug ist, darf sich Karten vom Tisch nehmen."
    state = start("FR1 | DK1")
    assert state.current_seat == 0
    play(state, "take FR1")
    assert ids(state.holdings(0)) == ["FR1"]
    assert "FR1" not in [card for row in state.observation(1)["rows"] for card in row]


def test_only_the_outermost_cards_of_a_row_eight_to_choose_from() -> None:
    # "Genommen dürfen immer nur die äußersten Karten einer Reihe, d.h. man hat die
    # Auswahl aus insgesamt 8 Karten."
    for seed in range(5):
        state = GAME.new_initial_state(seed=seed)
        rows = state.observation(0)["rows"]
        assert takes(state) == {f"take {row[i]}" for row in rows for i in (0, -1)}
        assert len(takes(state)) == 8
    state = start("FR1 FR3 | DK1")
    with pytest.raises(IllegalActionError):
        play(state, "take FR3")


def test_several_cards_may_be_taken_one_after_another() -> None:
    # "Man darf auch mehrere Karten hintereinander nehmen": the next card becomes the
    # new end of the row.
    state = start("EN1 EN3 | DK1")
    play(state, "take EN1")
    assert "take EN3" in takes(state)
    play(state, "take EN3")
    assert ids(state.holdings(0)) == ["EN1", "EN3"]
    assert state.current_seat == 0


def test_per_turn_only_cards_of_one_country() -> None:
    # "Man darf pro Zug nur Karten eines Landes nehmen."
    state = start("DK1 EN2 | EN1", "DK2 | FR1")
    play(state, "take DK1")
    assert takes(state) == {"take DK2"}
    with pytest.raises(IllegalActionError):
        play(state, "take EN1")


def test_the_circles_taken_in_a_turn_add_up_to_at_most_2() -> None:
    # "Die Summe der Kreissymbole darf maximal 2 sein."
    state = start("FR2 FR1 | FR5 FR3")
    play(state, "take FR3")  # 1 circle
    assert takes(state) == {"take FR5"}  # 1 more circle, not FR2's 2
    play(state, "take FR5")
    assert takes(state) == set()
    state = start("FR2 FR4 | FR1")
    play(state, "take FR2")  # 2 circles
    assert "take FR1" not in takes(state)
    assert "end" in legal(state)


def test_two_cards_of_a_country_when_neither_has_2_circles() -> None:
    # "Auf diese Weise ist es z.B. möglich zwei Karten eines Landes zu nehmen, sofern
    # keine der beiden Karten über 2 Kreissymbole verfügt."
    state = start("FR1 FR3 FR5 | FR7")
    play(state, "take FR1", "take FR3")
    assert ids(state.holdings(0)) == ["FR1", "FR3"]
    assert takes(state) == set()  # 2 circles used up
    state = start("FR1 FR2 | FR3")
    play(state, "take FR1")
    assert takes(state) == {"take FR3"}  # FR2 would make 3


def test_all_four_daenemark_cards_in_one_turn_as_they_have_no_circles() -> None:
    # "Sollte Dänemark günstig liegen, ist es sogar möglich alle 4 Karten zu nehmen,
    # da diese über keine Kreissymbole verfügen."
    state = start("DK1 DK2 | DK3", "FR1 | DK4")
    play(state, "take DK1", "take DK2", "take DK3", "take DK4", "end")
    assert sorted(ids(state.holdings(0))) == ["DK1", "DK2", "DK3", "DK4"]
    assert state.current_seat == 1


def test_taking_a_card_is_compulsory_when_any_end_card_can_be_taken() -> None:
    # Rulings: "Taking at least one card is compulsory when any end card can be taken."
    state = start("FR1 | DK1")
    assert "end" not in legal(state) and "skip" not in legal(state)
    with pytest.raises(IllegalActionError):
        play(state, "end")
    with pytest.raises(IllegalActionError):
        play(state, "skip")


def test_the_turn_ends_only_when_the_player_says_end() -> None:
    state = start("DK1 DK2 | EN1")
    play(state, "take DK1")
    assert state.current_seat == 0 and {"end", "take DK2"} <= legal(state)
    play(state, "end")
    assert state.current_seat == 1


# -- b) Anrechtsstein platzieren ----------------------------------------------------------


def test_after_taking_a_card_one_stone_may_be_placed_on_a_country_card() -> None:
    # "Hat ein Spieler seine Karte genommen, darf er einen seiner Anrechtssteine auf
    # eine der Länderkarten legen." Rulings: on any card in the display without a stone.
    state = start("DK1 | EN1")
    assert not any(text.startswith("stone") for text in legal(state))
    play(state, "take DK1")
    display = [card for row in state.observation(0)["rows"] for card in row]
    stones = {text for text in legal(state) if text.startswith("stone")}
    assert stones == {f"stone {card}" for card in display}
    inner = state.observation(0)["rows"][2][6]
    play(state, f"stone {inner}")
    assert state.observation(1)["stones"] == {inner: 0}
    assert state.supply(0) == 2
    assert legal(state) == {"end"}, "one stone per turn, and no more taking after it"


def test_a_stone_only_on_a_card_not_taken_by_a_foreign_stone() -> None:
    # "Allerdings darf man diese nur auf Länderkarten legen, die noch nicht von
    # fremden Anrechtssteinen besetzt sind." Rulings: nor on one's own stone.
    state = start("DK1 DK2 DK3 | EN1")
    mine, theirs = state.observation(0)["rows"][2][5:7]
    play(state, "take DK1", f"stone {mine}", "end", "take DK2", f"stone {theirs}", "end")
    play(state, "take DK3")
    stones = {text for text in legal(state) if text.startswith("stone")}
    assert f"stone {theirs}" not in stones
    assert f"stone {mine}" not in stones
    assert "stone EN1" in stones


def test_with_every_stone_placed_a_stone_may_be_moved() -> None:
    # "Hat man in den Vorrunden bereits alle seine Anrechtssteine in der Tischmitte
    # verbaut, ist es auch möglich einen Anrechtsstein umzusetzen."
    state = start("DK1 DK2 DK3 DK4 | FR1", "EN1 EN3 EN5 | IT1")
    for left, right in (("DK1", "FR1"), ("DK2", "IT1"), ("DK3", "EN1")):
        play(state, f"take {left}")
        assert any(text.startswith("stone") for text in legal(state))
        assert not any(text.startswith("move") for text in legal(state))
        inner = state.observation(0)["rows"][3][5 + len(state.placed(0))]
        play(state, f"stone {inner}", "end", f"take {right}", "end")
    assert state.supply(0) == 0
    placed = ids(state.placed(0))
    play(state, "take DK4")
    moves = {text for text in legal(state) if text.startswith("move")}
    assert not any(text.startswith("stone") for text in legal(state))
    display = [card for row in state.observation(0)["rows"] for card in row]
    free = [card for card in display if card not in placed]
    assert moves == {f"move {a}>{b}" for a in placed for b in free}
    play(state, f"move {placed[0]}>EN3")
    assert state.observation(1)["stones"] == {placed[1]: 0, placed[2]: 0, "EN3": 0}
    assert legal(state) == {"end"}


def test_then_the_next_player_moves() -> None:
    # "Nun ist der nächste Spieler an der Reihe."
    state = start("DK1 DK2 DK3 | DK4", seats=3)
    seen = []
    for card in ("DK1", "DK2", "DK3", "DK4"):
        seen.append(state.current_seat)
        play(state, f"take {card}", "end")
    assert seen == [0, 1, 2, 0]


# -- Anrechtssteine ---------------------------------------------------------------------


def block_with_seat_0(*rows: str, seats: int = 2) -> KardinalState:
    """Seat 0 takes DK1 and puts a stone on the end card EN1; seat 1 is to move."""
    return play(start("DK1 DK2 | EN1", *rows, seats=seats), "take DK1", "stone EN1", "end")


def test_a_card_blocked_by_another_players_stone_is_not_simply_taken() -> None:
    # "Karten, welche durch Anrechtssteine anderer Spieler blockiert sind, dürfen im
    # eigenen Zug nicht einfach aus der Tischmitte genommen werden."
    state = block_with_seat_0()
    supply = state.supply(1)
    play(state, "take EN1")
    assert state.supply(1) == supply - 1, "taking it cost a stone"


def test_to_unblock_a_card_one_of_ones_own_stones_leaves_the_game() -> None:
    # "Wer eine blockierte Länderkarte entblocken möchte, muss zuvor einen seiner
    # Anrechtssteine aus dem Spiel nehmen."
    state = block_with_seat_0()
    play(state, "take EN1")
    assert (state.supply(1), state.spent(1)) == (2, 1)
    assert state.observation(0)["spent"] == [0, 1]


def test_the_blocking_stone_is_removed_and_returned_to_its_owner() -> None:
    # "Dadurch wird der Anrechtsstein des anderen Spielers entfernt und dem Spieler
    # zurückgegeben."
    state = block_with_seat_0()
    assert state.supply(0) == 2
    play(state, "take EN1")
    assert state.supply(0) == 3 and state.placed(0) == []
    assert state.stone_on(card_index("EN1")) is None


def test_a_blocked_card_cannot_be_taken_with_an_empty_supply() -> None:
    # Rulings: paying needs a stone from your own supply.
    state = start("DK1 DK2 DK3 DK4 | EN1", "FR1 FR3 FR5 FR7 | IT1")
    for turn, (mine, theirs) in enumerate((("FR1", "DK1"), ("FR3", "DK2"), ("FR5", "DK3"))):
        play(state, f"take {mine}", "end", f"take {theirs}")
        play(state, f"stone {state.observation(1)['rows'][3][4 + turn]}", "end")
    assert state.supply(1) == 0
    play(state, "take FR7", "stone EN1", "end")
    assert "take EN1" not in takes(state)
    assert "take DK4" in takes(state)


def test_a_card_under_ones_own_stone_is_taken_freely_and_the_stone_returns() -> None:
    # Rulings: "A card with your own stone you take freely; the stone returns."
    state = block_with_seat_0()
    play(state, "take DK2", "end", "take EN1")
    assert (state.supply(0), state.spent(0), state.placed(0)) == (3, 0, [])


# -- Gesetzestafeln ---------------------------------------------------------------------


def test_whoever_takes_a_card_carrying_a_tablet_owns_the_tablet() -> None:
    # "Sobald ein Spieler eine Länderkarte nimmt, auf der eine Gesetzestafel liegt,
    # gerät er in dessen Besitz und kann sie evtl. zu einem späteren Zeitpunkt
    # einsetzen." Rulings: known only to its holder until played.
    state = start("DK1 | EN1", seats=3, tablets={"DK1": "mixed"})
    assert "DK1" in state.observation(1)["face_down"]
    play(state, "take DK1")
    assert state.observation(0)["my_tablets"] == ["mixed"]
    for seat in (1, 2):
        observation = state.observation(seat)
        assert observation["my_tablets"] == []
        assert observation["tablet_counts"] == [1, 0, 0]
        assert "DK1" not in observation["face_down"]
    assert "play mixed" in legal(state), "a tablet may be played later in the same turn"


def test_reclaim_brings_the_stones_spent_on_unblocking_back_into_play() -> None:
    # "Anrechtsstein zurücknehmen: Hat man eigene Anrechtssteine für das Entfernen
    # anderer Anrechtssteine investiert und aus dem Spiel genommen, können sie durch
    # diese Gesetzestafel zurück ins Spiel gerufen und erneut eingesetzt werden."
    state = start("DK1 DK2 | EN1", "FR1 | IT1", tablets={"EN1": "reclaim"})
    play(state, "take DK1", "stone EN1", "end", "take EN1", "end", "take DK2", "stone IT1")
    play(state, "end")
    assert (state.supply(1), state.spent(1)) == (2, 1)
    play(state, "take IT1")  # seat 1 pays again
    assert (state.supply(1), state.spent(1)) == (1, 2)
    play(state, "play reclaim")
    assert (state.supply(1), state.spent(1)) == (3, 0)
    assert state.observation(0)["played_tablets"] == [[1, "reclaim"]]


def test_three_allows_up_to_3_circles_in_one_turn() -> None:
    # "3 Symbole erlaubt: Man ist ausnahmsweise berechtigt in einem Zug Karten mit bis
    # zu 3 Symbolen einzusammeln." Rulings: up to 3 circles.
    state = start("FR1 FR2 FR4 | EN1", tablets={"FR1": "three"})
    play(state, "take FR1")
    assert "take FR2" not in takes(state)
    play(state, "play three", "take FR2")
    assert ids(state.holdings(0)) == ["FR1", "FR2"]
    assert takes(state) == set(), "3 circles are the limit"
    play(state, "end")
    play(state, "take EN1")
    assert state.observation(0)["turn"]["circle_limit"] == 2, "only for that turn"


def test_mixed_allows_cards_of_different_countries_in_one_turn() -> None:
    # "Verschiedene Farben möglich: Man ist ausnahmsweise berechtigt in einem Zug
    # Karten verschiedener Länder einzusammeln."
    state = start("DK1 DK2 | EN1", "FR2 | IT1", tablets={"DK1": "mixed"})
    play(state, "take DK1")
    assert takes(state) == {"take DK2"}
    play(state, "play mixed")
    assert {"take DK2", "take EN1", "take FR2", "take IT1"} <= takes(state)
    play(state, "take EN1", "take IT1")
    assert takes(state) == {"take DK2"}, "the circle limit still holds"


def test_minus2_costs_2_points_at_the_end_and_cannot_be_played() -> None:
    # "-2 Siegpunkte: ... da sie bei der Endwertung 2 Punkte Abzug bedeuten."
    state = start("DK1 | EN1", tablets={"DK1": "minus2"})
    play(state, "take DK1")
    assert not any(text.startswith("play") for text in legal(state))
    with pytest.raises(InvalidActionError):
        GAME.parse_action("play minus2")
    assert state.current_scores()[0].tablets == -2


def test_several_tablets_may_be_played_in_a_turn_before_or_between_takes() -> None:
    # Rulings: "Several tablets may be played in one turn, before or between takes."
    state = start("DK1 DK2 | EN1", "FR1 FR2 | IT2", tablets={"DK1": "mixed", "DK2": "three"})
    play(state, "take DK1", "take DK2", "end", "take EN1", "end")
    play(state, "play mixed", "take FR1", "play three", "take IT2")
    assert ids(state.holdings(0))[-2:] == ["FR1", "IT2"]
    assert state.observation(1)["played_tablets"] == [[0, "mixed"], [0, "three"]]


def test_a_played_tablet_is_shown_and_discarded() -> None:
    state = start("DK1 DK2 | EN1", tablets={"DK1": "three"})
    play(state, "take DK1", "play three")
    for seat in (0, 1):
        observation = state.observation(seat)
        assert observation["played_tablets"] == [[0, "three"]]
        assert observation["tablet_counts"] == [0, 0]
    assert state.observation(0)["my_tablets"] == []
    assert not any(text.startswith("play") for text in legal(state))


# -- Aussetzen ------------------------------------------------------------------------------


def skip_states(seats: int, games: int) -> list[KardinalState]:
    found = []
    for seed in range(games):
        found += [s for s in random_states(seed, seats)[:-1] if SKIP in s.legal_actions()]
    return found


@pytest.mark.parametrize("seats", [4, 5])
def test_whoever_finds_every_end_card_blocked_with_no_stone_in_reserve_skips(seats: int) -> None:
    # "Es kann vorkommen, dass alle äußeren Länderkarten von anderen Spielern blockiert
    # sind. Hat man in dieser Situation keinen Anrechtsstein mehr in der Reserve, hat
    # man Pech gehabt. Dann muss man aussetzen."
    states = skip_states(seats, 12)
    assert states, "random games do reach a skip"
    for state in states:
        me = state.current_seat
        assert state.taken_this_turn() == []
        assert state.supply(me) == 0
        for card in state.end_cards():
            assert state.stone_on(card) not in (None, me)
        assert not any(text.startswith("take") or text == "end" for text in legal(state))
        after = play(state.clone(), "skip")
        assert after.current_seat == (me + 1) % seats
        assert after.holdings(me) == state.holdings(me)
        if "play reclaim" in legal(state) and state.spent(me):
            # rulings: reclaim gives stones back, so taking becomes compulsory
            reclaimed = play(state.clone(), "play reclaim")
            assert takes(reclaimed) and SKIP not in reclaimed.legal_actions()


@settings(max_examples=10)
@given(seed=seeds, seats=st.integers(min_value=2, max_value=5))
def test_skip_is_offered_exactly_when_no_card_can_be_taken(seed: int, seats: int) -> None:
    for state in random_states(seed, seats)[:-1]:
        if state.taken_this_turn() or state.observation(0)["turn"]["stone_done"]:
            assert SKIP not in state.legal_actions()
            continue
        me = state.current_seat
        blocked = all(state.stone_on(c) not in (None, me) for c in state.end_cards())
        assert (SKIP in state.legal_actions()) == (blocked and state.supply(me) == 0)


@settings(max_examples=10)
@given(seed=seeds, seats=st.integers(min_value=2, max_value=5))
def test_taking_actions_are_the_legal_plays_and_takes_in_their_order(seed: int, seats: int) -> None:
    # What a search over the taking part of a turn asks for, without every stone.
    for state in random_states(seed, seats):
        taking = [a for a in state.legal_actions() if isinstance(a, Take | PlayTablet)]
        assert state.taking_actions() == taking
        assert state.legal_actions()[: len(taking)] == taking


# -- Spielende ------------------------------------------------------------------------------


@settings(max_examples=10)
@given(seed=seeds, seats=st.integers(min_value=2, max_value=5))
def test_the_game_ends_as_soon_as_every_country_card_is_taken(seed: int, seats: int) -> None:
    # "Sobald alle Länderkarten genommen wurden, kommt es zur Endauswertung."
    states = random_states(seed, seats)
    for state in states[:-1]:
        assert sum(len(state.holdings(s)) for s in range(seats)) < 56
    final = states[-1]
    assert final.current_seat == TERMINAL
    assert str(final.history[-1][1]).startswith("take ")
    assert sorted(c for s in range(seats) for c in final.holdings(s)) == list(range(56))
    outcome = final.outcome()
    assert outcome is not None and outcome.termination == Termination.ALL_CARDS_TAKEN


@pytest.mark.slow
@settings(max_examples=10)
@given(seed=seeds, seats=st.integers(min_value=2, max_value=5))
def test_every_player_skipping_in_a_row_cannot_come_about(seed: int, seats: int) -> None:
    # Rulings: "If every player in a row skips, the game ends." A skip needs every end
    # card under another seat's stone; that stone's owner can take its card, so some
    # seat always can, and skips in a row stay below the seat count.
    for state in random_states(seed, seats)[:-1]:
        assert state.observation(0)["skips_in_a_row"] < seats
        if SKIP in state.legal_actions():
            owners = {state.stone_on(c) for c in state.end_cards()}
            assert owners and None not in owners and state.current_seat not in owners


# -- the deal and the notation ------------------------------------------------------------


def test_a_deal_names_every_card_once_in_4_rows_and_the_tablet_mix() -> None:
    good = deal()
    GAME.state_from_deal(good, seats=2)
    bad_rows = {**good, "layout": good["layout"][:3]}
    with pytest.raises(InvalidDealError, match="4 rows"):
        GAME.state_from_deal(bad_rows, seats=2)
    repeated = [list(row) for row in good["layout"]]
    repeated[1][0] = repeated[0][0]
    with pytest.raises(InvalidDealError, match="twice"):
        GAME.state_from_deal({**good, "layout": repeated}, seats=2)
    unknown = [list(row) for row in good["layout"]]
    unknown[2][3] = "XX9"
    with pytest.raises(InvalidDealError, match="XX9"):
        GAME.state_from_deal({**good, "layout": unknown}, seats=2)
    three_minus = {card: "minus2" for card in list(good["tablets"])[:3]}
    tablets = {**good["tablets"], **three_minus}
    with pytest.raises(InvalidDealError, match="minus2"):
        GAME.state_from_deal({**good, "tablets": tablets}, seats=2)
    with pytest.raises(InvalidDealError, match="'joker'"):
        GAME.state_from_deal({**good, "tablets": {**tablets, "FR1": "joker"}}, seats=2)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("take fr3", "take FR3"),
        ("  TAKE   Dk1 ", "take DK1"),
        ("stone en5", "stone EN5"),
        ("move fr3 > en2", "move FR3>EN2"),
        ("Play Mixed", "play mixed"),
        ("play three", "play three"),
        ("play RECLAIM", "play reclaim"),
        ("END", "end"),
        ("skip", "skip"),
    ],
)
def test_action_notation_is_case_insensitive_and_round_trips(text: str, canonical: str) -> None:
    action = GAME.parse_action(text)
    assert str(action) == canonical
    assert GAME.parse_action(canonical) == action


@pytest.mark.parametrize(
    "text",
    ["take", "take FR9", "take XX1", "stone", "move FR3", "move FR3>FR3", "play", "play minus2",
     "play joker", "end now", "draw FR1", "FR3"],
)  # fmt: skip
def test_malformed_actions_are_rejected_quoting_the_text(text: str) -> None:
    with pytest.raises(InvalidActionError) as excinfo:
        GAME.parse_action(text)
    assert repr(text) in str(excinfo.value)
