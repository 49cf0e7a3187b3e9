"""The submission check: a new bot must start, shake hands and move before it is stored.

:func:`check_submission` runs the bot once in the sandbox, exactly as a tournament
would (the stored code, not the user's file): the handshake must name protocol
version 1 and the game, and the bot must answer a legal action on a sample position
(the game's initial state from :data:`SAMPLE_SEED`) within the per-move limit.
Anything else rejects it with the reason: a syntax error, a missing class, the wrong
protocol version, a timeout, a crash, malformed output, an illegal move.

One failure is let through with a warning: an error the bot itself reports while
choosing its move (its ``act`` raised, the SDK said so). The program works and speaks
the protocol; it will forfeit such games as crashes, and the tournament's crash rate
limit deals with bots that do it often.

:func:`check_archive_command` checks, before anything runs, that the command of an
uploaded archive names nothing but the archive's own files and an interpreter of the
sandbox's runtime.
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Collection
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.players.loader import BotLoadError, BotSource, BotSpec, instantiate
from arena.players.sandbox import DEFAULT_LIMITS, SandboxLimits
from arena.players.subprocess_bot import BotErrorReport, BotVersionMismatch, SubprocessBot
from bots.base import BotFault, GameInfo
from engines.registry import get_game

SAMPLE_SEED = 1
COMMAND_CHARS = 1000
"""The longest command an archive bot may be run with."""
INTERPRETERS = frozenset(
    {"python3", "python", "node", "nodejs", "ruby", "perl", "php", "lua", "bash", "sh", "java"}
)
"""The programs an archive's command may start by name (found on the sandbox's PATH);
anything else it runs must be a file of the archive, ``{code}/PATH``."""
CODE = "{code}"
_SEPARATOR = r"\s=:,;'\"()\[\]"
_ABSOLUTE = re.compile(rf"(?:^|(?<=[{_SEPARATOR}]))[/~]")
_PARENT = re.compile(rf"(?:^|(?<=[{_SEPARATOR}/]))\.\.(?=$|[{_SEPARATOR}/])")
_CODE_PATH = re.compile(rf"\{{code\}}(/[^{_SEPARATOR}]*)?")


class SubmissionRejected(ArenaError):
    """The bot failed the submission check; the message gives the reason."""


class UnsafeCommand(ArenaError):
    """An archive's command names something other than the archive's files and an
    interpreter of the sandbox's runtime."""


def check_archive_command(command: str, files: Collection[str]) -> None:
    """Check an uploaded archive's ``command`` against its ``files`` (relative
    paths): the program is one of :data:`INTERPRETERS` or ``{code}/FILE``;
    arguments name archive files as ``{code}/PATH`` or relative paths, never an
    absolute path (``/…``, ``~…``, also after ``=``, ``:`` or a space) nor ``..``.

    Raises:
        UnsafeCommand: the first problem, quoting the command.
    """
    shown = f"(got {command!r:.100})"
    if not command.strip():
        raise UnsafeCommand("an archive needs the command that runs it")
    if len(command) > COMMAND_CHARS or any(ord(char) < 32 for char in command):
        raise UnsafeCommand(f"one line of at most {COMMAND_CHARS} characters {shown}")
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise UnsafeCommand(f"not a command: {exc} {shown}") from None
    program = words[0]
    if program not in INTERPRETERS and (
        not program.startswith(CODE + "/") or program[len(CODE) + 1 :] not in files
    ):
        raise UnsafeCommand(
            f"the program must be an interpreter of the sandbox's runtime "
            f"({', '.join(sorted(INTERPRETERS))}) or a file of the archive as {{code}}/PATH "
            f"(got {program!r:.100})"
        )
    folders = {
        path.rsplit("/", depth)[0] for path in files for depth in range(1, path.count("/") + 1)
    }
    for word in words[1:]:
        for match in _CODE_PATH.finditer(word):
            path = (match.group(1) or "").strip("/")
            if path and path not in files and path not in folders:
                named = f"{CODE}/{path}"
                raise UnsafeCommand(f"{named!r:.100} is not a file of the archive {shown}")
        plain = word.replace(CODE, "code")
        if _ABSOLUTE.search(plain):
            raise UnsafeCommand(
                f"the argument {word!r:.100} names a path outside the archive: name its files "
                f"as {{code}}/PATH {shown}"
            )
        if _PARENT.search(plain):
            raise UnsafeCommand(f"the argument {word!r:.100} climbs out with '..' {shown}")
    if CODE not in command:
        raise UnsafeCommand(
            f"name the archive's files as {{code}}/PATH, e.g. 'python3 {{code}}/main.py' {shown}"
        )


@dataclass(frozen=True)
class CheckResult:
    """What the check saw."""

    name: str
    protocol: int
    games: tuple[str, ...]
    action: str | None
    """The sample move (None when the bot reported an error instead)."""
    move_seconds: float
    sandbox: str
    """What held the bot's memory and processes (:meth:`SandboxedProcess.enforced`)."""
    warning: str | None = None


def check_submission(
    source: BotSource,
    game: str,
    *,
    label: str = "submission",
    limits: SandboxLimits = DEFAULT_LIMITS,
) -> CheckResult:
    """Start the bot once: handshake and one move on the sample position.

    Raises:
        SubmissionRejected: the bot cannot start, speaks another protocol version,
            does not play ``game``, or fails the sample move (the reason says how).
        UnknownGameError: ``game`` is unknown.
    """
    engine = get_game(game)
    state = engine.new_initial_state(seed=SAMPLE_SEED)
    seat = state.current_seat
    try:
        bot = instantiate(BotSpec(0, label, engine.name, source), limits=limits)
    except BotLoadError as exc:
        raise SubmissionRejected(f"bot rejected: {exc}") from None
    assert isinstance(bot, SubprocessBot), "only submitted bots are checked"
    options = engine.options_to_dict(state.options)
    info = GameInfo(engine, options, seat, state.num_seats, SAMPLE_SEED)
    try:
        try:
            bot.new_game(info)
        except BotFault as fault:
            raise _rejected(fault) from None
        assert bot.handshake is not None and bot.process is not None
        enforced = bot.process.enforced()
        legal = state.legal_actions()
        started = time.perf_counter()
        warning = None
        action: str | None = None
        try:
            action = str(bot.act(state.observation(seat), legal, None))
        except BotErrorReport as report:
            warning = f"its move on the sample position failed: {report}"
        except BotFault as fault:
            raise _rejected(fault) from None
        return CheckResult(
            name=bot.handshake.name,
            protocol=bot.handshake.protocol,
            games=bot.handshake.games,
            action=action,
            move_seconds=time.perf_counter() - started,
            sandbox=enforced,
            warning=warning,
        )
    finally:
        bot.close()


def _rejected(fault: BotFault) -> SubmissionRejected:
    """The fault as a rejection; its message quotes no more of the bot's output than a
    forfeit's does (arena.players.subprocess_bot caps it)."""
    why = "wrong protocol version" if isinstance(fault, BotVersionMismatch) else fault.reason
    return SubmissionRejected(f"bot rejected: {why.replace('_', ' ')}: {fault}")
