"""Opening the database: URL resolution, SQLite settings, migrations, clear errors.

The default is ``arena.db`` (SQLite in WAL mode) in the working directory; ``--db URL``
or ``ARENA_DB`` selects any SQLAlchemy URL, e.g. ``postgresql+psycopg://user@host/db``.
A bare file path means an SQLite file.

SQLite is opened so that several processes can write to one file: WAL journal, a
long busy timeout, and every transaction started with ``BEGIN IMMEDIATE`` so that two
writers queue instead of failing when a read turns into a write.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError

from arena.errors import StorageError
from arena.optional import require
from arena.store.location import DEFAULT_URL as DEFAULT_URL
from arena.store.location import ENV_VAR as ENV_VAR
from arena.store.location import resolve_url as resolve_url
from arena.store.migrations import migrate

if TYPE_CHECKING:
    from sqlmodel import Session

# SQLModel (and with it SQLAlchemy's ORM and pydantic) is imported by session_scope, so
# that opening the database and a Core read (`arena bots list`) load none of them.

SQLITE_BUSY_TIMEOUT_MS = 60_000
WRITE_OPTION = "arena_write"

T = TypeVar("T")


def describe_url(url: str) -> str:
    """The URL with any password hidden, for messages."""
    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from the driver so BEGIN IMMEDIATE can be issued.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # Writers take the write lock up front and queue on the busy timeout; readers
        # never block in WAL mode.
        write = connection.get_execution_options().get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def open_database(
    url: str | None = None,
    *,
    migrate_schema: bool = True,
    announce: Callable[[str], None] | None = None,
) -> Engine:
    """An engine for ``url`` (see :func:`resolve_url`) with the schema up to date.

    ``announce`` is called with one line when this call created a new SQLite file, so
    that a user always knows which database a command used.

    Raises:
        StorageError: a malformed URL, a missing driver, a database that cannot be
            reached or opened, or one whose schema is newer than this program.
        MissingExtraError: a ``postgresql+psycopg`` URL without psycopg (the extra
            ``postgres``) installed.
    """
    resolved = resolve_url(url)
    shown = describe_url(resolved)
    try:
        parsed = sa.make_url(resolved)
        is_sqlite = parsed.get_backend_name() == "sqlite"
        kwargs: dict[str, Any] = {}
        if is_sqlite:
            kwargs["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}
        else:
            kwargs["pool_pre_ping"] = True
            if parsed.get_backend_name() == "postgresql":
                kwargs["connect_args"] = {"connect_timeout": 10}
            if parsed.get_driver_name() == "psycopg":
                require("psycopg", extra="postgres")
        engine = sa.create_engine(resolved, **kwargs)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise StorageError(f"bad database URL {shown!r}: {exc}") from None
    created: Path | None = None
    if is_sqlite:
        database = parsed.database or ""
        if database and database != ":memory:":
            file = Path(database).expanduser().resolve()
            created = None if file.exists() else file
            folder = file.parent
            if not folder.is_dir():
                raise StorageError(
                    f"cannot open database {shown!r}: the folder {str(folder)!r} does not exist"
                )
        _configure_sqlite(engine)
    if migrate_schema:
        try:
            migrate_engine(engine, is_sqlite)
        except (OperationalError, DBAPIError) as exc:
            raise StorageError(f"cannot reach database {shown!r}: {_first_line(exc)}") from None
        except RuntimeError as exc:
            raise StorageError(f"database {shown!r}: {exc}") from None
    if announce is not None and created is not None and created.exists():
        announce(f"created a new database at {created}")
    return engine


def migrate_engine(
    engine: Engine,
    is_sqlite: bool,
    *,
    upto: int | None = None,
    then: Callable[[Connection], None] | None = None,
) -> None:
    """Bring the schema up to date (or to version ``upto``) in one transaction, and run
    ``then`` in the same transaction (a restore fills the tables so: all or nothing).

    SQLite changes a constraint by rebuilding the table, which its foreign-key
    enforcement forbids; as SQLite's documentation prescribes, enforcement is off
    during the migration and every reference is checked before it commits.
    """
    with writer(engine).connect() as connection:
        driver = connection.connection.driver_connection if is_sqlite else None
        if driver is not None:
            driver.execute("PRAGMA foreign_keys = OFF")  # outside any transaction
        try:
            with connection.begin():
                if upto is None:
                    migrate(connection)
                else:
                    migrate(connection, upto=upto)
                if then is not None:
                    then(connection)
                if driver is not None:
                    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
                    if broken:
                        raise RuntimeError(f"the migration broke references: {broken[:5]}")
        finally:
            if driver is not None:
                driver.execute("PRAGMA foreign_keys = ON")


def _first_line(exc: BaseException) -> str:
    original = getattr(exc, "orig", None) or exc
    text = str(original).strip().splitlines()
    return text[0] if text else type(original).__name__


def writer(engine: Engine) -> Engine:
    """``engine`` marked for writing: on SQLite its transactions begin IMMEDIATE."""
    return engine.execution_options(**{WRITE_OPTION: True})


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A write session whose transaction commits on success and rolls back on error.

    Raises:
        StorageError: the database failed (lost connection, disk full …).
    """
    from sqlmodel import Session

    with Session(writer(engine), expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except (OperationalError, DBAPIError) as exc:
            session.rollback()
            raise StorageError(f"database error: {_first_line(exc)}") from None
        except BaseException:
            session.rollback()
            raise


def with_retries(action: Callable[[], T], *, attempts: int = 5, delay: float = 0.5) -> T:
    """Run a write, retrying a few times on transient database errors (locks, restarts).

    Raises:
        StorageError: the last attempt failed too.
    """
    for attempt in range(attempts):
        try:
            return action()
        except StorageError:
            if attempt == attempts - 1:
                raise
            time.sleep(delay * (attempt + 1))
    raise AssertionError("unreachable")
