"""The registry of built-in bot kinds: name → factory, parameters and games played."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any

import pydantic
from pydantic import ConfigDict

from bots.base import Bot
from engines.errors import GameError, did_you_mean
from engines.registry import get_game


class UnknownBotError(GameError, KeyError):
    """No bot kind of that name plays the requested game, or a bad parameter."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown bot"


class BotParameterError(UnknownBotError, ValueError):
    """A parameter value the bot cannot use for the game it plays (e.g. a playout
    policy that game does not offer)."""


@pydantic.dataclasses.dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class SeedOnly:
    seed: int = pydantic.Field(default=0, description="base seed of the bot's own randomness")


@dataclasses.dataclass(frozen=True)
class ParamSpec:
    """One parameter of a bot kind, as listings show it."""

    name: str
    type: str
    default: Any
    description: str
    old_name: str | None = None


@dataclasses.dataclass(frozen=True)
class BotKind:
    """A kind of built-in bot.

    Attributes:
        name: what users type (``random``, ``greedy`` …).
        factory: builds a bot from the validated parameters as keyword arguments.
        description: one line for listings.
        games: the games it plays; None means every game.
        params_type: a frozen pydantic dataclass of the parameters, all defaulted.
        renamed: (old name, new name) of parameters renamed to one spelling across
            kinds (``time_limit`` → ``seconds``); the old name is still accepted
            (deprecated), so bots stored with it load.
    """

    name: str
    factory: Callable[..., Bot]
    description: str
    games: frozenset[str] | None = None
    params_type: type[Any] = SeedOnly
    renamed: tuple[tuple[str, str], ...] = ()

    def plays(self, game: str) -> bool:
        return self.games is None or game in self.games

    @functools.cached_property
    def _adapter(self) -> pydantic.TypeAdapter[Any]:
        return pydantic.TypeAdapter(self.params_type)

    def param_names(self) -> list[str]:
        return list(self._adapter.json_schema().get("properties", {}))

    def param_specs(self) -> list[ParamSpec]:
        """Every parameter: name, type, default and description, for listings."""
        schema = self._adapter.json_schema()
        old_names = {new: old for old, new in self.renamed}
        specs = []
        for name, field in schema.get("properties", {}).items():
            types = field.get("anyOf", [field])
            kind = " | ".join(
                "|".join(map(repr, t["enum"])) if "enum" in t else str(t.get("type", "any"))
                for t in types
            )
            specs.append(
                ParamSpec(
                    name,
                    kind.replace("null", "none"),
                    field.get("default"),
                    field.get("description", ""),
                    old_names.get(name),
                )
            )
        return specs

    def canonical_params(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """``params`` with renamed parameters under their current names.

        Raises:
            UnknownBotError: a parameter given under both its old and its new name.
        """
        renamed = dict(self.renamed)
        result: dict[str, Any] = {}
        for key, value in (params or {}).items():
            name = renamed.get(key, key)
            if name in result:
                raise UnknownBotError(
                    f"parameter {name!r} of bot {self.name!r} given twice ({key!r} is its old name)"
                )
            result[name] = value
        return result

    def validate_params(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """The parameters with defaults filled in, as JSON-able data, under their
        current names (:meth:`canonical_params`).

        Raises:
            UnknownBotError: an unknown parameter or a bad value, quoted.
        """
        raw = self.canonical_params(params)
        known = self.param_names()
        for key in raw:
            if key not in known:
                raise UnknownBotError(
                    f"unknown parameter {key!r} for bot {self.name!r} "
                    f"(known: {', '.join(known) or 'none'})"
                )
        try:
            validated = self._adapter.validate_python(raw)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise UnknownBotError(
                f"bad value {raw.get(where, first.get('input'))!r} for parameter {where!r} "
                f"of bot {self.name!r}: {first['msg']}"
            ) from None
        return dataclasses.asdict(validated)

    def create(self, params: Mapping[str, Any] | None = None) -> Bot:
        """A new bot of this kind. Raises UnknownBotError for bad parameters."""
        return self.factory(**self.validate_params(params))


_KINDS: dict[str, list[BotKind]] = {}


def register_bot_kind(kind: BotKind) -> BotKind:
    """Add a kind. Several kinds may share a name (``greedy``) when they play
    different games.

    Raises:
        ValueError: a kind of that name already plays one of the same games.
    """
    same_name = _KINDS.setdefault(kind.name, [])
    for other in same_name:
        if other.factory is kind.factory:
            return other  # the module was imported again
        if other.games is None or kind.games is None or other.games & kind.games:
            raise ValueError(f"two bot kinds named {kind.name!r} play the same game")
    same_name.append(kind)
    return kind


def all_bot_kinds(game: str | None = None) -> list[BotKind]:
    """Every kind (that plays ``game``, when given), sorted by name."""
    _load_builtin_bots()
    return [
        kind for name in sorted(_KINDS) for kind in _KINDS[name] if game is None or kind.plays(game)
    ]


def get_bot_kind(name: str, game: str) -> BotKind:
    """The kind ``name`` for ``game``.

    Raises:
        UnknownGameError: ``game`` is unknown.
        UnknownBotError: no such kind, or it does not play ``game``.
    """
    game_name = get_game(game).name
    _load_builtin_bots()
    kinds = _KINDS.get(name.strip().lower(), [])
    for kind in kinds:
        if kind.plays(game_name):
            return kind
    playable = [k.name for k in all_bot_kinds(game_name)]
    problem = "unknown bot" if not kinds else "bot that does not play " + game_name
    raise UnknownBotError(
        f"{problem}: {name!r} ({'' if kinds else did_you_mean(name, playable)}bots for "
        f"{game_name}: {', '.join(playable)})"
    )


def make_bot(name: str, game: str, params: Mapping[str, Any] | None = None) -> Bot:
    """A new built-in bot ``name`` for ``game``; raises UnknownBotError/UnknownGameError."""
    return get_bot_kind(name, game).create(params)


def parse_bot_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"kind:key=value,key=value"`` into the kind and its raw parameters.

    Raises:
        UnknownBotError: a parameter without ``=``.
    """
    kind, _, rest = spec.partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UnknownBotError(f"bad bot parameter {item!r} in {spec!r} (write key=value)")
        params[key.strip()] = value.strip()
    return kind.strip(), params


def _load_builtin_bots() -> None:
    import bots.builtin  # noqa: F401  (registers the built-in kinds)
