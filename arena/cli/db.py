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
    help="The database: which one, its schema and rows; back it up and restore it.",
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


@app.command("info")
def info(db: DbOption = None) -> None:
    """Which database this command uses: where it is, its schema version against this
    arena's, the migrations applied and pending, and the rows of each table. It opens
    the database without upgrading it."""
    from arena.store.db import describe_url, resolve_url
    from arena.store.inspection import inspect_database

    resolved = resolve_url(db)
    found = inspect_database(resolved)
    console.print(f"database: {describe_url(resolved)}", markup=False)
    if found.path is not None:
        console.print(f"file: {found.path} ({found.size:,} bytes)", markup=False)
    console.print(
        f"schema version {found.version} of {found.latest}"
        + (
            f"; migrations pending: {', '.join(map(str, found.pending))} (any command that "
            "opens it applies them)"
            if found.pending
            else "; up to date"
        ),
        markup=False,
    )
    for table, rows in found.rows.items():
        console.print(f"  {table:<24} {rows:>12,}", markup=False)
