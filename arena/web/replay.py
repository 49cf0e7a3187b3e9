"""Step-by-step views of a stored game for the replay viewer.

The record is replayed with :func:`arena.play.records.replay`; after the deal and after
every action the view of one seat is taken from the engine: ``state.render(seat)``
(the table as text, unicode suits) and ``state.observation(seat)`` (exactly what a bot
in that seat was sent). A seat's view holds nothing else about the position: the legal
actions appear only on its own turns (they would show another hand), and the record's
deal is not sent. ``seat=None`` is the spectator's view after the game: everything,
every hand included (``state.render(None)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.errors import RecordError
from arena.play.records import GameRecord, replay
from engines.core import TERMINAL, Action, State
from engines.errors import GameError
from engines.registry import get_game


@dataclass(frozen=True)
class Step:
    index: int
    """-1 for the deal, else the index of the action that led here."""
    seat: int | None
    """Who played that action (None for the deal)."""
    action: str | None
    to_move: int | None
    text: str
    observation: dict[str, Any] | None
    legal: list[str] | None

    def to_data(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seat": self.seat,
            "action": self.action,
            "to_move": self.to_move,
            "text": self.text,
            "observation": self.observation,
            "legal": self.legal,
        }


def _step(
    state: State, seat: int | None, index: int, mover: int | None, action: str | None
) -> Step:
    to_move = None if state.current_seat == TERMINAL else state.current_seat
    own_turn = to_move is not None and (seat is None or seat == to_move)
    return Step(
        index=index,
        seat=mover,
        action=action,
        to_move=to_move,
        text=state.render(seat),
        observation=None if seat is None else state.observation(seat),
        legal=[str(a) for a in state.legal_actions()] if own_turn else None,
    )


def replay_views(record: GameRecord, seat: int | None) -> list[Step]:
    """The view of ``seat`` (None: everything) after the deal and after each action.

    Raises:
        RecordError: a seat the game does not have, or a record that does not replay.
    """
    if seat is not None and not 0 <= seat < record.seats:
        raise RecordError(f"seat {seat!r} is not a seat of this {record.seats}-seat game")
    try:
        game = get_game(record.game)
        start = game.state_from_deal(record.deal, seats=record.seats, options=record.options)
    except GameError as exc:
        raise RecordError(f"record of {record.game!r} cannot start: {exc}") from None
    start.seed = record.seed
    steps = [_step(start, seat, -1, None, None)]

    def on_step(index: int, mover: int, action: Action, state: State) -> None:
        steps.append(_step(state, seat, index, mover, str(action)))

    replay(record, on_step)
    return steps
