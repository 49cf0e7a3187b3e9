"""The driver's running state as it is stored with each batch of games: data, never code.

A resume takes it up instead of counting every game stored before
(:mod:`arena.tournament.driver`): the standings, the bots' health, the live statistics
and a ``sprt``'s test, as of the batch's last game. It is stored as JSON of explicit,
typed fields and read back through a strict schema, so a row of the database gives
numbers, names and games, and reading it never turns a name into code (the ladder
stores its state the same way, ``arena/ladder``). A row that is not such a state (of
another version, malformed, or forged) is refused with :class:`StoredStateError`; the
driver then counts the stored games, which are the truth the state is taken from.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from arena.errors import ArenaError
from arena.store.tally import Tallies
from arena.tournament.adaptive import SprtState
from arena.tournament.progress import StatisticsState

STATE_VERSION: Literal[2] = 2
"""Of the stored state's fields: a change to them needs a new version (a state of
another version is refused, and the games counted instead). Version 1 was a pickle,
which a resume no longer reads (migration 15 dropped those rows)."""


class StoredStateError(ArenaError):
    """A tournament's stored driver state is not one this arena reads."""


class _StoredJson(BaseModel):
    """A state stored as JSON of strict, typed fields (unknown ones refused)."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    def encode(self) -> bytes:
        """The state as JSON."""
        return self.model_dump_json().encode()

    @classmethod
    def _read(cls, saved: bytes, what: str) -> Self:
        """The state ``saved`` holds, checked field by field: nothing in it is looked up
        or run, whatever it holds.

        Raises:
            StoredStateError: ``saved`` is not JSON of these fields; the message starts
                with ``what`` and names the first field that is wrong.
        """
        try:
            return cls.model_validate_json(saved)
        except ValidationError as exc:
            raise StoredStateError(
                f"{what} is not one this arena reads ({_first_error(exc)})"
            ) from None


class DriverState(_StoredJson):
    """The driver's state as stored: the standings, the bots' games and crashes (their
    health), the live statistics (None when the run kept none) and the test (``sprt``)."""

    version: Literal[2] = STATE_VERSION
    standings: Tallies
    games: Counter[int]
    crashes: Counter[int]
    statistics: StatisticsState | None
    test: SprtState | None

    @classmethod
    def decode(cls, saved: bytes, tournament_id: int) -> DriverState:
        """The state ``saved`` holds (:meth:`_StoredJson._read`).

        Raises:
            StoredStateError: ``saved`` is not JSON of this version's fields, naming
                the tournament and the first field that is wrong.
        """
        return cls._read(saved, f"tournament {tournament_id}: its stored driver state")


class LadderHealthState(_StoredJson):
    """A ladder's driver state: its bots' games and crashes (their health), as counted
    by the ladder's workers (:mod:`arena.ladder.worker`)."""

    games: Counter[int]
    crashes: Counter[int]

    @classmethod
    def decode(cls, saved: bytes, tournament_id: int) -> LadderHealthState:
        """The health ``saved`` holds (:meth:`_StoredJson._read`), its counts not negative.

        Raises:
            StoredStateError: ``saved`` is not such JSON or holds a negative count,
                naming the ladder's tournament (and the first field that is wrong).
        """
        state = cls._read(saved, f"ladder tournament {tournament_id}: its stored health")
        if any(count < 0 for count in (*state.games.values(), *state.crashes.values())):
            raise StoredStateError(
                f"ladder tournament {tournament_id}: its stored health holds a negative count"
            )
        return state


def _first_error(exc: ValidationError) -> str:
    """``field.path: what is wrong`` of the first error, and how many more there are."""
    errors = exc.errors(include_url=False, include_input=False)
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "the whole state"
    more = f"; {len(errors) - 1} more" if len(errors) > 1 else ""
    return f"{where}: {first['msg']}{more}"
