"""Deleting rows that have outlived their use (expired sign-ins, counted requests
outside every window) without waiting on anyone.

Several web processes prune the same table at once, each inside a transaction that
holds other locks. Deleting a set of rows outright could wait on a row another
transaction has locked, and two such waits in opposite orders deadlock (PostgreSQL
then aborts one of them). :func:`prune` deletes only rows nobody has locked
(``FOR UPDATE SKIP LOCKED`` on PostgreSQL; SQLite's writers run one at a time anyway),
at most ``batch`` at a time: what it skips, a later call deletes.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, SQLModel

BATCH = 1000


def prune(session: Session, model: type[SQLModel], *conditions: Any, batch: int = BATCH) -> None:
    """Delete, in the caller's transaction, up to ``batch`` rows of ``model``'s table
    that meet ``conditions`` and that no other transaction holds."""
    key = sa.inspect(model).primary_key[0]
    chosen = sa.select(key).where(*conditions).limit(batch).with_for_update(skip_locked=True)
    session.connection().execute(sa.delete(key.table).where(key.in_(chosen)))
