"""Rate limits per client and per account on the routes that change a session or a
game, or where a token can be guessed: signing in and out, unknown API tokens, moves.

(Writes through the API and starting a game have the per-account write limit of
arena/web/accounts.py; these limits come on top and count in buckets of their own.)

A request is counted — a row of ``rate_event``: the bucket, the subject, the time —
before its work is done, so a refused or failing one counts too; a subject with
``limit.requests`` rows in the last ``limit.seconds`` already is refused with
:class:`~arena.web.accounts.RateLimited` (429 with ``Retry-After``). The rows live in
the database, so every web process over it shares the counts, and one subject's
admissions are serialised (SQLite's writers queue; PostgreSQL takes an advisory lock
per subject for the transaction), so requests sent at once cannot all slip under the
limit.

A client is the address the server sees: behind a reverse proxy, the address the proxy
forwards (uvicorn reads ``X-Forwarded-For`` from the addresses in
``FORWARDED_ALLOW_IPS``, by default 127.0.0.1 and ::1). An IPv6 client is its /64 network,
which one machine usually holds whole.
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Sequence
from datetime import timedelta

import sqlalchemy as sa
from fastapi import Request
from sqlmodel import Session, col, func, select

from arena.store.models import RateEvent, utcnow
from arena.store.pruning import prune
from arena.web.accounts import RateLimit, RateLimited

SIGN_IN = "sign_in"
"""Signing in (right token or wrong), signing out, and API requests with an unknown
token."""
MOVE = "move"
"""Moves in browser games, accepted or not."""
COUNTED = {SIGN_IN: "sign-ins, sign-outs and unknown tokens", MOVE: "moves"}
CLIENT = "client"
ACCOUNT = "account"


def client_subject(request: Request) -> str:
    """The subject that stands for the request's client: its address, an IPv6 one as
    its /64 network."""
    host = request.client.host if request.client is not None else "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"{CLIENT} {host[:64]}"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"{CLIENT} {address.ipv4_mapped}"
        return f"{CLIENT} {ipaddress.IPv6Network((address, 64), strict=False)}"
    return f"{CLIENT} {address}"


def account_subject(account_id: int) -> str:
    return f"{ACCOUNT} {account_id}"


def count_request(db: Session, bucket: str, subjects: Sequence[str], limit: RateLimit) -> None:
    """Count one request of every subject in ``bucket``, inside the caller's
    transaction (commit it even when the request then fails, so that it counts).

    Raises:
        RateLimited: a subject has ``limit.requests`` requests in the window already
            (nothing is counted then).
    """
    _serialise(db, bucket, subjects)
    now = utcnow()
    for subject in subjects:
        refuse_if_spent(db, bucket, subject, limit)
    for subject in subjects:
        db.add(RateEvent(bucket=bucket, subject=subject, created=now))
    old = now - timedelta(seconds=limit.seconds)
    prune(db, RateEvent, col(RateEvent.bucket) == bucket, col(RateEvent.created) < old)


def refuse_if_spent(db: Session, bucket: str, subject: str, limit: RateLimit) -> None:
    """Raises RateLimited when ``subject`` has spent its requests in ``bucket``: a check
    that counts nothing (before work that counts only when it fails)."""
    now = utcnow()
    count, oldest = db.exec(
        select(func.count(), func.min(RateEvent.created)).where(
            RateEvent.bucket == bucket,
            RateEvent.subject == subject,
            RateEvent.created > now - timedelta(seconds=limit.seconds),
        )
    ).one()
    retry_after = limit.retry_after(int(count), oldest, now)
    if retry_after is not None:
        who = "from one address" if subject.startswith(CLIENT) else "per account"
        raise RateLimited(
            f"rate limit: at most {limit.requests} {COUNTED[bucket]} per {limit.seconds:g} s "
            f"{who}; retry in {retry_after} s",
            retry_after,
        )


def _serialise(db: Session, bucket: str, subjects: Sequence[str]) -> None:
    """Hold each subject's lock until the transaction ends (PostgreSQL; SQLite's
    writers run one at a time). Taken in one order, so two requests never wait on each
    other's."""
    if db.get_bind().dialect.name != "postgresql":
        return
    digests = [hashlib.sha256(f"{bucket} {subject}".encode()).digest() for subject in subjects]
    for key in sorted(int.from_bytes(digest[:8], "big", signed=True) for digest in digests):
        db.connection().execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
