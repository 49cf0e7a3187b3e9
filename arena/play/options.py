"""Game options that name a file: read at the edge, stored as data.

Engines do no I/O, and records must replay anywhere, so an option such as
Kardinal's ``deck`` holds data. Users may name a file instead (``--option deck=FILE``,
or ``deck = "my-deck.toml"`` in a tournament config); this module reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from arena.play.decks import load_deck_file
from engines.registry import get_game

FILE_OPTIONS: dict[tuple[str, str], Callable[[Path], Any]] = {
    ("kardinal", "deck"): load_deck_file,
}
"""(game, option) → loader of the file's data."""


def resolve_file_options(
    game: str, options: Mapping[str, Any], base: Path | None = None
) -> dict[str, Any]:
    """``options`` with every file-valued option read (paths relative to ``base``).

    Raises:
        UnknownGameError: ``game`` is unknown. ConfigError / OptionError: the file
            cannot be read or holds bad data (see each loader).
    """
    name = get_game(game).name
    resolved = dict(options)
    for key, value in options.items():
        loader = FILE_OPTIONS.get((name, key))
        if loader is not None and isinstance(value, str | Path):
            path = Path(value).expanduser()
            if base is not None and not path.is_absolute():
                path = base / path
            resolved[key] = loader(path)
    return resolved
