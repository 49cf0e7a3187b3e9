"""The bot kinds and what each game lends the search bots are listed explicitly
(``bots/builtin.py``): no scan of the package, and the lists match the game packages
on disk, so a game's bots cannot be forgotten."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import bots
from bots.builtin import BUILTIN_KINDS, GAME_SEARCH
from bots.registry import BotKind, all_bot_kinds, get_bot_kind
from bots.search import GameSearch, game_search
from engines.registry import get_game
from tests.engines.test_registry import imported_packages

ROOT = Path(bots.__file__).parent
GAME_PACKAGES = sorted(
    path.parent.name
    for path in ROOT.glob("*/__init__.py")
    if path.parent.name not in ("sdk", "examples")
)
"""The packages of bots/ named after a game: each game's own bots."""


def test_every_game_package_is_a_game() -> None:
    assert GAME_PACKAGES, "no game packages found"
    for name in GAME_PACKAGES:
        assert get_game(name).name == name


@pytest.mark.parametrize("package", GAME_PACKAGES)
def test_every_game_package_is_listed(package: str) -> None:
    module = importlib.import_module(f"bots.{package}")
    kinds = getattr(module, "KINDS", ())
    assert kinds, f"bots/{package} lists no KINDS"
    assert all(kind in BUILTIN_KINDS for kind in kinds), f"bots.{package}.KINDS not listed"
    assert all(kind.games == frozenset({package}) for kind in kinds)
    search = getattr(module, "SEARCH", None)
    assert GAME_SEARCH.get(package) is search, f"bots.{package}.SEARCH not in GAME_SEARCH"
    if search is not None:
        assert isinstance(search, GameSearch) and game_search(package) is search


def test_the_registry_holds_exactly_the_built_in_list() -> None:
    registered = all_bot_kinds()
    assert sorted(map(id, registered)) == sorted(map(id, BUILTIN_KINDS))
    for kind in BUILTIN_KINDS:
        assert isinstance(kind, BotKind)
        for game in sorted(kind.games or {"koenigsgarten"}):
            assert get_bot_kind(kind.name, game) is kind
    assert set(GAME_SEARCH) <= set(GAME_PACKAGES)


@pytest.mark.parametrize("module", ["registry", "builtin", "search", "__init__"])
def test_the_registry_imports_bots_by_name_not_by_scanning(module: str) -> None:
    scanners = imported_packages(ROOT / f"{module}.py") & {"pkgutil", "importlib"}
    assert not scanners, f"bots/{module}.py scans for bots"
