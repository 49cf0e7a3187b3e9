"""Game records: the JSON format of docs/records.md, loading, saving and replaying.

A record holds everything needed to replay a game without trusting any random
number generator: the game, its options, the seat count, the seed, the full initial
deal, every (seat, action text) and the outcome.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

import pydantic
import pydantic_core
from pydantic import BaseModel, ConfigDict

from arena.errors import RecordError
from engines.core import Action, Game, State
from engines.errors import GameError
from engines.outcome import Outcome
from engines.registry import get_game

RECORD_FORMAT: Final = "arena-record/1"
MATCH_FORMAT: Final = "arena-match/1"


class GameRecord(BaseModel):
    """One game, as stored in files and in the database."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["arena-record/1"] = "arena-record/1"
    game: str
    options: dict[str, Any] = {}
    seats: int = pydantic.Field(ge=1)
    seed: int | None = None
    players: list[str] = []
    deal: dict[str, Any]
    actions: list[tuple[int, str]]
    outcome: dict[str, Any]
    duration: float | None = None

    @property
    def outcome_value(self) -> Outcome:
        return Outcome.from_dict(self.outcome)


class MatchResult(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    winner: str | None
    """The single winner (None for a drawn or shared match)."""
    winners: list[str] = []
    """Everyone sharing first place."""
    score: list[int]
    """Wins, points or penalty totals, in the order of the match's players."""


class MatchRecord(BaseModel):
    """A match: its games in order, each record's players listed seat by seat."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["arena-match/1"] = "arena-match/1"
    game: str
    match: str
    players: list[str]
    games: list[GameRecord]
    result: MatchResult


AnyRecord = GameRecord | MatchRecord


def new_record(
    state: State,
    *,
    players: Sequence[str],
    deal: Mapping[str, Any],
    outcome: Outcome,
    duration: float,
    options: Mapping[str, Any] | None = None,
) -> GameRecord:
    """The record of ``state``'s game as far as it was played, ending in ``outcome``:
    the one way a record is built. ``deal`` is the initial deal (``state.deal()`` taken
    before the first action); ``options`` the state's options as JSON data when the
    caller has them already. Not validated again: every part comes from the engine."""
    game = state.game
    return GameRecord.model_construct(
        format=RECORD_FORMAT,
        game=game.name,
        options=dict(options) if options is not None else game.options_to_dict(state.options),
        seats=state.num_seats,
        seed=state.seed,
        players=list(players),
        deal=dict(deal),
        actions=[(seat, str(action)) for seat, action in state.history],
        outcome=outcome.to_dict(),
        duration=round(duration, 6),
    )


class RecordWriter:
    """The records of many games of one game and options as JSON text: byte for byte
    what ``new_record(...).model_dump_json()`` gives (pydantic's own encoder, number
    formats included), with the parts the games share encoded once and each
    ``[seat, action]`` pair once per writer. A tournament's worker writes thousands."""

    MAX_PAIRS = 100_000
    """The most ``[seat, action]`` texts kept (a game with a large action space)."""

    def __init__(self, game: Game[Any, Any], options: Mapping[str, Any]) -> None:
        self._head = (
            f'{{"format":{_json(RECORD_FORMAT)},"game":{_json(game.name)},'
            f'"options":{_json(dict(options))},"seats":'
        )
        self._players: dict[tuple[str, ...], str] = {}
        self._pairs: dict[tuple[int, Any], str] = {}

    def encode(
        self,
        state: State,
        *,
        players: tuple[str, ...],
        deal: Mapping[str, Any],
        outcome: Outcome,
        duration: float,
        outcome_json: str | None = None,
    ) -> str:
        """The record of ``state``'s game, as :func:`new_record` builds it, as JSON text.
        ``outcome_json``: :meth:`outcome_json` of ``outcome``, when the caller has it."""
        encoded = self._players.get(players)
        if encoded is None:
            encoded = self._players[players] = _json(list(players))
        pairs = self._pairs
        try:
            actions = ",".join([pairs[pair] for pair in state.history])
        except KeyError:
            actions = ",".join([self._pair(pair) for pair in state.history])
        return (
            f'{self._head}{state.num_seats},"seed":{_json(state.seed)},"players":{encoded},'
            f'"deal":{_json(dict(deal))},"actions":[{actions}],'
            f'"outcome":{outcome_json or self.outcome_json(outcome)},'
            f'"duration":{_json(round(duration, 6))}}}'
        )

    @staticmethod
    def outcome_json(outcome: Outcome) -> str:
        """``outcome`` as a record holds it, as JSON text."""
        return _json(outcome.to_dict())

    def _pair(self, pair: tuple[int, Any]) -> str:
        text = self._pairs.get(pair)
        if text is None:
            seat, action = pair
            text = _json([seat, str(action)])
            if len(self._pairs) >= self.MAX_PAIRS:
                self._pairs.clear()
            self._pairs[pair] = text
        return text


def _json(value: Any) -> str:
    return pydantic_core.to_json(value).decode()


def host_error_record(*, game: str, seed: int, players: Sequence[str], message: str) -> str:
    """What is stored in place of a record for a game the host could not play: the
    error (at most 2,000 characters), the game, the deal's seed and the players."""
    return json.dumps(
        {"error": message[:2000], "game": game, "seed": seed, "players": list(players)}
    )


def dump_record(record: AnyRecord) -> str:
    """The record as pretty JSON text."""
    return json.dumps(record.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n"


def save_record(record: AnyRecord, path: Path) -> None:
    """Write ``record`` to ``path``. Raises RecordError when the file cannot be written."""
    try:
        path.write_text(dump_record(record), encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot write record {str(path)!r}: {exc.strerror or exc}") from None


def parse_record(data: Any, source: str = "record") -> AnyRecord:
    """A game or match record from JSON data.

    Raises:
        RecordError: the data is not a record; the message names the bad field.
    """
    if not isinstance(data, dict):
        raise RecordError(f"{source}: a record is a JSON object, not {type(data).__name__}")
    model: type[GameRecord] | type[MatchRecord] = (
        MatchRecord if data.get("format") == MATCH_FORMAT else GameRecord
    )
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise RecordError(
            f"{source}: bad field {where!r}: {first['msg']} (got {first.get('input')!r:.80})"
        ) from None


def load_record(path: Path) -> AnyRecord:
    """Read a record file.

    Raises:
        RecordError: the file is missing, unreadable, not JSON (e.g. truncated) or
            not a record.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"cannot read record {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{str(path)!r} is not a text file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"{str(path)!r} is not valid JSON (truncated?): {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}"
        ) from None
    return parse_record(data, repr(str(path)))


StepCallback = Callable[[int, int, Action, State], None]


def replay(record: GameRecord, on_step: StepCallback | None = None) -> State:
    """Replay ``record``, checking every action and the outcome.

    ``on_step(index, seat, action, state)`` is called after each action.

    Raises:
        RecordError: an unknown game, bad options or deal, an action that is
            malformed, out of turn or illegal (named by its index), or an outcome
            that differs from the recorded one.
    """
    try:
        game = get_game(record.game)
        state = game.state_from_deal(record.deal, seats=record.seats, options=record.options)
    except GameError as exc:
        raise RecordError(f"record of {record.game!r} cannot start: {exc}") from None
    state.seed = record.seed
    for index, (seat, text) in enumerate(record.actions):
        where = f"action {index} ({text!r} by seat {seat})"
        if state.is_terminal():
            raise RecordError(f"{where} comes after the end of the game")
        if seat != state.current_seat:
            raise RecordError(f"{where} is out of turn: seat {state.current_seat} is to move")
        try:
            action = game.parse_action(text)
            state.apply_action(action)
        except GameError as exc:
            raise RecordError(f"{where} is illegal: {exc}") from None
        if on_step is not None:
            on_step(index, seat, action, state)
    recorded = _recorded_outcome(record)
    if recorded.is_forfeit:
        if state.is_terminal():
            raise RecordError("the record ends in a forfeit, but its actions finish the game")
        return state
    actual = state.outcome()
    if actual is None:
        raise RecordError(
            f"the record ends after {len(record.actions)} actions, but the game is not over"
        )
    if actual.to_dict() != recorded.to_dict():
        raise RecordError(
            f"recorded outcome {recorded.to_dict()} differs from the replayed {actual.to_dict()}"
        )
    return state


def _recorded_outcome(record: GameRecord) -> Outcome:
    try:
        return record.outcome_value
    except GameError as exc:
        raise RecordError(f"bad outcome in record: {exc}") from None
