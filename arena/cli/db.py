"""``arena db backup FILE`` and ``arena db restore FILE``: a consistent copy of the
database in one SQLite file, and its restore into an empty database
(:mod:`arena.store.backup`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import DbOption
from arena.cli.console import console, error_console

app = typer.Typer(
    no_args_is_help=True,
    help="The database: back it up and restore it (safe while the service runs).",
)


@app.command("backup")
def backup(
    file: Annotated[Path, typer.Argument(help="the backup file to write (an SQLite file)")],
    force: Annotated[bool, typer.Option("--force", help="replace FILE if it exists")] = False,
    db: DbOption = None,
) -> None:
    """Write a consistent copy of the database to FILE while it goes on serving: SQLite's
    online backup, or one snapshot of PostgreSQL. Restore it with `arena db restore`."""
    from arena.store.backup import backup_database
    from arena.store.db import describe_url, resolve_url

    summary = backup_database(db, file, overwrite=force)
    console.print(
        f"backed up {describe_url(resolve_url(db))} to {file}: schema version "
        f"{summary.version}, {summary.total:,} rows ({summary.rows.get('game', 0):,} games)",
        markup=False,
    )


@app.command("restore")
def restore(
    file: Annotated[Path, typer.Argument(help="a backup written by `arena db backup`")],
    db: DbOption = None,
) -> None:
    """Restore FILE into an empty database (a new SQLite file, or a PostgreSQL database
    made with createdb), in one transaction, then upgrade it to this arena's schema. A
    database that has tables is refused: nothing is merged or overwritten."""
    from arena.store.backup import restore_database
    from arena.store.db import describe_url, resolve_url

    summary = restore_database(file, db)
    console.print(
        f"restored {file} into {describe_url(resolve_url(db))}: {summary.total:,} rows "
        f"({summary.rows.get('game', 0):,} games) from schema version {summary.version}",
        markup=False,
    )
    error_console.print("check it with `arena tournament list --db …` before serving from it")
