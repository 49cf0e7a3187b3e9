"""The game abstraction every engine implements.

A :class:`Game` describes a game up front (seat counts, information, chance, options,
the longest possible game) and makes states. A :class:`State` is one position: its
legal actions, a checked :meth:`State.apply_action` for untrusted input and an
unchecked :meth:`State.apply_unchecked` for search, the per-seat observation, clone,
and the :class:`~engines.outcome.Outcome` once it is over.

Chance happens only at the deal: ``new_initial_state(seed=…)`` shuffles with a
``random.Random(seed)`` of its own and hands the result to ``state_from_deal``. The
deal is JSON data and goes into every record, so a game replays from its record
alone, without trusting the random-number generator to stay the same.

Actions are small hashable values whose ``str`` is their canonical text, and
``game.parse_action(str(a)) == a`` for every action ``a``.

``Game`` and ``State`` are generic over a game's action type and options type: a game
declares ``class KoenigsgartenState(State[Card, KoenigsgartenOptions])``, so its
``legal_actions``, ``_apply`` and ``options`` carry its own types. Code written for
every game says plain ``State`` or ``Game``, which is ``State[Any, Any]``: the type
parameters default to ``Any`` (PEP 696), since one function handles states of
different games.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, Self, cast

import pydantic
from typing_extensions import TypeVar

from engines.errors import (
    GameOverError,
    IllegalActionError,
    InvalidActionError,
    InvalidStateError,
    OptionError,
    SeatCountError,
    did_you_mean,
    short_repr,
)
from engines.match import SINGLE_FORMAT, TWO_PLAYER_FORMATS, MatchSpec, parse_match_spec
from engines.outcome import Outcome

TERMINAL = -1
"""``State.current_seat`` of a finished game."""

JSON = dict[str, Any]


class Action(Hashable, Protocol):
    """An action: hashable, and ``str(action)`` is its canonical text."""

    def __str__(self) -> str: ...


ActionT = TypeVar("ActionT", bound=Action, default=Any)
"""A game's action type (``Card`` for Königsgarten)."""
OptionsT = TypeVar("OptionsT", default=Any)
"""A game's options type: its frozen pydantic dataclass."""


@dataclasses.dataclass(frozen=True)
class OptionSpec:
    """One option of a game, for listings and help."""

    name: str
    kind: str
    default: Any
    help: str


def _schema_type(schema: Mapping[str, Any]) -> str:
    """A short name for a JSON-schema alternative: its type, constant or referenced model."""
    if "type" in schema:
        return str(schema["type"])
    if "const" in schema:
        return json.dumps(schema["const"])
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    return "value"


class Game(ABC, Generic[ActionT, OptionsT]):
    """A game: its facets, its options and a factory of states.

    Subclasses set the class attributes and implement the abstract methods; one
    instance per game is registered with :func:`engines.registry.register`.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    default_seats: ClassVar[int]
    perfect_information: ClassVar[bool]
    has_chance: ClassVar[bool]
    options_type: ClassVar[type[Any]]
    """A frozen pydantic dataclass with a default for every field (``extra="forbid"``)."""

    # -- options and seats ------------------------------------------------------

    @functools.cached_property
    def _options_adapter(self) -> pydantic.TypeAdapter[Any]:
        return pydantic.TypeAdapter(self.options_type)

    @functools.cached_property
    def _option_names(self) -> frozenset[str]:
        return frozenset(spec.name for spec in self.option_specs())

    def parse_options(self, raw: Mapping[str, Any] | OptionsT | None = None) -> OptionsT:
        """Validate options given as a mapping (values may be text from a command line).

        An ``options_type`` instance passes through unchanged.

        Raises:
            OptionError: an unknown option or a bad value; the message names both.
        """
        if isinstance(raw, self.options_type):
            parsed: OptionsT = raw
            return parsed
        given: dict[str, Any] = dict(cast(Mapping[str, Any], raw or {}))
        known = self._option_names
        for key in given:
            if key not in known:
                listing = ", ".join(sorted(known)) or "none"
                raise OptionError(
                    f"unknown option {key!r} for {self.name} "
                    f"({did_you_mean(str(key), known)}known: {listing})"
                )
        try:
            validated: OptionsT = self._options_adapter.validate_python(given)
            return validated
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "options"
            # The option's own value, or the part of it that is bad (one card of a deck);
            # a whole mapping or list (a deck) is no use in a one-line message.
            location = first["loc"]
            if len(location) > 1:
                value = first.get("input")
            else:
                value = given.get(str(location[0]), first.get("input")) if location else given
            shown = "" if isinstance(value, Mapping | list | tuple) else f" {short_repr(value)}"
            message = str(first["msg"]).removeprefix("Value error, ")
            raise OptionError(
                f"bad value{shown} for option {where!r} of {self.name}: {message}"
            ) from None

    def options_to_dict(self, options: Mapping[str, Any] | OptionsT | None) -> JSON:
        """The options as JSON data (what records store)."""
        data: JSON = json.loads(self._options_adapter.dump_json(self.parse_options(options)))
        return data

    def option_specs(self) -> list[OptionSpec]:
        """Every option with its type, default and help text."""
        schema = self._options_adapter.json_schema()
        specs = []
        for name, prop in schema.get("properties", {}).items():
            if "enum" in prop:
                kind = " | ".join(json.dumps(v) for v in prop["enum"])
            elif "anyOf" in prop:
                kind = " | ".join(_schema_type(p) for p in prop["anyOf"])
            else:
                kind = str(prop.get("type", "value"))
            specs.append(OptionSpec(name, kind, prop.get("default"), prop.get("description", "")))
        return specs

    def variants(self) -> dict[str, OptionsT]:
        """The named option sets the game is played with: the defaults first (under
        ``standard``, or the rule text's name for them), then each variant the rule
        text or the rulings name. The conformance suite plays every one of them."""
        return {"standard": self.parse_options()}

    def check_seats(self, seats: int) -> int:
        """Return ``seats`` if the game allows it; raises SeatCountError otherwise."""
        if not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            allowed = (
                str(self.min_seats)
                if self.min_seats == self.max_seats
                else f"{self.min_seats}–{self.max_seats}"
            )
            raise SeatCountError(f"{self.name} is played by {allowed} seats, not {seats!r}")
        return seats

    @property
    def seat_counts(self) -> range:
        return range(self.min_seats, self.max_seats + 1)

    # -- states -------------------------------------------------------------------

    def new_initial_state(
        self,
        *,
        seed: int,
        seats: int | None = None,
        options: Mapping[str, Any] | OptionsT | None = None,
    ) -> State[ActionT, OptionsT]:
        """A fresh game whose deal is shuffled from ``seed`` alone.

        Raises:
            SeatCountError, OptionError: bad seat count or options.
        """
        seats = self.check_seats(self.default_seats if seats is None else seats)
        parsed = self.parse_options(options)
        deal = self.random_deal(seats, parsed, random.Random(seed))
        state = self.state_from_deal(deal, seats=seats, options=parsed)
        state.seed = seed
        return state

    @abstractmethod
    def random_deal(self, seats: int, options: OptionsT, rng: random.Random) -> JSON:
        """A random initial deal as JSON data; every random choice comes from ``rng``."""

    @abstractmethod
    def state_from_deal(
        self, deal: Mapping[str, Any], *, seats: int, options: Mapping[str, Any] | OptionsT | None
    ) -> State[ActionT, OptionsT]:
        """The initial state for a given deal.

        Raises:
            InvalidDealError: the deal is malformed or inconsistent.
        """

    @abstractmethod
    def parse_action(self, text: str) -> ActionT:
        """Parse an action's canonical text (lenient about case and spaces).

        Raises:
            InvalidActionError: ``text`` is not an action of this game.
        """

    @abstractmethod
    def state_from_observation(
        self, observation: Mapping[str, Any], rng: random.Random
    ) -> State[ActionT, OptionsT]:
        """A full state consistent with one seat's observation.

        For perfect-information games this is the position itself; otherwise every
        hidden card is placed at random (from ``rng``) among the places the observer
        cannot see. This is the determinisation that search bots use.

        Raises:
            InvalidStateError: the observation is malformed.
        """

    @abstractmethod
    def max_game_length(self, seats: int, options: Mapping[str, Any] | OptionsT | None) -> int:
        """An upper bound on the number of actions in one game."""

    @abstractmethod
    def return_bounds(
        self, seats: int, options: Mapping[str, Any] | OptionsT | None
    ) -> tuple[float, float]:
        """The least and the most any seat's return can be in one game, forfeits
        included (OpenSpiel's ``min_utility``/``max_utility``); the conformance suite
        checks every outcome against them."""

    def forfeit_outcome(
        self, state: State[ActionT, OptionsT], offender: int, reason: str
    ) -> Outcome:
        """The outcome when ``offender`` forfeits ``state``; ``reason`` is a
        :class:`~engines.outcome.ForfeitReason` or its text.

        Raises:
            InvalidOutcomeError: ``offender`` is not a seat, or an unknown reason.
        """
        return Outcome.forfeit(offender, state.num_seats, reason)

    # -- matches (engines/match.py) ---------------------------------------------------

    def match_formats(self) -> tuple[str, ...]:
        """The match formats this game is played in: ``single``, and the two-player
        formats for a two-player game. A game that keeps penalty points adds the
        penalties formats (and :meth:`match_penalties`)."""
        return TWO_PLAYER_FORMATS if self.max_seats == 2 else SINGLE_FORMAT

    def parse_match_format(self, text: str) -> MatchSpec:
        """The match format ``text``, if this game is played in it.

        Raises:
            OptionError: ``text`` is no format, or not one of this game's; the message
                lists the game's formats.
        """
        spec = parse_match_spec(text)
        formats = self.match_formats()
        if str(spec) not in formats:
            raise OptionError(
                f"{self.name} is not played in {str(spec)!r} matches "
                f"(its formats: {', '.join(formats)})"
            )
        return spec

    def match_points(self, state: State[ActionT, OptionsT]) -> int:
        """What the winner of a finished game scores in a points match (default 1)."""
        return 1

    def match_penalties(self, state: State[ActionT, OptionsT]) -> tuple[int, ...]:
        """The penalty points per seat of a finished game, for a penalties match.

        Raises:
            OptionError: the game keeps no penalty points (it declares no penalties
                format).
        """
        raise OptionError(f"{self.name} keeps no penalty points for a penalties match")

    def state_from_dict(self, data: Mapping[str, Any]) -> State[ActionT, OptionsT]:
        """Restore a state written by :meth:`State.to_dict`.

        Raises:
            InvalidStateError: the data is not a state of this game.
            GameError: an action in it is malformed or illegal.
        """
        try:
            if data["game"] != self.name:
                raise InvalidStateError(f"state of {data['game']!r}, not of {self.name!r}")
            state = self.state_from_deal(
                data["deal"], seats=int(data["seats"]), options=data.get("options")
            )
            state.seed = data.get("seed")
            for seat, text in data["actions"]:
                if seat != state.current_seat:
                    raise InvalidStateError(
                        f"action {text!r} by seat {seat}, but seat {state.current_seat} is to move"
                    )
                state.apply_action(self.parse_action(text))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InvalidStateError | IllegalActionError | InvalidActionError):
                raise
            raise InvalidStateError(f"not a {self.name} state: {exc!r}") from exc
        return state

    def __repr__(self) -> str:
        return f"get_game({self.name!r})"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        from engines.registry import get_game

        return (get_game, (self.name,))


class State(ABC, Generic[ActionT, OptionsT]):
    """One position of a game. Subclasses implement the abstract methods.

    The base class keeps the game, the seat count, the options, the history of
    ``(seat, action)`` pairs, the deal and the seed; it copies them in :meth:`clone`
    and offers the checked entry point :meth:`apply_action`.
    """

    __slots__ = ("_deal", "game", "history", "num_seats", "options", "seed")

    game: Game[ActionT, OptionsT]
    num_seats: int
    options: OptionsT
    history: list[tuple[int, ActionT]]
    seed: int | None

    def __init__(
        self,
        game: Game[ActionT, OptionsT],
        num_seats: int,
        options: OptionsT,
        deal: Mapping[str, Any],
    ):
        self.game = game
        self.num_seats = num_seats
        self.options = options
        self.history = []
        self.seed = None
        self._deal = deal

    # -- what subclasses implement --------------------------------------------------

    @property
    @abstractmethod
    def current_seat(self) -> int:
        """The seat to act, or TERMINAL when the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[ActionT]:
        """The legal actions of the seat to act, unique and in a fixed order; [] when over."""

    @abstractmethod
    def _apply(self, action: ActionT) -> None:
        """Apply a legal action (no checks)."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The outcome once the game is over, else None."""

    @abstractmethod
    def observation(self, seat: int) -> JSON:
        """JSON-able data holding exactly what ``seat`` may know now."""

    @abstractmethod
    def _copy_into(self, copy: Self) -> None:
        """Copy the game's own fields into ``copy``, a bare instance of the same class
        whose base fields :meth:`clone` has already set; mutable fields are copied, so
        that changing one state never changes the other."""

    def render(self, seat: int | None = None) -> str:
        """A readable board (unicode suits); ``seat`` hides what that seat cannot see."""
        return json.dumps(self.observation(0 if seat is None else seat), indent=1)

    # -- provided -----------------------------------------------------------------

    def is_terminal(self) -> bool:
        return self.current_seat == TERMINAL

    def is_legal(self, action: Action) -> bool:
        """Whether the seat to act may play ``action`` now (False once the game is over)."""
        return self.current_seat != TERMINAL and action in self.legal_actions()

    def position(self) -> str:
        """Where the game stands, for messages: the game, the actions played and the
        seed it was dealt from (when known).

        >>> from engines.registry import get_game
        >>> state = get_game("koenigsgarten").new_initial_state(seed=7)
        >>> for _ in range(3):
        ...     state.apply_action(state.legal_actions()[0])
        >>> state.position()
        'koenigsgarten after 3 actions from seed 7'
        """
        played = len(self.history)
        where = f"{self.game.name} after {played} action{'' if played == 1 else 's'}"
        return where if self.seed is None else f"{where} from seed {self.seed}"

    def apply_action(self, action: Action) -> None:
        """Apply ``action`` for the seat to act after checking that it is legal: any
        action value is accepted (a bot's reply, a parsed text) and checked.

        Raises:
            GameOverError: the game is already over.
            IllegalActionError: ``action`` is not among the legal actions; the
                message names it, the seat, the position and the legal actions.
        """
        seat = self.current_seat
        if seat == TERMINAL:
            raise GameOverError(
                f"action {str(action)!r} after the end of the game ({self.position()})"
            )
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalActionError(
                f"{str(action)!r} is not legal for seat {seat} in {self.position()} "
                f"(legal: {', '.join(str(a) for a in legal[:12])}"
                f"{', …' if len(legal) > 12 else ''})"
            )
        self.apply_unchecked(action)

    def apply_unchecked(self, action: ActionT) -> None:
        """Apply an action known to be legal (the fast path for search and playouts)."""
        self.history.append((self.current_seat, action))
        self._apply(action)

    def clone(self) -> Self:
        """An independent copy: changing one never changes the other.

        >>> from engines.registry import get_game
        >>> state = get_game("kings_corner").new_initial_state(seed=1, seats=2)
        >>> twin = state.clone()
        >>> twin.apply_action(twin.legal_actions()[-1])
        >>> len(twin.history), len(state.history), state == state.clone()
        (1, 0, True)
        """
        copy = object.__new__(type(self))
        copy.game = self.game
        copy.num_seats = self.num_seats
        copy.options = self.options
        copy.history = list(self.history)
        copy.seed = self.seed
        copy._deal = self._deal
        self._copy_into(copy)
        return copy

    def deal(self) -> Mapping[str, Any]:
        """The initial deal this game started from (JSON data)."""
        return self._deal

    def returns(self) -> tuple[float, ...]:
        """Per-seat returns of a finished game; raises ValueError while it runs."""
        outcome = self.outcome()
        if outcome is None:
            raise ValueError("the game is not over yet")
        return outcome.returns

    def to_dict(self) -> JSON:
        """Full serialisation: game, seats, options, seed, deal and every action.

        :meth:`Game.state_from_dict` replays it to the identical state.
        """
        return {
            "game": self.game.name,
            "seats": self.num_seats,
            "options": self.game.options_to_dict(self.options),
            "seed": self.seed,
            "deal": self._deal,
            "actions": [[seat, str(action)] for seat, action in self.history],
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} seats={self.num_seats} moves={len(self.history)}>"


StateT = TypeVar("StateT", bound=State)


def play_random(state: StateT, rng: random.Random) -> StateT:
    """Play ``state`` to the end with uniformly random legal actions (in place)."""
    while not state.is_terminal():
        actions: Sequence[Action] = state.legal_actions()
        state.apply_unchecked(actions[rng.randrange(len(actions))])
    return state
