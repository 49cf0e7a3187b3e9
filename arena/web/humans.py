"""Games between a signed-in person and bots, played live in the browser.

A human game runs in a thread of the web process: :func:`arena.play.runner.play_game`,
the loop every tournament runs, with the bots built by :func:`arena.players.loader.instantiate`
(built-ins in process, submitted bots in the sandbox) and the person's seat a
:class:`HumanSeat`, a bot whose ``act`` waits for the browser's move. What the page is
sent is a :class:`View` made from that seat's ``state.render(seat)`` and
``state.observation(seat)`` alone, the legal actions only on its own turns, and the
moves played (every game's observation carries its move history, so they are no news
to the seat). Nobody but the owner sees a live game.

The games live in this process's memory, with caps on how many run at once (overall and
per account). A person who does not move for ``idle_seconds`` forfeits (a timeout), and
a game clock, when chosen, forfeits on time as for bots. Then the game is stored like
any other: the person is a bot version of kind ``human`` named after the account (one
per account and game), the game belongs to the account's tournament of format
``human`` for that game, and it replays in the viewer. Human games count only on the
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
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

from arena.errors import ArenaError, NotFoundError
from arena.play.records import GameRecord
from arena.play.render import describe_outcome
from arena.play.results import PlannedGame, PlayedGame
from arena.play.runner import TimeControl, play_game
from arena.players.loader import HUMAN, BotSource, instantiate
from arena.players.subprocess_bot import UNTIMED
from arena.store.bots import resolve_bot, spec_of
from arena.store.db import session_scope
from arena.store.games import store_games
from arena.store.models import (
    Account,
    BotVersion,
    GameResult,
    Participant,
    Tournament,
    TournamentStatus,
)
from arena.store.tally import HUMAN_FORMAT
from bots.base import Bot, BotTimeout
from engines.core import TERMINAL, Action, State
from engines.registry import get_game
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


class HumanGameError(ArenaError):
    """A human game that cannot start (a bad seat or bot), or a move that cannot be made."""


class TooManyGames(ArenaError):
    """The cap on games running at once (the account's or the server's) is reached."""


class NotYourTurn(ArenaError):
    """A move sent when the person's seat is not to move, or for an older position."""


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

    def newest_after(self, version: int) -> View | None:
        """The newest view when it is newer than ``version``, else None."""
        with self._lock:
            latest = self.latest
        return latest if latest is not None and latest.version > version else None

    def _next_version(self) -> int:
        return 0 if self.latest is None else self.latest.version + 1

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
    keep_seconds: float = 600.0
    """How long a finished game's live page still answers (then it is a stored game)."""


class HumanGames:
    """The live human games of this process."""

    def __init__(self, engine: Engine, limits: HumanLimits) -> None:
        self.engine = engine
        self.limits = limits
        self._games: dict[str, HumanGame] = {}
        self._lock = threading.Lock()
        self._store_lock = threading.Lock()

    def get(self, game_id: str, account: Account) -> HumanGame:
        """The account's live game ``game_id``.

        Raises:
            NotFoundError: no such game, or another account's (the same answer: 404).
        """
        self._forget_old()
        with self._lock:
            found = self._games.get(game_id)
        if found is None or found.account_id != account.id:
            raise NotFoundError(f"no live game {game_id!r:.40} of yours")
        return found

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
        ``opponents`` (``NAME@V`` references, in seat order) in the other seats.

        Raises:
            UnknownGameError, SeatCountError: a bad game or seat count.
            HumanGameError: a bad seat, clock or bot. NotFoundError: no such bot.
            TooManyGames: a cap is reached.
        """
        assert account.id is not None
        engine_game = get_game(game)
        seats = engine_game.check_seats(len(opponents) + 1)
        if not 0 <= seat < seats:
            raise HumanGameError(f"seat {seat!r} is not a seat of a {seats}-seat game")
        if clock not in CLOCKS:
            raise HumanGameError(f"unknown clock {clock!r} (clocks: {', '.join(CLOCKS)})")
        self._forget_old()
        with session_scope(self.engine) as session:
            bots = [self._opponent(session, reference, engine_game.name) for reference in opponents]
            for bot in {id(bot): bot for bot in bots}.values():  # a bot may sit twice
                session.expunge(bot)
        with self._lock:
            if len([g for g in self._games.values() if not g.over]) >= self.limits.games:
                raise TooManyGames(
                    f"the server runs {self.limits.games} human games already: try again later"
                )
            mine = [g for g in self._games.values() if not g.over and g.account_id == account.id]
            if len(mine) >= self.limits.per_account:
                raise TooManyGames(
                    f"you play {len(mine)} games already (at most {self.limits.per_account} "
                    "at once): finish one first"
                )
            human = self._human_version(account, engine_game.name)
            seated: list[BotVersion] = [*bots]
            seated.insert(seat, human)
            live = HumanGame(
                id=secrets.token_urlsafe(12),
                account_id=account.id,
                game=engine_game.name,
                seat=seat,
                players=[bot.label for bot in seated],
                clock=CLOCKS[clock],
                idle_seconds=self.limits.idle_seconds,
            )
            self._games[live.id] = live
        seed = secrets.randbelow(MAX_SEED) if seed is None else seed
        thread = threading.Thread(
            target=self._play, args=(live, account.id, seated, seed), daemon=True
        )
        thread.start()
        return live

    def _opponent(self, session: Session, reference: str, game: str) -> BotVersion:
        bot = resolve_bot(session, reference, game)
        if bot.retired:
            raise HumanGameError(f"bot {bot.label} is retired: choose an active version")
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

    def _play(self, live: HumanGame, account_id: int, seated: list[BotVersion], seed: int) -> None:
        """The game thread: play, store, publish the end."""
        try:
            state = get_game(live.game).new_initial_state(seed=seed, seats=len(seated))
            live._state = state
            players: list[Bot] = []
            for index, bot in enumerate(seated):
                if index == live.seat:
                    players.append(HumanSeat(live))
                else:
                    players.append(instantiate(spec_of(bot), time_control=live.clock or UNTIMED))
            controls = [live.clock or TimeControl()] * len(seated)
            live.publish(state)

            def on_step(after: State, seat: int, action: Action) -> None:
                if after.current_seat != live.seat:
                    live.publish(after)

            record = play_game(
                state, players, players=live.players, time_control=controls, on_step=on_step
            )
            record_id = self._store(live, account_id, seated, seed, record)
            live.finish(_result(record, live.players), record_id, None)
        except Exception as exc:  # the page must learn the game ended, whatever failed
            log.exception("human game %s failed", live.id)
            live.finish(None, None, f"the game failed: {exc}")

    def _store(
        self,
        live: HumanGame,
        account_id: int,
        seated: list[BotVersion],
        seed: int,
        record: GameRecord,
    ) -> int:
        ids = [bot.id for bot in seated if bot.id is not None]
        with self._store_lock, session_scope(self.engine) as session:
            tournament = human_tournament(session, account_id, live.game)
            assert tournament.id is not None
            known = set(
                session.exec(
                    select(Participant.bot_id).where(Participant.tournament_id == tournament.id)
                ).all()
            )
            count = len(known)
            for bot_id in dict.fromkeys(ids):
                if bot_id not in known:
                    session.add(
                        Participant(tournament_id=tournament.id, bot_id=bot_id, position=count)
                    )
                    count += 1
            last = session.exec(
                select(func.max(GameResult.index)).where(GameResult.tournament_id == tournament.id)
            ).one()
            index = 0 if last is None else int(last) + 1
            planned = PlannedGame(index=index, seed=seed, seats=tuple(ids))
            played = PlayedGame.from_record(planned, record, worker="web")
            store_games(session, tournament.id, [played])
            tournament.scheduled = index + 1
            session.add(tournament)
            session.flush()
            stored = session.exec(
                select(GameResult.id).where(
                    GameResult.tournament_id == tournament.id, GameResult.index == index
                )
            ).one()
            assert stored is not None
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


def human_tournament(session: Session, account_id: int, game: str) -> Tournament:
    """The account's tournament of human games of ``game``, made on first use."""
    found = session.exec(
        select(Tournament)
        .where(
            Tournament.owner_id == account_id,
            Tournament.game == game,
            Tournament.format == HUMAN_FORMAT,
        )
        .order_by(col(Tournament.id))
    ).first()
    if found is not None:
        return found
    account = session.get(Account, account_id)
    name = account.name if account is not None else str(account_id)
    tournament = Tournament(
        name=f"{name} plays {game}",
        game=game,
        options={},
        format=HUMAN_FORMAT,
        config={"game": game, "format": HUMAN_FORMAT},
        seed=0,
        status=TournamentStatus.COMPLETED,
        owner_id=account_id,
    )
    session.add(tournament)
    session.flush()
    return tournament


def _result(record: GameRecord, players: list[str]) -> str:
    return describe_outcome(record.outcome_value, players)
