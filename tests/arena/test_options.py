"""File-valued game options: `--option deck=FILE` and `deck = "FILE"` in a config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from engines.kardinal import DEFAULT_DECK, deck_to_data

runner = CliRunner()
DECK = Path(__file__).resolve().parents[2] / "configs" / "kardinal" / "deck.toml"


def test_play_reads_a_deck_file_into_the_record(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    result = runner.invoke(
        app,
        [
            "play",
            "kardinal",
            "-b",
            "random",
            "-b",
            "random",
            "-b",
            "random",
            "-O",
            f"deck={DECK}",
            "--seed",
            "3",
            "--record",
            str(record),
        ],
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(record.read_text())["options"]["deck"] == deck_to_data(DEFAULT_DECK)


@pytest.mark.slow
def test_a_config_names_its_deck_relative_to_itself(tmp_path: Path) -> None:
    deck = tmp_path / "decks" / "mine.toml"
    deck.parent.mkdir()
    deck.write_text(DECK.read_text())
    config = tmp_path / "t.toml"
    config.write_text(
        'game = "kardinal"\nbots = ["random", "greedy", "first-legal"]\n'
        'seats = 3\ngames = 3\nexecutor = "local"\n[options]\n'
        'deck = "decks/mine.toml"\n'
    )
    result = runner.invoke(app, ["tournament", "run", str(config), "--db", str(tmp_path / "a.db")])
    assert result.exit_code == 0, result.stderr


def test_a_bad_deck_file_is_one_clear_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(DECK.read_text().replace("circles = 2", "circles = 3", 1))
    result = runner.invoke(
        app,
        ["play", "kardinal", "-b", "random", "-b", "random", "-b", "random", "-O", f"deck={bad}"],
    )
    assert result.exit_code == 2 and "circles" in result.stderr
    config = tmp_path / "t.toml"
    config.write_text(
        'game = "kardinal"\nbots = ["random", "greedy", "first-legal"]\n'
        '[options]\ndeck = "missing.toml"\n'
    )
    result = runner.invoke(app, ["tournament", "run", str(config), "--db", str(tmp_path / "a.db")])
    assert result.exit_code == 2
    assert "t.toml" in result.stderr and "field 'options'" in result.stderr
    assert "missing.toml" in result.stderr
