"""Kardinal & König: the deck as data, its validation, and decks as game options."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engines.errors import OptionError
from engines.kardinal import (
    CARD_IDS,
    DEFAULT_DECK,
    GAME,
    deck_from_data,
    deck_from_toml_text,
    deck_to_data,
)
from tests.engines.kardinal_support import deal

DECK_FILE = Path(__file__).parents[2] / "configs" / "kardinal" / "deck.toml"
RULINGS_COUNTS = {
    "Dänemark": 4, "England": 5, "Italien": 6, "Bayern": 6, "Ungarn": 6,
    "Kastilien": 7, "Franken": 7, "Sachsen": 7, "Frankreich": 8,
}  # fmt: skip


def default_data() -> dict[str, Any]:
    return deck_to_data(DEFAULT_DECK)


def test_the_config_file_is_exactly_the_built_in_default_deck() -> None:
    assert deck_from_toml_text(DECK_FILE.read_text(encoding="utf-8")) == DEFAULT_DECK


def test_the_default_deck_follows_the_rulings_card_by_card() -> None:
    ships = {"Dänemark": 2, "England": 2, "Kastilien": 2, "Frankreich": 2, "Italien": 1}
    carriages = {"Bayern": 2, "Franken": 2, "Sachsen": 2, "Ungarn": 2, "Frankreich": 1}
    by_country: dict[str, list[Any]] = {}
    for card in DEFAULT_DECK.cards:
        by_country.setdefault(card.country, []).append(card)
    assert {name: len(cards) for name, cards in by_country.items()} == RULINGS_COUNTS
    for name, cards in by_country.items():
        circles = [card.circles for card in cards]
        if name == "Dänemark":
            assert circles == [0, 0, 0, 0]
        else:
            assert circles == [1 + n % 2 for n in range(len(cards))]
        symbols = [card.symbol for card in cards]
        with_symbol = ships.get(name, 0) + carriages.get(name, 0)
        assert all(s != "none" for s in symbols[:with_symbol]), "symbols on the first cards"
        assert all(s == "none" for s in symbols[with_symbol:])
        assert symbols.count("ship") == ships.get(name, 0)
        assert symbols.count("carriage") == carriages.get(name, 0)
    assert DEFAULT_DECK.tablets.counts() == (2, 2, 2, 2)


def test_a_deck_may_name_countries_by_code_and_leave_out_no_symbol() -> None:
    data = default_data()
    data["cards"][0] = {"country": "dk", "circles": 0, "symbol": "Ship"}
    data["cards"][3] = {"country": "DÄNEMARK", "circles": 0}
    assert deck_from_data(data) == DEFAULT_DECK


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["cards"].pop(), r"56 expected.*55 found.*Frankreich 7 \(not 8\)"),
        (
            lambda d: d["cards"].append({"country": "England", "circles": 1}),
            r"56 expected.*57 found.*England 6 \(not 5\)",
        ),
        (lambda d: d["cards"][0].update(country="Preußen"), r"cards\[0\]\.country.*'Preußen'"),
        (lambda d: d["cards"][7].update(circles=3), r"cards\[7\]\.circles.*not 3"),
        (lambda d: d["cards"][7].update(circles=-1), r"cards\[7\]\.circles.*not -1"),
        (
            lambda d: d["cards"][4].update(symbol=["ship", "carriage"]),
            r"cards\[4\]\.symbol.*at most one symbol",
        ),
        (
            lambda d: d["cards"][4].update(symbol="ship+carriage"),
            r"cards\[4\]\.symbol.*at most one symbol",
        ),
        (lambda d: d["cards"][4].update(symbol="horse"), r"cards\[4\]\.symbol"),
        (lambda d: d["cards"][4].update(ships=1), r"cards\[4\]\.ships"),
        (lambda d: d["tablets"].update(minus2=3), r"8 law tablets expected, 9 found"),
        (lambda d: d["tablets"].update(joker=1), r"tablets\.joker"),
        (lambda d: d.pop("cards"), r"cards"),
    ],
)
def test_a_bad_deck_is_rejected_with_a_clear_message(change: Any, message: str) -> None:
    data = default_data()
    change(data)
    with pytest.raises(OptionError, match=message):
        deck_from_data(data)


def test_a_bad_toml_text_is_an_option_error() -> None:
    with pytest.raises(OptionError, match="not TOML"):
        deck_from_toml_text("cards = [")
    with pytest.raises(OptionError, match="bad deck"):
        deck_from_toml_text('cards = [{ country = "Frankreich", circles = 1 }]')


def no_circles_all_minus2() -> dict[str, Any]:
    data = default_data()
    for card in data["cards"]:
        card["circles"] = 0
    data["tablets"] = {"reclaim": 0, "three": 0, "mixed": 0, "minus2": 8}
    return data


def test_the_deck_option_takes_deck_data_and_records_keep_it() -> None:
    data = no_circles_all_minus2()
    options = GAME.parse_options({"deck": data})
    assert GAME.options_to_dict(options) == {"deck": data}, "the record holds the deck"
    state = GAME.new_initial_state(seed=5, seats=3, options=options)
    assert set(state.deal()["tablets"].values()) == {"minus2"}
    rng = random.Random(5)
    while not state.is_terminal():
        actions = state.legal_actions()
        state.apply_unchecked(actions[rng.randrange(len(actions))])
    restored = GAME.state_from_dict(json.loads(json.dumps(state.to_dict())))
    assert restored == state
    assert restored.outcome() == state.outcome()
    assert state.observation(1)["options"] == {"deck": data}


def test_a_deck_without_circles_lets_a_whole_run_of_a_country_be_taken() -> None:
    layout = deal("FR1 FR2 FR3 FR4 FR5 | DK1")
    layout["tablets"] = dict.fromkeys(layout["tablets"], "minus2")
    options = {"deck": no_circles_all_minus2()}
    state = GAME.state_from_deal(layout, seats=2, options=options)
    for card in ("FR1", "FR2", "FR3", "FR4", "FR5"):
        state.apply_action(GAME.parse_action(f"take {card}"))
    assert [CARD_IDS[c] for c in state.holdings(0)] == ["FR1", "FR2", "FR3", "FR4", "FR5"]
    default = GAME.state_from_deal(deal("FR1 FR2 | DK1"), seats=2)
    default.apply_action(GAME.parse_action("take FR1"))
    assert "take FR2" not in {str(a) for a in default.legal_actions()}


def test_a_file_name_given_as_the_deck_option_says_how_to_load_it() -> None:
    with pytest.raises(OptionError, match=r"deck data, not the file name 'my\.toml'"):
        GAME.parse_options({"deck": "my.toml"})


def test_the_default_options_record_the_default_deck_as_null() -> None:
    assert GAME.options_to_dict(GAME.parse_options(None)) == {"deck": None}
    assert GAME.parse_options({"deck": default_data()}).deck == DEFAULT_DECK
