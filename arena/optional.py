"""Optional packages: each belongs to an extra of pyproject.toml, and the code that
needs one imports it through :func:`require`, so that a core install (engines, bots,
CLI, tournaments on SQLite, text reports) says which extra to install instead of
failing with a traceback."""

from __future__ import annotations

import importlib
from types import ModuleType

from arena.errors import ArenaError

EXTRAS = ("web", "postgres", "plot", "ray", "rl", "load")
"""The extras a user may install: ``pip install 'arena[EXTRA]'``; ``all`` is all six."""

DISPLAY_NAMES = {
    "fastapi": "FastAPI",
    "uvicorn": "uvicorn",
    "httpx": "httpx",
    "psycopg": "psycopg (the PostgreSQL driver)",
    "matplotlib": "matplotlib",
    "ray": "Ray",
    "pettingzoo": "PettingZoo",
    "gymnasium": "Gymnasium",
    "locust": "locust",
}


class MissingExtraError(ArenaError):
    """An optional package a command needs is not installed."""


def require(module: str, *, extra: str) -> ModuleType:
    """Import ``module`` (a top-level package, or a module of one), which the extra
    ``extra`` installs.

    Raises:
        MissingExtraError: the package is not installed, e.g. "Ray is not installed:
            pip install 'arena[ray]'". An installed package that fails to import for
            another reason raises its own error.
    """
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}: one of {', '.join(EXTRAS)}")
    package = module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name is not None and exc.name != package and exc.name != module:
            raise  # the package is there; something it needs is broken
        name = DISPLAY_NAMES.get(package, package)
        raise MissingExtraError(f"{name} is not installed: pip install 'arena[{extra}]'") from None
