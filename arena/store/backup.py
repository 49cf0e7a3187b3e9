"""Backups: a consistent copy of a database in one SQLite file, and its restore into
an empty database of any kind.

A backup is an SQLite file at the source's schema version, whatever the source is, so
that one format serves both backends and a backup of an SQLite database restores into
PostgreSQL (the way to move when a user outgrows SQLite) and back. It is taken while
the service runs and writes:

* from SQLite, by SQLite's online backup API (``sqlite3.Connection.backup``), which
  copies the pages of one snapshot; in WAL mode writers go on meanwhile;
* from PostgreSQL (or any other SQLAlchemy database), by reading every table inside
  one ``REPEATABLE READ``, read-only transaction: the rows of one snapshot, as
  ``pg_dump`` reads them, streamed so that memory does not grow with the database.

The file is written beside the target under a temporary name, checked (SQLite's
``integrity_check`` and the schema version) and only then renamed into place: a
failed or interrupted backup leaves no half-written file under the target's name.

A restore builds the backup's schema version in the target by the released
migrations, copies every row (parents before children) and sets each id sequence past
the copied ids, all in one transaction, then migrates to this program's version as
every command does. It refuses a target that holds any table: nothing is ever merged
into or overwritten in a database that has data.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, OperationalError

from arena.errors import StorageError
from arena.store.db import describe_url, migrate_engine, open_database, resolve_url
from arena.store.migrations import LATEST, VERSION_TABLE, current_version

CHUNK_ROWS = 1000
"""Rows read and written at a time: memory stays flat however big a table is."""


class BackupError(StorageError):
    """A backup cannot be written, or a file cannot be restored where it was asked."""


@dataclass(frozen=True)
class BackupSummary:
    """What a backup holds: its schema version and each table's row count."""

    version: int
    rows: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def backup_database(url: str | None, target: Path, *, overwrite: bool = False) -> BackupSummary:
    """Write a consistent copy of the database at ``url`` (see ``resolve_url``) to the
    SQLite file ``target``.

    Raises:
        BackupError: ``target`` exists (and ``overwrite`` is false), its folder does
            not, or the copy fails its check.
        StorageError: the database cannot be opened or read.
    """
    target = target.expanduser()
    if target.exists() and not overwrite:
        raise BackupError(
            f"backup file {str(target)!r} exists: choose a new name or pass --force to replace it"
        )
    if not target.parent.is_dir():
        raise BackupError(f"cannot write {str(target)!r}: the folder does not exist")
    resolved = resolve_url(url)
    engine = open_database(resolved, migrate_schema=False)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    try:
        if engine.dialect.name == "sqlite":
            _sqlite_online_backup(engine, partial)
        else:
            _copy_snapshot(engine, partial)
        summary = _check_backup(partial)
        os.replace(partial, target)
        return summary
    except (OperationalError, DBAPIError, sqlite3.Error) as exc:
        raise StorageError(f"backup of {describe_url(resolved)!r} failed: {exc}") from None
    finally:
        partial.unlink(missing_ok=True)
        engine.dispose()


def restore_database(source: Path, url: str | None) -> BackupSummary:
    """Restore the backup file ``source`` into the empty database at ``url`` and
    migrate it to this program's schema version.

    Raises:
        BackupError: ``source`` is missing or not an arena backup, it is newer than
            this program, or the target database is not empty.
        StorageError: the target cannot be opened or written.
    """
    source = source.expanduser()
    if not source.is_file():
        raise BackupError(f"backup file {str(source)!r} does not exist")
    summary = _check_backup(source)
    if summary.version > LATEST:
        raise BackupError(
            f"backup {str(source)!r} has schema version {summary.version}, newer than this "
            f"arena ({LATEST}): restore it with a newer arena"
        )
    resolved = resolve_url(url)
    shown = describe_url(resolved)
    target = open_database(resolved, migrate_schema=False)
    backup = _open_backup(source)
    try:
        tables = sa.inspect(target).get_table_names()
        if tables:
            raise BackupError(
                f"database {shown!r} is not empty ({len(tables)} tables): restore into a new "
                "database (a new SQLite file, or one made with createdb)"
            )

        def fill(connection: Connection) -> None:
            _copy_rows(backup, connection)

        try:
            migrate_engine(target, target.dialect.name == "sqlite", upto=summary.version, then=fill)
        except (OperationalError, DBAPIError) as exc:
            raise StorageError(f"restore into {shown!r} failed: {exc}") from None
    finally:
        backup.dispose()
        target.dispose()
    open_database(resolved).dispose()  # to this program's schema, as every command does
    return summary


def _sqlite_online_backup(engine: Engine, partial: Path) -> None:
    database = engine.url.database or ""
    if not database or database == ":memory:":
        raise BackupError("an in-memory SQLite database has nothing to back up")
    if not Path(database).is_file():
        raise BackupError(f"database file {database!r} does not exist: nothing to back up")
    source = sqlite3.connect(f"{Path(database).resolve().as_uri()}?mode=ro", uri=True)
    destination = sqlite3.connect(partial)
    try:
        source.execute("PRAGMA busy_timeout = 60000")
        source.backup(destination)
        destination.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal beside it
    finally:
        destination.close()
        source.close()


def _copy_snapshot(engine: Engine, partial: Path) -> None:
    """The rows of one snapshot of ``engine``'s database into a new SQLite file."""
    destination = open_database(f"sqlite:///{partial}", migrate_schema=False)
    try:
        snapshot = engine.execution_options(isolation_level="REPEATABLE READ")
        with snapshot.connect() as reader, reader.begin():
            if engine.dialect.name == "postgresql":
                reader.exec_driver_sql("SET TRANSACTION READ ONLY")
                reader.exec_driver_sql("SET LOCAL TIME ZONE 'UTC'")
            version = current_version(reader)
            if version == 0:
                raise BackupError(
                    f"database {describe_url(str(engine.url))!r} holds no arena schema"
                )

            def fill(connection: Connection) -> None:
                _copy_rows_from(reader, connection)

            migrate_engine(destination, True, upto=version, then=fill)
    finally:
        destination.dispose()
    connection = sqlite3.connect(partial)
    try:
        connection.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal beside it
    finally:
        connection.close()


def _open_backup(path: Path) -> Engine:
    return sa.create_engine(f"sqlite:///{path.resolve().as_uri()}?mode=ro&uri=true")


def _check_backup(path: Path) -> BackupSummary:
    """The backup's version and row counts, after SQLite's integrity check.

    Raises:
        BackupError: not an SQLite file, damaged, or without an arena schema.
    """
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            checked = connection.execute("PRAGMA integrity_check").fetchone()
            if checked is None or checked[0] != "ok":
                raise BackupError(f"{str(path)!r} is damaged: {checked}")
            tables = [
                row[0]
                for row in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
                )
            ]
            if VERSION_TABLE not in tables:
                raise BackupError(f"{str(path)!r} is not an arena backup (no schema version)")
            version = connection.execute(f"SELECT max(version) FROM {VERSION_TABLE}").fetchone()
            rows = {
                table: int(connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])
                for table in tables
                if table != VERSION_TABLE
            }
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{str(path)!r} is not an arena backup: {exc}") from None
    return BackupSummary(int(version[0] or 0), rows)


def _copy_rows(source: Engine, writer: Connection) -> None:
    with source.connect() as reader:
        _copy_rows_from(reader, writer)


def _copy_rows_from(reader: Connection, writer: Connection) -> None:
    """Every row the reader sees into the same tables of the writer (parents first),
    then each integer id sequence past the copied ids (PostgreSQL)."""
    if writer.dialect.name == "postgresql":
        writer.exec_driver_sql("SET LOCAL TIME ZONE 'UTC'")
    old = sa.MetaData()
    old.reflect(reader)
    new = sa.MetaData()
    new.reflect(writer)
    for table in new.sorted_tables:
        if table.name == VERSION_TABLE:
            continue
        if table.name not in old.tables:
            raise BackupError(f"the backup lacks the table {table.name!r} of its schema version")
        for chunk in _chunks(reader, old.tables[table.name]):
            writer.execute(table.insert(), chunk)
        if writer.dialect.name == "postgresql" and _has_serial_id(table):
            writer.execute(
                sa.text(
                    f"SELECT setval(pg_get_serial_sequence('\"{table.name}\"', 'id'), "
                    f'coalesce(max(id), 0) + 1, false) FROM "{table.name}"'
                )
            )


def _chunks(reader: Connection, table: sa.Table) -> Iterator[list[dict[str, object]]]:
    result = reader.execution_options(yield_per=CHUNK_ROWS).execute(table.select())
    for partition in result.partitions(CHUNK_ROWS):
        yield [dict(row._mapping) for row in partition]


def _has_serial_id(table: sa.Table) -> bool:
    column = table.c.get("id")
    return column is not None and isinstance(column.type, sa.Integer) and column.primary_key
