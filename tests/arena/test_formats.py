"""Tournament formats as objects: one per name, each answering for itself."""

from __future__ import annotations

from typing import get_args

import pytest

from arena.errors import ConfigError
from arena.tournament.config import FORMATS, Format, validate_config
from arena.tournament.formats import FORMATS as FORMAT_OBJECTS
from arena.tournament.formats import FormatName, Role, tournament_format


def test_every_format_name_has_one_object() -> None:
    assert get_args(Format) == FORMATS == tuple(FORMAT_OBJECTS) == tuple(FormatName)
    assert all(fmt.name == name for name, fmt in FORMAT_OBJECTS.items())


def test_an_unknown_format_is_named() -> None:
    with pytest.raises(ConfigError, match="unknown tournament format 'swiss'"):
        tournament_format("swiss")


@pytest.mark.parametrize(
    ("settings", "planned", "schedule"),
    [
        ({"bots": ["a", "b", "c"], "games": 4}, 12, "4 games per table"),
        (
            {"format": "gauntlet", "candidates": ["a"], "opponents": ["b", "c"], "games": 4},
            8,
            "4 games per table",
        ),
        (
            {"format": "elo", "bots": ["a", "b", "c"], "elo": {"batch": 10, "max_games": 2000}},
            2000,
            "batches of 10, at most 2,000 games",
        ),
        (
            {"format": "sprt", "bots": ["a", "b"], "sprt": {"batch": 20, "max_games": 500}},
            500,
            "batches of 20, at most 500 games",
        ),
    ],
)
def test_a_format_plans_and_describes_its_schedule(
    settings: dict[str, object], planned: int, schedule: str
) -> None:
    config = validate_config({"game": "koenigsgarten", **settings}, "test")
    fmt = tournament_format(config.format)
    assert fmt.planned_games(config) == planned
    assert fmt.describe_schedule(config) == schedule


def test_a_solitaire_plays_every_deal_once_per_bot() -> None:
    config = validate_config(
        {"game": "blumengarten", "format": "solitaire", "bots": ["a", "b"], "games": 3}, "test"
    )
    fmt = tournament_format(config.format)
    assert fmt.solitaire and fmt.planned_games(config) == 6
    games = fmt.first_schedule(config, [(1, Role.PLAYER), (2, Role.PLAYER)])
    assert [g.seats for g in games] == [(1,), (2,)] * 3
    assert fmt.describe_schedule(config) == "3 deals"


def test_a_gauntlet_seats_candidates_against_opponents_only() -> None:
    config = validate_config(
        {
            "game": "koenigsgarten",
            "format": "gauntlet",
            "candidates": ["a"],
            "opponents": ["b", "c"],
        },
        "test",
    )
    fmt = tournament_format(config.format)
    assert fmt.groups(config) == [(Role.CANDIDATE, ["a"]), (Role.OPPONENT, ["b", "c"])]
    roles = [(1, Role.CANDIDATE), (2, Role.OPPONENT), (3, Role.OPPONENT)]
    tables = {tuple(sorted(g.seats)) for g in fmt.first_schedule(config, roles)}
    assert tables == {(1, 2), (1, 3)}


def test_adaptive_formats_schedule_later() -> None:
    elo = validate_config({"game": "koenigsgarten", "format": "elo", "bots": ["a", "b"]}, "t")
    sprt = validate_config({"game": "koenigsgarten", "format": "sprt", "bots": ["a", "b"]}, "t")
    roles = [(1, Role.PLAYER), (2, Role.PLAYER)]
    assert tournament_format("elo").first_schedule(elo, roles) == []
    assert tournament_format("sprt").first_schedule(sprt, roles) == []
    assert tournament_format("elo").decides_on_stored
    assert tournament_format("sprt").paired_test
    with pytest.raises(ConfigError, match="needs its test"):
        tournament_format("sprt").scheduler(sprt, [1, 2], None)
