"""Tournament configuration: a TOML file and/or command-line flags, validated by pydantic.

See ``configs/*.toml`` for commented examples. Every error names the file, the field
and the bad value; nothing is written to the database before the whole configuration
(bots included) is valid.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field, model_validator

from arena.errors import ArenaError, ConfigError
from arena.ratings.sprt import MAX_ELO as MAX_SPRT_ELO
from engines.errors import GameError, OptionError
from engines.registry import get_game

FORMATS = ("round-robin", "gauntlet", "elo", "sprt", "solitaire")
Format = Literal["round-robin", "gauntlet", "elo", "sprt", "solitaire"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EloSettings(_Strict):
    """The adaptive ``elo`` format: batches until neighbours are separated."""

    batch: int = Field(default=100, ge=2, description="games per scheduling batch")
    max_games: int = Field(default=10_000, ge=2, description="the game budget")
    confidence: float = Field(default=0.95, gt=0.5, lt=1.0)


class SprtSettings(_Strict):
    """The ``sprt`` format: two bots until the SPRT accepts H0 or H1."""

    elo0: float = Field(
        default=0.0,
        ge=-MAX_SPRT_ELO,
        le=MAX_SPRT_ELO,
        description="H0: the Elo difference is elo0 (normalised)",
    )
    elo1: float = Field(
        default=5.0,
        ge=-MAX_SPRT_ELO,
        le=MAX_SPRT_ELO,
        description="H1: the Elo difference is elo1 (normalised)",
    )
    alpha: float = Field(default=0.05, gt=0.0, lt=0.5)
    beta: float = Field(default=0.05, gt=0.0, lt=0.5)
    batch: int = Field(default=100, ge=2)
    max_games: int = Field(default=20_000, ge=2)

    @model_validator(mode="after")
    def _bounds_ordered(self) -> SprtSettings:
        if self.elo1 <= self.elo0:
            raise ValueError(f"elo1 ({self.elo1}) must be greater than elo0 ({self.elo0})")
        return self


class TournamentConfig(_Strict):
    """Everything that defines a tournament."""

    name: str | None = Field(default=None, description="a label for listings")
    game: str
    format: Format = "round-robin"
    bots: list[str] = Field(
        default_factory=list, description="participants: NAME, NAME@V or a built-in kind"
    )
    candidates: list[str] = Field(default_factory=list, description="gauntlet: the bots under test")
    opponents: list[str] = Field(default_factory=list, description="gauntlet: the field they meet")
    games: int = Field(default=100, ge=1, description="games per pairing/table; deals in solitaire")
    seats: int | None = Field(default=None, description="seats per game (default: the game's)")
    seed: int = Field(default=1, ge=0, lt=2**63)
    options: dict[str, Any] = Field(default_factory=dict, description="game options")
    time_per_move: float | None = Field(default=None, gt=0)
    time_per_game: float | None = Field(default=None, gt=0)
    max_crash_rate: float = Field(
        default=0.25, ge=0.0, le=1.0, description="suspend a bot above this forfeit-by-crash rate"
    )
    executor: Literal["ray", "local"] = "ray"
    workers: int | None = Field(default=None, ge=1)
    ray_address: str | None = None
    elo: EloSettings = EloSettings()
    sprt: SprtSettings = SprtSettings()

    @model_validator(mode="before")
    @classmethod
    def _type_is_format(cls, data: Any) -> Any:
        """``type`` is a synonym of ``format``, the tournament's type."""
        if isinstance(data, dict) and "type" in data:
            data = dict(data)
            kind = data.pop("type")
            if "format" in data and data["format"] != kind:
                raise ValueError(
                    f"'type' ({kind!r}) and 'format' ({data['format']!r}) are the same "
                    "setting, the tournament's type: give one"
                )
            data["format"] = kind
        return data

    @model_validator(mode="after")
    def _consistent(self) -> TournamentConfig:
        try:
            game = get_game(self.game)
            seats = game.check_seats(self.seats if self.seats is not None else game.default_seats)
            game.parse_options(self.options)
        except GameError as exc:
            raise ValueError(str(exc)) from None
        if self.format == "gauntlet":
            if not self.candidates or not self.opponents:
                raise ValueError("a gauntlet needs 'candidates' and 'opponents'")
            if len(self.opponents) < seats - 1:
                raise ValueError(f"a {seats}-seat gauntlet needs at least {seats - 1} opponents")
            if self.bots:
                raise ValueError("a gauntlet takes 'candidates' and 'opponents', not 'bots'")
        elif self.candidates or self.opponents:
            raise ValueError(f"'candidates'/'opponents' belong to a gauntlet, not {self.format}")
        if self.format == "solitaire":
            if seats != 1:
                raise ValueError(f"the solitaire format needs a one-player game, not {game.name}")
            if not self.bots:
                raise ValueError("a solitaire tournament needs at least one bot")
        elif seats == 1:
            raise ValueError(f'{game.name} is a one-player game: use format = "solitaire"')
        if self.format == "sprt":
            if len(self.bots) != 2:
                raise ValueError(f"sprt compares exactly 2 bots, got {len(self.bots)}")
            if seats != 2:
                raise ValueError("sprt needs two seats (set seats = 2 if the game allows it)")
        if self.format in ("round-robin", "elo") and len(self.bots) < max(2, seats):
            raise ValueError(
                f"a {self.format} of {seats}-seat games needs at least {max(2, seats)} bots, "
                f"got {len(self.bots)}"
            )
        everyone = self.bots + self.candidates + self.opponents
        duplicates = sorted({b for b in everyone if everyone.count(b) > 1})
        if duplicates:
            raise ValueError(f"bots listed twice: {', '.join(duplicates)}")
        return self

    @property
    def seat_count(self) -> int:
        game = get_game(self.game)
        return self.seats if self.seats is not None else game.default_seats

    @property
    def label(self) -> str:
        return self.name or f"{self.game} {self.format}"


def _format_error(source: str, exc: pydantic.ValidationError, data: Mapping[str, Any]) -> str:
    first = exc.errors()[0]
    location = ".".join(str(part) for part in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        fields = ", ".join(TournamentConfig.model_fields)
        return f"{source}: unknown field {location!r} (fields: {fields})"
    if not location:
        return f"{source}: {message}"
    return f"{source}: field {location!r}: {message} (got {first.get('input')!r})"


def validate_config(data: Mapping[str, Any], source: str = "config") -> TournamentConfig:
    """Validate configuration data.

    Raises:
        ConfigError: the first problem, naming ``source``, the field and the value.
    """
    try:
        return TournamentConfig.model_validate(dict(data))
    except pydantic.ValidationError as exc:
        raise ConfigError(_format_error(source, exc, data)) from None


def read_config_file(path: Path) -> dict[str, Any]:
    """The raw data of a TOML configuration file.

    Raises:
        ConfigError: the file is missing, unreadable or not valid TOML.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{str(path)!r} is not UTF-8 text") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{str(path)!r} is not valid TOML: {exc}") from None


def config_source(path: Path | None) -> str:
    """How errors name where a configuration came from."""
    return repr(str(path)) if path is not None else "command line"


def load_config(path: Path | None, overrides: Mapping[str, Any]) -> TournamentConfig:
    """The file's configuration (if any) with ``overrides`` (flags) on top.

    Raises:
        ConfigError: see :func:`read_config_file` and :func:`validate_config`.
    """
    data = read_config_file(path) if path is not None else {}
    if overrides.get("format") is not None:
        data.pop("type", None)  # the file's synonym, overridden
    data.update({key: value for key, value in overrides.items() if value is not None})
    source = config_source(path)
    game = data.get("game")
    if isinstance(game, str) and isinstance(data.get("options"), dict):
        from arena.options import resolve_file_options

        try:
            data["options"] = resolve_file_options(
                game, data["options"], path.parent if path is not None else None
            )
        except (ArenaError, OptionError) as exc:
            raise ConfigError(f"{source}: field 'options': {exc}") from None
        except GameError:
            pass  # an unknown game: validation below names it
    return validate_config(data, source)
