"""Fixtures of the attack suite: the web tests' app and accounts (``web``), for attacks
made over HTTP."""

from tests.arena.web.conftest import engine, web

__all__ = ["engine", "web"]
