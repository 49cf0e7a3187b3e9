"""Run a bot class as a program that speaks the arena's JSON-lines protocol.

    python -m bots.sdk mybot.py:MyBot          (or: python bots/sdk/runtime.py mybot.py:MyBot)
    python -m bots.sdk --zygote mybot.py:MyBot (the arena's warm start: zygote_main)

The class needs ``act(observation, legal_actions, time_left)`` returning one of the
legal actions; ``new_game(info)`` and ``game_over(outcome)`` are optional. Legal
actions arrive as their canonical texts and the answer is sent as ``str(answer)``,
so a plain class needs nothing but the standard library. A class derived from
``bots.base.Bot`` gets what it gets in process instead: the engine's ``GameInfo``,
action objects and ``Outcome`` (this imports the engines).

Class attributes ``name`` (a string) and ``games`` (game names) go into the
handshake; without ``games`` the bot claims every game. Anything the bot prints goes
to stderr, which the arena keeps for the bot's owner: stdout carries the protocol
alone. The protocol is described in docs/protocol.md.

This module imports nothing from this repository and as little of the standard
library as it can (a bot process starts for every game, unless ``--zygote`` forks
each game from one loaded process), so it can also be copied
next to a bot and run on its own.
"""

from __future__ import annotations

import gc
import json
import json.scanner
import os
import signal
import sys
from json.encoder import encode_basestring_ascii

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from typing import IO, Any

PROTOCOL_VERSION = 1
ANY_GAME = "*"
_VAR_KEYWORDS = 0x08  # inspect.CO_VARKEYWORDS, without importing inspect
USAGE = "usage: python -m bots.sdk [--zygote] [--seed N] [--params JSON] FILE[:Class]"
ZYGOTE = "--zygote"
WORK_DIR = "/bot/work"
_PR_SET_DUMPABLE = 4
_scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # typeshed
"""The standard decoder's scanner: what ``json.loads`` runs once it has a ``str``."""


def decode(line: bytes) -> Any:
    """The JSON value of ``line``, exactly as ``json.loads`` gives it (or fails).

    A line as the protocol sends it (UTF-8, an object, nothing around it but the
    newline) goes straight to the decoder's scanner, without ``json.loads``' steps for
    any text encoding and surrounding whitespace (a third of its time on an ``act``).

    Raises:
        ValueError: not JSON (``json.JSONDecodeError``, or ``UnicodeDecodeError``).
        RecursionError: nested too deeply.
    """
    if line[:1] == b"{":
        try:
            text = line.decode()
            value, end = _scan(text, 0)
        except (ValueError, StopIteration):
            pass  # json.loads says what is wrong, or reads it otherwise (surrogates)
        else:
            if end == len(text) or text[end:] == "\n":
                return value
    return json.loads(line)


def encode(message: Mapping[str, Any]) -> bytes:
    """One message's line: compact JSON, ASCII, ending in a newline."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def action_line(text: str) -> bytes:
    """``encode({"type": "action", "action": text})``, byte for byte, made directly."""
    return b'{"type":"action","action":' + encode_basestring_ascii(text).encode() + b"}\n"


class BotLoadFailure(Exception):
    """The bot file or class cannot be loaded; the message says why."""


class GameInfo:
    """What a plain bot class is told when a game starts; ``seed`` is the bot's own
    (independent of the deal: docs/protocol.md, "What a bot receives")."""

    __slots__ = ("game", "num_seats", "options", "seat", "seed")

    def __init__(
        self, game: str, options: Mapping[str, Any], seat: int, num_seats: int, seed: int
    ) -> None:
        self.game = game
        self.options = options
        self.seat = seat
        self.num_seats = num_seats
        self.seed = seed

    def __repr__(self) -> str:
        return (
            f"GameInfo(game={self.game!r}, options={self.options!r}, seat={self.seat}, "
            f"num_seats={self.num_seats}, seed={self.seed})"
        )


def load_bot_class(target: str) -> type:
    """The class named by ``FILE:Class``, or by ``FILE`` when it holds one class with act().

    The file's directory goes first on ``sys.path`` so the bot may import its helpers.

    Raises:
        BotLoadFailure: a missing file, a syntax or import error, or no such class.
    """
    path, sep, class_name = target.rpartition(":")
    if not sep or not path.endswith(".py"):
        path, class_name = target, ""
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as file:
            source = file.read()
    except OSError as exc:
        raise BotLoadFailure(f"no bot file {path!r} ({exc.strerror})") from None
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    module = type(sys)("bot")
    module.__file__ = path
    sys.modules["bot"] = module
    try:
        exec(compile(source, path, "exec"), module.__dict__)
    except SyntaxError as exc:
        raise BotLoadFailure(f"{name}: syntax error at line {exc.lineno}: {exc.msg}") from None
    except BaseException as exc:
        raise BotLoadFailure(f"{name}: importing it raised {exc!r}") from None
    classes = {
        key: value
        for key, value in vars(module).items()
        if isinstance(value, type) and value.__module__ == "bot"
    }
    if class_name:
        found = classes.get(class_name)
        if found is None:
            listing = ", ".join(classes) or "none"
            raise BotLoadFailure(f"{name}: no class {class_name!r} (classes: {listing})")
        return found
    playable = [cls for cls in classes.values() if callable(getattr(cls, "act", None))]
    if len(playable) != 1:
        names = ", ".join(cls.__name__ for cls in playable) or "none"
        raise BotLoadFailure(f"{name}: name the class as FILE:Class (with act(): {names})")
    return playable[0]


def make_bot(cls: type, seed: int, params: Mapping[str, Any] | None = None) -> Any:
    """An instance of ``cls``, given ``seed`` when its constructor takes one and each
    of ``params`` (the bot's registered parameters) as a keyword argument.

    Raises:
        BotLoadFailure: a parameter the constructor does not take.
    """
    code = getattr(getattr(cls, "__init__", None), "__code__", None)  # None: object's own
    names = () if code is None else code.co_varnames[1 : code.co_argcount + code.co_kwonlyargcount]
    any_keyword = code is not None and bool(code.co_flags & _VAR_KEYWORDS)
    extra = dict(params or {})
    extra.pop("seed", None)
    refused = [key for key in extra if key not in names and not any_keyword]
    if refused:
        takes = ", ".join(name for name in names if name != "seed") or "none"
        raise BotLoadFailure(
            f"{cls.__name__} takes no parameter {refused[0]!r} (its __init__ takes: {takes})"
        )
    if "seed" in names or any_keyword:
        extra["seed"] = seed
    return cls(**extra)


class _Plain:
    """Messages → calls for a plain class: texts in, ``str(answer)`` out."""

    def game_info(self, message: Mapping[str, Any]) -> Any:
        return GameInfo(
            game=message["game"],
            options=message.get("options") or {},
            seat=int(message["seat"]),
            num_seats=int(message["seats"]),
            seed=int(message.get("seed") or 0),
        )

    def actions(self, texts: Sequence[str]) -> Sequence[Any]:
        return list(texts)

    def outcome(self, data: Mapping[str, Any]) -> Any:
        return data

    def warm_up(self) -> None:
        """Import now what every game needs (a zygote, before its first fork)."""


class _Engine(_Plain):
    """Messages → calls for a ``bots.base.Bot``: the engine's own values, as in process."""

    def __init__(self) -> None:
        self.game: Any = None

    def game_info(self, message: Mapping[str, Any]) -> Any:
        from bots.base import GameInfo as EngineGameInfo
        from engines.registry import get_game

        self.game = get_game(message["game"])
        plain = super().game_info(message)
        return EngineGameInfo(self.game, plain.options, plain.seat, plain.num_seats, plain.seed)

    def actions(self, texts: Sequence[str]) -> Sequence[Any]:
        return [self.game.parse_action(text) for text in texts]

    def outcome(self, data: Mapping[str, Any]) -> Any:
        from engines.outcome import Outcome

        return Outcome.from_dict(data)

    def warm_up(self) -> None:
        import bots.base  # noqa: F401
        import engines.outcome
        import engines.registry  # noqa: F401


def _adapter_for(cls: type) -> _Plain:
    base = sys.modules.get("bots.base")
    if base is not None and issubclass(cls, base.Bot):
        return _Engine()
    return _Plain()


class Session:
    """One bot process: reads host messages from ``incoming``, answers on ``outgoing``.

    An ``outgoing`` file with a descriptor is written through it, one ``write`` per
    answer (its buffer is bypassed: nothing may be written to it otherwise)."""

    def __init__(self, cls: type, bot: Any, incoming: Iterable[bytes], outgoing: IO[bytes]) -> None:
        self.cls = cls
        self.bot = bot
        self.incoming = incoming
        self.outgoing = outgoing
        self.adapter = _adapter_for(cls)
        self.output = _descriptor(outgoing)

    def send(self, message: Mapping[str, Any]) -> None:
        self.write(encode(message))

    def write(self, line: bytes) -> None:
        """Raises OSError (BrokenPipeError: the host is gone)."""
        if self.output is None:
            self.outgoing.write(line)
            self.outgoing.flush()
            return
        written = os.write(self.output, line)
        while written < len(line):  # a line beyond the pipe's buffer, or a signal
            line = line[written:]
            written = os.write(self.output, line)

    def run(self) -> int:
        """Serve until ``quit`` or the end of input; returns the exit status."""
        handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "hello": self._hello,
            "new_game": self._new_game,
            "act": self._act,
            "game_over": self._game_over,
        }
        for line in self.incoming:
            message = decode(line)
            kind = message.get("type")
            if kind == "quit":
                return 0
            handler = handlers.get(kind)
            if handler is None:
                self.send({"type": "error", "message": f"unknown message type {kind!r}"})
                return 2
            handler(message)
        return 0

    def _hello(self, message: dict[str, Any], *, zygote: bool = False) -> None:
        """Answer ``hello``; ``zygote``: say that each game is a fresh fork of this
        process (docs/protocol.md, "Every game from a pristine bot")."""
        name = self.cls.__dict__.get("name")
        games = getattr(self.cls, "games", None)
        answer: dict[str, Any] = {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "name": name if isinstance(name, str) else self.cls.__name__,
            "games": sorted(games) if games else [ANY_GAME],
        }
        if zygote:
            answer["zygote"] = True
        self.send(answer)

    def _new_game(self, message: dict[str, Any]) -> None:
        info = self.adapter.game_info(message)
        if self._call("new_game", info, optional=True):
            self.send({"type": "ready"})

    def _act(self, message: dict[str, Any]) -> None:
        # Every move runs this: the fewest calls, one write.
        time_left, move_time = message.get("time_left"), message.get("move_time")
        if time_left is None or (move_time is not None and move_time < time_left):
            time_left = move_time
        legal = self.adapter.actions(message["legal_actions"])
        observation = message["observation"]
        try:
            answer = self.bot.act(observation, legal, time_left)
        except Exception as exc:  # a missing act too
            self._report("act", exc, quiet=False)
            return
        self.write(action_line(str(answer)))

    def _game_over(self, message: dict[str, Any]) -> None:
        # No answer is expected; a failing hook only shows on stderr.
        self._call("game_over", self.adapter.outcome(message["outcome"]), optional=True, quiet=True)

    def _call(self, method: str, *args: Any, optional: bool = False, quiet: bool = False) -> bool:
        """Call the bot's ``method``; on an exception report it and return False."""
        hook = getattr(self.bot, method, None)
        if hook is None and optional:
            return True
        try:
            hook(*args)  # type: ignore[misc]
        except Exception as exc:
            self._report(method, exc, quiet=quiet)
            return False
        return True

    def _report(self, method: str, exc: Exception, *, quiet: bool) -> None:
        """The traceback of ``exc`` (raised by the bot's ``method``) on stderr and, unless
        ``quiet``, an ``error`` to the host."""
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
        if not quiet:
            self.send({"type": "error", "message": f"{method} raised {exc!r}"[:2000]})


def _descriptor(stream: IO[bytes]) -> int | None:
    """The file descriptor of ``stream``; None for one in memory (a test's)."""
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None


def _protocol_stdout() -> IO[bytes]:
    # The protocol gets its own copy of stdout; fd 1 and sys.stdout then point at
    # stderr, so a stray print() in the bot cannot corrupt the message stream.
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def _parse_arguments(argv: Sequence[str]) -> tuple[str, int, dict[str, Any]]:
    """(target, seed, params) from ``[--seed N] [--params JSON] FILE[:Class]``; exits
    with the usage otherwise."""
    arguments = list(argv)
    seed = 0
    params: dict[str, Any] = {}
    if len(arguments) >= 3 and arguments[0] == "--seed" and arguments[1].lstrip("-").isdigit():
        seed = int(arguments[1])
        arguments = arguments[2:]
    if len(arguments) >= 3 and arguments[0] == "--params":
        try:
            loaded = json.loads(arguments[1])
        except ValueError:
            loaded = None
        if not isinstance(loaded, dict):
            print(USAGE + " (--params: a JSON object)", file=sys.stderr)
            raise SystemExit(2)
        params = loaded
        arguments = arguments[2:]
    if len(arguments) != 1 or arguments[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        raise SystemExit(2)
    return arguments[0], seed, params


def _undumpable() -> None:
    """Nobody but root may read or write this process's memory (/proc/PID/mem):
    a game's process cannot reach into the zygote or the reaper."""
    import ctypes

    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)


def _reaper(zygote: int) -> int:
    """PID 1 of a zygote's sandbox: it never loads the bot's code. Children it gets
    (every process of a game: their parent is gone) are reaped by the kernel
    (SIGCHLD ignored), so nothing of a game wakes it; it exits when the zygote ends
    (its pidfd: no pipe a game could write to). The arena stops it once the zygote
    serves."""
    import select

    os.close(0)
    os.close(1)
    ended = select.poll()
    ended.register(os.pidfd_open(zygote), select.POLLIN)
    while not ended.poll():
        pass
    return 0


def zygote_main(argv: Sequence[str]) -> int:
    """``--zygote``: load the bot once, then play each game in a fresh fork of it.

    Process 1 forks the zygote and stays a reaper (:func:`_reaper`). The zygote loads
    the bot, answers ``hello`` and, for each ``new_game``, forks the game's process,
    which has the zygote's state. The zygote ignores ``SIGCHLD``, so the kernel reaps
    its games at once and it can never learn how one ended (the arena checks that it
    still ignores it before each game). It then stops itself (SIGSTOP) without
    reading its input again until the arena continues it, after the arena has ended
    the game's processes and renewed the sandbox (docs/protocol.md, "Every game from
    a pristine bot").
    """
    _undumpable()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    zygote = os.fork()
    if zygote:
        return _reaper(zygote)
    session = _load(argv)
    if session is None:
        return 1
    os.chdir("/")  # its working directory is renewed for every game
    session.adapter.warm_up()  # a game would import them anew, every game
    gc.collect()
    gc.freeze()  # what it loaded is never traversed again: a game copies fewer pages
    return _serve_games(session)


def _serve_games(session: Session) -> int:
    """The zygote's loop: ``hello``, then a fresh process per ``new_game``, until ``quit``
    or the end of input. Lines are read unbuffered: what follows is the game's."""
    while True:
        line = _read_line()
        if not line:
            return 0
        message = json.loads(line)
        kind = message.get("type")
        if kind == "quit":
            return 0
        if kind == "hello":
            session._hello(message, zygote=True)
        elif kind == "new_game":
            _fork_game(session, message)
            os.kill(os.getpid(), signal.SIGSTOP)  # until the arena continues it
        else:
            session.send({"type": "error", "message": f"unknown message type {kind!r}"})
            return 2


def _read_line() -> bytes:
    """The next line of fd 0 (empty at its end). The arena writes nothing more before
    the answer (``hello``'s, or the game's ``ready``), so a whole read holds the line."""
    line = b""
    while not line.endswith(b"\n"):
        chunk = os.read(0, 65536)
        if not chunk:
            return line
        line += chunk
    return line


def _fork_game(session: Session, message: dict[str, Any]) -> None:
    """Start the game's process (reaped by the kernel when it ends: the zygote
    ignores ``SIGCHLD``)."""
    if os.fork():
        return
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the bot's own children: as usual
        if os.path.isdir(WORK_DIR):  # the sandbox's, renewed for this game
            os.chdir(WORK_DIR)
        session._new_game(message)
        code = session.run()
    except SystemExit as exc:  # sys.exit(N) in the bot: its status, as a cold game's
        code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    except BaseException:
        code = 1
    sys.stdout.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == [ZYGOTE]:
        return zygote_main(arguments[1:])
    session = _load(arguments)
    return 1 if session is None else session.run()


def _load(arguments: Sequence[str]) -> Session | None:
    """The session of the bot the arguments name; None when it cannot be loaded
    (reported to the arena and on stderr)."""
    target, seed, params = _parse_arguments(arguments)
    outgoing = _protocol_stdout()
    try:
        cls = load_bot_class(target)
        bot = make_bot(cls, seed, params)
    except BotLoadFailure as exc:
        message = str(exc)
    except Exception as exc:
        message = f"creating the bot raised {exc!r}"
    else:
        return Session(cls, bot, sys.stdin.buffer, outgoing)
    print(message, file=sys.stderr)
    outgoing.write(json.dumps({"type": "error", "message": message}).encode() + b"\n")
    outgoing.flush()
    return None


if __name__ == "__main__":
    raise SystemExit(main())
