"""Where the database is: its URL from ``--db``, ``$ARENA_DB`` or the default file.

Kept apart from :mod:`arena.store.db` so that the command line can name the database
without importing SQLAlchemy.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_URL = "sqlite:///arena.db"
ENV_VAR = "ARENA_DB"


def resolve_url(url: str | None) -> str:
    """The database URL from ``url``, else ``$ARENA_DB``, else ``arena.db`` here.

    A value without ``://`` is taken as the path of an SQLite file.
    """
    chosen = url or os.environ.get(ENV_VAR) or DEFAULT_URL
    if "://" not in chosen:
        chosen = f"sqlite:///{Path(chosen).expanduser()}"
    return chosen
