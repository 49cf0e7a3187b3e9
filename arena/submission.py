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
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from arena.botloader import BotLoadError, BotSource, BotSpec, instantiate
from arena.errors import ArenaError
from arena.sandbox import DEFAULT_LIMITS, SandboxLimits
from arena.subprocess_bot import (
    STDERR_MARKER,
    BotErrorReport,
    BotVersionMismatch,
    SubprocessBot,
    stderr_excerpt,
)
from bots.base import BotFault, GameInfo
from engines.registry import get_game

SAMPLE_SEED = 1
STDERR_IN_REJECTION = 1200


class SubmissionRejected(ArenaError):
    """The bot failed the submission check; the message gives the reason."""


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
            raise _rejected(fault, bot.last_stderr) from None
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
            raise _rejected(fault, bot.last_stderr) from None
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


def _rejected(fault: BotFault, stderr: bytes) -> SubmissionRejected:
    why = "wrong protocol version" if isinstance(fault, BotVersionMismatch) else fault.reason
    # The stderr's first lines often hold the cause: quote more than a forfeit does.
    message = str(fault).partition(STDERR_MARKER)[0]
    excerpt = stderr_excerpt(stderr, STDERR_IN_REJECTION)
    if excerpt:
        message += STDERR_MARKER + excerpt
    return SubmissionRejected(f"bot rejected: {why.replace('_', ' ')}: {message}")
