"""A bot in another process, in the sandbox, speaking the JSON-lines protocol.

:class:`SubprocessBot` is a :class:`~bots.base.Bot` whose every game runs in a fresh
sandboxed process (docs/protocol.md): ``new_game`` starts the program and does the
handshake, ``act`` sends the whole observation and the legal actions' texts and
maps the answer back onto the engine's action, ``game_over`` says goodbye and kills
the process group. The bot runs only while it is asked something: its cgroup is
thawed just before a request is written and frozen as soon as the answer is read, so
nothing it started takes CPU on another bot's turn (docs/protocol.md, "CPU"). Reading
never blocks: every wait is a ``poll`` bounded by the move's deadline, and the bot's
stderr is drained meanwhile so it can never stall on a full pipe. Every failure is a
:class:`~bots.base.BotFault` whose ``reason`` the runner stores: ``timeout``,
``crash``, ``malformed_output``, ``protocol_violation`` or ``illegal_action``; the
process is killed before the fault is raised.

The end of the bot's stderr (``SandboxLimits.stderr_bytes``) is kept for its owner
in :attr:`SubprocessBot.last_stderr` after each game, and its last lines close the
message of a fault (which the runner stores with a forfeit). A fault's message quotes
at most :data:`QUOTE_CHARS` characters of anything the bot wrote and
:data:`STDERR_IN_MESSAGE` of its stderr: whatever a bot manages to read, it cannot
ship it back through our messages. Everything of the bot's that a message quotes
(its error report, names, stderr) goes through :func:`~arena.play.bot_text.bot_text`
first, so a lone surrogate or a NUL character in it cannot make the game's record
unencodable; a handshake name holding one is a protocol violation.

A failure of the host itself (not of the bot) while it talks to the bot is raised as
:class:`~arena.play.runner.HostError`, which the runner never charges to the bot.

The ``seed`` of ``new_game`` is the bot's own (:func:`own_seed`), never the deal's: the
bot can import the engines and would deal the game again from the deal's seed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import secrets
import select
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from arena.play.bot_text import bot_text, is_storable
from arena.play.runner import HostError, TimeControl
from arena.play.time_control import CLOCK_INCREMENTS
from arena.players import zygote
from arena.players.sandbox import (
    DEFAULT_LIMITS,
    SandboxedProcess,
    SandboxError,
    SandboxLimits,
    kernel,
)
from bots.base import (
    Bot,
    BotCrash,
    BotFault,
    BotIllegalAction,
    BotMalformedOutput,
    BotProtocolError,
    BotTimeout,
    GameInfo,
)
from bots.sdk.runtime import ANY_GAME, PROTOCOL_VERSION, decode
from engines.core import Action
from engines.outcome import Outcome
from engines.seeding import MAX_SEED

READ_CHUNK = 65536
REAP_SECONDS = 5.0
"""How long the game's processes of a zygote may take to die once killed."""
READY_AT_ONCE_SECONDS = 0.005
"""How long a warm game's first answer is awaited before its process is looked for."""
EXIT_POLL_SECONDS = 0.001
"""How often the end of a zygote's game's process is looked for once its pidfd said it ended."""
UNTIMED = TimeControl()
STDERR_IN_MESSAGE = 200
"""Characters of the stderr's end quoted in a fault's message (stored with a forfeit)."""
STDERR_MARKER = "; stderr: "
QUOTE_CHARS = 80
"""Characters of a message the bot wrote that a fault's message quotes."""
ERROR_REPORT_CHARS = 200
"""Characters of the bot's own error report (its ``act`` raised) that are kept."""
POLL_MAX_MS = 2**31 - 1
"""``poll()`` takes a C int of milliseconds; longer waits are made of several polls."""
TEXTS_KEPT = 10_000
"""Action texts a bot keeps made (:class:`_ActionTexts`)."""
FOREVER_SECONDS = 10_000_000.0
"""Longer time limits (up to infinity) mean no limit; they are cut to this, which
still fits every clock the host hands on (the CPU-time limit, the wire's JSON)."""


SEED_KEY_BYTES = 32
"""The size of the secret key a :class:`SubprocessBot` derives the bots' own seeds with."""


def own_seed(key: bytes, deal_seed: int, seat: int) -> int:
    """The seed a bot is handed for a game: a keyed hash (BLAKE2b) of the deal's seed
    and the seat under ``key``, the host's secret. Without the key it is independent
    of the deal, however few the deal seeds to try (a person's ``--seed 1``)."""
    digest = hashlib.blake2b(f"{deal_seed}\x1f{seat}".encode(), digest_size=8, key=key)
    return int.from_bytes(digest.digest(), "big") & MAX_SEED


class BotErrorReport(BotCrash):
    """The bot reported an error of its own (its code raised); it is still a crash."""


class BotVersionMismatch(BotProtocolError):
    """The bot speaks another version of the protocol."""


@dataclass(frozen=True)
class Handshake:
    """What the bot said about itself."""

    name: str
    protocol: int
    games: tuple[str, ...]
    zygote: bool = False
    """It said each game is a fresh fork of it (``"zygote": true``, as the SDK's
    ``--zygote`` does); a bot that says nothing is single-game."""

    def plays(self, game: str) -> bool:
        return ANY_GAME in self.games or game in self.games


class _ActionTexts(dict[Action, str]):
    """Each action's text, made once: ``str`` of a card is a Python call, and a move
    sends every legal action's text. Cleared when it passes :data:`TEXTS_KEPT` (a
    game's actions are few, but a long-lived bot may play many games)."""

    def __missing__(self, action: Action) -> str:
        if len(self) >= TEXTS_KEPT:
            self.clear()
        text = self[action] = str(action)
        return text


class _Exited(Exception):
    """The bot closed its output or its input (it exited or was killed)."""


class _Channel:
    """Lines to and from a sandboxed process, each wait bounded by a deadline."""

    def __init__(self, process: SandboxedProcess) -> None:
        popen = process.process
        assert popen.stdin and popen.stdout and popen.stderr
        self.stdin_file = popen.stdin
        self.stdin = popen.stdin.fileno()
        self.stdout = popen.stdout.fileno()
        self.stderr = popen.stderr.fileno()
        for fd in (self.stdin, self.stdout, self.stderr):
            os.set_blocking(fd, False)
        self.line_bytes = process.limits.line_bytes
        self.stderr_bytes = process.limits.stderr_bytes
        self.pending = bytearray()
        self.errors = bytearray()
        self.stderr_open = True
        self.reading = select.poll()
        self.reading.register(self.stdout, select.POLLIN)
        self.reading.register(self.stderr, select.POLLIN)
        self.writing = select.poll()
        self.writing.register(self.stdin, select.POLLOUT)
        self.writing.register(self.stderr, select.POLLIN)
        self.watched: int | None = None

    def watch(self, pidfd: int | None) -> None:
        """End reads when the process of ``pidfd`` ends (a zygote's game: the zygote
        keeps the output open); None: stop watching."""
        if self.watched is not None:
            self.reading.unregister(self.watched)
        self.watched = pidfd
        if pidfd is not None:
            self.reading.register(pidfd, select.POLLIN)

    def write_now(self, data: bytes) -> int:
        """Write what the pipe takes of ``data`` without waiting; returns how much.

        Raises:
            _Exited: the bot closed its input.
        """
        try:
            return os.write(self.stdin, data)
        except BlockingIOError:
            return 0
        except (BrokenPipeError, ConnectionResetError):
            raise _Exited from None

    def send(self, data: bytes | memoryview, deadline: float) -> None:
        """Raises BotTimeout (the bot does not read) or _Exited."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.stdin, view) :]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                raise _Exited from None
            events = self.writing.poll(_milliseconds(deadline))
            if not events and time.monotonic() < deadline:
                continue  # a wait longer than poll() takes ended early
            if not events:
                raise BotTimeout("did not read its input in time")
            self._drain_stderr_if_ready(events)

    def receive(self, deadline: float) -> bytes:
        """The next line, without its newline.

        Raises:
            BotTimeout: no complete line before ``deadline``.
            BotMalformedOutput: a line longer than the limit.
            _Exited: the output ended.
        """
        searched = 0
        while True:
            if self.pending:
                newline = self.pending.find(b"\n", searched)
                if (newline if newline >= 0 else len(self.pending)) > self.line_bytes:
                    raise BotMalformedOutput(f"wrote a line longer than {self.line_bytes} bytes")
                if newline >= 0:
                    line = bytes(self.pending[:newline])
                    del self.pending[: newline + 1]
                    return line
                searched = len(self.pending)
            events = self.reading.poll(_milliseconds(deadline))
            if not events and time.monotonic() < deadline:
                continue  # a wait longer than poll() takes ended early
            if not events or time.monotonic() > deadline:
                raise BotTimeout("did not answer in time")
            for fd, _ in events:
                if fd == self.watched:
                    self.pending += self.read_available()
                    if b"\n" not in self.pending:
                        raise _Exited
                    continue
                if fd != self.stdout:
                    self._drain_stderr()
                    continue
                chunk = _read(fd)
                if chunk == b"":
                    raise _Exited
                if chunk and not self.pending and chunk.find(b"\n") == len(chunk) - 1:
                    if len(chunk) > self.line_bytes:
                        raise BotMalformedOutput(
                            f"wrote a line longer than {self.line_bytes} bytes"
                        )
                    return chunk[:-1]  # the common case: one read, one whole line
                self.pending += chunk or b""

    def read_available(self) -> bytes:
        """What the output holds now, without waiting."""
        data = bytearray()
        while chunk := _read(self.stdout):
            data += chunk
        return bytes(data)

    def close_input(self) -> None:
        self.stdin_file.close()

    def has_unread_output(self) -> bool:
        return bool(self.pending)

    def _drain_stderr_if_ready(self, events: list[tuple[int, int]]) -> None:
        if any(fd == self.stderr for fd, _ in events):
            self._drain_stderr()

    def _drain_stderr(self) -> None:
        while self.stderr_open:
            chunk = _read(self.stderr)
            if chunk is None:
                return
            if not chunk:
                self.stderr_open = False
                self.reading.unregister(self.stderr)
                self.writing.unregister(self.stderr)
                return
            self.errors += chunk
            if len(self.errors) > self.stderr_bytes:
                del self.errors[: len(self.errors) - self.stderr_bytes]

    def collect_stderr(self, deadline: float) -> None:
        """Read what is left on stderr until it ends or ``deadline`` passes."""
        waiting = select.poll()
        waiting.register(self.stderr, select.POLLIN)
        while True:
            self._drain_stderr()
            if not self.stderr_open or time.monotonic() >= deadline:
                return
            waiting.poll(_milliseconds(deadline))


def _read(fd: int) -> bytes | None:
    """A chunk, b"" at the end, None when nothing is there yet."""
    try:
        return os.read(fd, READ_CHUNK)
    except BlockingIOError:
        return None


def _milliseconds(deadline: float) -> int:
    return min(POLL_MAX_MS, max(0, math.ceil((deadline - time.monotonic()) * 1000)))


class SubprocessBot(Bot):
    """A bot program run in the sandbox, one process per game.

    ``argv`` may use ``{code}`` for the directory holding ``files`` (see
    :class:`~arena.players.sandbox.SandboxedProcess`); ``params``, the bot's registered
    parameters, go to it in the ``new_game`` message. ``time_control`` is the tournament's;
    where it sets nothing, ``limits`` supply the per-move deadline and game budget.

    Each instance draws a secret key (never sent, never stored) from which the seed in
    ``new_game`` is made (:func:`own_seed`): a game's randomness in a submitted bot
    replays within one instance, never from the deal's seed alone.

    ``warm_argv`` is the bot's command as a zygote (the SDK runtime's ``--zygote``):
    with ``limits.warm`` it is started once and each game is played by a fresh fork
    of it (:mod:`arena.players.zygote`); a zygote that is not pristine-safe leaves the
    bot cold (one process per game) and says why in :attr:`cold_reason`.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        name: str = "bot",
        files: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        params: Mapping[str, Any] | None = None,
        time_control: TimeControl = UNTIMED,
        limits: SandboxLimits = DEFAULT_LIMITS,
        warm_argv: Sequence[str] | None = None,
    ) -> None:
        super().__init__()
        self.argv = list(argv)
        self.warm_argv = list(warm_argv) if warm_argv is not None else None
        self.cold_reason: str | None = None
        """Why this bot is played cold though a zygote was asked for (None: it is not)."""
        self.zygote_pid: int | None = None
        """The host's PID of the running zygote (None: there is none)."""
        self.game_pid: int | None = None
        """The host's PID of the zygote's game being played."""
        self._zygote_pidfd: int | None = None
        self._game_pidfd: int | None = None
        self._pipe_names: frozenset[str] | None = None
        """The names of the pipes to the running zygote (``pipe:[inode]``)."""
        self._baseline: zygote.Snapshot | None = None
        """What the zygote held at its first game's start: the same at every start."""
        self._stillness: tuple[str, ...] | None = None
        """The stopped zygote's and reaper's :func:`~zygote.stillness` at the game's start."""
        """The stopped zygote's and reaper's counts at the start of the game."""
        self.name = name
        self.files = dict(files or {})
        self.env = dict(env or {})
        self.params = dict(params or {})
        self.limits = limits
        self.move_seconds = min(time_control.per_move or limits.move_seconds, FOREVER_SECONDS)
        game = time_control.per_game or limits.game_seconds
        # With an increment the clock grows; the CPU-time limit must let it.
        game += CLOCK_INCREMENTS * time_control.increment
        self.game_seconds = min(game, FOREVER_SECONDS)
        self.handshake: Handshake | None = None
        self.last_stderr = b""
        """The end of the last game's stderr, at most ``limits.stderr_bytes``."""
        self.last_exit: int | None = None
        """The last game's process's exit code (negative: killed by that signal)."""
        self.process: SandboxedProcess | None = None
        self.last_process: SandboxedProcess | None = None
        """The last game's (closed) sandbox: its user id, process group, directory."""
        self._channel: _Channel | None = None
        self._spent = 0.0
        self._seed_key = secrets.token_bytes(SEED_KEY_BYTES)
        self._texts = _ActionTexts()

    # -- the Bot protocol ---------------------------------------------------------

    def new_game(self, info: GameInfo) -> None:
        """Start the program (or fork the zygote's game) and shake hands.

        Raises:
            BotFault: it cannot start, answers wrongly or too late (the process is gone).
        """
        super().new_game(info)
        self._spent = 0.0
        if self._wants_warm() and self._new_warm_game(info):
            return
        self._stop()
        self._start(self.argv, warm=False)
        # Timed from when its program runs: setting up the sandbox is the host's work
        # (sweeping what a killed arena left may take seconds), never the bot's fault.
        deadline = time.monotonic() + self.limits.startup_seconds
        with self._faults_stop_the_bot("while starting"):
            self._shake_hands(deadline)
            self._check_plays(info)
            self._expect(self._request(self._new_game_message(info), deadline), "ready")

    def _start(self, argv: Sequence[str], *, warm: bool) -> None:
        """Raises BotCrash (the bot cannot start) or HostError."""
        try:
            self.process = SandboxedProcess(
                argv,
                limits=self.limits,
                cpu_seconds=self.limits.cpu_seconds(self.game_seconds),
                files=self.files,
                env=self.env,
                warm=warm,
            )
        except SandboxError as exc:
            raise BotCrash(str(exc)) from None
        except Exception as exc:  # the host's own trouble (its disk, its processes)
            raise HostError(f"the arena could not start the bot: {exc!r}") from exc
        self._channel = _Channel(self.process)

    def _shake_hands(self, deadline: float) -> None:
        hello = self._request({"type": "hello", "protocol": PROTOCOL_VERSION}, deadline)
        self.handshake = _read_handshake(hello)
        if self.handshake.zygote and self.warm_argv is None and self.zygote_pid is None:
            # A command that forks each game itself, as the SDK's zygote does: this
            # game plays single-game, the next ones warm (its filter is a zygote's).
            self.warm_argv = list(self.argv)

    def _check_plays(self, info: GameInfo) -> None:
        assert self.handshake is not None
        game = info.game.name
        if not self.handshake.plays(game):
            plays = bot_text(", ".join(self.handshake.games) or "none", QUOTE_CHARS)
            raise BotProtocolError(f"does not play {game} (plays: {plays})")

    def _new_game_message(self, info: GameInfo) -> dict[str, Any]:
        return {
            "type": "new_game",
            "game": info.game.name,
            "options": dict(info.options),
            "seat": info.seat,
            "seats": info.num_seats,
            "seed": own_seed(self._seed_key, info.seed, info.seat),
            "params": self.params,
        }

    # -- a zygote's games (arena.players.zygote) ------------------------------------

    @property
    def warm(self) -> bool:
        """Whether its games are forks of a zygote it keeps between games (a Python
        bot with ``limits.warm``, unless :attr:`cold_reason` says why not)."""
        return self._wants_warm()

    def _wants_warm(self) -> bool:
        return self.warm_argv is not None and self.limits.warm and self.cold_reason is None

    def _go_cold(self, reason: str) -> bool:
        """Stop the zygote and play cold from now on; returns False (not started warm)."""
        self.cold_reason = bot_text(reason, ERROR_REPORT_CHARS)
        self._stop()
        return False

    def _new_warm_game(self, info: GameInfo) -> bool:
        """Fork the zygote's game (starting the zygote first when there is none);
        False when the bot is to be played cold (:attr:`cold_reason`).

        Raises:
            BotFault: as :meth:`new_game`.
        """
        deadline = time.monotonic() + self.limits.startup_seconds
        if self.zygote_pid is None:
            self._stop()
            self._start(self.warm_argv or [], warm=True)
            deadline = time.monotonic() + self.limits.startup_seconds  # as new_game's
            with self._faults_stop_the_bot("while starting"):
                self._shake_hands(deadline)
            fit = self._adopt_zygote()
            if fit is not None:
                return self._go_cold(fit)
        process, channel, pid = self.process, self._channel, self.zygote_pid
        assert process is not None and channel is not None and pid is not None
        with self._faults_stop_the_bot("while starting"):
            self._check_plays(info)
        try:
            last_pid = zygote.renew(process, pid)
            if self._stillness is not None:  # stopped since its last game
                assert self._zygote_pidfd is not None
                signal.pidfd_send_signal(self._zygote_pidfd, signal.SIGCONT)
        except (zygote.ZygoteUnfit, OSError) as exc:
            return self._go_cold(f"its zygote could not be renewed: {exc}")
        try:
            self._send_request(self._new_game_message(info), deadline)
        except (BotFault, _Exited, OSError):
            self._stop()  # it ended between games: this one is played cold
            return False
        # The game's process answers while its zygote stops (right after its fork):
        # its answer is read first, the bot not frozen yet (a frozen zygote would never
        # stop).
        answer = self._ready_at_once(deadline)
        if not zygote.wait_stopped(pid, deadline) and self._zygote_ended():
            self._stop()  # the next game starts a new one; this one is played cold
            return False
        faults, held = zygote.inspect(pid, self._pipes())
        if faults or held is None:
            return self._go_cold("its zygote is not pristine-safe: " + "; ".join(faults))
        if self._baseline is None:
            self._baseline = held
        elif held != self._baseline:
            return self._go_cold("its zygote ran, or its state changed, while a game played")
        try:
            self._stillness = zygote.stillness(process, pid)
        except zygote.ZygoteUnfit as exc:
            return self._go_cold(str(exc))
        with self._faults_stop_the_bot("while starting"):
            self._watch_game(pid, last_pid)
            if answer is None:
                reply = self._read_reply(deadline)
            else:
                if process.cgroup is not None:
                    process.cgroup.freeze()
                reply = self._parse_reply(answer)
            self._expect(reply, "ready")
        return True

    def _ready_at_once(self, deadline: float) -> bytes | None:
        """The game's first answer when it comes within :data:`READY_AT_ONCE_SECONDS`
        (as a rule); None when it does not (a slow machine, or the game's process
        ended: its end is then watched while the answer is awaited).

        Raises:
            BotFault: it wrote something wrong (the bot is stopped).
        """
        assert self._channel is not None
        with self._faults_stop_the_bot("while starting"):
            try:
                return self._channel.receive(
                    min(deadline, time.monotonic() + READY_AT_ONCE_SECONDS)
                )
            except (BotTimeout, _Exited):  # the zygote may have ended: looked at next
                return None

    def _zygote_ended(self) -> bool:
        assert self._zygote_pidfd is not None
        return bool(select.select([self._zygote_pidfd], [], [], 0)[0])

    def _adopt_zygote(self) -> str | None:
        """Find and check the zygote just started; None when it serves, else why not."""
        process = self.process
        assert process is not None
        isolation = process.isolation
        if not (process.cgroup and process.bot_pid and isolation.filesystem and isolation.pids):
            return "this machine cannot fence a zygote's games apart (cgroup, PID, mounts)"
        try:
            pid = zygote.find_zygote(process)
        except zygote.ZygoteUnfit as exc:
            return f"its zygote is not pristine-safe: {exc}"
        faults = zygote.pristine_faults(pid, self._pipes())
        if faults:
            return "its zygote is not pristine-safe: " + "; ".join(faults)
        try:
            self._zygote_pidfd = os.pidfd_open(pid)
            zygote.stop_reaper(process)
        except (OSError, zygote.ZygoteUnfit) as exc:
            return f"its zygote ended or its reaper did not stop ({exc})"
        self.zygote_pid = pid
        return None

    def _pipes(self) -> frozenset[str]:
        assert self._channel is not None
        if self._pipe_names is None:
            ends = (self._channel.stdin, self._channel.stdout, self._channel.stderr)
            self._pipe_names = frozenset(f"pipe:[{os.fstat(fd).st_ino}]" for fd in ends)
        return self._pipe_names

    def _watch_game(self, pid: int, last_pid: int) -> None:
        """Find the game's process and end reads when it ends.

        Raises:
            BotCrash: there is none (it ended at once).
        """
        assert self.process is not None and self._channel is not None
        game = zygote.game_process(self.process, pid, last_pid)
        try:
            self._game_pidfd = os.pidfd_open(game) if game is not None else None
        except OSError:
            self._game_pidfd = None
        if self._game_pidfd is None:
            raise BotCrash("its game's process ended")
        self.game_pid = game
        self._channel.watch(self._game_pidfd)

    def _end_warm_game(self) -> None:
        """Kill what is left of the game; check the zygote did not run and reset what
        the game could change (never raises: a zygote that fails is stopped)."""
        process, channel, pid = self.process, self._channel, self.zygote_pid
        assert process is not None and channel is not None and pid is not None
        grace = self.limits.quit_seconds
        ended = zygote.end_game(
            process, pid, self._game_pidfd, grace, time.monotonic() + grace + REAP_SECONDS
        )
        channel.watch(None)
        self._close_game_pidfd()
        channel.collect_stderr(time.monotonic())
        self.last_stderr = bytes(channel.errors)
        channel.errors.clear()
        channel.pending.clear()
        try:
            channel.read_available()  # lines the game left: not the next game's
            zygote.drain_input(pid)
            assert self._stillness is not None
            same = ended and zygote.stayed_still(self._stillness, zygote.stillness(process, pid))
        except (zygote.ZygoteUnfit, OSError):
            same = False
        if not ended or self._zygote_ended():
            self._stop()  # the next game starts a new zygote
        elif not same:
            self._go_cold("its zygote ran, or its state changed, while a game played")
        else:
            if process.cgroup is not None:
                with contextlib.suppress(OSError):
                    process.cgroup.freeze()
            zygote.start_renewal(process)  # while the arena stores the game

    def _close_game_pidfd(self) -> None:
        if self._game_pidfd is not None:
            os.close(self._game_pidfd)
            self._game_pidfd = None

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        """Ask for a move; the answer's text must be one of the legal actions' texts.

        Raises:
            BotFault: timeout, crash, malformed output, protocol violation or an
                illegal action (the process is gone).
        """
        if self._channel is None:
            raise BotCrash("act before new_game (or after the bot was stopped)")
        game_left = self.game_seconds - self._spent if time_left is None else time_left
        allowed = min(self.move_seconds, game_left)
        try:
            texts = list(map(self._texts.__getitem__, legal_actions))
            if allowed <= 0:
                raise BotTimeout("its time for this game is used up")
            if self._channel.has_unread_output():
                raise BotProtocolError("sent a message nobody asked for")
            started = time.monotonic()
            request = {
                "type": "act",
                "observation": observation,
                "legal_actions": texts,
                "time_left": round(min(game_left, FOREVER_SECONDS), 6),  # JSON has no inf
                "move_time": round(self.move_seconds, 6),
            }
            try:
                self._send_line(_encode(request), started + allowed)
                reply = self._read_reply(started + allowed)
            except BotTimeout as exc:
                taken = time.monotonic() - started
                raise BotTimeout(
                    f"{exc} (limit {allowed:.3g} s, took {taken:.3g} s; a program that "
                    "answers late may buffer its output: flush stdout after each line)"
                ) from None
            self._spent += time.monotonic() - started
            text = self._expect(reply, "action").get("action")
            if not isinstance(text, str):
                raise BotProtocolError(f"'action' must be a string, not {_shown(text)}")
            try:
                return legal_actions[texts.index(text)]
            except ValueError:
                shown = ", ".join(texts[:12]) + (", …" if len(texts) > 12 else "")
                raise BotIllegalAction(
                    f"{_shown(text)} is not legal here (legal: {shown})"
                ) from None
        except BaseException as exc:
            # Entered on a fault only: around every move, it would cost a microsecond.
            with self._faults_stop_the_bot("on its move"):
                raise exc

    def game_over(self, outcome: Outcome) -> None:
        """Tell the bot, ask it to quit, then kill its process group (never raises)."""
        channel, process = self._channel, self.process
        warm = self.zygote_pid is not None
        if channel is not None and process is not None:
            deadline = time.monotonic() + self.limits.quit_seconds
            try:
                if process.cgroup is not None:
                    process.cgroup.thaw()  # to read it, and to exit
                channel.send(
                    _encode({"type": "game_over", "outcome": outcome.to_dict()})
                    + _encode({"type": "quit"}),
                    deadline,
                )
                if not warm:
                    channel.close_input()  # the end of input says the same
                    channel.collect_stderr(deadline)
            except (BotFault, _Exited, OSError):
                pass  # it is killed below either way
        if warm and process is not None:
            self._end_warm_game()
        else:
            self._stop()

    def close(self) -> None:
        """Kill the bot's processes (its zygote's too); never raises."""
        between_games = self.zygote_pid is not None and self._game_pidfd is None
        last_game = self.last_stderr
        self._stop()
        if between_games:
            self.last_stderr = last_game  # a zygote's stderr is no game's

    # -- helpers ------------------------------------------------------------------

    def _request(self, message: Mapping[str, Any], deadline: float) -> dict[str, Any]:
        self._send_request(message, deadline)
        return self._read_reply(deadline)

    def _send_request(self, message: Mapping[str, Any], deadline: float) -> None:
        self._send_line(_encode(message), deadline)

    def _send_line(self, line: bytes, deadline: float) -> None:
        """Write a request, then thaw the bot: it wakes once, to find the whole request
        (when the pipe holds it; the rest is written once the bot reads).

        Raises:
            BotTimeout: the bot does not read the rest in time.
            _Exited: it closed its input.
        """
        assert self._channel is not None and self.process is not None
        written = self._channel.write_now(line)
        if self.process.cgroup is not None:
            self.process.cgroup.thaw()
        if written < len(line):
            self._channel.send(memoryview(line)[written:], deadline)

    def _read_reply(self, deadline: float) -> dict[str, Any]:
        assert self._channel is not None and self.process is not None
        line = self._channel.receive(deadline)
        if self.process.cgroup is not None:
            self.process.cgroup.freeze()  # not waited for: it lands within microseconds
        return self._parse_reply(line)

    @staticmethod
    def _parse_reply(line: bytes) -> dict[str, Any]:
        """Raises BotMalformedOutput, BotProtocolError or BotErrorReport."""
        try:
            reply = decode(line)
        except (ValueError, RecursionError):  # RecursionError: nested too deeply
            raise BotMalformedOutput(f"wrote {_quote(line)}, which is not JSON") from None
        if not isinstance(reply, dict):
            raise BotProtocolError(f"wrote {_quote(line)}, which is not a JSON object")
        if reply.get("type") == "error":
            report = bot_text(str(reply.get("message")), ERROR_REPORT_CHARS)
            raise BotErrorReport(f"reported an error: {report}")
        return reply

    @staticmethod
    def _expect(reply: dict[str, Any], kind: str) -> dict[str, Any]:
        if reply.get("type") != kind:
            raise BotProtocolError(f"sent a {_shown(reply.get('type'))} message, expected {kind!r}")
        return reply

    @contextlib.contextmanager
    def _faults_stop_the_bot(self, when: str) -> Iterator[None]:
        """Stop the bot on any fault; an ended output becomes a crash, and a fault's
        message gets ``when`` and the end of the bot's stderr (the owner's best clue).
        Any other exception is the host's own failure: a HostError (KeyboardInterrupt
        and the like pass as they are)."""
        try:
            yield
        except _Exited:
            fault: BotFault = BotCrash(f"{self._death()} {when}")
        except BotFault as exc:
            fault = type(exc)(f"{exc} ({when})")
        except Exception as exc:
            self._stop()
            raise HostError(f"the arena failed {when}: {exc!r}") from exc
        except BaseException:
            self._stop()
            raise
        else:
            return
        self._stop()
        tail = stderr_excerpt(self.last_stderr, STDERR_IN_MESSAGE)
        if tail:
            fault = type(fault)(f"{fault}{STDERR_MARKER}{tail}")
        raise fault from None

    def _stop(self) -> None:
        """Kill the bot's processes and keep the end of its stderr."""
        process, channel = self.process, self._channel
        self.process = self._channel = None
        self.zygote_pid = self.game_pid = None
        self._stillness = self._baseline = self._pipe_names = None
        self._close_game_pidfd()
        if self._zygote_pidfd is not None:
            os.close(self._zygote_pidfd)
            self._zygote_pidfd = None
        if process is None or channel is None:
            return
        self.last_process = process
        self.last_exit = process.kill()
        channel.collect_stderr(time.monotonic())  # every writer is dead: no waiting
        self.last_stderr = bytes(channel.errors)
        process.close()

    def _death(self) -> str:
        """Why the output ended: the process's exit, once it is reaped."""
        assert self.process is not None
        if self.zygote_pid is not None:
            if self._game_pidfd is None:
                return "its zygote ended (the next game starts a new one)"
            code = self._game_exit_code(self._game_pidfd)
            return "its game's process ended" if code is None else self.process.describe_end(code)
        try:
            code = self.process.process.wait(self.limits.quit_seconds)
        except subprocess.TimeoutExpired:
            return "closed its output"
        return self.process.describe_end(code)

    def _game_exit_code(self, pidfd: int) -> int | None:
        """How the zygote's game's process ended (its reaper's kernel reaped it, so only
        its pidfd tells); None when this kernel does not say within ``quit_seconds``."""
        deadline = time.monotonic() + self.limits.quit_seconds
        try:
            while (code := kernel.pidfd_exit_code(pidfd)) is None:
                if time.monotonic() >= deadline:
                    return None
                time.sleep(EXIT_POLL_SECONDS)
        except OSError:
            return None
        return code


def _read_handshake(reply: Mapping[str, Any]) -> Handshake:
    """Raises BotProtocolError for a wrong message, fields or protocol version."""
    if reply.get("type") != "hello":
        raise BotProtocolError(f"sent a {_shown(reply.get('type'))} message, expected 'hello'")
    version = reply.get("protocol")
    if version != PROTOCOL_VERSION:
        raise BotVersionMismatch(
            f"speaks protocol version {_shown(version)}, the arena speaks version "
            f"{PROTOCOL_VERSION}"
        )
    name, games = reply.get("name"), reply.get("games")
    if not isinstance(name, str) or not name:
        raise BotProtocolError(f"'name' must be a non-empty string, not {_shown(name)}")
    if not is_storable(name):
        raise BotProtocolError(
            f"'name' must be text without NUL characters or lone surrogates, not {_shown(name)}"
        )
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games):
        raise BotProtocolError(f"'games' must be a list of game names, not {_shown(games)}")
    # The name is only shown (a submission's summary): a short one is plenty.
    zygote = reply.get("zygote", False)
    if not isinstance(zygote, bool):
        raise BotProtocolError(f"'zygote' must be true or false, not {_shown(zygote)}")
    return Handshake(bot_text(name, QUOTE_CHARS), PROTOCOL_VERSION, tuple(games), zygote)


def stderr_excerpt(stderr: bytes, characters: int) -> str:
    """The end of ``stderr`` on one line (lines joined by `` | ``), at most
    ``characters`` long, storable (:func:`~arena.play.bot_text.bot_text`); empty when
    there is nothing."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    text = bot_text(" | ".join(line for line in lines if line))
    return text if len(text) <= characters else "…" + text[-characters + 1 :]


def _encode(message: Mapping[str, Any]) -> bytes:
    """A message's line: compact JSON (orjson's; the standard library's for what orjson
    refuses, such as integers beyond 64 bits), ending in a newline.

    Raises:
        TypeError: a value JSON cannot hold.
        ValueError: a circular reference.
    """
    try:
        return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:
        return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def _quote(line: bytes) -> str:
    text = line[:QUOTE_CHARS].decode("utf-8", "replace")
    return repr(text) + ("…" if len(line) > QUOTE_CHARS else "")


def _shown(value: Any) -> str:
    """A value the bot sent, as a fault's message quotes it: at most QUOTE_CHARS."""
    return bot_text(repr(value), QUOTE_CHARS)
