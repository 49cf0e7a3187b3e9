"""The submission check, run in a child process so that the web server never parses,
imports or runs uploaded code.

The server sends the submission as JSON on the child's stdin
(``python -m arena.web.checker``); the child finds the Python bot's class (parsing the
code), runs :func:`arena.players.submission.check_submission` (which plays the bot's
sample games in the sandbox, as a tournament would) and answers one JSON object on
stdout: the stored entry and what the check saw (a summary, the move times and the
time-control classes they fit), or the rejection's message. A child that hangs is
killed after the check's own deadlines and time budget plus a margin. The texts of the answer quote
the bot: they are made storable (:func:`~arena.play.bot_text.bot_text`) as they come
back, so no lone surrogate or NUL character reaches a response or a row.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.play.bot_text import bot_text
from arena.players.loader import COMMAND, PYTHON, BotLoadError, BotSource, python_bot_class_name
from arena.players.sample_games import CHECK_BUDGET_SECONDS
from arena.players.sandbox import DEFAULT_LIMITS
from arena.players.submission import check_submission
from engines.errors import GameError

MARGIN_SECONDS = 30.0
OUTPUT_BYTES = 64 * 1024


class CheckFailed(ArenaError):
    """The check itself could not run (not the bot's fault): the child died or hung."""


@dataclass(frozen=True)
class Submission:
    """What the server hands the child."""

    kind: str  # python | command
    game: str
    name: str
    seconds: float
    code: str | None = None
    filename: str = "bot.py"
    class_name: str | None = None
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    command: str | None = None


@dataclass(frozen=True)
class Verdict:
    """The child's answer: ``source`` when the bot passed, else ``rejection``."""

    source: BotSource | None
    rejection: str | None = None
    summary: str | None = None
    warning: str | None = None
    times: dict[str, Any] | None = None
    """The bot's move times (``moves``, ``median``, ``p90``, ``max`` in seconds) and
    ``fits``: for each time-control class with a per-move limit, whether they fit it."""


def run_check(submission: Submission) -> Verdict:
    """Check ``submission`` in a child process.

    Raises:
        CheckFailed: the child did not answer (killed, timed out, crashed).
    """
    # The budget may run out just as a start-up or a move of at most `seconds` begins.
    deadline = CHECK_BUDGET_SECONDS + 2 * submission.seconds + MARGIN_SECONDS
    try:
        finished = subprocess.run(
            [sys.executable, "-m", "arena.web.checker"],
            input=json.dumps(dataclasses.asdict(submission)).encode("utf-8"),
            capture_output=True,
            timeout=deadline,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"the submission check did not finish in {deadline:g} s") from None
    try:
        answer = json.loads(finished.stdout[:OUTPUT_BYTES])
    except json.JSONDecodeError:
        stderr = finished.stderr.decode("utf-8", "replace").strip().splitlines()
        why = stderr[-1][:200] if stderr else f"exit code {finished.returncode}"
        raise CheckFailed(f"the submission check failed to run: {why}") from None
    if answer.get("rejection") is not None:
        return Verdict(None, rejection=bot_text(str(answer["rejection"])))
    source = answer["source"]
    summary, warning = answer.get("summary"), answer.get("warning")
    return Verdict(
        BotSource(source["kind"], source["entry"], source["params"], source["code"]),
        summary=None if summary is None else bot_text(summary),
        warning=None if warning is None else bot_text(warning),
        times=answer.get("times"),
    )


def check(submission: Submission) -> dict[str, Any]:
    """The child's work: the answer as JSON data (a rejection is an answer too)."""
    try:
        if submission.kind == PYTHON:
            code = submission.code or ""
            entry = python_bot_class_name(code, submission.filename, submission.class_name)
            source = BotSource(PYTHON, entry, submission.params, code)
        elif submission.kind == COMMAND:
            command = (submission.command or "").strip()
            source = BotSource(COMMAND, command, submission.params, submission.code)
        else:
            return {"rejection": f"unknown kind {submission.kind!r}"}
        limits = dataclasses.replace(
            DEFAULT_LIMITS, move_seconds=submission.seconds, startup_seconds=submission.seconds
        )
        result = check_submission(source, submission.game, label=submission.name, limits=limits)
    except (ArenaError, BotLoadError, GameError) as exc:
        return {"rejection": str(exc)}
    times = result.times
    return {
        "source": {
            "kind": source.kind,
            "entry": source.entry,
            "params": dict(source.params),
            "code": source.code,
        },
        "summary": "; ".join(result.describe()),
        "warning": result.warning,
        "times": {
            **dataclasses.asdict(times),
            "fits": {str(time_class): fits for time_class, fits in times.fits().items()},
        },
    }


def main() -> None:
    submission = Submission(**json.loads(sys.stdin.buffer.read()))
    sys.stdout.write(json.dumps(check(submission)))


if __name__ == "__main__":
    main()
