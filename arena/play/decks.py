"""Reading deck files for games whose deck is an option (Kardinal & König).

Engines do no I/O: their ``deck`` option holds the deck's data, so a record carries
the deck it was played with. This module is the edge that turns a file a user names
(``--option deck=FILE``) into that data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from engines.kardinal import DeckError, deck_from_toml_text, deck_to_data


def load_deck_file(path: Path | str) -> dict[str, Any]:
    """The deck in the TOML file ``path`` (format of ``configs/kardinal/deck.toml``)
    as JSON data for the ``deck`` option.

    Raises:
        ConfigError: the file cannot be read; the message quotes the path.
        DeckError: the file is not TOML or not a valid deck; the message names the
            file, then each problem and where it is.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read deck file {str(path)!r}: {exc}") from None
    try:
        return deck_to_data(deck_from_toml_text(text))
    except DeckError as exc:
        raise DeckError(exc.problem, source=str(path)) from None
