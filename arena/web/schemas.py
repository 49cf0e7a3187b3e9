"""What the JSON API returns (and the pages show): pydantic models, the web's edge.

The OpenAPI schema at ``/openapi.json`` is generated from these.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel


class GameOption(BaseModel):
    name: str
    kind: str
    default: Any
    help: str


class GameKind(BaseModel):
    """A game the arena knows (``arena games``), with what is stored of it."""

    name: str
    title: str
    min_seats: int
    max_seats: int
    default_seats: int
    perfect_information: bool
    has_chance: bool
    options: list[GameOption]
    bots: list[str]
    """Built-in bot kinds that play it."""
    tournaments: int
    games_stored: int


class Bot(BaseModel):
    """One registered bot version."""

    id: int
    name: str
    version: int
    label: str
    game: str
    kind: str
    entry: str
    params: dict[str, Any]
    code_hash: str
    created: datetime
    retired: bool
    owner: str | None
    """The account that submitted it; None for bots registered on the command line."""


class BotResult(BaseModel):
    """A bot version's results in one tournament (k-seat games decomposed into pairs)."""

    tournament_id: int
    tournament: str
    games: int
    wins: int
    draws: int
    losses: int
    score_percent: float
    mean_place: float
    forfeits: int


class Rating(BaseModel):
    """A bot version's line on its game's default leaderboard, and which one it is."""

    elo: float
    low: float
    high: float
    games: int
    seats: int
    time_class: str
    variant: str
    """The rule variant (arena.play.variant): ``standard`` or the options it changes."""


class BotVersionDetail(Bot):
    games: int
    results: list[BotResult]
    forfeits: dict[str, int]
    """Forfeits by reason (timeout, crash, illegal_action …)."""
    rating: Rating | None
    """Its line on the game's leaderboard, when one has been computed."""


class BotDetail(BaseModel):
    name: str
    game: str
    owner: str | None
    versions: list[BotVersionDetail]


class Participant(BaseModel):
    bot_id: int
    bot: str
    role: str
    suspended: bool
    suspended_reason: str | None


class Tournament(BaseModel):
    id: int
    name: str
    game: str
    format: str
    status: str
    seed: int | None
    """None while sealed: hosted play keeps it secret until the tournament is over."""
    seed_commitment: str | None
    """Hosted play: SHA-256 committing to the seed (docs/protocol.md), from the start."""
    seed_nonce: str | None
    """Hosted play: the nonce hashed into the commitment, shown with the seed."""
    options: dict[str, Any]
    scheduled: int
    stored: int
    message: str | None
    created: datetime
    started: datetime | None
    finished: datetime | None
    owner: str | None


class TournamentDetail(Tournament):
    config: dict[str, Any]
    participants: list[Participant]


class StoredGame(BaseModel):
    """A played game of a tournament (its record is at ``/api/records/{id}``)."""

    id: int
    tournament_id: int
    index: int
    seed: int | None
    """None while its tournament is sealed (hosted play, not over yet)."""
    players: list[str]
    seats: list[int]
    status: str
    returns: list[float]
    ranking: list[int]
    termination: str
    offender: int | None
    reason: str | None
    duration: float


class GamePage(BaseModel):
    items: list[StoredGame]
    total: int
    offset: int
    limit: int


class TournamentPage(BaseModel):
    items: list[Tournament]
    total: int
    offset: int
    limit: int


class StoredRecord(StoredGame):
    game: str
    record: dict[str, Any]


class ReplayStep(BaseModel):
    index: int
    """-1 for the deal, else the index of the action that led to this position."""
    seat: int | None
    action: str | None
    to_move: int | None
    text: str
    """The table as the engine draws it for the chosen seat (unicode suits)."""
    observation: dict[str, Any] | None
    """What a bot in the chosen seat was sent (None in the spectator's view)."""
    legal: list[str] | None
    """The legal actions, on the chosen seat's own turns only."""


class Replay(BaseModel):
    game_id: int
    game: str
    seat: int | None
    players: list[str]
    outcome: dict[str, Any]
    steps: list[ReplayStep]


class CheckTimes(BaseModel):
    """The wall time of the bot's moves in the submission check's games (seconds)."""

    moves: int
    median: float
    p90: float
    max: float
    fits: dict[str, bool]
    """For each time-control class with a per-move limit (bullet 0.05 s, blitz 0.5 s,
    rapid 5 s, classical 30 s): whether its slowest move fits it."""


class SubmittedBot(BaseModel):
    bot: Bot
    created: bool
    """False when this exact code was registered under the name already."""
    check: str | None
    """What the check saw: the games it played, the move times, the classes they fit."""
    warning: str | None
    """Why the check stopped early (its time budget ran out), or None."""
    times: CheckTimes | None = None


class Account(BaseModel):
    name: str


class ErrorMessage(BaseModel):
    detail: str
