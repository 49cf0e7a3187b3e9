"""Text a bot sent, made storable: what reaches a message, a record, a row, a log or a page.

A bot's JSON may hold any code point, lone surrogates too (``"\\ud800"`` decodes to
one), and its stderr any byte. Neither UTF-8 nor JSON encoders take a lone surrogate,
and PostgreSQL's text refuses a NUL character: one such character would make a whole
game's record unencodable. :func:`bot_text` escapes both visibly (``\\ud800``,
``\\x00``), so the text still shows what the bot sent, and caps its length;
:func:`bot_data` does it for every text inside JSON-like data.
"""

from __future__ import annotations

from typing import Any


def bot_text(value: str, limit: int | None = None) -> str:
    """``value`` with lone surrogates and NUL characters escaped as Python writes them
    (``\\ud800``, ``\\x00``), cut to at most ``limit`` characters (the last one ``…``)."""
    if "\x00" in value:
        value = value.replace("\x00", "\\x00")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        value = value.encode("utf-8", "backslashreplace").decode("utf-8")
    if limit is not None and len(value) > limit:
        value = value[: limit - 1] + "…"
    return value


def is_storable(value: str) -> bool:
    """Whether ``value`` is stored as it is (:func:`bot_text` leaves it unchanged)."""
    return bot_text(value) == value


def bot_data(value: Any) -> Any:
    """JSON-like ``value`` (dicts, lists, tuples, scalars) with every text in it, keys
    included, made storable by :func:`bot_text`."""
    if isinstance(value, str):
        return bot_text(value)
    if isinstance(value, dict):
        return {bot_data(key): bot_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [bot_data(item) for item in value]
    return value
