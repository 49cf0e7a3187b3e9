"""JSON and TOML from requests, parsed with bounds: untrusted text must not be able to
exhaust the parser or the code that later walks, prints or stores the data.

Both refuse data nested deeper than :data:`MAX_NESTING`, integers longer than
:data:`MAX_INTEGER_BITS` bits, text no database stores (a NUL character, a lone
surrogate) and (JSON) ``NaN`` and ``Infinity``, with a message that says which.
:func:`check_text` does the same for a URL's text.
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

MAX_NESTING = 32
MAX_INTEGER_BITS = 128


def load_json(text: str) -> Any:
    """Parse JSON text.

    Raises:
        ValueError: not JSON, or data out of bounds; the message says where or what.
    """
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise ValueError(_too_deep()) from None
    _check_bounds(data)
    return data


def load_toml(text: str) -> dict[str, Any]:
    """Parse TOML text.

    Raises:
        ValueError: not TOML, or data out of bounds; the message says where or what.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(str(exc)) from None
    except RecursionError:
        raise ValueError(_too_deep()) from None
    _check_bounds(data)
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number here: numbers must be finite")


def _too_deep() -> str:
    return f"nested more than {MAX_NESTING} levels deep"


def check_text(text: str) -> None:
    """Raises ValueError for text that no database stores: a NUL character (PostgreSQL
    refuses it) or a lone surrogate (not UTF-8)."""
    if "\x00" in text:
        raise ValueError(f"the text {text!r:.60} holds a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"the text {text!r:.60} is not UTF-8 (a lone surrogate)") from None


def _check_bounds(data: Any) -> None:
    """Raises ValueError for nesting deeper than MAX_NESTING, an integer too long or
    text no database stores."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth >= MAX_NESTING:
                raise ValueError(_too_deep())
            if isinstance(value, dict):
                for key in value:
                    check_text(key)
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)
        elif isinstance(value, int) and value.bit_length() > MAX_INTEGER_BITS:
            raise ValueError(f"an integer of more than {MAX_INTEGER_BITS} bits")
        elif isinstance(value, str):
            check_text(value)
