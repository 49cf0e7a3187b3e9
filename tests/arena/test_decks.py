"""Reading a Kardinal & König deck file into the ``deck`` option's data."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.play.decks import load_deck_file
from engines.errors import OptionError
from engines.kardinal import DEFAULT_DECK, GAME, DeckError, deck_to_data

DECK_FILE = Path(__file__).parents[2] / "configs" / "kardinal" / "deck.toml"


def test_the_default_deck_file_loads_as_option_data() -> None:
    data = load_deck_file(DECK_FILE)
    assert GAME.parse_options({"deck": data}).deck == DEFAULT_DECK
    assert len(data["cards"]) == 56


def test_a_changed_deck_file_changes_the_game(tmp_path: Path) -> None:
    text = DECK_FILE.read_text(encoding="utf-8").replace("minus2 = 2", "minus2 = 1")
    text = text.replace("mixed = 2", "mixed = 3")
    path = tmp_path / "deck.toml"
    path.write_text(text, encoding="utf-8")
    options = GAME.parse_options({"deck": load_deck_file(path)})
    state = GAME.new_initial_state(seed=1, options=options)
    assert sorted(state.deal()["tablets"].values()).count("mixed") == 3


def test_a_missing_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nowhere\.toml"):
        load_deck_file(tmp_path / "nowhere.toml")


def test_a_bad_deck_file_says_what_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "deck.toml"
    text = DECK_FILE.read_text(encoding="utf-8")
    path.write_text(
        text.replace(
            'circles = 2, symbol = "ship" },        # FR2', 'circles = 3, symbol = "ship" },  # FR2'
        ),
        encoding="utf-8",
    )
    with pytest.raises(OptionError, match=r"cards\[49\]\.circles.*not 3"):
        load_deck_file(path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda text: re.sub(r".*# EN5\n", "", text),
            r"cards: 56 expected \(the rulings' deck\), 55 found; wrong counts: England 4 "
            r"\(not 5\)$",
        ),
        (
            lambda text: text.replace("three = 2", "three = 9"),
            r"tablets: 8 law tablets expected, 15 found \(reclaim 2, three 9, mixed 2, "
            r"minus2 2\)$",
        ),
        (
            lambda text: text.replace(
                'circles = 2, symbol = "ship" },        # EN2', 'circles = 5, symbol = "ship" },'
            ),
            r"cards\[5\]\.circles \(card 6: England\): a card has 0, 1 or 2 circles, not 5",
        ),
    ],
)
def test_a_bad_deck_file_is_one_line_naming_the_file_and_the_place(
    tmp_path: Path, change: Any, message: str
) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(change(DECK_FILE.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(DeckError) as raised:
        load_deck_file(path)
    text = str(raised.value)
    assert text.startswith(f"bad deck file {str(path)!r}: ")
    assert re.search(message, text), text
    assert "\n" not in text and "Dänemark" not in text and len(text) < 200


def test_deck_data_given_as_the_option_never_quotes_the_whole_deck() -> None:
    data = deck_to_data(DEFAULT_DECK)
    data["cards"].pop()
    with pytest.raises(OptionError) as raised:
        GAME.parse_options({"deck": data})
    text = str(raised.value)
    assert text.startswith("bad value for option 'deck' of kardinal: cards: 56 expected")
    assert "Dänemark" not in text and len(text) < 200
    data = deck_to_data(DEFAULT_DECK)
    data["cards"][7]["circles"] = 4
    with pytest.raises(OptionError, match=r"^bad value 4 for option 'deck\.cards\.7\.circles'"):
        GAME.parse_options({"deck": data})
