"""Blumengarten against rule text 004 and ../shared/RULINGS.md, one test per rule sentence.

Deals are written out by hand: ``deal(...)`` takes the cards at the exposed end of each
column and fills the rest of the garden and the bouquet with the unused cards, so a
test states only what matters to it. A slow reference implementation of the move rules,
written from the rule text, is played against the engine on random games.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.blumengarten import (
    FOUNDATION,
    GAME,
    RESIGN,
    BlumengartenState,
    Move,
)
from engines.cards import DECK, Card
from engines.errors import (
    GameOverError,
    IllegalActionError,
    InvalidActionError,
    InvalidDealError,
    OptionError,
    SeatCountError,
)
from engines.outcome import Termination

RANK_ORDER = "A23456789TJQK"


def deal(
    tops: Sequence[Sequence[str]],
    bouquet: Sequence[str] = (),
    *,
    columns: int = 6,
    height: int = 6,
    filler_bouquet: bool = True,
) -> dict[str, Any]:
    """A full deal whose columns end (exposed card last) with ``tops[i]`` and whose
    bouquet starts with ``bouquet``; every other card fills the rest, deepest first."""
    used = {c for top in tops for c in top} | set(bouquet)
    spare = [str(c) for c in DECK if str(c) not in used]
    garden = []
    for index in range(columns):
        top = list(tops[index]) if index < len(tops) else []
        fill = [spare.pop() for _ in range(height - len(top))]
        garden.append(fill + top)
    rest = list(bouquet)
    if filler_bouquet:
        rest += spare
    return {"columns": garden, "bouquet": rest}


def start(data: dict[str, Any], **options: Any) -> BlumengartenState:
    return GAME.state_from_deal(data, seats=1, options=options)


def legal(state: BlumengartenState) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def play(state: BlumengartenState, *moves: str) -> BlumengartenState:
    for text in moves:
        state.apply_action(GAME.parse_action(text))
    return state


def rank(card: str) -> int:
    return RANK_ORDER.index(card[0]) + 1


# -- a reference implementation, written from the rule text -----------------------------


def reference_legal(
    columns: list[list[str]], bouquet: list[str], foundations: dict[str, int], sequences: bool
) -> set[str]:
    """Rule text: the exposed card of a column (with ``sequences``, any card with a run
    descending by one above it) or any bouquet card may go onto a column's exposed card
    one rank higher, into an empty column, or (a single card) onto its foundation."""
    moves = set()
    sources: list[tuple[str, bool]] = [(c, True) for c in bouquet]  # (card, single card?)
    for column in columns:
        if not column:
            continue
        sources.append((column[-1], True))
        if sequences:
            for depth in range(len(column) - 2, -1, -1):
                if rank(column[depth]) != rank(column[depth + 1]) + 1:
                    break
                sources.append((column[depth], False))
    for card, single in sources:
        if single and foundations[card[1]] == rank(card) - 1:
            moves.add(f"{card}>f")
        for index, column in enumerate(columns):
            if card in column:
                continue
            if not column or rank(column[-1]) == rank(card) + 1:
                moves.add(f"{card}>c{index + 1}")
    return moves


def snapshot(state: BlumengartenState) -> tuple[list[list[str]], list[str], dict[str, int]]:
    observation = state.observation(0)
    return observation["columns"], observation["bouquet"], observation["foundations"]


@pytest.mark.slow  # a reference implementation on many games
@pytest.mark.parametrize("sequences", [False, True])
@settings(max_examples=25)
@given(seed=st.integers(0, 2**32))
def test_legal_moves_match_the_reference_rules(sequences: bool, seed: int) -> None:
    state = GAME.new_initial_state(seed=seed, options={"sequences": sequences})
    rng = random.Random(seed)
    while not state.is_terminal():
        columns, bouquet, foundations = snapshot(state)
        expected = reference_legal(columns, bouquet, foundations, sequences)
        moves = legal(state) - {"resign"}
        assert moves == expected
        # play card moves only, preferring foundations so games get far
        card_moves = [a for a in state.legal_actions() if isinstance(a, Move)]
        home = [a for a in card_moves if a.target == FOUNDATION]
        state.apply_action(rng.choice(home or card_moves))
        if len(state.history) > 300:
            break


# -- Überblick ------------------------------------------------------------------------


def test_alle_karten_liegen_von_anfang_an_offen() -> None:
    """ "…bei der von Anfang an alle Karten offen liegen." The observation shows every card."""
    state = GAME.new_initial_state(seed=1)
    observation = state.observation(0)
    shown = [c for column in observation["columns"] for c in column] + observation["bouquet"]
    assert sorted(shown) == sorted(str(c) for c in DECK)
    assert GAME.perfect_information


def test_der_strauss_ist_jederzeit_spielbar_und_der_garten_hat_sechs_beete() -> None:
    """ "Der Garten sind sechs Spalten …; der Strauß sind sechzehn Karten, die du … jederzeit
    spielen darfst." """
    state = start(deal([["9C"], ["5D"]], ["8H", "4S", "AS"]))
    assert len(state.columns) == 6 and len(state.bouquet) == 16
    assert {"8H>c1", "4S>c2", "AS>f"} <= legal(state)


def test_vier_stapel_je_farbe_vom_ass_bis_zum_koenig() -> None:
    """ "…das ganze Blatt auf vier Stapel zu sortieren, einen pro Farbe, vom Ass bis zum
    König." The foundations grow by suit, ace first, one rank at a time."""
    state = start(deal([["2H", "AH"], ["3H"]], ["2S", "AS"]))
    assert state.foundations == {"S": 0, "H": 0, "D": 0, "C": 0}
    assert "2S>f" not in legal(state) and "2H>f" not in legal(state)
    play(state, "AS>f", "2S>f", "AH>f", "2H>f")
    assert state.foundations == {"S": 2, "H": 2, "D": 0, "C": 0}
    assert "3H>f" in legal(state)


def test_ein_spieler_zweiundfuenfzig_karten() -> None:
    """ "Spieler: 1" and "ein normales Kartenspiel mit 52 Karten, ohne Joker"."""
    assert (GAME.min_seats, GAME.max_seats, GAME.default_seats) == (1, 1, 1)
    with pytest.raises(SeatCountError):
        GAME.new_initial_state(seed=0, seats=2)
    data = GAME.new_initial_state(seed=5).deal()
    cards = [c for column in data["columns"] for c in column] + data["bouquet"]
    assert sorted(cards) == sorted(str(c) for c in DECK)


# -- Die Teile der Auslage -------------------------------------------------------------


def test_nur_die_unterste_karte_einer_spalte_bewegt_sich() -> None:
    """ "Bewegen darfst du nur die unterste Karte jeder Spalte – die obenauf liegt." The
    exposed card is the last one listed; the card under it cannot move."""
    state = start(deal([["AS", "9D"], ["TC"]], ["KS"]))
    assert "9D>c2" in legal(state)
    assert "AS>f" not in legal(state)
    with pytest.raises(IllegalActionError):
        state.apply_action(GAME.parse_action("AS>f"))


def test_jede_karte_des_straußes_ist_jederzeit_spielbar() -> None:
    """ "Jede Karte des Straußes ist jederzeit spielbar." – also late in the game."""
    state = start(deal([["AS"], ["KH"]], ["QD", "2S"]))
    play(state, "AS>f", "2S>f")
    assert "QD>c2" in legal(state)


def test_die_zielstapel_sind_zu_beginn_leer() -> None:
    """ "Zu Beginn sind sie leer." """
    state = GAME.new_initial_state(seed=3)
    assert state.foundations == {"S": 0, "H": 0, "D": 0, "C": 0} and state.score == 0


# -- Vorbereitung ----------------------------------------------------------------------


@settings(max_examples=20)
@given(seed=st.integers(0, 2**63 - 1))
def test_36_karten_in_sechs_spalten_zu_sechs_und_16_im_strauss(seed: int) -> None:
    """ "Misch und leg 36 Karten offen in sechs Spalten zu je sechs aus … Die übrigen 16
    Karten fächerst du offen als Strauß auf." """
    data = GAME.new_initial_state(seed=seed).deal()
    assert [len(c) for c in data["columns"]] == [6] * 6
    assert len(data["bouquet"]) == 16
    assert len({c for column in data["columns"] for c in column} | set(data["bouquet"])) == 52


# -- Spielablauf -----------------------------------------------------------------------


def test_keine_runden_ein_zug_nach_dem_anderen() -> None:
    """ "Es gibt keine Runden – du machst einen Zug nach dem anderen, in beliebiger
    Reihenfolge." The one seat always moves next until the game ends."""
    state = GAME.new_initial_state(seed=8)
    for _ in range(10):
        assert state.current_seat == 0
        state.apply_action(next(a for a in state.legal_actions() if isinstance(a, Move)))


def test_ein_freies_ass_eroeffnet_einen_zielstapel_dann_2_3_bis_koenig() -> None:
    """ "Ein Ass, das frei wird, eröffnet einen Zielstapel. Darauf kommt die 2 derselben
    Farbe, dann die 3 und so weiter bis zum König." """
    state = start(deal([["2D", "AD"], ["AC", "3D"]], ["2C"]))
    assert {"AD>f", "3D>f", "2D>f", "2C>f"} & legal(state) == {"AD>f"}
    play(state, "AD>f")
    assert "2D>f" in legal(state) and "3D>f" not in legal(state)
    play(state, "2D>f", "3D>f", "AC>f", "2C>f")
    assert state.foundations == {"S": 0, "H": 0, "D": 3, "C": 2}


def test_absteigend_ohne_ruecksicht_auf_die_farbe_anlegen() -> None:
    """ "Auf die unterste Karte einer Spalte darfst du eine Karte legen, die einen Wert
    niedriger ist, egal welche Farbe … Eine 7 passt also auf jede 8, eine Dame auf jeden
    König." Not two ranks lower, not higher, not equal."""
    state = start(deal([["8S"], ["8H"], ["KD"], ["KC"], ["7C"], ["QH"]], ["6D", "9S", "7D", "JC"]))
    moves = legal(state)
    assert {"7C>c1", "7C>c2", "7D>c1", "7D>c2", "QH>c3", "QH>c4"} <= moves
    assert not {"6D>c1", "9S>c1", "JC>c3", "7C>c5", "8S>c2"} & moves
    play(state, "7C>c1")
    assert state.columns[0][-2:] == (Card("8S"), Card("7C"))


def test_nur_einzeln_niemals_mehrere_karten_zusammen() -> None:
    """ "Du bewegst immer nur eine Karte, nie mehrere zusammen." Without the sequences
    variant a card under another never moves, even with a run above it."""
    state = start(deal([["9S", "8D", "7C"], ["TH"], ["8C"]]))
    assert "9S>c2" not in legal(state)
    assert "7C>c3" in legal(state)
    play(state, "7C>c3")
    assert state.columns[0][-1] == Card("8D") and state.columns[2][-2:] == ("8C", "7C")


def test_strausskarte_auf_zielstapel_oder_an_eine_spalte_wenn_sie_passt() -> None:
    """ "Jede Karte aus dem Strauß darf auf einen Zielstapel oder an eine Spalte im Garten,
    wenn sie passt." """
    state = start(deal([["9C"], ["KS"], ["KH"], ["KD"], ["KC"], ["JD"]], ["AH", "8D", "5S"]))
    moves = legal(state)
    assert {"AH>f", "8D>c1"} <= moves
    assert not any(m.startswith("5S>") for m in moves)


def test_eine_karte_die_den_strauss_verlassen_hat_kann_nie_mehr_zurueck() -> None:
    """ "Eine Karte, die den Strauß verlassen hat, kann nie mehr zurück." No action puts
    a card into the bouquet, and a card played out of it stays out."""
    state = start(deal([["9C"], ["9H"]], ["8D"]))
    play(state, "8D>c1")
    assert Card("8D") not in state.bouquet
    play(state, "8D>c2")
    assert Card("8D") not in state.bouquet
    assert all(str(a).endswith(("f", "resign")) or ">c" in str(a) for a in state.legal_actions())
    with pytest.raises(InvalidActionError):
        GAME.parse_action("8D>b")


SPADES_TO_SIX = ["6S", "5S", "4S", "3S", "2S", "AS"]
"""A column that plays out to the foundation by itself, leaving it empty."""


def emptied_first_column(tops: Sequence[Sequence[str]], **options: Any) -> BlumengartenState:
    state = start(deal([SPADES_TO_SIX, *tops]), **options)
    play(state, "AS>f", "2S>f", "3S>f", "4S>f", "5S>f", "6S>f")
    assert state.columns[0] == ()
    return state


def test_in_eine_leere_spalte_darf_jede_karte() -> None:
    """ "Ist eine Spalte ganz leer, darfst du eine beliebige Karte hineinlegen – die
    unterste Karte einer anderen Spalte oder irgendeine Karte aus dem Strauß." """
    state = emptied_first_column([["7D"], ["KH"]])
    moves = legal(state)
    assert {"7D>c1", "KH>c1"} <= moves
    assert all(f"{c}>c1" in moves for c in state.bouquet)
    play(state, "KH>c1")
    assert state.columns[0] == ("KH",)


def test_nur_so_bekommst_du_einen_koenig_aus_dem_weg() -> None:
    """ "Nur so bekommst du einen König aus dem Weg." A king moves only into an empty
    column (or, in its turn, to its foundation)."""
    state = start(deal([SPADES_TO_SIX, ["KH"]]))
    assert not any(m.startswith("KH>") for m in legal(state) if m != "resign")
    play(state, "AS>f", "2S>f", "3S>f", "4S>f", "5S>f", "6S>f")
    assert {m for m in legal(state) if m.startswith("KH>")} == {"KH>c1"}


def test_das_beispiel_mit_herz_sieben_aus_dem_strauss() -> None:
    """ "Das A♦ liegt unten in Spalte 2 und verdeckt die 8♣ darüber. Es kommt sofort auf
    einen Zielstapel. Die 2♦ steckt im Strauß und folgt gleich darauf. Jetzt ist die 8♣
    frei: Du könntest die 7♥ aus dem Strauß anlegen." """
    state = start(deal([["KS"], ["8C", "AD"]], ["2D", "7H"]))
    assert "AD>f" in legal(state) and "7H>c2" not in legal(state)
    play(state, "AD>f", "2D>f")
    assert state.columns[1][-1] == Card("8C")
    assert "7H>c2" in legal(state)


# -- Gewonnen oder verloren --------------------------------------------------------------


def ascending(cards: Sequence[str]) -> list[str]:
    return sorted(cards, key=lambda c: (rank(c), "SHDC".index(c[1])))


def winnable_deal() -> tuple[dict[str, Any], list[str]]:
    """The aces to fours in the bouquet; the fives to kings dealt in ascending order
    round the six columns from the exposed end down, so each card is exposed by the
    time its foundation needs it. Returns the deal and the order to play the cards."""
    order = ascending([str(c) for c in DECK])
    bouquet, garden = order[:16], order[16:]
    columns: list[list[str]] = [[] for _ in range(6)]
    for index, card in enumerate(garden):
        columns[index % 6].insert(0, card)
    return {"columns": columns, "bouquet": bouquet}, order


def test_gewonnen_wenn_alle_52_karten_auf_den_zielstapeln_liegen() -> None:
    """ "Du hast gewonnen, wenn alle 52 Karten auf den Zielstapeln liegen." """
    data, order = winnable_deal()
    state = start(data)
    for card in order[:-1]:
        play(state, f"{card}>f")
        assert not state.is_terminal()
    play(state, f"{order[-1]}>f")
    outcome = state.outcome()
    assert outcome is not None and outcome.termination == Termination.WON
    assert outcome.returns == (52.0,) and outcome.ranking == (1,)
    assert state.legal_actions() == []


def blocked_deal(bouquet: Sequence[str]) -> dict[str, Any]:
    """Kings and two nines exposed, every queen, eight and ace buried under them, and
    ``bouquet`` (no queen, eight or ace) in hand: no card fits anywhere."""
    exposed = ["KS", "KH", "KD", "KC", "9S", "9H"]
    buried = [str(c) for c in DECK if str(c) not in set(exposed) | set(bouquet)]
    assert len(buried) == 30
    columns = [[*buried[i * 5 : i * 5 + 5], exposed[i]] for i in range(6)]
    return {"columns": columns, "bouquet": list(bouquet)}


LOW_CARDS = ["2S", "3S", "4S", "5S", "2H", "3H", "4H", "5H", "2D", "3D", "4D", "5D"]


def test_geht_kein_zug_mehr_ist_die_patience_nicht_aufgegangen() -> None:
    """ "Geht kein sinnvoller Zug mehr, ist die Patience nicht aufgegangen." Ruling: the
    game ends lost when no card can move – here at once."""
    state = start(blocked_deal([*LOW_CARDS, "2C", "3C", "4C", "5C"]))
    outcome = state.outcome()
    assert state.is_terminal() and outcome is not None
    assert outcome.termination == Termination.NO_LEGAL_MOVE
    assert outcome.returns == (0.0,) and state.legal_actions() == []


def test_no_legal_move_after_the_last_possible_move_ends_the_game() -> None:
    state = start(blocked_deal([*LOW_CARDS, "2C", "3C", "4C", "AS"]))
    assert legal(state) == {"AS>f", "resign"}
    play(state, "AS>f", "2S>f", "3S>f", "4S>f")
    assert not state.is_terminal()
    play(state, "5S>f")
    outcome = state.outcome()
    assert outcome is not None and outcome.termination == Termination.NO_LEGAL_MOVE
    assert outcome.returns == (5.0,)


def test_es_gibt_nur_ein_spiel_kein_neues_austeilen() -> None:
    """ "Es gibt nur ein Spiel – kein neues Austeilen." No action deals again."""
    state = GAME.new_initial_state(seed=4)
    assert all(isinstance(a, Move) or a == RESIGN for a in state.legal_actions())
    for text in ("redeal", "deal", "new"):
        with pytest.raises(InvalidActionError):
            GAME.parse_action(text)


# -- Varianten ---------------------------------------------------------------------------


def test_folgen_verschieben_moves_the_card_with_every_card_on_it() -> None:
    """Variant "Folgen verschieben" (ruling ``sequences``): "``7H>c3`` moves the 7H and
    every card on it, if they descend by one, any suit" – onto a card one higher or into
    an empty column."""
    tops = [["KC", "7H", "6S", "5D"], ["8C"], ["QD"]]
    classic = start(deal(tops))
    assert "7H>c2" not in legal(classic)
    state = start(deal(tops), sequences=True)
    assert {"7H>c2", "6S>c2", "5D>c2"} & legal(state) == {"7H>c2"}
    play(state, "7H>c2")
    assert state.columns[1][-4:] == ("8C", "7H", "6S", "5D")
    assert state.columns[0][-1] == Card("KC")


def test_folgen_verschieben_needs_a_run_descending_by_one() -> None:
    state = start(deal([["8H", "7S", "5D"], ["9C"], ["6C"]]), sequences=True)
    assert "7S>c3" not in legal(state) and "8H>c2" not in legal(state)
    assert "5D>c3" in legal(state)


def test_folgen_verschieben_into_an_empty_column() -> None:
    state = emptied_first_column([["9C", "8H", "7C"]], sequences=True)
    assert {"9C>c1", "8H>c1", "7C>c1"} <= legal(state)
    play(state, "9C>c1")
    assert state.columns[0] == ("9C", "8H", "7C")


def test_groesserer_garten_sieben_spalten_zu_fuenf_und_17_im_strauss() -> None:
    """ "…eine leichtere Auslage mit sieben Spalten zu fünf Karten und einem Strauß aus
    17 Karten." (ruling ``garden_7x5``)"""
    state = GAME.new_initial_state(seed=2, options={"garden_7x5": True})
    assert [len(c) for c in state.columns] == [5] * 7 and len(state.bouquet) == 17
    data = deal([["9C"], [], [], [], [], [], ["8H"]], columns=7, height=5)
    state = start(data, garden_7x5=True)
    assert "8H>c1" in legal(state)
    with pytest.raises(InvalidDealError, match="6 columns"):
        start(data)


# -- Rulings -----------------------------------------------------------------------------


def test_a_record_lists_each_column_from_deepest_to_exposed() -> None:
    state = start(deal([["AS", "KD"]]))
    assert state.deal()["columns"][0][-2:] == ["AS", "KD"]
    assert state.columns[0][-1] == Card("KD")
    assert state.observation(0)["columns"][0][-1] == "KD"


def test_action_notation_numbers_columns_from_one() -> None:
    assert str(GAME.parse_action("7H>c3")) == "7H>c3"
    assert GAME.parse_action("7h>C3") == Move(Card("7H"), 2)
    assert GAME.parse_action("10h>c1") == Move(Card("TH"), 0)
    assert GAME.parse_action("as>F") == Move(Card("AS"), FOUNDATION)
    assert GAME.parse_action(" Resign ") == RESIGN
    for bad in ("7H>c0", "7H>c8", "7H", "7H>", ">c3", "7X>c3", "7H>d3", "7H>c3x"):
        with pytest.raises(InvalidActionError):
            GAME.parse_action(bad)


def test_cards_on_a_foundation_never_come_back() -> None:
    state = start(deal([["2S"]], ["AS"]))
    play(state, "AS>f")
    assert not any(str(a).startswith("AS>") for a in state.legal_actions())
    assert Card("AS") not in state.bouquet and all("AS" not in c for c in state.columns)


def test_resign_ends_the_game_lost_with_the_score_so_far() -> None:
    state = start(deal([["2S"]], ["AS"]))
    assert "resign" in legal(state)
    play(state, "AS>f", "2S>f", "resign")
    outcome = state.outcome()
    assert outcome is not None and outcome.termination == Termination.RESIGNED
    assert outcome.returns == (2.0,) and outcome.ranking == (1,)
    with pytest.raises(GameOverError):
        state.apply_action(GAME.parse_action("3S>f"))


def test_the_move_cap_ends_the_game_lost() -> None:
    assert GAME.parse_options({}).move_cap == 1000
    assert GAME.max_game_length(1, None) == 1000
    state = start(deal([["9C"], ["9D"]], ["8H", "AS"]), move_cap=3)
    play(state, "8H>c1", "8H>c2")
    assert not state.is_terminal() and state.moves_left == 1
    play(state, "AS>f")
    outcome = state.outcome()
    assert outcome is not None and outcome.termination == Termination.MOVE_CAP
    assert outcome.returns == (1.0,)
    with pytest.raises(OptionError):
        GAME.parse_options({"move_cap": 0})


def test_the_score_is_the_number_of_cards_on_the_foundations() -> None:
    state = start(deal([["2S"], ["2H"]], ["AS", "AH", "3S"]))
    play(state, "AS>f", "AH>f", "2S>f")
    assert state.score == 3 and state.observation(0)["score"] == 3


def test_a_forfeit_scores_the_cards_on_the_foundations() -> None:
    state = start(deal([["2S"]], ["AS"]))
    play(state, "AS>f")
    outcome = GAME.forfeit_outcome(state, 0, "timeout")
    assert outcome.termination == Termination.FORFEIT and outcome.offender == 0
    assert outcome.returns == (1.0,) and outcome.ranking == (1,)


def test_options_are_the_variants_and_the_cap() -> None:
    names = {spec.name for spec in GAME.option_specs()}
    assert names == {"sequences", "garden_7x5", "move_cap"}
    with pytest.raises(OptionError):
        GAME.parse_options({"wildflower": True})


# -- deals from files and records -------------------------------------------------------


def test_deal_round_trips_through_json() -> None:
    state = GAME.new_initial_state(seed=12, options={"garden_7x5": True})
    again = GAME.state_from_deal(
        json.loads(json.dumps(state.deal())), seats=1, options={"garden_7x5": True}
    )
    assert again.observation(0) == state.observation(0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["columns"][2].__setitem__(1, "XX"), "'XX'"),
        (lambda d: d["columns"][2].__setitem__(1, d["columns"][0][0]), "appears"),
        (lambda d: d["columns"][3].pop(), "column 4 has 5 cards"),
        (lambda d: d["bouquet"].pop(), "missing from the deal"),
        (lambda d: d["columns"].pop(), "6 columns"),
        (lambda d: d.pop("bouquet"), "'columns' and 'bouquet'"),
        (lambda d: d.__setitem__("columns", "KS QS"), "list of lists"),
        (lambda d: d["bouquet"].append(d["bouquet"][0]), "twice in the bouquet"),
    ],
)
def test_bad_deals_name_the_card_or_column(change: Any, message: str) -> None:
    data = GAME.new_initial_state(seed=1).deal()
    data = json.loads(json.dumps(data))
    change(data)
    with pytest.raises(InvalidDealError, match=message):
        GAME.state_from_deal(data, seats=1)


def test_observation_rebuilds_the_exact_state() -> None:
    state = GAME.new_initial_state(seed=21, options={"sequences": True, "move_cap": 50})
    rng = random.Random(4)
    for _ in range(20):
        state.apply_action(rng.choice([a for a in state.legal_actions() if a != RESIGN]))
        if state.is_terminal():
            break
    rebuilt = GAME.state_from_observation(state.observation(0), random.Random(0))
    assert rebuilt.to_dict()["actions"] == state.to_dict()["actions"]
    assert rebuilt.observation(0) == state.observation(0)
    assert rebuilt.legal_actions() == state.legal_actions()
