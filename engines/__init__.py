"""Game engines: pure rules, no I/O, every random choice from a seeded generator."""

from engines.cards import Card, parse_card
from engines.core import TERMINAL, Action, Game, OptionSpec, State, play_random
from engines.errors import (
    GameError,
    GameOverError,
    IllegalActionError,
    InvalidActionError,
    InvalidCardError,
    InvalidDealError,
    InvalidStateError,
    OptionError,
    SeatCountError,
    UnknownGameError,
)
from engines.outcome import Outcome
from engines.registry import all_games, get_game, register

__all__ = [
    "TERMINAL",
    "Action",
    "Card",
    "Game",
    "GameError",
    "GameOverError",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidCardError",
    "InvalidDealError",
    "InvalidStateError",
    "OptionError",
    "OptionSpec",
    "Outcome",
    "SeatCountError",
    "State",
    "UnknownGameError",
    "all_games",
    "get_game",
    "parse_card",
    "play_random",
    "register",
]
