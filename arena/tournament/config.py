"""Tournament configuration: a TOML file and/or command-line flags, validated by pydantic.

See ``configs/*.toml`` for commented examples. Every error names the file, the field
and the bad value; nothing is written to the database before the whole configuration
(bots included) is valid. Numbers must be finite.

A configuration queued over the web must also keep within the server's
:class:`ConfigCaps` (:func:`check_caps`): games, bots, workers, time limits, adaptive
budgets and SPRT bounds, numeric game options and built-in bots' parameters.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field, model_validator

from arena.errors import ArenaError, ConfigError
from arena.ratings.sprt import MAX_ELO as MAX_SPRT_ELO
from arena.settings import require_positive
from arena.tournament.formats import FORMATS as TOURNAMENT_FORMATS
from arena.tournament.formats import tournament_format
from bots.registry import BotKind, UnknownBotError, get_bot_kind, parse_bot_spec
from engines.errors import GameError, OptionError, did_you_mean, short_repr
from engines.registry import get_game
from engines.seeding import MAX_SEED

FORMATS = tuple(TOURNAMENT_FORMATS)
Format = Literal["round-robin", "gauntlet", "elo", "sprt", "solitaire", "ladder"]
"""The names of :data:`arena.tournament.formats.FORMATS` (a test keeps them equal)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


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
    deals: str | list[dict[str, Any]] | None = Field(
        default=None,
        description="a deal file (JSON lines, `arena deals make`): the deals to play; the "
        "file is read when the tournament is created and its deals are stored with it",
    )
    deal_order: Literal["sequential", "random"] = Field(
        default="sequential",
        description="sequential: round r plays deal r (wrapping around); random: drawn "
        "from the seed",
    )
    time_per_move: float | None = Field(default=None, gt=0)
    time_per_game: float | None = Field(default=None, gt=0)
    each: str | None = Field(
        default=None,
        description="every bot's time control, as cutechess's -each: 'tc=60+0.5' (a game "
        "clock with increment), 'st=1' (per move) or both; instead of time_per_*",
    )
    time_controls: dict[str, str] = Field(
        default_factory=dict,
        description="a bot's own time control, by its reference in bots/candidates/"
        "opponents (also written there after a space: 'mine@2 tc=5+0.1')",
    )
    max_crash_rate: float = Field(
        default=0.25, ge=0.0, le=1.0, description="suspend a bot above this forfeit-by-crash rate"
    )
    executor: Literal["auto", "processes", "ray", "local"] = Field(
        default="auto",
        description="auto: play here, or in worker processes when they pay for their start "
        "(Ray with a ray_address); processes, ray or local force one",
    )
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

    @model_validator(mode="before")
    @classmethod
    def _time_controls_of_bots(cls, data: Any) -> Any:
        """A participant written with its time control, ``"mine@2 tc=5+0.1"``, is the
        bot ``mine@2`` with that entry in ``time_controls``."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        controls = dict(data.get("time_controls") or {})
        for key in ("bots", "candidates", "opponents"):
            entries = data.get(key)
            if not isinstance(entries, list):
                continue
            references = []
            for entry in entries:
                reference, _, control = str(entry).strip().partition(" ")
                if control.strip():
                    if controls.get(reference, control.strip()) != control.strip():
                        raise ValueError(f"two time controls for the bot {reference!r}")
                    controls[reference] = control.strip()
                references.append(reference if isinstance(entry, str) else entry)
            data[key] = references
        if controls:
            data["time_controls"] = controls
        return data

    @model_validator(mode="after")
    def _consistent(self) -> TournamentConfig:
        try:
            game = get_game(self.game)
            seats = game.check_seats(self.seats if self.seats is not None else game.default_seats)
            game.parse_options(self.options)
        except GameError as exc:
            raise ValueError(str(exc)) from None
        tournament_format(self.format).check(self, game.name, seats)
        self._check_deals(game, seats)
        everyone = self.bots + self.candidates + self.opponents
        self._check_time_controls(everyone)
        duplicates = sorted({b for b in everyone if everyone.count(b) > 1})
        if duplicates:
            raise ValueError(f"bots listed twice: {', '.join(duplicates)}")
        return self

    def _check_time_controls(self, everyone: list[str]) -> None:
        """Raises ValueError for a bad time control, ``each`` beside ``time_per_*``, or
        a time control of a bot that does not take part."""
        from arena.play.time_control import TimeControlError, config_time_controls

        if self.each is not None and (self.time_per_move or self.time_per_game):
            raise ValueError(
                "'each' is the time control of every bot: give it or time_per_move / "
                "time_per_game, not both"
            )
        strangers = sorted(set(self.time_controls) - set(everyone))
        if strangers:
            raise ValueError(
                f"time control for {strangers[0]!r}, which does not take part "
                f"(bots: {', '.join(everyone)})"
            )
        try:
            config_time_controls(self.model_dump())
        except TimeControlError as exc:
            raise ValueError(str(exc)) from None

    def _check_deals(self, game: Any, seats: int) -> None:
        """Raises ValueError for a deal file not read yet or a deal the game refuses."""
        from arena.play.deals import MAX_DEALS, check_deal

        if isinstance(self.deals, str):
            raise ValueError(
                "'deals' names a file, which only a configuration file or the command line "
                "may name; give the deals themselves (a list of deal objects)"
            )
        if self.deals is None:
            return
        if not 1 <= len(self.deals) <= MAX_DEALS:
            raise ValueError(f"'deals' holds 1 to {MAX_DEALS} deals, got {len(self.deals)}")
        for number, deal in enumerate(self.deals, start=1):
            try:
                check_deal(game, deal, seats=seats, options=self.options)
            except GameError as exc:
                raise ValueError(f"deal {number} of 'deals': {exc}") from None

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
        fields = list(TournamentConfig.model_fields)
        close = did_you_mean(location, fields)
        return f"{source}: unknown field {location!r} ({close}fields: {', '.join(fields)})"
    if not location:
        return f"{source}: {message}"
    if first["type"] == "missing":
        return f"{source}: field {location!r}: {message}"
    given = first.get("input")
    got = f"got {short_repr(given)}"
    if first["type"] in ("literal_error", "enum") and isinstance(given, str):
        expected = re.findall(r"'([^']*)'", str(first.get("ctx", {}).get("expected", "")))
        if close := did_you_mean(given, expected):
            got += f"; {close.rstrip()}"
    return f"{source}: field {location!r}: {message} ({got})"


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
        from arena.play.options import resolve_file_options

        try:
            data["options"] = resolve_file_options(
                game, data["options"], path.parent if path is not None else None
            )
        except (ArenaError, OptionError) as exc:
            raise ConfigError(f"{source}: field 'options': {exc}") from None
        except GameError:
            pass  # an unknown game: validation below names it
    if isinstance(data.get("deals"), str | Path) and isinstance(game, str):
        data["deals"] = _read_deals(data, Path(data["deals"]), path, source)
    return validate_config(data, source)


def _read_deals(
    data: Mapping[str, Any], deals: Path, config_file: Path | None, source: str
) -> list[dict[str, Any]] | str:
    """The deals of the file ``deals`` names (relative to the configuration file).

    Raises:
        ConfigError: the file cannot be read or holds a bad deal (file and line named).
    """
    from arena.play.deals import DealFileError, read_deal_file

    try:
        game = get_game(str(data["game"]))
        seats = data.get("seats")
        seats = game.check_seats(seats if isinstance(seats, int) else game.default_seats)
        options = game.parse_options(data.get("options"))
    except GameError:
        return str(deals)  # validation names the game, seats or options
    path = deals.expanduser()
    if config_file is not None and not path.is_absolute():
        path = config_file.parent / path
    try:
        return read_deal_file(path, game, seats=seats, options=options)
    except DealFileError as exc:
        raise ConfigError(f"{source}: field 'deals': {exc}") from None


# -- caps on configurations from the web ------------------------------------------------


@dataclass(frozen=True)
class ConfigCaps:
    """The largest values a configuration queued over the web may ask for; the
    operator sets them (``arena serve --settings FILE``, docs/web.md).

    Attributes:
        bots: participants (bots, candidates and opponents together).
        games_per_table: ``games``, per pairing or table (deals in solitaire).
        scheduled_games: games the whole tournament may schedule (adaptive budgets too).
        batch: games per batch of the ``elo`` and ``sprt`` formats.
        workers: ``workers``.
        seconds_per_move: ``time_per_move`` and a built-in bot's ``seconds`` (per
            move or per game of its own search; ``time_limit``, its old name, too).
        seconds_per_game: ``time_per_game``.
        option_number: any numeric game option (``move_cap`` …).
        bot_iterations: a built-in bot's ``iterations``.
        bot_number: any other numeric parameter of a built-in bot (``node_limit``,
            ``patience``, ``depth``, ``exploration``, ``margin`` …); seeds have 63 bits.
    """

    bots: int = 32
    games_per_table: int = 10_000
    scheduled_games: int = 100_000
    batch: int = 1_000
    workers: int = 16
    seconds_per_move: float = 60.0
    seconds_per_game: float = 3_600.0
    option_number: float = 100_000.0
    bot_iterations: int = 100_000
    bot_number: float = 10_000_000.0

    __pydantic_config__ = ConfigDict(extra="forbid", allow_inf_nan=False)

    def __post_init__(self) -> None:
        require_positive(self)


BOT_SECONDS_PARAMS = frozenset({"seconds", "time_limit"})  # time_limit: seconds' old name


def check_caps(config: TournamentConfig, caps: ConfigCaps) -> None:
    """Raises ConfigError, naming the field, the value and the cap, for the first
    setting of ``config`` over ``caps``."""

    def at_most(field: str, value: float | None, cap: float) -> None:
        if value is not None and abs(value) > cap:
            raise ConfigError(f"field {field!r}: at most {cap:g} over the web (got {value!r})")

    participants = len(config.bots) + len(config.candidates) + len(config.opponents)
    if participants > caps.bots:
        raise ConfigError(
            f"at most {caps.bots} bots per tournament over the web, got {participants}"
        )
    at_most("games", config.games, caps.games_per_table)
    at_most("workers", config.workers, caps.workers)
    at_most("time_per_move", config.time_per_move, caps.seconds_per_move)
    at_most("time_per_game", config.time_per_game, caps.seconds_per_game)
    _check_time_caps(config, caps)
    at_most("deals", len(config.deals or ()), caps.games_per_table)
    at_most("elo.batch", config.elo.batch, caps.batch)
    at_most("sprt.batch", config.sprt.batch, caps.batch)
    for name, value in config.options.items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            at_most(f"options.{name}", value, caps.option_number)
    planned = tournament_format(config.format).planned_games(config)
    if planned > caps.scheduled_games:
        raise ConfigError(
            f"this configuration schedules up to {planned} games; at most "
            f"{caps.scheduled_games} over the web (lower 'games' or the budget)"
        )
    for field in ("bots", "candidates", "opponents"):
        for reference in getattr(config, field):
            check_reference_caps(field, reference, config.game, caps)


def check_reference_caps(field: str, reference: str, game: str, caps: ConfigCaps) -> None:
    """Raises ConfigError, naming ``field``, for a reference to a built-in bot with
    parameters (``mcts:iterations=500``) whose kind is unknown or whose parameters are
    bad or over ``caps``; any other reference (``NAME@V``, a kind alone) passes."""
    if ":" not in reference:
        return
    try:
        kind_name, given = parse_bot_spec(reference)
        kind = get_bot_kind(kind_name, game)
    except UnknownBotError as exc:
        raise ConfigError(f"field {field!r}: {exc}") from None
    check_bot_caps(f"field {field!r}: {reference!r:.80}", kind, given, caps)


def check_bot_caps(where: str, kind: BotKind, given: Mapping[str, Any], caps: ConfigCaps) -> None:
    """Raises ConfigError, starting with ``where`` and naming the parameter, the cap
    and the value, for the first of ``given`` (parameters of the built-in ``kind``, as
    written or as stored) that is not a valid value or is over ``caps``."""
    try:
        params = kind.validate_params(given)
    except UnknownBotError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    for name in given:
        value = params[dict(kind.renamed).get(name, name)]
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue
        if not math.isfinite(value):
            raise ConfigError(
                f"{where}: parameter {name!r} must be a finite number (got {value!r})"
            )
        if name == "seed":
            cap: float = MAX_SEED
        elif name == "iterations":
            cap = caps.bot_iterations
        elif name in BOT_SECONDS_PARAMS:
            cap = caps.seconds_per_move
        else:
            cap = caps.bot_number
        if abs(value) > cap:
            raise ConfigError(
                f"{where}: parameter {name!r}: at most {cap:g} over the web (got {value!r})"
            )


def _check_time_caps(config: TournamentConfig, caps: ConfigCaps) -> None:
    """Every time control (``each``, each bot's) against the caps on time."""
    from arena.play.time_control import CLOCK_INCREMENTS, config_time_controls

    for reference, control in config_time_controls(config.model_dump()).items():
        where = "each" if reference is None else f"time_controls.{reference}"
        per_game = control.per_game
        if per_game is not None and control.increment:
            per_game += CLOCK_INCREMENTS * control.increment  # a long game's clock
        for value, cap, what in (
            (control.per_move, caps.seconds_per_move, "st"),
            (per_game, caps.seconds_per_game, f"tc (with {CLOCK_INCREMENTS} increments)"),
        ):
            if value is not None and value > cap:
                raise ConfigError(
                    f"field {where!r}: {what} at most {cap:g} s over the web (got {value:g})"
                )
