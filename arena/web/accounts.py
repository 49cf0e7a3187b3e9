"""Accounts of the web API: tokens, owners, and the per-account rate limit.

``arena users add NAME`` creates an account and prints its token once; the database
keeps only the token's SHA-256, so a leaked database leaks no token. A request that
changes something (submitting a bot, queueing a tournament) carries the token as
``Authorization: Bearer TOKEN``; reading needs none. A new token
(``arena users token NAME``) or removing the account (``arena users remove NAME``)
ends its browser sessions too (arena/web/sessions.py).

Every such request is written to ``write_request`` before its work starts, so the
rate limit (:func:`admit`) counts rejected submissions too: a stream of failing
uploads cannot keep the submission check busy.
"""

from __future__ import annotations

import hashlib
import math
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from pydantic import ConfigDict
from sqlmodel import Session, col, func, select

from arena.errors import ArenaError, NotFoundError
from arena.players.loader import HUMAN
from arena.store.bots import BotRegistryError, check_not_account_name, reserved_kind
from arena.store.models import Account, BotVersion, WriteRequest, utcnow
from arena.web.sessions import end_sign_ins

TOKEN_PREFIX = "arena_"
ACCOUNT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
SUBMIT_BOT = "submit_bot"
QUEUE_TOURNAMENT = "queue_tournament"
CHANGE_LADDER = "change_ladder"
START_HUMAN_GAME = "start_human_game"
STOP_REGRESSION_TESTS = "stop_regression_tests"
CANCEL_TOURNAMENT = "cancel_tournament"
RETIRE_BOT = "retire_bot"


class AccountError(ArenaError):
    """A bad account name, or one that is taken."""


class ForbiddenError(ArenaError):
    """The account may not change this bot or tournament."""


@dataclass(frozen=True)
class RateLimit:
    """At most ``requests`` writes per account in any ``seconds``."""

    __pydantic_config__ = ConfigDict(extra="forbid", allow_inf_nan=False)

    requests: int = 10
    seconds: float = 60.0

    def __post_init__(self) -> None:
        if self.requests < 1 or not self.seconds > 0:
            raise ValueError(f"a rate limit needs requests >= 1 and seconds > 0, not {self!r}")

    def retry_after(self, count: int, oldest: datetime | None, now: datetime) -> int | None:
        """None while ``count`` requests in the window (the ``oldest`` at that time)
        leave room for one more; else the whole seconds until the oldest leaves it."""
        if count < self.requests:
            return None
        oldest = _aware(oldest) if oldest is not None else now
        wait = (oldest + timedelta(seconds=self.seconds) - now).total_seconds()
        return max(1, math.ceil(wait))


class RateLimited(ArenaError):
    """Too many writes in the window; ``retry_after`` says when the next one is admitted."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_account(session: Session, name: str, *, operator: bool = False) -> tuple[Account, str]:
    """A new account and its token (shown once: only its hash is stored).

    Raises:
        AccountError: a bad name, or an account of that name exists.
    """
    if not ACCOUNT_NAME.fullmatch(name):
        raise AccountError(
            f"bad account name {name!r}: start with a letter, then letters, digits, '_', '.' "
            "or '-' (at most 64 characters)"
        )
    existing = session.exec(select(Account).where(Account.name == name)).first()
    if existing is not None:
        removed = " (removed, its name stays taken)" if existing.removed is not None else ""
        raise AccountError(f"an account named {name!r} exists already{removed}")
    bot = session.exec(
        select(BotVersion).where(
            func.lower(BotVersion.name) == name.lower(), BotVersion.kind != HUMAN
        )
    ).first()
    if bot is not None:
        raise AccountError(
            f"the name {name!r} is a bot's ({bot.label}, {bot.game}): an account's name is "
            "also its player's name in the browser, so choose another"
        )
    token = _make_token()
    account = Account(name=name, token_hash=hash_token(token), operator=operator)
    session.add(account)
    session.flush()
    return account, token


def list_accounts(session: Session) -> Sequence[Account]:
    return session.exec(select(Account).order_by(col(Account.name))).all()


def account_for_token(session: Session, token: str) -> Account | None:
    """The account whose token this is, or None (also for a removed account's)."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    return session.exec(
        select(Account).where(
            Account.token_hash == hash_token(token), col(Account.removed).is_(None)
        )
    ).first()


def account_names(session: Session, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    rows = session.exec(select(Account).where(col(Account.id).in_(ids))).all()
    return {account.id: account.name for account in rows if account.id is not None}


def check_may_change_bot(session: Session, account: Account, name: str) -> None:
    """Raises ForbiddenError unless the bot name is free or ``account`` owns it (a
    name reserved for a built-in kind belongs to the arena)."""
    kind = reserved_kind(name)
    if kind is not None:
        raise ForbiddenError(f"the bot name {name!r} is reserved for the built-in bot {kind!r}")
    try:
        check_not_account_name(session, name)
    except BotRegistryError as exc:
        raise ForbiddenError(str(exc)) from None
    first = session.exec(
        select(BotVersion).where(BotVersion.name == name).order_by(col(BotVersion.version))
    ).first()
    if first is not None and first.owner_id != account.id:
        raise ForbiddenError(
            f"bot {name!r} belongs to "
            + ("the arena's operator" if first.owner_id is None else "another account")
            + ": choose another name"
        )


def admit(session: Session, account: Account, action: str, limit: RateLimit) -> None:
    """Count this write against ``account``'s rate limit, inside the caller's transaction.

    Raises:
        RateLimited: ``limit.requests`` writes in the last ``limit.seconds`` already.
    """
    assert account.id is not None
    # Serialise the account's writes on PostgreSQL; SQLite's writers queue anyway.
    session.exec(select(Account).where(Account.id == account.id).with_for_update()).one()
    now = utcnow()
    window_start = now - timedelta(seconds=limit.seconds)
    recent = session.exec(
        select(func.count(), func.min(WriteRequest.created)).where(
            WriteRequest.account_id == account.id, WriteRequest.created > window_start
        )
    ).one()
    retry_after = limit.retry_after(int(recent[0]), recent[1], now)
    if retry_after is not None:
        raise RateLimited(
            f"rate limit: at most {limit.requests} submissions per {limit.seconds:g} s per "
            "account (bots submitted or retired, tournaments queued or cancelled, ladder "
            f"changes, stopped tests and games started count alike); retry in {retry_after} s",
            retry_after,
        )
    session.add(WriteRequest(account_id=account.id, action=action, created=now))
    session.exec(
        sa.delete(WriteRequest).where(
            col(WriteRequest.account_id) == account.id,
            col(WriteRequest.created) < now - timedelta(days=1),
        )
    )


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; every stored time is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def account_named(session: Session, name: str) -> Account:
    """The account called ``name``, unless it was removed.

    Raises:
        NotFoundError: no such account, or a removed one.
    """
    account = session.exec(select(Account).where(Account.name == name)).first()
    if account is None:
        raise NotFoundError(f"no account {name!r} (see `arena users list`)")
    if account.removed is not None:
        raise NotFoundError(f"account {name!r} was removed on {account.removed:%Y-%m-%d}")
    return account


def new_token(session: Session, name: str) -> str:
    """Replace the account's token with a new one: the old one stops working and every
    browser session of the account ends.

    Raises:
        NotFoundError: no such account, or a removed one.
    """
    account = account_named(session, name)
    token = _make_token()
    account.token_hash = hash_token(token)
    session.add(account)
    end_sign_ins(session, account)
    return token


def remove_account(session: Session, name: str) -> Account:
    """Remove an account: its token stops working and its browser sessions end at once;
    its bots, tournaments and games stay, and so does its name (a player's name in the
    games it played).

    Raises:
        NotFoundError: no such account, or a removed one.
    """
    account = account_named(session, name)
    account.removed = utcnow()
    account.operator = False
    session.add(account)
    end_sign_ins(session, account)
    return account


def set_operator(session: Session, name: str, operator: bool) -> Account:
    """Grant or withdraw the right to start and stop ladders over the web.

    Raises:
        NotFoundError: no such account, or a removed one.
    """
    account = account_named(session, name)
    account.operator = operator
    session.add(account)
    return account


def check_operator(account: Account, action: str) -> None:
    """Raises ForbiddenError unless ``account`` is an operator's."""
    if not account.operator:
        raise ForbiddenError(
            f"only an operator may {action}: account {account.name!r} is not one "
            "(`arena users grant NAME --operator`)"
        )


def _make_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)
