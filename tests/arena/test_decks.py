"""Reading a Kardinal & König deck file into the ``deck`` option's data."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.play.decks import load_deck_file
from engines.errors import OptionError
from engines.kardinal import DEFAULT_DECK, GAME

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
