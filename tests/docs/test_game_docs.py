"""docs/games/*.md cannot go stale: each game has a page with the same sections, its
example observation is the one the engine produces for the stated seed, seat and
actions, every example action parses to itself, and its options table lists exactly
the game's options with their defaults."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from engines.core import Game
from engines.registry import all_games, get_game

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"
GAMES = [game.name for game in all_games()]
SECTIONS = ("## Rules", "## Options", "## Actions", "## Observation", "## End and scoring")

OBSERVATION = re.compile(
    r"<!-- example observation: seed=(?P<seed>\d+) seats=(?P<seats>\d+) seat=(?P<seat>\d+) "
    r'actions="(?P<actions>[^"]*)" -->\n```json\n(?P<json>.*?)\n```',
    re.DOTALL,
)
ACTIONS = re.compile(r"<!-- example actions -->\n```text\n(?P<lines>.*?)\n```", re.DOTALL)
OPTION_ROW = re.compile(r"^\| `(?P<name>\w+)` \| `(?P<default>[^`]*)` \|", re.MULTILINE)


@dataclass(frozen=True)
class ExampleObservation:
    seed: int
    seats: int
    seat: int
    actions: list[str]
    shown: object


def page(name: str) -> str:
    return (DOCS / f"{name}.md").read_text(encoding="utf-8")


def example_observations(text: str) -> list[ExampleObservation]:
    return [
        ExampleObservation(
            int(match["seed"]),
            int(match["seats"]),
            int(match["seat"]),
            [action.strip() for action in match["actions"].split(",") if action.strip()],
            json.loads(match["json"]),
        )
        for match in OBSERVATION.finditer(text)
    ]


def section(text: str, heading: str) -> str:
    start = text.index(f"\n{heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_every_game_has_a_page_and_every_page_a_game() -> None:
    assert sorted(path.stem for path in DOCS.glob("*.md")) == sorted(GAMES)


@pytest.mark.parametrize("name", GAMES)
def test_a_page_has_the_sections_every_page_has_in_the_same_order(name: str) -> None:
    headings = [line for line in page(name).splitlines() if line.startswith("## ")]
    assert [heading for heading in headings if heading in SECTIONS] == list(SECTIONS)


@pytest.mark.parametrize("name", GAMES)
def test_the_example_observation_is_the_engines(name: str) -> None:
    game: Game = get_game(name)
    examples = example_observations(page(name))
    assert examples, f"docs/games/{name}.md has no example observation"
    for example in examples:
        state = game.new_initial_state(seed=example.seed, seats=example.seats)
        for text in example.actions:
            state.apply_action(game.parse_action(text))
        produced = json.loads(json.dumps(state.observation(example.seat)))
        assert example.shown == produced, json.dumps(produced, ensure_ascii=False)


@pytest.mark.parametrize("name", GAMES)
def test_every_example_action_parses_to_itself(name: str) -> None:
    game: Game = get_game(name)
    blocks = list(ACTIONS.finditer(page(name)))
    assert blocks, f"docs/games/{name}.md has no example actions"
    lines = [line.strip() for block in blocks for line in block["lines"].splitlines()]
    assert lines
    assert [line for line in lines if str(game.parse_action(line)) != line] == []


@pytest.mark.parametrize("name", GAMES)
def test_the_options_table_lists_the_games_options_and_defaults(name: str) -> None:
    game: Game = get_game(name)
    rows = {
        match["name"]: json.loads(match["default"])
        for match in OPTION_ROW.finditer(section(page(name), "## Options"))
    }
    assert rows == {spec.name: spec.default for spec in game.option_specs()}
