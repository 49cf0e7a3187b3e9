"""Games between a signed-in person and bots, played live in the browser.

A human game runs in a thread of the web process: :func:`arena.play.runner.play_game`,
the loop every tournament runs, with the person's seat a :class:`HumanSeat`, a bot
whose ``act`` waits for the browser's move, and every other seat a bot in the sandbox
on a clock (:mod:`arena.web.opponents`: built-in bots too, within the tournaments'
caps), so the thread only waits on the bots' answers and no search runs in the web
process. The bots are lent by a :class:`~arena.players.live_bots.BotPool` and given
back after a game played to its end: a version's warm bot, its zygote started once,
serves game after game. Games run in :class:`~arena.players.live_bots.GameThreads`,
which outlive them (a sandbox dies with the thread that started it). What the page is
sent is a :class:`View` made from that seat's ``state.render(seat)`` and
``state.observation(seat)`` alone, the legal actions only on its own turns, and the
moves played (every game's observation carries its move history, so they are no news
to the seat). Nobody but the owner sees a live game.

Each game is written to the table ``live_game`` as it goes (:class:`LiveGame`,
:mod:`arena.store.live_games`: the seed, the seats, the clock, every action so far),
one row update per action, made where the game thread applies it and guarded by the
move count (``UPDATE … WHERE moves = n``), so two web processes never both advance one
game: the one whose write finds another count stops its copy. A game this process
does not hold (after a restart, or started by another process over the same database)
is rebuilt when its owner opens it: the deal from the same seed, the recorded actions
replayed on the engine, the bots made anew. A bot then starts fresh from the current
position: it sees its observation, which carries the move history, but whatever it
kept to itself before is gone. Across a rebuild the idle timer starts again, and each
clock holds what it held after the last move (the time the server was down is charged
to nobody).

The caps on how many games run at once (overall and per account) count every row, in
every process: a game counts until it ends. A person who does not move for
``idle_seconds`` forfeits (a timeout), and a game clock, when chosen, forfeits on time
as for bots. Then the game is stored like any other, and its row deleted in the same
transaction, guarded like a move (stored once, never lost): the person is a bot
version of kind ``human`` named after the account (one per account and game), the
game belongs to the account's tournament of format ``human`` for that game, and it
replays in the viewer. A game whose process is gone and which nobody opens again in
time ends on its own (:mod:`arena.web.abandoned`). Human games count only on the
humans' leaderboard (``arena.store.tally.leaderboard_tournaments``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import secrets
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from arena.errors import ArenaError, NotFoundError, StorageError
from arena.play.records import GameRecord
from arena.play.render import describe_outcome
from arena.play.results import PlayedGame
from arena.play.runner import HostError, TimeControl, play_game
from arena.players.live_bots import BotPool, GameThreads
from arena.players.loader import HUMAN, BotSource
from arena.players.sandbox import DEFAULT_LIMITS
from arena.store.bots import resolve_bot, spec_of
from arena.store.db import session_scope
from arena.store.live_games import (
    abandoned_live_games,
    advance_live_game,
    count_live_games,
    delete_live_game,
    in_utc,
    replay_live_game,
    store_ended_game,
    touch_live_game,
)
from arena.store.models import Account, BotVersion, LiveGame, utcnow
from arena.tournament.config import ConfigCaps, check_reference_caps
from arena.web.abandoned import WORKER, Sweeper, end_abandoned_game
from arena.web.opponents import (
    Opponent,
    check_version,
    opponent_bot,
    opponent_control,
    return_opponent,
)
from bots.base import Bot, BotFault, BotTimeout
from engines.core import TERMINAL, Action, State
from engines.outcome import ForfeitReason
from engines.registry import all_games, get_game
from engines.seeding import MAX_SEED

log = logging.getLogger(__name__)

CLOCKS: dict[str, TimeControl | None] = {
    "none": None,
    "5+3": TimeControl(per_game=300.0, increment=3.0),
    "15+10": TimeControl(per_game=900.0, increment=10.0),
}
"""The clocks a person may choose: minutes per game + seconds gained per move."""
MAX_LISTENERS = 8
"""Pages following one live game at once."""
STALE_GRACE_SECONDS = 60.0
"""Beyond the longest a live game's row stays unmoved, before it counts as abandoned."""
MAX_OPPONENTS = max(game.max_seats for game in all_games()) - 1


class HumanGameError(ArenaError):
    """A human game that cannot start (a bad seat or bot), or a move that cannot be made."""


class TooManyGames(ArenaError):
    """The cap on games running at once (the account's or the server's) is reached."""


class NotYourTurn(ArenaError):
    """A move sent when the person's seat is not to move, or for an older position."""


class GameMovedOn(HostError):
    """This process's copy of a game is behind its row: another process played it on
    (or stored it). The copy stops; opening the game again rebuilds it from the row."""


class ServerStopping(HostError):
    """This web process stops: its games stop where they are. Their rows stay: a game
    goes on when its owner opens it again, or ends as abandoned."""


ABANDONED = -1
"""The version a copy behind its row is woken with (views count from 0)."""
STOPPED = -2
RESIGN = -3
"""The person resigned (:meth:`HumanGame.resign`): their seat forfeits."""
"""The version a copy is woken with when its process stops."""
STOP_GRACE_SECONDS = 5.0
"""How much longer than a bot's move a stopping process waits for its games' threads."""


@dataclass(frozen=True)
class View:
    """What the page shows after a step: nothing but the seat's own view."""

    version: int
    text: str
    observation: dict[str, Any]
    to_move: int | None
    legal: list[str] | None
    moves: list[tuple[int, str]]
    clock: float | None
    """The person's clock (seconds) when this view was made; None without a clock."""
    result: str | None = None
    record_id: int | None = None
    error: str | None = None

    def to_data(self, game: HumanGame) -> dict[str, Any]:
        return {
            "id": game.id,
            "version": self.version,
            "game": game.game,
            "seat": game.seat,
            "players": game.players,
            "text": self.text,
            "observation": self.observation,
            "to_move": self.to_move,
            "legal": self.legal,
            "moves": [list(move) for move in self.moves],
            "clock": self.clock,
            "over": self.result is not None or self.error is not None,
            "result": self.result,
            "record_id": self.record_id,
            "error": self.error,
        }


class Resigned(BotFault):
    """The person resigned: their seat forfeits the game, stored like any game end."""

    reason = ForfeitReason.RESIGNED


class HumanSeat(Bot):
    """The person's seat: ``act`` publishes the position and waits for the browser's move."""

    reads_observation = False  # the page's view is made from the state (HumanGame.publish)

    def __init__(self, game: HumanGame) -> None:
        super().__init__()
        self.game = game

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        return self.game.await_move(legal_actions, time_left)


@dataclass(eq=False)
class HumanGame:
    """One live game: its seats, and the newest view (each view is whole, so a page
    that missed some needs only the newest)."""

    id: str
    account_id: int
    game: str
    seat: int
    players: list[str]
    clock: TimeControl | None
    idle_seconds: float
    latest: View | None = None
    finished_at: float | None = None
    moves: int = 0
    """Actions played and written to the game's row (the write guard)."""
    first_version: int = 0
    """The first view's version: a rebuilt game starts above any view published before."""
    stopping: bool = False
    """Its process stops (:meth:`stop`): the game thread ends at its next step."""
    done: threading.Event = field(default_factory=threading.Event)
    """Set when its game thread is through with it (its bots given back or ended)."""
    sync: threading.Lock = field(default_factory=threading.Lock)
    """Held while the row and ``moves`` change together (a write, the final store)."""
    _moves: queue.Queue[tuple[int, str]] = field(default_factory=queue.Queue)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _listeners: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = field(default_factory=set)
    _state: State | None = None
    _legal: dict[str, Action] = field(default_factory=dict)
    _clock_left: float | None = None

    # -- the game thread ----------------------------------------------------------------

    def publish(self, state: State, *, waiting: Sequence[Action] | None = None) -> None:
        """Publish the seat's view of ``state`` (``waiting``: the person is to move)."""
        to_move = None if state.current_seat == TERMINAL else state.current_seat
        moves = [(seat, str(action)) for seat, action in state.history]
        view = View(
            version=self._next_version(),
            text=state.render(self.seat),
            observation=state.observation(self.seat),
            to_move=to_move,
            legal=[str(action) for action in waiting] if waiting is not None else None,
            moves=moves,
            clock=self._clock_left,
        )
        self._add(view)

    def finish(self, result: str | None, record_id: int | None, error: str | None) -> None:
        last = self.latest
        self._add(
            View(
                version=self._next_version(),
                text=last.text if last else "",
                observation=last.observation if last else {},
                to_move=None,
                legal=None,
                moves=last.moves if last else [],
                clock=self._clock_left,
                result=result,
                record_id=record_id,
                error=error,
            )
        )
        self.finished_at = time.monotonic()

    def _add(self, view: View) -> None:
        with self._lock:
            self.latest = view
            listeners = list(self._listeners)
        for loop, event in listeners:
            with contextlib.suppress(RuntimeError):  # the listener's loop has closed
                loop.call_soon_threadsafe(event.set)

    def await_move(self, legal: Sequence[Action], time_left: float | None) -> Action:
        """The person's move among ``legal`` (the game thread waits here).

        Raises:
            BotTimeout: no move within the idle limit or the clock.
        """
        assert self._state is not None
        self._clock_left = time_left
        self._legal = {str(action): action for action in legal}
        version = self._next_version()
        self.publish(self._state, waiting=legal)
        limit = self.idle_seconds if time_left is None else min(self.idle_seconds, time_left)
        deadline = time.monotonic() + limit
        while True:
            try:
                sent_version, text = self._moves.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self._legal = {}
                if time_left is not None and time_left <= self.idle_seconds:
                    raise BotTimeout(f"the clock ran out ({time_left:.1f} s)") from None
                raise BotTimeout(f"no move for {self.idle_seconds:g} s: forfeited") from None
            if sent_version == RESIGN:
                self._legal = {}
                raise Resigned("resigned")
            if sent_version == ABANDONED:
                raise GameMovedOn("another server process plays this game on")
            if sent_version == STOPPED:
                raise ServerStopping("the server stops")
            if sent_version == version and text in self._legal:
                action = self._legal[text]
                self._legal = {}
                if time_left is not None:
                    spent = time.monotonic() - (deadline - limit)
                    self._clock_left = time_left - spent + (self.clock or TimeControl()).increment
                return action

    # -- the web's side ------------------------------------------------------------------

    def move(self, version: int, text: str) -> None:
        """Hand the person's move to the game thread.

        Raises:
            NotYourTurn: the seat is not to move at ``version`` (the view it was chosen on).
            HumanGameError: ``text`` is not a legal action there.
        """
        with self._lock:
            current = self.latest
            if current is None or current.version != version or current.legal is None:
                raise NotYourTurn(
                    f"not your move at position {version!r} (the game is at "
                    f"{current.version if current else 0}): reload the page"
                )
            if text not in current.legal:
                raise HumanGameError(
                    f"{text!r:.80} is not a legal action here (legal: "
                    f"{', '.join(current.legal[:20])})"
                )
        self._moves.put((version, text))

    def resign(self) -> None:
        """Resign: the seat forfeits at its next move (at once when it is to move).

        Raises:
            HumanGameError: the game is over already.
        """
        if self.over:
            raise HumanGameError(f"game {self.id!r} is over already: nothing to resign")
        self._moves.put((RESIGN, ""))

    def newest_after(self, version: int) -> View | None:
        """The newest view when it is newer than ``version``, else None."""
        with self._lock:
            latest = self.latest
        return latest if latest is not None and latest.version > version else None

    def _next_version(self) -> int:
        return self.first_version if self.latest is None else self.latest.version + 1

    def abandon(self) -> None:
        """Stop this copy where it waits for the person (it is behind the row)."""
        self._moves.put((ABANDONED, ""))

    def stop(self) -> None:
        """Stop this copy (its process stops): where it waits for the person, or after
        the action under way."""
        self.stopping = True
        self._moves.put((STOPPED, ""))

    def check_listeners(self) -> None:
        """Raises TooManyGames when MAX_LISTENERS pages follow the game already."""
        with self._lock:
            if len(self._listeners) >= MAX_LISTENERS:
                raise TooManyGames(
                    f"this game is open in {MAX_LISTENERS} pages already: close some"
                )

    def listen(self, loop: asyncio.AbstractEventLoop, event: asyncio.Event) -> None:
        """Have ``event`` set (in ``loop``) whenever a view is published.

        Raises:
            TooManyGames: the game has MAX_LISTENERS listeners already (open pages).
        """
        self.check_listeners()
        with self._lock:
            self._listeners.add((loop, event))

    def unlisten(self, loop: asyncio.AbstractEventLoop, event: asyncio.Event) -> None:
        with self._lock:
            self._listeners.discard((loop, event))

    @property
    def over(self) -> bool:
        return self.finished_at is not None


@dataclass(frozen=True)
class HumanLimits:
    """Caps of live human games."""

    games: int = 16
    per_account: int = 2
    idle_seconds: float = 300.0
    bot_seconds: float = 10.0
    """An opponent's time per move (arena.web.opponents)."""
    caps: ConfigCaps = field(default_factory=ConfigCaps)
    """What a built-in opponent's parameters may ask for: the tournaments' caps."""
    keep_seconds: float = 600.0
    """How long a finished game's live page still answers (then it is a stored game)."""
    sweep_seconds: float = 60.0
    """How often a web process looks for abandoned games (:meth:`HumanGames.end_abandoned`)."""

    @property
    def abandoned_seconds(self) -> float:
        """A row unmoved this long has no process playing it: the longest a live game
        goes without a write is the person's idle limit, and each opponent's start and
        move, one after the other; a grace on top."""
        per_bot = DEFAULT_LIMITS.startup_seconds + self.bot_seconds
        return self.idle_seconds + MAX_OPPONENTS * per_bot + STALE_GRACE_SECONDS


class HumanGames:
    """The live human games this process plays (each also a row of ``live_game``)."""

    def __init__(self, engine: Engine, limits: HumanLimits) -> None:
        self.engine = engine
        self.limits = limits
        self._games: dict[str, HumanGame] = {}
        self._lock = threading.Lock()
        self._store_lock = threading.Lock()
        self._sweeper = Sweeper(self.end_abandoned, limits.sweep_seconds)
        self.bots = BotPool()
        """The opponents between games: a version's zygote serves its next game."""
        self._threads = GameThreads("human-game")

    def start_sweeping(self) -> None:
        """End abandoned games every ``sweep_seconds`` from now (arena.web.abandoned)."""
        self._sweeper.start()

    def close(self) -> None:
        """Stop, as the server stops: no more sweeps; every game of this process stops
        where it is (a bot's move under way first, within its clock) and its bots'
        processes end; then the bots kept between games are closed and the game
        threads end. The rows stay: a game goes on when its owner opens it again."""
        self._sweeper.stop()
        with self._lock:
            games = list(self._games.values())
        for live in games:
            live.stop()
        deadline = time.monotonic() + self.limits.bot_seconds + STOP_GRACE_SECONDS
        for live in games:
            live.done.wait(max(0.0, deadline - time.monotonic()))
        self.bots.close()
        self._threads.close()

    def end_abandoned(self) -> list[int]:
        """End every game unmoved for ``abandoned_seconds`` (nobody plays it any more):
        the ids of the games stored.

        Raises:
            StorageError: the database failed.
        """
        with Session(self.engine) as session:
            rows = abandoned_live_games(session, unmoved_since=self._abandoned_before())
        ended = [self._end_abandoned(row) for row in rows]
        return [record_id for record_id in ended if record_id is not None]

    def _abandoned_before(self) -> datetime:
        return utcnow() - timedelta(seconds=self.limits.abandoned_seconds)

    def _end_abandoned(self, row: LiveGame) -> int | None:
        with self._store_lock:
            record_id = end_abandoned_game(self.engine, row, idle_seconds=self.limits.idle_seconds)
        if record_id is not None:
            log.info("human game %s ended after %d actions: abandoned", row.id, row.moves)
        return record_id

    def get(self, game_id: str, account: Account) -> HumanGame:
        """The account's live game ``game_id``: this process's copy, or one rebuilt from
        its row when this process has none or its copy is behind the row (unless the
        row is abandoned: then the game ends).

        Raises:
            NotFoundError: no such game, or another account's (the same answer: 404),
                or one that ended abandoned now.
            StorageError: the database failed.
        """
        self._forget_old()
        missing = NotFoundError(f"no live game {game_id!r:.40} of yours")
        with self._lock:
            found = self._games.get(game_id)
        if found is not None and found.account_id != account.id:
            raise missing
        if found is not None and (found.over or self._current(found)):
            return found
        with self._lock:  # one rebuild at a time: two requests never make two copies
            held = self._games.get(game_id)
            if held is not None and held is not found:  # rebuilt meanwhile
                if held.account_id != account.id:
                    raise missing
                return held
            with Session(self.engine) as session:
                row = session.get(LiveGame, game_id)
            if held is not None:  # behind its row, or stored by another process
                held.abandon()
                del self._games[game_id]
            if row is None or row.account_id != account.id:
                raise missing
            if in_utc(row.updated) < self._abandoned_before():
                record_id = self._end_abandoned(row)
                raise NotFoundError(
                    f"game {game_id!r:.40} was left unmoved for over "
                    f"{self.limits.abandoned_seconds:g} s and has ended"
                    + (f": its record is /records/{record_id}" if record_id is not None else "")
                )
            live = self._rebuild(row)
            self._games[live.id] = live
            return live

    def _current(self, live: HumanGame) -> bool:
        """Whether ``live`` is as far as its row (no other process played it on)."""
        with live.sync, Session(self.engine) as session:
            if live.over:  # stored while this waited for the lock
                return True
            moves = session.exec(select(LiveGame.moves).where(LiveGame.id == live.id)).first()
            return moves == live.moves

    def start(
        self,
        account: Account,
        *,
        game: str,
        seat: int,
        opponents: Sequence[str],
        clock: str = "none",
        seed: int | None = None,
    ) -> HumanGame:
        """Start a game of ``game`` with the account in ``seat`` and the bot versions
        ``opponents`` (``NAME@V`` references, in seat order: the form's fields
        ``opponent1`` …) in the other seats.

        Raises:
            UnknownGameError, SeatCountError: a bad game or seat count.
            HumanGameError: a bad seat, clock or bot. NotFoundError: no such bot.
            ConfigError: a built-in bot's parameters over the caps (the field named).
            TooManyGames: a cap is reached. StorageError: the database failed.
        """
        assert account.id is not None
        engine_game = get_game(game)
        seats = engine_game.check_seats(len(opponents) + 1)
        if not 0 <= seat < seats:
            raise HumanGameError(f"seat {seat!r} is not a seat of a {seats}-seat game")
        if clock not in CLOCKS:
            raise HumanGameError(f"unknown clock {clock!r} (clocks: {', '.join(CLOCKS)})")
        fields = [f"opponent{index}" for index in range(1, len(opponents) + 1)]
        for field_name, reference in zip(fields, opponents, strict=True):
            # Before resolving it, which registers a built-in version on first use.
            check_reference_caps(field_name, reference, engine_game.name, self.limits.caps)
        self._forget_old()
        self.end_abandoned()  # their slots are free
        with session_scope(self.engine) as session:
            bots = [
                self._opponent(session, field_name, reference, engine_game.name)
                for field_name, reference in zip(fields, opponents, strict=True)
            ]
            for bot in {id(bot): bot for bot in bots}.values():  # a bot may sit twice
                session.expunge(bot)
        seed = secrets.randbelow(MAX_SEED) if seed is None else seed
        control = CLOCKS[clock]
        with self._lock:
            human = self._human_version(account, engine_game.name)
            seated: list[BotVersion] = [*bots]
            seated.insert(seat, human)
            live = HumanGame(
                id=secrets.token_urlsafe(12),
                account_id=account.id,
                game=engine_game.name,
                seat=seat,
                players=[bot.label for bot in seated],
                clock=control,
                idle_seconds=self.limits.idle_seconds,
            )
            clocks = None if control is None else [control.per_game or 0.0] * seats
            with session_scope(self.engine) as session:
                self._check_caps(session, account.id)
                session.add(
                    LiveGame(
                        id=live.id,
                        account_id=account.id,
                        game=live.game,
                        options={},
                        seed=seed,
                        seat=seat,
                        bot_ids=[bot.id for bot in seated if bot.id is not None],
                        clock=clock,
                        clocks=clocks,
                    )
                )
            self._games[live.id] = live
        state = engine_game.new_initial_state(seed=seed, seats=seats)
        self._start_thread(live, seated, state, clocks)
        return live

    def _check_caps(self, session: Session, account_id: int) -> None:
        """Raises TooManyGames when the server's or the account's cap is reached: every
        game counts until it ends, in any process (this one's write lock held on SQLite)."""
        if count_live_games(session) >= self.limits.games:
            raise TooManyGames(
                f"the server runs {self.limits.games} human games already: try again later"
            )
        mine = count_live_games(session, account_id=account_id)
        if mine >= self.limits.per_account:
            raise TooManyGames(
                f"you play {mine} games already (at most {self.limits.per_account} "
                "at once): finish one first (a game left without a move ends after "
                f"{self.limits.idle_seconds:g} s)"
            )

    def _rebuild(self, row: LiveGame) -> HumanGame:
        """This process's copy of the game of ``row``, played on from where the row is;
        the row is marked as written now (the person's idle time starts again).

        Raises:
            StorageError: the database failed.
        """
        with session_scope(self.engine) as session:
            touch_live_game(session, row.id, moves=row.moves)
            position = replay_live_game(session, row)
        live = HumanGame(
            id=row.id,
            account_id=row.account_id,
            game=row.game,
            seat=row.seat,
            players=[bot.label for bot in position.bots],
            clock=CLOCKS.get(row.clock),
            idle_seconds=self.limits.idle_seconds,
            moves=row.moves,
            # Fewer views than that were published before (one per action, two at the
            # start): the page's newest version stays below the new ones.
            first_version=2 * row.moves + 2,
        )
        live._clock_left = row.clocks[row.seat] if row.clocks is not None else None
        clocks = list(row.clocks) if row.clocks is not None else None
        self._start_thread(live, position.bots, position.state, clocks)
        log.info("human game %s rebuilt after %d actions", row.id, row.moves)
        return live

    def _opponent(self, session: Session, field_name: str, reference: str, game: str) -> BotVersion:
        bot = resolve_bot(session, reference, game)
        if bot.retired:
            raise HumanGameError(f"bot {bot.label} is retired: choose an active version")
        check_version(field_name, bot, self.limits.caps)
        return bot

    def _human_version(self, account: Account, game: str) -> BotVersion:
        """The account's ``human`` bot version for ``game``, made on first use.

        Raises:
            HumanGameError: a bot of another kind has the account's name in this game.
        """
        with session_scope(self.engine) as session:
            rows = session.exec(
                select(BotVersion).where(BotVersion.name == account.name, BotVersion.game == game)
            ).all()
            others = [row for row in rows if row.kind != HUMAN]
            if others:
                raise HumanGameError(
                    f"a bot named {account.name!r} ({others[0].label}) exists for {game}: "
                    "ask the operator to rename it"
                )
            if rows:
                return rows[0]
            source = BotSource(HUMAN, "browser", {}, None)
            bot = BotVersion(
                name=account.name,
                version=1,
                game=game,
                kind=HUMAN,
                entry=source.entry,
                params={},
                code=None,
                code_hash=source.code_hash,
                owner_id=account.id,
            )
            session.add(bot)
            session.flush()
            session.expunge(bot)
            return bot

    def _start_thread(
        self,
        live: HumanGame,
        seated: list[BotVersion],
        state: State,
        clocks: list[float] | None,
    ) -> None:
        """Publish the game's position (so the page has it at once) and play it on in
        one of the game threads (:meth:`_play`)."""
        live.publish(state)
        self._threads.run(self._play, live, seated, state, clocks)

    def _play(
        self,
        live: HumanGame,
        seated: list[BotVersion],
        state: State,
        clocks: list[float] | None,
    ) -> None:
        """The game thread: play on from ``state`` (each action written to the row),
        store, publish the end. ``clocks``: each seat's time left, as of now. The bots
        play in the sandbox on their clocks (arena.web.opponents), lent by the pool and
        given back to it."""
        opponents: list[Opponent] = []
        ended = False
        try:
            live._state = state
            players: list[Bot] = []
            increment = live.clock.increment if live.clock is not None else 0.0
            controls: list[TimeControl] = []
            for index, bot in enumerate(seated):
                left = clocks[index] if clocks is not None else None
                if index == live.seat:
                    players.append(HumanSeat(live))
                    controls.append(TimeControl(per_game=left, increment=increment))
                else:
                    control = opponent_control(live.clock, self.limits.bot_seconds, clock_left=left)
                    opponents.append(opponent_bot(self.bots, spec_of(bot), control))
                    players.append(opponents[-1])
                    controls.append(control)
            last_step = time.monotonic()

            def on_step(after: State, seat: int, action: Action) -> None:
                nonlocal last_step
                if live.stopping:  # the action stays unwritten: a rebuild plays it again
                    raise ServerStopping("the server stops")
                now = time.monotonic()
                if clocks is not None:  # as the runner counts it, for the row
                    clocks[seat] += increment - (now - last_step)
                last_step = now
                self._write_move(live, after, clocks)
                if after.current_seat != live.seat:
                    live.publish(after)

            record = play_game(
                state, players, players=live.players, time_control=controls, on_step=on_step
            )
            ended = True
            with live.sync:  # stored and shown as over at once: get() never sees between
                record_id = self._store(live, seated, record)
                live.finish(_result(record, live.players), record_id, None)
        except GameMovedOn:
            live.finish(None, None, "this game went on elsewhere (another server): reload the page")
            self._drop(live)
        except ServerStopping:
            live.finish(None, None, "the server stopped: reload the page to play on")
            self._drop(live)
        except StorageError as exc:
            log.warning("human game %s stopped: %s", live.id, exc)
            live.finish(None, None, f"{exc}: reload the page to play on")
            self._drop(live)
        except Exception as exc:  # the page must learn the game ended, whatever failed
            log.exception("human game %s failed", live.id)
            live.finish(None, None, f"the game failed: {exc}")
            with contextlib.suppress(StorageError):
                self._discard_row(live)
        finally:
            for opponent in opponents:  # no bot's process outlives a game that failed
                return_opponent(self.bots, opponent, reuse=ended)
            live.done.set()

    def _write_move(self, live: HumanGame, state: State, clocks: list[float] | None) -> None:
        """Write the action just applied to the game's row, if nobody else did first.

        Raises:
            GameMovedOn: the row is no longer at ``live.moves`` actions.
            StorageError: the database failed.
        """
        actions = [str(action) for _, action in state.history]
        with live.sync:
            with session_scope(self.engine) as session:
                if not advance_live_game(
                    session, live.id, moves=live.moves, actions=actions, clocks=clocks
                ):
                    raise GameMovedOn(f"game {live.id!r} is past {live.moves} actions elsewhere")
            live.moves = len(actions)

    def _drop(self, live: HumanGame) -> None:
        """Forget ``live`` (when it is still this process's copy): opening the game
        again rebuilds it from its row."""
        with self._lock:
            if self._games.get(live.id) is live:
                del self._games[live.id]

    def _discard_row(self, live: HumanGame) -> None:
        """Delete the row of a game that cannot go on (it failed), unless it moved on."""
        with live.sync, session_scope(self.engine) as session:
            delete_live_game(session, live.id, moves=live.moves)

    def _store(self, live: HumanGame, seated: list[BotVersion], record: GameRecord) -> int:
        """Store the finished game and delete its row, in one transaction (the caller
        holds ``live.sync``).

        Raises:
            GameMovedOn: the row is gone or further along (another process stores it).
            StorageError: the database failed.
        """
        assert record.seed is not None
        with self._store_lock, session_scope(self.engine) as session:
            stored = store_ended_game(
                session,
                game_id=live.id,
                moves=live.moves,
                account_id=live.account_id,
                game=live.game,
                seed=record.seed,
                bot_ids=[bot.id for bot in seated if bot.id is not None],
                played=lambda planned: PlayedGame.from_record(planned, record, worker=WORKER),
            )
        if stored is None:
            raise GameMovedOn(f"game {live.id!r} was stored or played on elsewhere")
        return stored

    def _forget_old(self) -> None:
        now = time.monotonic()
        with self._lock:
            old = [
                key
                for key, g in self._games.items()
                if g.finished_at is not None and now - g.finished_at > self.limits.keep_seconds
            ]
            for key in old:
                del self._games[key]


def _result(record: GameRecord, players: list[str]) -> str:
    return describe_outcome(record.outcome_value, players)
