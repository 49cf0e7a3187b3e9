"""The submission check: a new bot must start, shake hands and play before it is stored.

:func:`check_submission` runs the bot in the sandbox exactly as a tournament would (the
stored code, not the user's file): the handshake must name protocol version 1 and the
game, and the bot must play whole games against the built-in bots, at every seat
count the game allows, within the per-move limit (:mod:`arena.players.sample_games`).
Anything else rejects it with the reason, naming the game and the move: a syntax
error, a missing class, the wrong protocol version, a timeout, a crash (an error the
bot reports from its ``act`` too: a tournament forfeits such a game), malformed
output, an illegal move. The result reports the bot's move times and which
time-control classes they fit; a check cut short by its time budget passes with a
warning (unless the bot never moved).

:func:`check_archive_command` checks, before anything runs, that the command of an
uploaded archive names nothing but the archive's own files and an interpreter of the
sandbox's runtime.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.players.loader import BotLoadError, BotSource, BotSpec, instantiate
from arena.players.sample_games import (
    CHECK_BUDGET_SECONDS,
    MoveTimes,
    SampleGameFault,
    play_sample_games,
)
from arena.players.sandbox import DEFAULT_LIMITS, SandboxLimits
from arena.players.sandbox.runtime import shell_operator, shell_syntax
from arena.players.subprocess_bot import BotVersionMismatch, SubprocessBot
from bots.base import BotFault
from engines.registry import get_game

COMMAND_CHARS = 1000
"""The longest command an archive bot may be run with."""
INTERPRETERS = frozenset(
    {"python3", "python", "node", "nodejs", "ruby", "perl", "php", "lua", "bash", "sh", "java"}
)
"""The programs an archive's command may start by name (found on the sandbox's PATH);
anything else it runs must be a file of the archive, ``{code}/PATH``."""
CODE = "{code}"
_SEPARATOR = r"\s=:,;'\"()\[\]<>|&`"
"""What may stand before a path inside a word: also the shell's operators, for the script
of ``sh -c`` (a word that holds a shell operator is that script: see shell_operator)."""
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
    paths): no shell operator outside quotes (no shell runs it); the program is one of
    :data:`INTERPRETERS` or ``{code}/FILE``; arguments name archive files as
    ``{code}/PATH`` or relative paths, never an absolute path (``/…``, ``~…``, also
    after ``=``, ``:``, a space, or a shell operator in the script of ``sh -c``) nor ``..``.

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
    operator = shell_operator(command)
    if operator is not None:
        raise UnsafeCommand(f"{shell_syntax(operator)} {shown}")
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
    """The games the bot's handshake names."""
    played: int
    """The sample games it played to the end."""
    planned: int
    times: MoveTimes
    sandbox: str
    """What held the bot's memory and processes (:meth:`SandboxedProcess.enforced`)."""
    warning: str | None = None
    """Why the check stopped early (its time budget ran out), or None."""

    def describe(self) -> list[str]:
        """The lines ``arena bots add`` prints and the web answers (the sandbox's apart)."""
        games = f"{self.played} whole {'game' if self.played == 1 else 'games'}"
        if self.played < self.planned:
            games += f" of {self.planned}"
        return [
            f"checked: {self.name} speaks protocol {self.protocol} and played {games} "
            "against the built-in bots",
            *self.times.describe(),
        ]


def check_submission(
    source: BotSource,
    game: str,
    *,
    label: str = "submission",
    limits: SandboxLimits = DEFAULT_LIMITS,
    budget: float = CHECK_BUDGET_SECONDS,
) -> CheckResult:
    """Start the bot, and play the sample games with it (at most ``budget`` seconds of
    its time, each move within ``limits.move_seconds``).

    Raises:
        SubmissionRejected: the bot cannot start, speaks another protocol version,
            does not play ``game``, fails in a game (the reason says how, where and on
            which move), or its time budget ran out before it moved.
        UnknownGameError: ``game`` is unknown.
    """
    engine = get_game(game)
    try:
        bot = instantiate(BotSpec(0, label, engine.name, source), limits=limits)
    except BotLoadError as exc:
        raise SubmissionRejected(f"bot rejected: {exc}") from None
    assert isinstance(bot, SubprocessBot), "only submitted bots are checked"
    try:
        run = play_sample_games(bot, engine, budget=budget)
    except SampleGameFault as failed:
        raise _rejected(failed.fault, failed.where) from None
    times = MoveTimes.of(run.move_seconds)
    if times is None:
        why = run.cut_short or "no sample game asked it to"
        raise SubmissionRejected(f"bot rejected: it never moved ({why})")
    assert bot.handshake is not None and run.sandbox is not None
    return CheckResult(
        name=bot.handshake.name,
        protocol=bot.handshake.protocol,
        games=bot.handshake.games,
        played=run.finished,
        planned=run.planned,
        times=times,
        sandbox=run.sandbox,
        warning=run.cut_short,
    )


def _rejected(fault: BotFault, where: str | None = None) -> SubmissionRejected:
    """The fault as a rejection, saying where it happened; its message quotes no more of
    the bot's output than a forfeit's does (arena.players.subprocess_bot caps it)."""
    why = "wrong protocol version" if isinstance(fault, BotVersionMismatch) else fault.reason
    place = f" {where}" if where else ""
    return SubmissionRejected(f"bot rejected: {why.replace('_', ' ')}{place}: {fault}")
