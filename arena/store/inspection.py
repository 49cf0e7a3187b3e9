"""What a database holds, read without changing it: where it is, its schema version
against this program's, and each table's row count (``arena db info``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from arena.errors import StorageError
from arena.store.db import describe_url, open_database
from arena.store.migrations import LATEST, VERSION_TABLE, current_version


@dataclass(frozen=True)
class DatabaseInfo:
    path: Path | None
    """The SQLite file (None for a server database)."""
    size: int
    version: int
    latest: int
    rows: dict[str, int]

    @property
    def pending(self) -> list[int]:
        """The migrations this program would apply on opening it."""
        return list(range(self.version + 1, self.latest + 1))


def inspect_database(url: str) -> DatabaseInfo:
    """The database at ``url``, read only: never created, never migrated.

    Raises:
        StorageError: an SQLite file that does not exist, or a database that cannot
            be reached.
    """
    parsed = sa.make_url(url)
    path = None
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        path = Path(str(parsed.database)).expanduser().resolve()
        if not path.is_file():
            raise StorageError(
                f"database {describe_url(url)!r} does not exist (no file {str(path)!r}): "
                "a command that writes creates it, or pass --db"
            )
    engine = open_database(url, migrate_schema=False)
    try:
        with engine.connect() as connection:
            version = current_version(connection)
            tables = sorted(sa.inspect(connection).get_table_names())
            rows = {
                table: int(
                    connection.execute(sa.text(f'SELECT count(*) FROM "{table}"')).scalar_one()
                )
                for table in tables
                if table != VERSION_TABLE
            }
    except sa.exc.SQLAlchemyError as exc:
        raise StorageError(f"cannot read database {describe_url(url)!r}: {exc}") from None
    finally:
        engine.dispose()
    size = path.stat().st_size if path is not None else 0
    return DatabaseInfo(path, size, version, LATEST, rows)
