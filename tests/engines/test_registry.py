"""The games are listed explicitly (``engines/games.py``, as OpenSpiel's
``games/__init__.py``): no scan of the package, and the list matches the game modules
on disk, so a game module cannot be forgotten nor a stray module picked up."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import engines
from engines.core import Game
from engines.errors import UnknownGameError
from engines.games import BUILTIN_GAMES
from engines.registry import all_games, get_game, register

ROOT = Path(engines.__file__).parent


def imported_packages(path: Path) -> set[str]:
    """The top-level packages the module at ``path`` imports, anywhere in it."""
    tree = ast.parse(path.read_text())
    return {
        name.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for name in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }


def game_modules_on_disk() -> set[str]:
    """The modules directly in engines/ that define a concrete Game subclass."""
    found = set()
    for path in ROOT.glob("*.py"):
        module = importlib.import_module(f"engines.{path.stem}")
        if any(
            isinstance(value, type)
            and issubclass(value, Game)
            and not inspect.isabstract(value)
            and value.__module__ == module.__name__
            for value in vars(module).values()
        ):
            found.add(module.__name__)
    return found


def test_the_built_in_list_is_every_game_module_on_disk() -> None:
    assert {type(game).__module__ for game in BUILTIN_GAMES} == game_modules_on_disk()
    assert len({game.name for game in BUILTIN_GAMES}) == len(BUILTIN_GAMES)


def test_the_registry_holds_the_built_in_list() -> None:
    assert all_games() == sorted(BUILTIN_GAMES, key=lambda game: game.name)
    for game in BUILTIN_GAMES:
        assert get_game(game.name) is game
        assert get_game(f" {game.name.upper()} ") is game


@pytest.mark.parametrize("module", ["registry", "games", "__init__"])
def test_the_registry_imports_games_by_name_not_by_scanning(module: str) -> None:
    scanners = imported_packages(ROOT / f"{module}.py") & {"pkgutil", "importlib"}
    assert not scanners, f"engines/{module}.py scans for games"


def test_an_unknown_game_is_our_error_listing_the_known_ones() -> None:
    with pytest.raises(UnknownGameError, match=r"unknown game 'chess' \(known: blumengarten, "):
        get_game("chess")


def test_a_second_game_under_a_taken_name_is_refused() -> None:
    class Impostor(type(BUILTIN_GAMES[0])):
        pass

    with pytest.raises(ValueError, match=repr(BUILTIN_GAMES[0].name)):
        register(Impostor())
