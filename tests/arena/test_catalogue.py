"""`arena games` prints the rows kept in arena/cli/game_table.py: they must be what the
engine and bot registries say today."""

from __future__ import annotations

from arena.cli.catalogue import game_rows, table_source
from arena.cli.game_table import ROWS


def test_the_kept_game_table_is_the_registries() -> None:
    assert game_rows() == ROWS, "the game table is stale: run `python -m arena.cli.catalogue`"


def test_the_written_table_reads_back_as_its_rows() -> None:
    namespace: dict[str, object] = {}
    exec(table_source(game_rows()), namespace)
    assert namespace["ROWS"] == game_rows()
