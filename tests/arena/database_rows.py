"""Databases the tests compare row by row: old releases' files (``old_databases``),
their rows in a canonical form, counts and checksums."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from arena.store import migrations

OLD = Path(__file__).parent / "old_databases"
FIXTURES = {"v1.db": 1, "v13.db": 13}
"""The old releases' databases and their schema versions (each ``make_*.py`` there
says which commit wrote it and how)."""

SMALL_TOURNAMENT = (
    "tournament run --game koenigsgarten --type round-robin -b random -b first-legal "
    "--seed 5 --executor local --games"
).split()
"""A quick tournament's arguments, the game count to follow."""

Rows = dict[str, list[tuple[Any, ...]]]
"""Each table's rows (the columns of the old schema, canonical values), sorted."""


def canonical(value: Any) -> Any:
    """One form for a value whatever the driver returned (JSON text or objects, bytes)."""
    if isinstance(value, bytes | memoryview):
        return "0x" + bytes(value).hex()
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def read_rows(connection: Connection, columns: dict[str, list[str]]) -> Rows:
    rows: Rows = {}
    for table, names in columns.items():
        quoted = ", ".join(f'"{name}"' for name in names)
        result = connection.execute(sa.text(f'SELECT {quoted} FROM "{table}"'))
        rows[table] = sorted((tuple(canonical(value) for value in row) for row in result), key=repr)
    return rows


def schema_of(engine: Engine) -> dict[str, list[str]]:
    """Every table and its columns, in the database's order."""
    inspector = sa.inspect(engine)
    return {
        table: [column["name"] for column in inspector.get_columns(table)]
        for table in sorted(inspector.get_table_names())
    }


def fingerprint(rows: Rows) -> dict[str, tuple[int, str]]:
    """Each table's row count and the SHA-256 of its canonical rows."""
    return {
        table: (len(values), hashlib.sha256(repr(values).encode()).hexdigest())
        for table, values in rows.items()
    }


@contextmanager
def old_database(name: str, db_url: str) -> Iterator[str]:
    """The old release's database at ``db_url``: the file itself on SQLite, its schema
    by the released migrations and its rows copied on PostgreSQL."""
    if not db_url.startswith("postgresql"):
        shutil.copyfile(OLD / name, db_url)
        yield db_url
        return
    source = sa.create_engine(f"sqlite:///{OLD / name}")
    target = sa.create_engine(db_url)
    try:
        with target.begin() as connection:
            migrations.migrate(connection, upto=FIXTURES[name])
        copy_rows(source, target)
        yield db_url
    finally:
        source.dispose()
        target.dispose()


def copy_rows(source: Engine, target: Engine) -> None:
    """Every row of ``source`` into the same tables of ``target`` (parents first), and
    each id sequence moved past the copied ids."""
    old = sa.MetaData()
    old.reflect(source)
    new = sa.MetaData()
    new.reflect(target)
    with source.connect() as reader, target.begin() as writer:
        for table in new.sorted_tables:
            if table.name == migrations.VERSION_TABLE:
                continue
            rows = [dict(row._mapping) for row in reader.execute(old.tables[table.name].select())]
            if rows:
                writer.execute(table.insert(), rows)
            if "id" in table.c and isinstance(table.c.id.type, sa.Integer):
                writer.execute(
                    sa.text(
                        f"SELECT setval(pg_get_serial_sequence('\"{table.name}\"', 'id'), "
                        f'coalesce(max(id), 0) + 1, false) FROM "{table.name}"'
                    )
                )


def typed_rows(engine: Engine) -> Rows:
    """Every table's rows read through its reflected types, in one form on SQLite and
    PostgreSQL (a timestamp as naive UTC, JSON as sorted text), for comparing a
    database with its copy on the other backend."""
    metadata = sa.MetaData()
    metadata.reflect(engine)
    rows: Rows = {}
    with engine.connect() as connection:
        for table in metadata.sorted_tables:
            values = []
            for row in connection.execute(table.select()):
                values.append(tuple(_portable(value) for value in row))
            rows[table.name] = sorted(values, key=repr)
    return rows


def _portable(value: Any) -> Any:
    if isinstance(value, datetime) and value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return canonical(value)
