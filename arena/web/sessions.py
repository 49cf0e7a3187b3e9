"""Browser sessions: a signed cookie instead of the API's bearer token, and CSRF checks.

Signing in (``/signin``) trades an account's token for the cookie ``arena_session``:
``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no other site's page sends
it), ``Secure`` over HTTPS. Its value names the account, a prefix of the account's
token hash, when it was issued, and a random nonce; an HMAC-SHA256 with the server's secret
signs all of it, so a cookie cannot be made or changed without the secret. The secret
is made once and kept in the database (table ``server_secret``, :func:`stored_secret`),
so a restarted server, or a second one over the same database, takes the same cookies.

A signed-in session also lives on the server, as a row of ``sign_in`` keyed by the
SHA-256 of its nonce (:func:`record_sign_in`): the cookie is signed in only while the
row exists. Signing out deletes it (:func:`end_sign_in`), a new token or removing the
account deletes all of the account's (:func:`end_sign_ins`), so a copy of the cookie
is worth nothing afterwards, in every web process over the database. (A new token
also changes the hash prefix, which ends a session recorded at the same moment.)

Every page visit gets a session, signed in or not, so that every form has an anti-CSRF
token: an HMAC of the session's nonce (:func:`csrf_token`). A request that changes
something (signing in or out, starting a game, a move) must send it back, as the form
field ``csrf`` or the header ``X-CSRF-Token``, and come from this site (an ``Origin``
header, when the browser sends one, must be the server's own). Signing in makes a new
nonce, so a session planted before the sign-in is worth nothing after it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from fastapi import Request, Response
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.errors import ArenaError, StorageError
from arena.store.db import session_scope
from arena.store.models import Account, ServerSecret, SignIn, utcnow
from arena.store.pruning import prune

COOKIE = "arena_session"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf"
ANONYMOUS = 0
HASH_PREFIX = 16
SESSION_SECRET = "session"


class CsrfError(ArenaError):
    """A state-changing request without this session's anti-CSRF token, or from
    another site (answered with 403)."""


class SignedOut(ArenaError):
    """The page needs a signed-in session (answered with 401 and a link to sign in)."""


@dataclass(frozen=True)
class BrowserSession:
    """What the cookie says: the account (None when not signed in) and the nonce."""

    account_id: int | None
    token_hash: str
    issued: int
    nonce: str

    def encode(self) -> str:
        return f"{self.account_id or ANONYMOUS}.{self.token_hash or '-'}.{self.issued}.{self.nonce}"


class SessionKeys:
    """The server's signing secret, and how long a session lasts."""

    def __init__(self, secret: bytes | None = None, *, max_age: float = 12 * 3600) -> None:
        self.secret = secret or secrets.token_bytes(32)
        self.max_age = max_age

    def _mac(self, purpose: str, text: str) -> str:
        digest = hmac.new(self.secret, f"{purpose}|{text}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def sign(self, session: BrowserSession) -> str:
        payload = session.encode()
        return f"{payload}.{self._mac('session', payload)}"

    def read(self, value: str | None) -> BrowserSession | None:
        """The session a cookie holds, or None for a missing, forged or expired one."""
        if not value or len(value) > 400:
            return None
        payload, _, mac = value.rpartition(".")
        if not hmac.compare_digest(mac.encode(), self._mac("session", payload).encode()):
            return None
        parts = payload.split(".")
        if len(parts) != 4 or not parts[0].isdigit() or not parts[2].isdigit():
            return None
        account, token_hash, issued, nonce = int(parts[0]), parts[1], int(parts[2]), parts[3]
        if time.time() - issued > self.max_age:
            return None
        token_hash = "" if token_hash == "-" else token_hash
        return BrowserSession(account or None, token_hash, issued, nonce)

    def csrf_token(self, session: BrowserSession) -> str:
        return self._mac("csrf", session.nonce)

    def new(self, account: Account | None = None) -> BrowserSession:
        return BrowserSession(
            account.id if account is not None else None,
            account.token_hash[:HASH_PREFIX] if account is not None else "",
            int(time.time()),
            secrets.token_urlsafe(16),
        )


def stored_secret(engine: Engine, name: str = SESSION_SECRET) -> bytes:
    """The secret ``name`` that every web process over ``engine`` shares, made (32
    random bytes) by the first one that asks.

    Raises:
        StorageError: the database failed.
    """
    for attempt in range(2):
        try:
            with session_scope(engine) as db:
                found = db.get(ServerSecret, name)
                if found is not None:
                    return found.value
                made = ServerSecret(name=name, value=secrets.token_bytes(32))
                db.add(made)
                return made.value
        except StorageError:
            if attempt:
                raise
            # Another process stored one at the same moment (the key refused ours): read it.
    raise AssertionError("unreachable")


def session_of(keys: SessionKeys, request: Request) -> BrowserSession:
    """The request's session; a new anonymous one (set by :func:`keep_session`) when it
    has none. Remembered on the request so a page and its forms share one."""
    found: BrowserSession | None = getattr(request.state, "browser_session", None)
    if found is None:
        found = keys.read(request.cookies.get(COOKIE)) or keys.new()
        request.state.browser_session = found
    return found


def keep_session(keys: SessionKeys, request: Request, response: Response) -> None:
    """Set the cookie when the request came without this session (a new one)."""
    session = session_of(keys, request)
    value = keys.sign(session)
    if request.cookies.get(COOKIE) != value:
        set_cookie(keys, request, response, session)


def set_cookie(
    keys: SessionKeys, request: Request, response: Response, session: BrowserSession
) -> None:
    response.set_cookie(
        COOKIE,
        keys.sign(session),
        max_age=int(keys.max_age),
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def sign_in_key(session: BrowserSession) -> str:
    """The key of the session's ``sign_in`` row: the SHA-256 of its nonce (a leaked
    table names no cookie)."""
    return hashlib.sha256(session.nonce.encode()).hexdigest()


def record_sign_in(db: Session, keys: SessionKeys, account: Account) -> BrowserSession:
    """A new session signed in to ``account``, recorded in the caller's transaction
    (sign-ins past the sessions' lifetime are deleted with it)."""
    assert account.id is not None
    session = keys.new(account)
    issued = datetime.fromtimestamp(session.issued, UTC)
    db.add(SignIn(id=sign_in_key(session), account_id=account.id, created=issued))
    prune(db, SignIn, col(SignIn.created) < utcnow() - timedelta(seconds=keys.max_age))
    return session


def end_sign_in(db: Session, session: BrowserSession) -> None:
    """End ``session`` (signing out), in the caller's transaction: every copy of its
    cookie is signed out."""
    db.exec(sa.delete(SignIn).where(col(SignIn.id) == sign_in_key(session)))


def end_sign_ins(db: Session, account: Account) -> None:
    """End every session of ``account`` (a new token, the account removed), in the
    caller's transaction."""
    db.exec(sa.delete(SignIn).where(col(SignIn.account_id) == account.id))


def signed_in_account(keys: SessionKeys, request: Request, db: Session) -> Account | None:
    """The session's account, or None: not signed in, signed out, its token replaced,
    or the account removed."""
    session = session_of(keys, request)
    if session.account_id is None:
        return None
    account = db.exec(
        select(Account)
        .join(SignIn, col(SignIn.account_id) == col(Account.id))
        .where(col(SignIn.id) == sign_in_key(session), col(Account.id) == session.account_id)
    ).first()
    if (
        account is None
        or account.removed is not None
        or not hmac.compare_digest(account.token_hash[:HASH_PREFIX], session.token_hash)
    ):
        return None
    return account


def check_csrf(keys: SessionKeys, request: Request, sent: str | None) -> None:
    """Raises CsrfError unless ``sent`` (the form field or header) is this session's
    anti-CSRF token and the request comes from this site."""
    origin = request.headers.get("origin")
    if origin is not None and origin != _own_origin(request):
        raise CsrfError(f"a request from another site ({origin!r:.80}) is refused")
    if request.headers.get("sec-fetch-site") not in (None, "same-origin", "none"):
        raise CsrfError("a request from another site is refused")
    cookie = keys.read(request.cookies.get(COOKIE))
    if cookie is None or not sent:
        raise CsrfError("missing anti-CSRF token: reload the page and try again")
    if not hmac.compare_digest(sent.encode(), keys.csrf_token(cookie).encode()):
        raise CsrfError("wrong anti-CSRF token: reload the page and try again")


def _own_origin(request: Request) -> str:
    host = request.headers.get("host", "")
    return f"{request.url.scheme}://{host}"
