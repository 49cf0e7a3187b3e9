"""One-seat games: deal files and the evaluation of bots over the same deals.

A one-seat game (a patience) counts as *won* when its outcome's termination is
``won``; its score is the seat's return (for Blumengarten, the cards on the
foundations).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.play.runner import play_game
from arena.ratings.solitaire import wilson_interval
from bots.base import Bot
from engines.core import Game
from engines.outcome import Termination
from engines.seeding import derive_seed


class DealFileError(ArenaError):
    """A deal file that cannot be read or is not JSON (a bad deal inside a readable
    file is the engine's InvalidDealError)."""


def load_deal_file(path: Path) -> dict[str, Any]:
    """Read a deal file: a JSON object such as ``{"columns": […], "bouquet": […]}``.

    Raises:
        DealFileError: the file is missing or unreadable, not JSON, or not an object.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DealFileError(f"cannot read deal file {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise DealFileError(f"deal file {str(path)!r} is not a text file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DealFileError(
            f"deal file {str(path)!r} is not valid JSON: {exc.msg} at line {exc.lineno}, "
            f"column {exc.colno}"
        ) from None
    if not isinstance(data, dict):
        raise DealFileError(
            f"deal file {str(path)!r} must hold a JSON object, not {type(data).__name__}"
        )
    return data


def deal_seed(seed: int, index: int) -> int:
    """The seed of deal ``index`` of a series started from ``seed``."""
    return derive_seed(seed, index)


@dataclass(frozen=True)
class BotTally:
    """How one bot did over a series of deals."""

    name: str
    deals: int
    wins: int
    total_score: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.deals if self.deals else 0.0

    @property
    def mean_score(self) -> float:
        return self.total_score / self.deals if self.deals else 0.0

    def wilson_interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """The Wilson score interval of the win rate."""
        return wilson_interval(self.wins, self.deals, confidence)


Progress = Callable[[str, int, float, bool], None]
"""Called after each game: bot name, deal index, score, won."""


def evaluate_bots(
    game: Game,
    bots: Sequence[Bot],
    names: Sequence[str],
    *,
    deals: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    on_game: Progress | None = None,
) -> list[BotTally]:
    """Play the same ``deals`` deals (seeds ``deal_seed(seed, i)``) with every bot.

    Raises:
        ArenaError: ``game`` is not playable by one seat, or ``deals`` < 1.
        GameError: bad options.
    """
    if game.min_seats != 1:
        raise ArenaError(f"{game.name} is not a one-player game (it needs {game.min_seats} seats)")
    if deals < 1:
        raise ArenaError(f"--deals must be at least 1, not {deals}")
    parsed = game.parse_options(options)
    tallies = []
    for bot, name in zip(bots, names, strict=True):
        wins = 0
        total = 0.0
        for index in range(deals):
            state = game.new_initial_state(seed=deal_seed(seed, index), seats=1, options=parsed)
            record = play_game(state, [bot], players=[name])
            outcome = record.outcome_value
            won = outcome.termination == Termination.WON
            wins += won
            total += outcome.returns[0]
            if on_game is not None:
                on_game(name, index, outcome.returns[0], won)
        tallies.append(BotTally(name, deals, wins, total))
    return tallies
