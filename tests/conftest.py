"""Shared test settings."""

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile("thorough", parent=settings.get_profile("default"), max_examples=500)
# `make test-fast`: a quarter of the examples of the tests that set no count of their own.
settings.register_profile("fast", parent=settings.get_profile("default"), max_examples=25)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


POSTGRES_ENV = "ARENA_TEST_POSTGRES"
"""A PostgreSQL URL with the right to create databases (.ci/run starts a server and sets
it); tests that take ``db_url`` then run against PostgreSQL as well as SQLite."""


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: an SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield str(tmp_path / "arena.db")
        return
    admin_url = os.environ.get(POSTGRES_ENV)
    if not admin_url:
        pytest.skip(f"set {POSTGRES_ENV} to a PostgreSQL URL to test against PostgreSQL")
    name = f"arena_test_{uuid.uuid4().hex[:16]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield sa.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture(autouse=True, scope="session")
def _own_state_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The arena's state dir is the session's own: a test with ``--executor ray`` never
    joins a warm cluster the developer started (``arena cluster start``)."""
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
