"""A game's rule variant as one canonical key: what leaderboards are kept apart by.

Two tournaments play the same variant when their options, validated by the game, are
equal. The key names the options that differ from the game's defaults, sorted, as
``name=value`` joined by commas (``sequences=true``); a value that is data (Kardinal's
``deck``) by the first 12 hex digits of the SHA-256 of its canonical JSON
(``deck=sha256:…``), so that a key stays short enough for a command line and a URL;
the defaults are :data:`STANDARD`. Options given at their default value change nothing and are left
out, so ``{}`` and ``{"sequences": false}`` are one variant.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from engines.core import Game
from engines.errors import OptionError

STANDARD = "standard"
"""The key of the game's default rules."""


def variant_key(game: Game[Any, Any], options: Mapping[str, Any] | None) -> str:
    """The canonical key of ``options`` of ``game``.

    Options the game no longer accepts (stored by an older version) are keyed as
    stored, sorted, so that they stay apart from every valid variant.
    """
    try:
        given = game.options_to_dict(options)
    except OptionError:
        given = dict(options or {})
        defaults: dict[str, Any] = {}
    else:
        defaults = game.options_to_dict(None)
    parts = [
        f"{name}={_text(value)}"
        for name, value in sorted(given.items())
        if name not in defaults or defaults[name] != value
    ]
    return ",".join(parts) or STANDARD


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    if isinstance(value, dict | list):
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:12]
    return text
