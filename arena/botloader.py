"""Turning a stored bot version into a playing :class:`~bots.base.Bot`.

Workers receive a :class:`BotSpec` (plain, picklable data holding the stored code),
never a path on the user's machine, so a tournament plays exactly the registered code
on any machine of a cluster.
"""

from __future__ import annotations

import ast
import hashlib
import json
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.errors import ArenaError
from bots.base import Bot, GameInfo
from bots.registry import make_bot
from engines.core import Action
from engines.outcome import Outcome

BUILTIN = "builtin"
PYTHON = "python"
COMMAND = "command"
KINDS = (BUILTIN, PYTHON, COMMAND)


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
        BotLoadError: a syntax error (with its line), or no / several candidate classes.
    """
    try:
        tree = ast.parse(code, filename=filename)
    except SyntaxError as exc:
        raise BotLoadError(f"{filename}: syntax error at line {exc.lineno}: {exc.msg}") from None
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


class ForeignBot(Bot):
    """Adapts a user's object that has ``act`` (and maybe the other hooks) to Bot."""

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__()
        self.inner = inner
        self.name = name

    def new_game(self, info: GameInfo) -> None:
        super().new_game(info)
        hook = getattr(self.inner, "new_game", None)
        if callable(hook):
            hook(info)

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        action: Action = self.inner.act(observation, legal_actions, time_left)
        return action

    def game_over(self, outcome: Outcome) -> None:
        hook = getattr(self.inner, "game_over", None)
        if callable(hook):
            hook(outcome)


def load_python_bot(spec: BotSpec, seed: int = 0) -> Bot:
    """Execute the stored code in a fresh module and instantiate its bot class.

    Raises:
        BotLoadError: the code fails to import or the class cannot be built.
    """
    source = spec.source
    module = types.ModuleType(f"arena_bot_{spec.bot_id}")
    module.__file__ = f"<{spec.label}>"
    try:
        exec(compile(source.code or "", module.__file__, "exec"), module.__dict__)
        cls = module.__dict__[source.entry]
    except KeyError:
        raise BotLoadError(f"bot {spec.label}: no class {source.entry!r} in its code") from None
    except Exception as exc:
        raise BotLoadError(f"bot {spec.label}: its code failed to load: {exc!r}") from None
    try:
        try:
            instance = cls(seed=seed)
        except TypeError:
            instance = cls()
    except Exception as exc:
        raise BotLoadError(f"bot {spec.label}: {source.entry}() raised {exc!r}") from None
    if isinstance(instance, Bot):
        instance.name = spec.label
        return instance
    if not callable(getattr(instance, "act", None)):
        raise BotLoadError(f"bot {spec.label}: class {source.entry!r} has no act() method")
    return ForeignBot(instance, spec.label)


def instantiate(spec: BotSpec) -> Bot:
    """A playing bot for ``spec``.

    Raises:
        BotLoadError: the stored bot cannot be loaded or run here.
    """
    source = spec.source
    if source.kind == BUILTIN:
        bot = make_bot(source.entry, spec.game, source.params)
    elif source.kind == PYTHON:
        bot = load_python_bot(spec, seed=int(source.params.get("seed", 0)))
    elif source.kind == COMMAND:
        raise BotLoadError(
            f"bot {spec.label}: command bots need the JSON-lines bot protocol, "
            "which this version cannot run yet"
        )
    else:
        raise BotLoadError(f"bot {spec.label}: unknown kind {source.kind!r}")
    bot.name = spec.label
    return bot
