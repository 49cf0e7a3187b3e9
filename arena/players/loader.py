"""Turning a stored bot version into a playing :class:`~bots.base.Bot`.

Workers receive a :class:`BotSpec` (plain, picklable data holding the stored code),
never a path on the user's machine, so a tournament plays exactly the registered code
on any machine of a cluster.
"""

from __future__ import annotations

import ast
import hashlib
import json
import shlex
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bots.sdk.runtime
from arena.errors import ArenaError
from arena.play.runner import TimeControl
from arena.players.sandbox import DEFAULT_LIMITS, SandboxLimits
from arena.players.subprocess_bot import UNTIMED, SubprocessBot
from bots.base import Bot
from bots.registry import make_bot

BUILTIN = "builtin"
PYTHON = "python"
COMMAND = "command"
KINDS = (BUILTIN, PYTHON, COMMAND)
HUMAN = "human"
"""A person playing in the browser (arena/web/humans.py): stored like a bot version so
its games count like any other, but never run by a tournament."""


class BotLoadError(ArenaError):
    """Stored bot code that cannot be loaded (syntax error, missing class …)."""


@dataclass(frozen=True)
class BotSource:
    """What defines a bot version: its kind, entry, parameters and code."""

    kind: str
    entry: str
    params: Mapping[str, Any] = field(default_factory=dict)
    code: str | None = None

    @property
    def code_hash(self) -> str:
        canonical = json.dumps(
            {
                "kind": self.kind,
                "entry": self.entry,
                "params": dict(self.params),
                "code": self.code,
            },
            sort_keys=True,
        )
        return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class BotSpec:
    """A bot version as shipped to workers."""

    bot_id: int
    label: str
    game: str
    source: BotSource


def python_bot_class_name(code: str, filename: str, wanted: str | None) -> str:
    """The name of the bot class in ``code``: ``wanted``, or the only class with ``act``.

    Raises:
        BotLoadError: a syntax error (with its line), code nested too deeply or an
            expression too long for Python's parser, or no / several candidate classes.
    """
    try:
        tree = ast.parse(code, filename=filename)
    except SyntaxError as exc:
        where = "" if exc.lineno is None else f" at line {exc.lineno}"
        raise BotLoadError(f"{filename}: syntax error{where}: {exc.msg}") from None
    except (RecursionError, MemoryError) as exc:
        # Python's parser gives up on deep nesting (MemoryError: its stack is full) and
        # on long chains of operators (RecursionError while it builds the tree).
        raise BotLoadError(
            f"{filename}: the code is nested too deeply or an expression is too long for "
            f"Python to parse ({type(exc).__name__}: {str(exc) or 'parser stack full'}): "
            "split it into smaller expressions"
        ) from None
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    with_act = [
        name
        for name, node in classes.items()
        if any(isinstance(item, ast.FunctionDef) and item.name == "act" for item in node.body)
        or any(isinstance(base, ast.Name) and base.id == "Bot" for base in node.bases)
    ]
    if wanted is not None:
        if wanted not in classes:
            raise BotLoadError(
                f"{filename}: no class {wanted!r} (classes: {', '.join(classes) or 'none'})"
            )
        return wanted
    if len(with_act) != 1:
        found = ", ".join(with_act) or "none"
        raise BotLoadError(
            f"{filename}: name the bot class as FILE:Class (classes with act(): {found})"
        )
    return with_act[0]


SDK_RUNTIME = Path(bots.sdk.runtime.__file__).resolve()
PYTHON_BOT_PATH = ":".join(
    dict.fromkeys(
        [
            str(SDK_RUNTIME.parents[2]),
            sysconfig.get_paths()["purelib"],
            sysconfig.get_paths()["platlib"],
        ]
    )
)
"""A Python bot's PYTHONPATH: the directory holding ``bots`` and ``engines`` (so a
class derived from ``bots.base.Bot`` can import them) and the arena's packages. The
interpreter runs with ``-S``: no ``site`` processing, which halves its start-up."""


def subprocess_bot(
    spec: BotSpec,
    *,
    time_control: TimeControl = UNTIMED,
    limits: SandboxLimits = DEFAULT_LIMITS,
) -> SubprocessBot:
    """The sandboxed process bot for a ``python`` or ``command`` spec.

    A Python bot's stored code (never the user's file) is written into the sandbox
    and run by the SDK, which gives its parameters to the bot's constructor; every
    bot also finds them in the ``new_game`` message (docs/protocol.md); a command is
    split like a shell would (no shell runs it), and the files it was stored with (an
    uploaded archive) are written into the sandbox.

    Raises:
        BotLoadError: a command that cannot be split into words, or another kind.
    """
    source = spec.source
    if source.kind == PYTHON:
        seed = int(source.params.get("seed", 0))
        argv = [sys.executable, "-S", str(SDK_RUNTIME), "--seed", str(seed)]
        others = {key: value for key, value in source.params.items() if key != "seed"}
        if others:
            argv += ["--params", json.dumps(others, sort_keys=True)]
        target = f"{{code}}/bot.py:{source.entry}"
        return SubprocessBot(
            [*argv, target],
            warm_argv=[*argv[:3], bots.sdk.runtime.ZYGOTE, *argv[3:], target],
            name=spec.label,
            files={"bot.py": source.code or ""},
            env={"PYTHONPATH": PYTHON_BOT_PATH, "PYTHONDONTWRITEBYTECODE": "1"},
            params=source.params,
            time_control=time_control,
            limits=limits,
        )
    if source.kind == COMMAND:
        try:
            argv = shlex.split(source.entry)
        except ValueError as exc:
            raise BotLoadError(f"bot {spec.label}: bad command {source.entry!r}: {exc}") from None
        return SubprocessBot(
            argv,
            name=spec.label,
            files=command_files(source.code),
            params=source.params,
            time_control=time_control,
            limits=limits,
        )
    raise BotLoadError(f"bot {spec.label}: kind {source.kind!r} does not run as a process")


def bundle_files(files: Mapping[str, str]) -> str:
    """The stored code of a ``command`` bot that brings files (an uploaded archive):
    ``{relative path: text}`` as canonical JSON, so equal files hash equally."""
    return json.dumps(dict(files), sort_keys=True, ensure_ascii=False)


def command_files(code: str | None) -> dict[str, str]:
    """The files a ``command`` bot's stored code holds (see :func:`bundle_files`); the
    sandbox writes them into the bot's code directory, ``{code}`` in the command."""
    return {} if not code else {str(k): str(v) for k, v in json.loads(code).items()}


def instantiate(
    spec: BotSpec,
    *,
    time_control: TimeControl = UNTIMED,
    limits: SandboxLimits = DEFAULT_LIMITS,
) -> Bot:
    """A playing bot for ``spec``: built-in bots run in this process (trusted),
    submitted ones (``python``, ``command``) in the sandbox, one process per game.

    ``time_control`` (the tournament's) sets the sandbox's per-move deadline and game
    budget; ``limits`` fill in what it leaves open.

    Raises:
        BotLoadError: the stored bot cannot be loaded or run here.
    """
    source = spec.source
    if source.kind == BUILTIN:
        bot: Bot = make_bot(source.entry, spec.game, source.params)
    elif source.kind in (PYTHON, COMMAND):
        bot = subprocess_bot(spec, time_control=time_control, limits=limits)
    else:
        raise BotLoadError(f"bot {spec.label}: unknown kind {source.kind!r}")
    bot.name = spec.label
    return bot
