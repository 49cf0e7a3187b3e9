"""The registry of games: name → game instance."""

from __future__ import annotations

from engines.core import Game
from engines.errors import UnknownGameError, did_you_mean

_GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Register ``game`` under its name and return it (:mod:`engines.games` registers
    the built-in games; a program may add its own).

    Raises:
        ValueError: another game already uses that name.
    """
    existing = _GAMES.get(game.name)
    if existing is not None and type(existing) is not type(game):
        raise ValueError(f"game name {game.name!r} is already registered")
    _GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    """The game registered as ``name`` (case-insensitive).

    Raises:
        UnknownGameError: no such game; the message lists the known ones.
    """
    _load_builtin_games()
    game = _GAMES.get(name.strip().lower()) if isinstance(name, str) else None
    if game is None:
        raise UnknownGameError(
            f"unknown game {name!r} ({did_you_mean(str(name), _GAMES)}known: "
            f"{', '.join(sorted(_GAMES))})"
        )
    return game


def all_games() -> list[Game]:
    """Every registered game, sorted by name."""
    _load_builtin_games()
    return [_GAMES[name] for name in sorted(_GAMES)]


def _load_builtin_games() -> None:
    # engines.games registers the built-in list when first imported; imported lazily
    # so that engines.core and engines.registry never import a game at module load.
    import engines.games  # noqa: F401
