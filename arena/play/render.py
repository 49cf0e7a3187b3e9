"""Readable output for terminals: boards with coloured suits, and outcomes in words."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.text import Text

from engines.core import State
from engines.outcome import Outcome

_RED = re.compile(r"\S*[♥♦]")
_SEAT_MARK = re.compile(r"●(\d)")
SEAT_STYLES = ("bold red", "bold blue", "bold green", "bold magenta", "bold cyan")


def board(state: State, seat: int | None = None) -> Text:
    """The state's board as rich text: red suits in red, seat markers in seat colours."""
    text = Text(state.render(seat))
    text.highlight_regex(_RED, "red")
    for found in _SEAT_MARK.finditer(text.plain):
        text.stylize(SEAT_STYLES[int(found.group(1)) % len(SEAT_STYLES)], *found.span())
    return text


def describe_outcome(outcome: Outcome, players: Sequence[str]) -> str:
    """One line (or a few, for many seats) saying who won and why."""
    why = outcome.termination.replace("_", " ")
    if outcome.is_forfeit:
        why = f"forfeit by seat {outcome.offender} ({players[outcome.offender or 0]}): " + (
            outcome.reason or "unknown reason"
        ).replace("_", " ")
        message = outcome.details.get("message")
        if message:
            why += f" — {message}"
    if outcome.num_seats == 1:
        return f"{players[0]}: score {outcome.returns[0]:g} ({why})"
    if outcome.is_draw:
        return f"draw ({why})"
    winners = outcome.winners
    if outcome.num_seats == 2 and len(winners) == 1:
        seat = winners[0]
        return f"seat {seat} ({players[seat]}) wins ({why})"
    order = sorted(range(outcome.num_seats), key=lambda s: outcome.ranking[s])
    places = ", ".join(
        f"{outcome.ranking[s]}. seat {s} ({players[s]}, {outcome.returns[s]:g})" for s in order
    )
    return f"{places} ({why})"
