"""Options and helpers shared by the database-backed commands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from arena.errors import ArenaError
from arena.store.location import ENV_VAR

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar=ENV_VAR,
        help="database URL or SQLite file (default: arena.db here)",
        show_default=False,
    ),
]


def database(url: str | None) -> Engine:
    """Open (and migrate) the database; raises StorageError with a clear message."""
    from arena.store.db import open_database

    return open_database(url)


def parse_assignments(items: Sequence[str], what: str) -> dict[str, str]:
    """``["a=1", "b=x"]`` → ``{"a": "1", "b": "x"}``.

    Raises:
        ArenaError: an item without ``=``; the message quotes it.
    """
    result: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ArenaError(f"bad {what} {item!r}: write NAME=VALUE")
        result[key.strip()] = value.strip()
    return result
