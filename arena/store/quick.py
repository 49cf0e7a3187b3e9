"""Reading an SQLite database with the standard library alone, for commands that only
list what is stored and must start fast (``arena bots list``).

Only a file already at this program's schema qualifies: anything else (another database,
a missing file, an older schema that needs migrating, a newer one) goes the full way
through :func:`arena.store.db.open_database`, which migrates or explains.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA_VERSION = 17
"""The schema version this program writes: ``arena.store.migrations.LATEST`` (a test
keeps them equal), repeated here so that reading it needs no SQLAlchemy."""

SQLITE_PREFIX = "sqlite:///"
BUSY_TIMEOUT_SECONDS = 60.0


def sqlite_file(url: str) -> Path | None:
    """The file of a plain ``sqlite:///PATH`` URL, or None for any other URL (another
    driver, options after ``?``, an in-memory database)."""
    if not url.startswith(SQLITE_PREFIX):
        return None
    path = url[len(SQLITE_PREFIX) :]
    if not path or "?" in path or path == ":memory:":
        return None
    return Path(path).expanduser()


def open_current_sqlite(url: str) -> sqlite3.Connection | None:
    """A connection to the SQLite file of ``url`` when the file exists and its schema is
    this program's; None otherwise (the caller then opens it the full way)."""
    path = sqlite_file(url)
    if path is None or not path.is_file():
        return None
    try:
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS)
    except sqlite3.Error:
        return None
    try:
        row = connection.execute("SELECT max(version) FROM arena_schema_version").fetchone()
    except sqlite3.Error:
        connection.close()
        return None
    if row is None or row[0] != SCHEMA_VERSION:
        connection.close()
        return None
    return connection
