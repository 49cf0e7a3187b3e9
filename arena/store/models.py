"""Every table of the arena's database, in one module.

The schema is created and changed only by the migrations in ``arena/store/migrations.py``;
a test compares these models with the migrated schema, so the two cannot drift.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, LargeBinary, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


class BotVersion(SQLModel, table=True):
    """One version of a registered bot. Changed code under a name is a new version."""

    __tablename__ = "bot"
    __table_args__ = (UniqueConstraint("game", "name", "version", name="uq_bot_game_name_version"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True)
    version: int
    game: str
    kind: str  # builtin | python | command
    entry: str  # builtin kind, python class name, or the command line
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    code: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    code_hash: str
    created: datetime = Field(default_factory=utcnow)
    retired: bool = False
    owner_id: int | None = Field(default=None, foreign_key="account.id", index=True)
    """The account that submitted it over the web (None: registered on the command line)."""

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"


class TournamentStatus(StrEnum):
    """Where a tournament stands: the words the database stores, so they never change
    (a changed word needs a migration, as ``claimed`` had: ``_v6_claimed_status``)."""

    PENDING = "pending"
    """Created on the command line, not started yet (``arena tournament resume`` plays it)."""
    QUEUED = "queued"
    """Queued over the web (or put back after an interruption): waiting for a worker."""
    CLAIMED = "claimed"
    """A worker took it from the queue and is starting it."""
    RUNNING = "running"
    INTERRUPTED = "interrupted"
    """Stopped (Ctrl-C, a killed driver) before its end; ``resume`` plays the rest."""
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    """Cancelled by its owner; a cancel is never undone."""
    FAILED = "failed"
    """Its run failed (a bot that cannot load, a failing executor); the message says why."""
    STOPPED = "stopped"
    """A ladder stopped by its operator (``arena ladder stop``); ``arena ladder start``
    starts it again where it was."""

    @property
    def finished(self) -> bool:
        """Completed or cancelled: nothing more is played."""
        return self in (TournamentStatus.COMPLETED, TournamentStatus.CANCELLED)


LIVE_STATUSES = frozenset(
    {
        TournamentStatus.PENDING,
        TournamentStatus.QUEUED,
        TournamentStatus.CLAIMED,
        TournamentStatus.RUNNING,
    }
)
"""Waiting to run or running: the tournament's page keeps reloading."""


class Tournament(SQLModel, table=True):
    __tablename__ = "tournament"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    game: str
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    format: str
    config: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    seed_commitment: str | None = None
    """Hosted play (a tournament queued over the web, a ladder): the commitment to the
    secret seed (arena.store.sealing), shown from the start; None: the seed is public."""
    seed_nonce: str | None = None
    """The nonce hashed into the commitment, revealed with the seed once it is over."""
    status: str = TournamentStatus.PENDING
    """A :class:`TournamentStatus` (stored as its word)."""
    scheduled: int = 0
    schedule_generated: bool = False
    """The schedule is generated from the configuration and seed whenever it is needed
    (the fixed formats, since schema version 13); else its games are the
    ``scheduled_game`` rows (the adaptive formats, and tournaments created before)."""
    message: str | None = None
    created: datetime = Field(default_factory=utcnow)
    started: datetime | None = None
    finished: datetime | None = None
    owner_id: int | None = Field(default=None, foreign_key="account.id", index=True)
    """The account that queued it over the web (None: created on the command line)."""
    lease_token: str | None = None
    """The driver running it (arena.tournament.lease): a token taken by compare-and-set,
    the driver's host and pid, when it took the lease and its last heartbeat."""
    lease_host: str | None = None
    lease_pid: int | None = None
    lease_since: datetime | None = None
    lease_renewed: datetime | None = None


class Participant(SQLModel, table=True):
    """A bot version taking part in a tournament, with its role in the format."""

    __tablename__ = "participant"
    __table_args__ = (UniqueConstraint("tournament_id", "bot_id", name="uq_participant"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    role: str = "player"
    """An :class:`arena.tournament.formats.Role`: player | candidate | opponent."""
    position: int = 0
    suspended: bool = False
    suspended_reason: str | None = None


class ScheduledGame(SQLModel, table=True):
    """A game the scheduler decided to play. Written before the game is dispatched,
    so a resumed tournament plays exactly the scheduled games that have no result."""

    __tablename__ = "scheduled_game"
    __table_args__ = (UniqueConstraint("tournament_id", "index", name="uq_scheduled_game"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    index: int
    batch: int = 0
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    seats: list[int] = Field(sa_column=Column(JSON, nullable=False))


class GameResult(SQLModel, table=True):
    """A played game. Unique per (tournament, index): no game is ever stored twice."""

    __tablename__ = "game"
    __table_args__ = (
        UniqueConstraint("tournament_id", "index", name="uq_game"),
        # A tournament's newest game in one index probe: the web's cache key.
        Index("ix_game_tournament_id_id", "tournament_id", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    index: int
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    seats: list[int] = Field(sa_column=Column(JSON, nullable=False))
    status: str
    """A :class:`arena.play.results.GameStatus`: ok | forfeit | error."""
    returns: list[float] = Field(sa_column=Column(JSON, nullable=False))
    ranking: list[int] = Field(sa_column=Column(JSON, nullable=False))
    termination: str
    offender: int | None = None
    reason: str | None = None
    record: str = Field(sa_column=Column(Text, nullable=False))
    duration: float = 0.0
    worker: str = ""
    created: datetime = Field(default_factory=utcnow)


class GameSeat(SQLModel, table=True):
    """One seat of a played game: who sat there and how it ended for them."""

    __tablename__ = "game_seat"
    __table_args__ = (Index("ix_game_seat_bot", "bot_id", "tournament_id"),)

    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    game_index: int = Field(primary_key=True)
    seat: int = Field(primary_key=True)
    bot_id: int = Field(foreign_key="bot.id")
    score: float
    place: int
    forfeit: bool = False


class DriverState(SQLModel, table=True):
    """The running driver's state (standings, live statistics, bots' health) as of its
    last stored batch, written in that batch's transaction: a resume reads it instead
    of every game stored before. ``stored`` is the games it counts; a resume that finds
    another number stored reads the games instead."""

    __tablename__ = "driver_state"

    tournament_id: int = Field(foreign_key="tournament.id", primary_key=True)
    stored: int
    state: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class RatingSnapshot(SQLModel, table=True):
    """A bot version's rating at a moment (after a tournament, or a leaderboard fit)."""

    __tablename__ = "rating_snapshot"

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int | None = Field(default=None, foreign_key="tournament.id", index=True)
    game: str = Field(index=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    method: str  # elo | openskill | duplicate-elo
    rating: float
    lower: float
    upper: float
    games: int
    created: datetime = Field(default_factory=utcnow)


class Account(SQLModel, table=True):
    """A user of the web API. Only a hash of the token is stored."""

    __tablename__ = "account"
    __table_args__ = (
        UniqueConstraint("name", name="uq_account_name"),
        UniqueConstraint("token_hash", name="uq_account_token_hash"),
    )

    id: int | None = Field(default=None, primary_key=True)
    name: str
    token_hash: str
    created: datetime = Field(default_factory=utcnow)
    operator: bool = False
    """May start and stop ladders over the web (``arena users grant NAME --operator``)."""
    removed: datetime | None = None
    """When ``arena users remove NAME`` removed it: its token and sessions work no more,
    its bots and tournaments stay (and its name stays taken)."""


class WriteRequest(SQLModel, table=True):
    """A bot submission or a queued tournament, kept for the per-account rate limit."""

    __tablename__ = "write_request"
    __table_args__ = (Index("ix_write_request_account_created", "account_id", "created"),)

    id: int | None = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="account.id")
    action: str  # one of the action names in arena/web/accounts.py (submit_bot, …)
    created: datetime = Field(default_factory=utcnow)


class Ladder(SQLModel, table=True):
    """A continuous ladder of one game, seat count and time-control class. Its games are
    the games of its :class:`Tournament` (format ``ladder``), its bots that tournament's
    participants; ``next_index`` hands out game indices by compare-and-set, and the
    rating state counts exactly the games stored (it is written in their transaction)."""

    __tablename__ = "ladder"
    __table_args__ = (
        UniqueConstraint("tournament_id", name="uq_ladder_tournament"),
        UniqueConstraint("game", "seats", "time_class", name="uq_ladder_game_seats_class"),
    )

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id")
    game: str
    seats: int
    time_class: str
    """A :class:`arena.play.time_control.TimeClass`."""
    time_control: str | None = None
    """The time control every game is played at (``st=0.5``; None: no limit)."""
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    """The bounds of the version regression tests started on this ladder."""
    game_budget: int | None = None
    """Games the ladder plays at most (None: no end)."""
    owner_budget: int | None = None
    """Games one owner's bots play at most per hour (None: no cap)."""
    next_index: int = 0
    rated_games: int = 0
    rating_state: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    created: datetime = Field(default_factory=utcnow)


class LadderRating(SQLModel, table=True):
    """A bot's ladder rating at a moment: written when a refit moves it, not per game."""

    __tablename__ = "ladder_rating"
    __table_args__ = (Index("ix_ladder_rating_ladder_bot", "ladder_id", "bot_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    ladder_id: int = Field(foreign_key="ladder.id")
    bot_id: int = Field(foreign_key="bot.id", index=True)
    rating: float
    lower: float
    upper: float
    games: int
    at: datetime = Field(default_factory=utcnow)


class RegressionStatus(StrEnum):
    """Where a version regression test stands (the words the database stores)."""

    RUNNING = "running"
    ACCEPTED_H0 = "accepted-H0"
    """The new version is no better than ``elo0``: a regression (or no progress)."""
    ACCEPTED_H1 = "accepted-H1"
    """The new version is at least ``elo1`` better."""
    STOPPED = "stopped"
    """Stopped by its owner, or its bots can no longer play (retired, suspended)."""


class RegressionTest(SQLModel, table=True):
    """An SPRT of a new version (``candidate``) against the version before it, played
    by the ladder's workers ahead of other games. ``counts`` are the pentanomial pairs
    (LL, LD, WL, DD, WD, WW, as :class:`arena.ratings.pairs.Pentanomial`)."""

    __tablename__ = "regression_test"
    __table_args__ = (UniqueConstraint("ladder_id", "candidate_id", name="uq_regression_test"),)

    id: int | None = Field(default=None, primary_key=True)
    ladder_id: int = Field(foreign_key="ladder.id", index=True)
    candidate_id: int = Field(foreign_key="bot.id", index=True)
    baseline_id: int = Field(foreign_key="bot.id")
    elo0: float
    elo1: float
    alpha: float
    beta: float
    status: str = RegressionStatus.RUNNING
    llr: float = 0.0
    games: int = 0
    counts: list[int] = Field(
        default_factory=lambda: [0] * 6, sa_column=Column(JSON, nullable=False)
    )
    message: str | None = None
    created: datetime = Field(default_factory=utcnow)
    finished: datetime | None = None


class RegressionTestGame(SQLModel, table=True):
    """A stored ladder game that a regression test counted: one of the pairs its SPRT
    took, written in the transaction that stores the game. A matchmaking game of the
    candidate and its baseline has no row."""

    __tablename__ = "regression_test_game"

    test_id: int = Field(foreign_key="regression_test.id", primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id")
    game_index: int = Field(primary_key=True)


class LiveGame(SQLModel, table=True):
    """A person's game being played in the browser (arena.web.humans), written as it
    goes: the seed, the seats and every action so far rebuild it in any web process.
    ``moves`` guards each write (``UPDATE … WHERE moves = n``): two processes never both
    advance one game. Deleted in the transaction that stores the finished game."""

    __tablename__ = "live_game"

    id: str = Field(primary_key=True)
    account_id: int = Field(foreign_key="account.id", index=True)
    game: str
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    seat: int
    """The person's seat."""
    bot_ids: list[int] = Field(sa_column=Column(JSON, nullable=False))
    """The bot versions in seat order, the person's own ``human`` version in ``seat``."""
    clock: str
    """The clock's name (arena.web.humans.CLOCKS): ``none``, ``5+3`` …"""
    clocks: list[float] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    """Each seat's time left (seconds) as of the last move; None without a clock."""
    actions: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    """The actions played so far, in order, as their text."""
    moves: int = 0
    """``len(actions)``: the write guard."""
    created: datetime = Field(default_factory=utcnow)
    updated: datetime = Field(default_factory=utcnow)


class ServerSecret(SQLModel, table=True):
    """A secret every web process shares, made once (the browser sessions' signing key:
    arena.web.sessions), so a restart or a second process keeps everyone signed in."""

    __tablename__ = "server_secret"

    name: str = Field(primary_key=True)
    value: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created: datetime = Field(default_factory=utcnow)


class SignIn(SQLModel, table=True):
    """A browser signed in to an account (arena.web.sessions): its cookie is a session
    only while this row exists, so signing out, a new token or removing the account ends
    it in every web process at once. The key is the SHA-256 of the cookie's nonce."""

    __tablename__ = "sign_in"
    __table_args__ = (Index("ix_sign_in_created", "created"),)

    id: str = Field(primary_key=True)
    account_id: int = Field(foreign_key="account.id", index=True)
    created: datetime = Field(default_factory=utcnow)


class RateEvent(SQLModel, table=True):
    """A request counted against a per-client or per-account limit of the browser's
    routes (arena.web.limits): a sign-in, a sign-out, an unknown token, a move."""

    __tablename__ = "rate_event"
    __table_args__ = (
        Index("ix_rate_event_subject", "bucket", "subject", "created"),
        Index("ix_rate_event_bucket_created", "bucket", "created"),
    )

    id: int | None = Field(default=None, primary_key=True)
    bucket: str  # what is limited: one of the names in arena/web/limits.py
    subject: str  # who: "client ADDRESS" or "account ID"
    created: datetime = Field(default_factory=utcnow)
