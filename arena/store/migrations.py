"""Schema migrations, applied in order; the database remembers which have run.

Each migration is a function of Alembic's ``Operations`` (``op.create_table``,
``op.add_column`` …). A database is never dropped: a schema change is a new function
appended to :data:`MIGRATIONS`. ``tests/arena/test_storage.py`` checks that the
migrated schema equals the models in ``arena/store/models.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection

if TYPE_CHECKING:
    from alembic.operations import Operations

VERSION_TABLE = "arena_schema_version"


def _v1_initial(op: Operations) -> None:
    op.create_table(
        "bot",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("game", sa.String, nullable=False),
        sa.Column("kind", sa.String, nullable=False),
        sa.Column("entry", sa.String, nullable=False),
        sa.Column("params", sa.JSON, nullable=False),
        sa.Column("code", sa.Text, nullable=True),
        sa.Column("code_hash", sa.String, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retired", sa.Boolean, nullable=False),
        sa.UniqueConstraint("name", "version", name="uq_bot_name_version"),
    )
    op.create_table(
        "tournament",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("game", sa.String, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("format", sa.String, nullable=False),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String, nullable=False),
        sa.Column("scheduled", sa.Integer, nullable=False),
        sa.Column("message", sa.String, nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "participant",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournament.id"), nullable=False),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bot.id"), nullable=False),
        sa.Column("role", sa.String, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("suspended", sa.Boolean, nullable=False),
        sa.Column("suspended_reason", sa.String, nullable=True),
        sa.UniqueConstraint("tournament_id", "bot_id", name="uq_participant"),
    )
    op.create_index("ix_participant_tournament_id", "participant", ["tournament_id"])
    op.create_index("ix_participant_bot_id", "participant", ["bot_id"])
    op.create_table(
        "scheduled_game",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournament.id"), nullable=False),
        sa.Column("index", sa.Integer, nullable=False),
        sa.Column("batch", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.UniqueConstraint("tournament_id", "index", name="uq_scheduled_game"),
    )
    op.create_index("ix_scheduled_game_tournament_id", "scheduled_game", ["tournament_id"])
    op.create_table(
        "game",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournament.id"), nullable=False),
        sa.Column("index", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("status", sa.String, nullable=False),
        sa.Column("returns", sa.JSON, nullable=False),
        sa.Column("ranking", sa.JSON, nullable=False),
        sa.Column("termination", sa.String, nullable=False),
        sa.Column("offender", sa.Integer, nullable=True),
        sa.Column("reason", sa.String, nullable=True),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("duration", sa.Float, nullable=False),
        sa.Column("worker", sa.String, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("tournament_id", "index", name="uq_game"),
    )
    op.create_index("ix_game_tournament_id", "game", ["tournament_id"])
    op.create_table(
        "game_seat",
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournament.id"), primary_key=True),
        sa.Column("game_index", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bot.id"), nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("forfeit", sa.Boolean, nullable=False),
    )
    op.create_index("ix_game_seat_bot", "game_seat", ["bot_id", "tournament_id"])
    op.create_table(
        "rating_snapshot",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournament.id"), nullable=True),
        sa.Column("game", sa.String, nullable=False),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bot.id"), nullable=False),
        sa.Column("method", sa.String, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("lower", sa.Float, nullable=False),
        sa.Column("upper", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rating_snapshot_tournament_id", "rating_snapshot", ["tournament_id"])
    op.create_index("ix_rating_snapshot_game", "rating_snapshot", ["game"])
    op.create_index("ix_rating_snapshot_bot_id", "rating_snapshot", ["bot_id"])
    op.create_index("ix_bot_name", "bot", ["name"])


def _v2_accounts(op: Operations) -> None:
    """Web accounts, owners of bots and tournaments, the log the rate limit counts."""
    op.create_table(
        "account",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("token_hash", sa.String, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("name", name="uq_account_name"),
        sa.UniqueConstraint("token_hash", name="uq_account_token_hash"),
    )
    op.create_table(
        "write_request",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("account.id"), nullable=False),
        sa.Column("action", sa.String, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_write_request_account_created", "write_request", ["account_id", "created"])
    for table in ("bot", "tournament"):
        if op.get_context().dialect.name == "sqlite":
            # SQLite cannot add a constraint to a table, but it takes a column with an
            # inline reference (Alembic would insist on copying the whole table).
            op.execute(
                sa.text(f"ALTER TABLE {table} ADD COLUMN owner_id INTEGER REFERENCES account(id)")
            )
        else:
            op.add_column(
                table,
                sa.Column("owner_id", sa.Integer, sa.ForeignKey("account.id"), nullable=True),
            )
        op.create_index(f"ix_{table}_owner_id", table, ["owner_id"])


def _v3_game_order_index(op: Operations) -> None:
    """A tournament's newest game id in one probe (the web's report cache asks often)."""
    op.create_index("ix_game_tournament_id_id", "game", ["tournament_id", "id"])


def _v4_bot_names_per_game(op: Operations) -> None:
    """A bot's name is unique within its game, so ``random`` may exist for every game."""
    if op.get_context().dialect.name == "sqlite":
        # SQLite rebuilds the table to change a constraint (arena.db turns foreign-key
        # enforcement off meanwhile and checks every reference before committing).
        with op.batch_alter_table("bot", recreate="always") as batch:
            batch.drop_constraint("uq_bot_name_version", type_="unique")
            batch.create_unique_constraint("uq_bot_game_name_version", ["game", "name", "version"])
    else:
        op.drop_constraint("uq_bot_name_version", "bot", type_="unique")
        op.create_unique_constraint("uq_bot_game_name_version", "bot", ["game", "name", "version"])


def _v5_reserve_builtin_names(op: Operations) -> None:
    """Built-in kind names belong to the built-ins (arena.store.bots.reserved_kind): a
    submitted bot registered under one (``greedy``) becomes ``greedy.submitted`` (or
    ``greedy.submitted2`` … when that is taken), keeping its versions, games, ratings
    and owner, so that ``-b greedy`` plays the built-in."""
    from arena.store.bots import reserved_kind

    connection = op.get_bind()
    bots = sa.table(
        "bot",
        sa.column("id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("game", sa.String),
        sa.column("kind", sa.String),
        sa.column("entry", sa.String),
    )
    rows = connection.execute(
        sa.select(bots.c.id, bots.c.name, bots.c.game, bots.c.kind, bots.c.entry)
    ).all()
    taken = {(row.game, row.name) for row in rows}
    renamed: dict[tuple[str, str], str] = {}
    for row in rows:
        kind = reserved_kind(row.name)
        if kind is None or (row.kind == "builtin" and row.entry == kind):
            continue
        key = (row.game, row.name)
        if key not in renamed:
            base = f"{row.name[:54]}.submitted"
            new = next(
                f"{base}{number or ''}"
                for number in range(len(rows) + 2)
                if number != 1 and (row.game, f"{base}{number or ''}") not in taken
            )
            taken.add((row.game, new))
            renamed[key] = new
        connection.execute(sa.update(bots).where(bots.c.id == row.id).values(name=renamed[key]))


def _v6_claimed_status(op: Operations) -> None:
    """``pending`` meant two things: created on the command line and not started, or
    taken from the web's queue by a worker and not started. A worker's now says
    ``claimed``; only tournaments queued over the web (those with an owner) were ever
    claimed, and those the command line creates have none."""
    tournaments = sa.table(
        "tournament",
        sa.column("status", sa.String),
        sa.column("owner_id", sa.Integer),
    )
    op.get_bind().execute(
        sa.update(tournaments)
        .where(tournaments.c.status == "pending", tournaments.c.owner_id.is_not(None))
        .values(status="claimed")
    )


def _v7_driver_lease(op: Operations) -> None:
    """One driver per tournament: the lease it takes, renews and releases
    (arena.tournament.lease)."""
    for column in (
        sa.Column("lease_token", sa.String, nullable=True),
        sa.Column("lease_host", sa.String, nullable=True),
        sa.Column("lease_pid", sa.Integer, nullable=True),
        sa.Column("lease_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lease_renewed", sa.DateTime(timezone=True), nullable=True),
    ):
        op.add_column("tournament", column)


def _v8_driver_state(op: Operations) -> None:
    """The driver's running state as of its last stored batch (arena.tournament.driver):
    a resume starts from it instead of reading every stored game."""
    op.create_table(
        "driver_state",
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournament.id"), primary_key=True),
        sa.Column("stored", sa.Integer, nullable=False),
        sa.Column("state", sa.LargeBinary, nullable=False),
    )


def _v9_ladders(op: Operations) -> None:
    """Continuous ladders (arena.ladder): the ladder, its bots' rating history and the
    version regression tests."""
    op.create_table(
        "ladder",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournament.id"), nullable=False),
        sa.Column("game", sa.String, nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("time_class", sa.String, nullable=False),
        sa.Column("time_control", sa.String, nullable=True),
        sa.Column("elo0", sa.Float, nullable=False),
        sa.Column("elo1", sa.Float, nullable=False),
        sa.Column("alpha", sa.Float, nullable=False),
        sa.Column("beta", sa.Float, nullable=False),
        sa.Column("game_budget", sa.Integer, nullable=True),
        sa.Column("owner_budget", sa.Integer, nullable=True),
        sa.Column("next_index", sa.Integer, nullable=False),
        sa.Column("rated_games", sa.Integer, nullable=False),
        sa.Column("rating_state", sa.LargeBinary, nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("tournament_id", name="uq_ladder_tournament"),
        sa.UniqueConstraint("game", "seats", "time_class", name="uq_ladder_game_seats_class"),
    )
    op.create_table(
        "ladder_rating",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("ladder_id", sa.Integer, sa.ForeignKey("ladder.id"), nullable=False),
        sa.Column("bot_id", sa.Integer, sa.ForeignKey("bot.id"), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("lower", sa.Float, nullable=False),
        sa.Column("upper", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_ladder_rating_ladder_bot", "ladder_rating", ["ladder_id", "bot_id", "id"])
    op.create_index("ix_ladder_rating_bot_id", "ladder_rating", ["bot_id"])
    op.create_table(
        "regression_test",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("ladder_id", sa.Integer, sa.ForeignKey("ladder.id"), nullable=False),
        sa.Column("candidate_id", sa.Integer, sa.ForeignKey("bot.id"), nullable=False),
        sa.Column("baseline_id", sa.Integer, sa.ForeignKey("bot.id"), nullable=False),
        sa.Column("elo0", sa.Float, nullable=False),
        sa.Column("elo1", sa.Float, nullable=False),
        sa.Column("alpha", sa.Float, nullable=False),
        sa.Column("beta", sa.Float, nullable=False),
        sa.Column("status", sa.String, nullable=False),
        sa.Column("llr", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("counts", sa.JSON, nullable=False),
        sa.Column("message", sa.String, nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("ladder_id", "candidate_id", name="uq_regression_test"),
    )
    op.create_index("ix_regression_test_ladder_id", "regression_test", ["ladder_id"])
    op.create_index("ix_regression_test_candidate_id", "regression_test", ["candidate_id"])


def _v10_operators(op: Operations) -> None:
    """Operator accounts: they start and stop ladders over the web."""
    op.add_column(
        "account",
        sa.Column("operator", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def _v11_regression_test_games(op: Operations) -> None:
    """Which stored games each regression test counted (before: told apart by who sat
    and when, which took in the two bots' matchmaking games too)."""
    op.create_table(
        "regression_test_game",
        sa.Column("test_id", sa.Integer, sa.ForeignKey("regression_test.id"), primary_key=True),
        sa.Column("tournament_id", sa.Integer, sa.ForeignKey("tournament.id"), nullable=False),
        sa.Column("game_index", sa.Integer, primary_key=True),
    )


def _v12_live_human_games(op: Operations) -> None:
    """People's games in the browser as they are played, and the web's shared secret:
    a restarted or second web process continues the games and keeps the sign-ins."""
    op.create_table(
        "live_game",
        sa.Column("id", sa.String, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("account.id"), nullable=False),
        sa.Column("game", sa.String, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("bot_ids", sa.JSON, nullable=False),
        sa.Column("clock", sa.String, nullable=False),
        sa.Column("clocks", sa.JSON, nullable=True),
        sa.Column("actions", sa.JSON, nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_live_game_account_id", "live_game", ["account_id"])
    op.create_table(
        "server_secret",
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("value", sa.LargeBinary, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )


def _v13_generated_schedules(op: Operations) -> None:
    """A fixed format's schedule generated from its seed, not written game by game
    (arena.tournament.scheduling.GeneratedSchedule); tournaments created before keep
    their written schedule."""
    op.add_column(
        "tournament",
        sa.Column("schedule_generated", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def _v14_sealed_seeds(op: Operations) -> None:
    """Hosted play's secret seeds: the commitment shown from the start and the nonce
    revealed with the seed at the end (arena.store.sealing); older tournaments have
    neither, and their seed stays public."""
    op.add_column("tournament", sa.Column("seed_commitment", sa.String, nullable=True))
    op.add_column("tournament", sa.Column("seed_nonce", sa.String, nullable=True))


def _v15_driver_state_as_data(op: Operations) -> None:
    """A tournament driver stores its running state as JSON (arena.tournament.state),
    no longer pickled: the pickled states are deleted unread (reading one could run
    what a forged row names). A resume without a state counts the tournament's stored
    games instead, as it does for a state of another version: no game is lost or
    counted twice. A ladder's state (its bots' health) was JSON already and stays."""
    state = sa.table("driver_state", sa.column("tournament_id", sa.Integer))
    ladder = sa.table("ladder", sa.column("tournament_id", sa.Integer))
    op.get_bind().execute(
        sa.delete(state).where(state.c.tournament_id.not_in(sa.select(ladder.c.tournament_id)))
    )


def _v16_sign_ins_and_rate_events(op: Operations) -> None:
    """Browser sign-ins kept on the server, so that signing out, a new token or removing
    the account ends them (arena.web.sessions; a cookie from before has no row and is
    signed out); the requests counted by the browser routes' rate limits
    (arena.web.limits); removed accounts."""
    op.create_table(
        "sign_in",
        sa.Column("id", sa.String, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("account.id"), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_sign_in_account_id", "sign_in", ["account_id"])
    op.create_index("ix_sign_in_created", "sign_in", ["created"])
    op.create_table(
        "rate_event",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("bucket", sa.String, nullable=False),
        sa.Column("subject", sa.String, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rate_event_subject", "rate_event", ["bucket", "subject", "created"])
    op.create_index("ix_rate_event_bucket_created", "rate_event", ["bucket", "created"])
    op.add_column("account", sa.Column("removed", sa.DateTime(timezone=True), nullable=True))


def _v17_ladder_games_as_games(op: Operations) -> None:
    """A ladder's history rows count a bot's games, no longer its pair results: at
    ``s`` seats a game gave each bot ``s − 1`` of those (arena.ladder.current)."""
    rating = sa.table(
        "ladder_rating", sa.column("ladder_id", sa.Integer), sa.column("games", sa.Integer)
    )
    ladder = sa.table("ladder", sa.column("id", sa.Integer), sa.column("seats", sa.Integer))
    seats = sa.select(ladder.c.seats).where(ladder.c.id == rating.c.ladder_id).scalar_subquery()
    op.get_bind().execute(
        sa.update(rating)
        .where(rating.c.ladder_id.in_(sa.select(ladder.c.id).where(ladder.c.seats > 2)))
        .values(games=rating.c.games // (seats - 1))
    )


MIGRATIONS: list[Callable[[Operations], None]] = [
    _v1_initial,
    _v2_accounts,
    _v3_game_order_index,
    _v4_bot_names_per_game,
    _v5_reserve_builtin_names,
    _v6_claimed_status,
    _v7_driver_lease,
    _v8_driver_state,
    _v9_ladders,
    _v10_operators,
    _v11_regression_test_games,
    _v12_live_human_games,
    _v13_generated_schedules,
    _v14_sealed_seeds,
    _v15_driver_state_as_data,
    _v16_sign_ins_and_rate_events,
    _v17_ladder_games_as_games,
]
"""Append new migrations at the end; never edit or reorder a released one."""

LATEST = len(MIGRATIONS)


def current_version(connection: Connection) -> int:
    """The schema version of the database behind ``connection`` (0: empty)."""
    if not sa.inspect(connection).has_table(VERSION_TABLE):
        return 0
    value = connection.execute(sa.text(f"SELECT max(version) FROM {VERSION_TABLE}")).scalar()
    return int(value or 0)


def migrate(connection: Connection, *, upto: int = LATEST) -> list[int]:
    """Apply every migration the database lacks (up to version ``upto``), inside the
    caller's transaction.

    Returns the versions applied. Raises RuntimeError when the database is newer
    than this program.
    """
    if connection.dialect.name == "postgresql":
        # Two programs opening a fresh database at once must not both create it.
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(7041990)"))
    version = current_version(connection)
    if version > LATEST:
        raise RuntimeError(
            f"the database has schema version {version}, newer than this arena ({LATEST}); "
            "upgrade arena"
        )
    if version >= upto:
        return []  # up to date: no need to load Alembic
    if version == 0:
        connection.execute(sa.text(f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version INTEGER)"))
    from alembic.migration import MigrationContext
    from alembic.operations import Operations

    op = Operations(MigrationContext.configure(connection))
    applied = []
    for number in range(version + 1, upto + 1):
        MIGRATIONS[number - 1](op)
        connection.execute(sa.text(f"INSERT INTO {VERSION_TABLE} (version) VALUES ({number})"))
        applied.append(number)
    return applied
