"""A tournament's games as values: planned, played and finished.

The scheduler plans games, a worker plays them, the store writes and reads them and
the adaptive formats decide from them, so the values live here, below all of those:
the store never imports the tournament that runs them. A game just played is built
in one way, :meth:`PlayedGame.from_record` (a host failure by
:meth:`PlayedGame.host_error`).
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from arena.play.records import GameRecord, host_error_record
from engines.outcome import ForfeitReason, Outcome, Termination


class GameStatus(StrEnum):
    """How a stored game went: the words the database stores, so they never change."""

    OK = "ok"
    """Played to its end."""
    FORFEIT = "forfeit"
    """A seat forfeited (the outcome's ``offender`` and ``reason`` say who and why)."""
    ERROR = "error"
    """The host could not play it (an engine or host fault); it counts for no bot."""


@dataclass(frozen=True)
class PlannedGame:
    """A game to play: its index in the tournament, deal seed and bots by seat."""

    index: int
    seed: int
    seats: tuple[int, ...]
    batch: int = 0


@dataclass(frozen=True)
class FinishedGame:
    """What adaptive schedulers need to know of a stored game."""

    index: int
    seed: int
    seats: tuple[int, ...]
    ranking: tuple[int, ...]
    scores: tuple[float, ...]


@dataclass(frozen=True, kw_only=True)
class PlayedGame:
    """A finished game as a worker reports it and the store writes it."""

    index: int
    seed: int
    seats: tuple[int, ...]
    status: GameStatus
    returns: tuple[float, ...]
    ranking: tuple[int, ...]
    termination: Termination
    offender: int | None
    reason: ForfeitReason | None
    record: str
    """The record as JSON text (docs/records.md), or a host error's description."""
    duration: float
    worker: str

    @classmethod
    def from_record(cls, planned: PlannedGame, record: GameRecord, *, worker: str) -> PlayedGame:
        """The result of ``planned``, played (or forfeited) as ``record`` holds it."""
        # The record's outcome came from an Outcome: read it without validating again.
        outcome = record.outcome
        offender, reason = outcome.get("offender"), outcome.get("reason")
        return cls(
            index=planned.index,
            seed=planned.seed,
            seats=planned.seats,
            status=GameStatus.OK if offender is None else GameStatus.FORFEIT,
            returns=tuple(outcome["returns"]),
            ranking=tuple(outcome["ranking"]),
            termination=Termination(outcome["termination"]),
            offender=offender,
            reason=None if reason is None else ForfeitReason(reason),
            record=record.model_dump_json(),
            duration=record.duration or 0.0,
            worker=worker,
        )

    @classmethod
    def from_outcome(
        cls, planned: PlannedGame, outcome: Outcome, *, record: str, duration: float, worker: str
    ) -> PlayedGame:
        """The result of ``planned``, played (or forfeited) to ``outcome``, whose record
        is already JSON text (:class:`arena.play.records.RecordWriter`): what
        :meth:`from_record` gives for the same record. ``duration`` as the record holds
        it (rounded to the microsecond)."""
        offender = outcome.offender
        return cls.from_values(
            (
                planned.index,
                planned.seed,
                planned.seats,
                GameStatus.OK if offender is None else GameStatus.FORFEIT,
                tuple(outcome.returns),
                tuple(outcome.ranking),
                outcome.termination,
                offender,
                outcome.reason,
                record,
                duration,
                worker,
            )
        )

    @classmethod
    def from_values(cls, values: Iterable[Any]) -> PlayedGame:
        """A game from its fields' values in their order (what :data:`played_values`
        gives), as they were: a worker builds and a driver receives thousands, and the
        frozen dataclass's ``__init__`` costs three times this."""
        game = object.__new__(cls)
        game.__dict__.update(zip(PLAYED_FIELDS, values, strict=True))
        return game

    @classmethod
    def host_error(
        cls,
        planned: PlannedGame,
        *,
        game: str,
        players: list[str],
        message: str,
        duration: float,
        worker: str,
    ) -> PlayedGame:
        """``planned`` as a game the host could not play: every seat shares first place
        with nothing, and the record describes the failure."""
        seats = len(planned.seats)
        return cls(
            index=planned.index,
            seed=planned.seed,
            seats=planned.seats,
            status=GameStatus.ERROR,
            returns=(0.0,) * seats,
            ranking=(1,) * seats,
            termination=Termination.ERROR,
            offender=None,
            reason=None,
            record=host_error_record(
                game=game, seed=planned.seed, players=players, message=message
            ),
            duration=duration,
            worker=worker,
        )


PLAYED_FIELDS: tuple[str, ...] = tuple(field.name for field in dataclasses.fields(PlayedGame))
played_values: Callable[[PlayedGame], tuple[Any, ...]] = operator.attrgetter(*PLAYED_FIELDS)
"""A game's fields' values in their order: :meth:`PlayedGame.from_values` rebuilds it."""
