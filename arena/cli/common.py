"""Options and helpers shared by the database-backed commands."""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from arena.errors import ArenaError
from arena.store.location import ENV_VAR
from engines.seeding import MAX_SEED

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

EXECUTORS = ("auto", "processes", "ray", "local")
"""arena.tournament's executors, named here so that the help needs no import of it (a
test keeps the two equal)."""
EXECUTOR_HELP = (
    "auto (default: here, or worker processes when they pay for their start; Ray with "
    "--ray-address) | processes | ray (the warm `arena cluster start` one, else a fresh "
    "local Ray) | local; the run says which played and why"
)

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar=ENV_VAR,
        help="database URL or SQLite file (default: arena.db here)",
        show_default=False,
    ),
]

EachOption = Annotated[
    str | None,
    typer.Option(
        metavar="TC",
        help="every bot's time control: 'tc=60+0.5' (game clock + increment), 'st=1' "
        "(per move) or both; one bot's own: --bot 'NAME tc=5+0.1'",
    ),
]


SEED_RULE = "default: random, and printed; the same --seed repeats the run"
"""The one seed rule of the commands that play games (play, tournament run, solitaire,
deals make); the benchmarks fix theirs so that figures compare."""


def chosen_seed(seed: int | None) -> int:
    """``seed``, or a random one when none is given (:data:`SEED_RULE`; the caller
    prints it). A drawn seed has the full 63 bits: a bot that holds part of a deal
    must not be able to try every seed until one deals its cards (docs/protocol.md)."""
    return secrets.randbelow(MAX_SEED + 1) if seed is None else seed


def database(url: str | None) -> Engine:
    """Open (and migrate) the database; raises StorageError with a clear message.

    A new SQLite file is announced on stderr (not with ``-q``), so json output stays clean.
    """
    from arena.cli.console import error_console, progress_console
    from arena.store.db import open_database

    def announce(line: str) -> None:
        progress_console(error_console).print(f"arena: {line}", markup=False, soft_wrap=True)

    return open_database(url, announce=announce)


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


def write_lines(lines: Iterable[str], output: Path) -> int:
    """Write ``lines`` (each without its newline) to the file ``output``, or to stdout
    for ``-``, as they come; returns how many.

    Raises:
        ArenaError: the file cannot be written; the message names it.
    """
    count = 0
    if str(output) == "-":
        for line in lines:
            sys.stdout.write(line + "\n")
            count += 1
        sys.stdout.flush()
        return count
    try:
        with output.open("w", encoding="utf-8") as file:
            for line in lines:
                file.write(line + "\n")
                count += 1
    except OSError as exc:
        raise ArenaError(f"cannot write {str(output)!r}: {exc.strerror}") from None
    return count
