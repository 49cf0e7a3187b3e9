"""The consoles all commands print to (stdout for results, stderr for errors), and how
much the user asked to see (``-q`` / ``-v``)."""

from enum import IntEnum

from rich.console import Console

console = Console(highlight=False)
error_console = Console(stderr=True, highlight=False)


class Verbosity(IntEnum):
    QUIET = -1
    """``-q``: only errors and the result."""
    NORMAL = 0
    VERBOSE = 1
    """``-v``: more detail, such as a progress line per batch of games."""


_verbosity = Verbosity.NORMAL


def set_verbosity(level: Verbosity) -> None:
    """Set by ``-q``/``-v`` of the command line, for the rest of the command."""
    global _verbosity
    _verbosity = level


def verbosity() -> Verbosity:
    return _verbosity


def progress_console(shown: Console) -> Console:
    """Where a command's progress goes: ``shown``, or nowhere with ``-q``."""
    return Console(quiet=True) if _verbosity is Verbosity.QUIET else shown
