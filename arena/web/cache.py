"""Fitted reports kept in memory, keyed by the games they were computed from.

A leaderboard over 100,000 games takes seconds to compute (loading every game, the
Elo fit, the intervals, the pair statistics), but asking whether it is still current
costs one index probe per tournament (:func:`games_version`).

When the games changed, a report that took less than ``sync_seconds`` to compute is
recomputed at once; a slower one is recomputed in a background thread while the stale
one is served (flagged ``current = False``), so a busy leaderboard never makes readers
wait for the fit. A cold key is computed at once, once, however many ask.
"""

from __future__ import annotations

import json
import logging
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from arena.report.build import Report
from arena.report.format import to_json
from arena.report.plot import plot_report
from arena.store.models import GameResult, Tournament

GAMES = GameResult.__table__  # type: ignore[attr-defined]
TOURNAMENTS = Tournament.__table__  # type: ignore[attr-defined]

log = logging.getLogger(__name__)

Version = tuple[int, int]
"""(the sum of each tournament's newest game id, the newest game id)."""


def games_version(
    engine: Engine, *, game: str | None = None, tournament_id: int | None = None
) -> Version:
    """What the stored games of one game (or one tournament) are now: it changes exactly
    when a game of it is stored.

    Each tournament's games are written by one driver, batch after batch, so its newest
    id only grows; the sum over the tournaments grows with any of them. (A global
    maximum would not do: on PostgreSQL two tournaments' batches can commit out of id
    order.) Each tournament costs one probe of the (tournament_id, id) index.
    """
    newest = (
        sa.select(sa.func.max(GAMES.c.id))
        .where(GAMES.c.tournament_id == TOURNAMENTS.c.id)
        .scalar_subquery()
    )
    query = sa.select(newest)
    if game is not None:
        query = query.where(TOURNAMENTS.c.game == game)
    if tournament_id is not None:
        query = query.where(TOURNAMENTS.c.id == tournament_id)
    with engine.connect() as connection:
        ids = [int(value) for value in connection.execute(query).scalars() if value is not None]
    return sum(ids), max(ids, default=0)


@dataclass
class Entry:
    """One computed report and what is derived from it on demand."""

    version: Version
    report: Report
    seconds: float
    json: bytes
    _png: bytes | None = None
    _png_lock: threading.Lock = field(default_factory=threading.Lock)

    def png(self) -> bytes:
        """The ratings plot, drawn once per entry."""
        with self._png_lock:
            if self._png is None:
                with tempfile.TemporaryDirectory() as folder:
                    path = Path(folder) / "plot.png"
                    plot_report(self.report, path)
                    self._png = path.read_bytes()
            return self._png


def _entry(version: Version, compute: Callable[[], Report]) -> Entry:
    started = time.perf_counter()
    report = compute()
    data = json.loads(to_json(report))
    data["as_of"] = {"last_game_id": version[1]}
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return Entry(version, report, time.perf_counter() - started, body)


@dataclass(frozen=True)
class Cached:
    entry: Entry
    current: bool


class ReportCache:
    """Reports by key; see the module's docstring for when they are recomputed."""

    def __init__(self, *, sync_seconds: float = 0.5, max_entries: int = 256) -> None:
        self.sync_seconds = sync_seconds
        self.max_entries = max_entries
        self._entries: dict[Hashable, Entry] = {}
        self._refreshing: set[Hashable] = set()
        self._key_locks: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, version: Version, compute: Callable[[], Report]) -> Cached:
        """The report of ``key`` for ``version`` of its games (or a stale one, see above).

        Raises:
            whatever ``compute`` raises when there is no entry to fall back on.
        """
        with self._lock:
            entry = self._entries.get(key)
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        if entry is not None and entry.version == version:
            return Cached(entry, True)
        if entry is not None and entry.seconds > self.sync_seconds:
            self._refresh_in_background(key, version, compute)
            return Cached(entry, False)
        with key_lock:
            with self._lock:
                entry = self._entries.get(key)
            if entry is not None and entry.version == version:
                return Cached(entry, True)
            entry = _entry(version, compute)
            self._store(key, entry)
            return Cached(entry, True)

    def _store(self, key: Hashable, entry: Entry) -> None:
        with self._lock:
            self._entries[key] = entry
            while len(self._entries) > self.max_entries:
                oldest = next(iter(self._entries))
                del self._entries[oldest]
                self._key_locks.pop(oldest, None)

    def _refresh_in_background(
        self, key: Hashable, version: Version, compute: Callable[[], Report]
    ) -> None:
        with self._lock:
            if key in self._refreshing:
                return
            self._refreshing.add(key)

        def refresh() -> None:
            try:
                self._store(key, _entry(version, compute))
            except Exception:  # a failed refresh keeps serving the stale entry
                log.exception("refreshing the report %r failed", key)
            finally:
                with self._lock:
                    self._refreshing.discard(key)

        threading.Thread(target=refresh, name=f"report-cache-{key}", daemon=True).start()


class Memo:
    """Computed bytes of immutable things (a stored game's replay), least recently used
    first out."""

    def __init__(self, max_entries: int = 256) -> None:
        self.max_entries = max_entries
        self._values: OrderedDict[Hashable, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, compute: Callable[[], bytes]) -> bytes:
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = compute()
        with self._lock:
            self._values[key] = value
            while len(self._values) > self.max_entries:
                self._values.popitem(last=False)
        return value
