"""What ``arena games`` lists, computed from the engine and bot registries.

Computing it loads all four engines, pydantic and every bot module, more than half of
the command's start (docs/benchmarks.md, "Command-line start-up"); so the rows are kept
as data in :mod:`arena.cli.game_table`, which ``arena games`` prints.
``tests/arena/test_catalogue.py`` keeps that table equal to :func:`game_rows`; after
changing a game, its options or a bot kind, write it again with::

    python -m arena.cli.catalogue
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

GameRow = tuple[str, str, str, str, str]
"""game (name and title), seats, information, bot kinds, options (default)."""

TABLE_FILE = Path(__file__).with_name("game_table.py")


def game_rows() -> list[GameRow]:
    """One row per game, in the registry's order."""
    from bots.registry import all_bot_kinds
    from engines.registry import all_games

    rows: list[GameRow] = []
    for game in all_games():
        seats = (
            str(game.min_seats)
            if game.min_seats == game.max_seats
            else f"{game.min_seats}–{game.max_seats} (default {game.default_seats})"
        )
        info = "perfect" if game.perfect_information else "hidden"
        if game.has_chance:
            info += ", shuffled deal"
        info += f"\nmatches: {', '.join(game.match_formats())}"
        options = "\n".join(
            f"{spec.name} = {spec.default!r}  ({spec.kind}) {spec.help}".rstrip()
            for spec in game.option_specs()
        )
        kinds = ", ".join(kind.name for kind in all_bot_kinds(game.name))
        rows.append((f"{game.name}\n{game.title}", seats, info, kinds, options or "—"))
    return rows


def table_source(rows: list[GameRow]) -> str:
    """The text of :mod:`arena.cli.game_table` for ``rows``."""
    lines = [
        "# ruff: noqa: E501",
        '"""The rows ``arena games`` prints. Written by ``python -m arena.cli.catalogue``;',
        'do not edit (tests/arena/test_catalogue.py keeps it equal to the registries)."""',
        "",
        "ROWS: list[tuple[str, str, str, str, str]] = [",
        *(f"    {row!r}," for row in rows),
        "]",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    """Write :mod:`arena.cli.game_table` from the registries, formatted by ruff."""
    TABLE_FILE.write_text(table_source(game_rows()), encoding="utf-8")
    ruff = Path(sys.executable).with_name("ruff")
    if ruff.exists():
        subprocess.run([str(ruff), "format", "--quiet", str(TABLE_FILE)], check=True)
    print(f"wrote {TABLE_FILE}")


if __name__ == "__main__":
    main()
