"""What an environment of one game is made of: its seats, options, actions and encoder."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engines.core import Game
from engines.envs.actions import ActionIndex, action_index
from engines.envs.blumengarten import BlumengartenEncoder
from engines.envs.encoding import Encoder
from engines.envs.kardinal import KardinalEncoder
from engines.envs.kings_corner import KingsCornerEncoder
from engines.envs.koenigsgarten import KoenigsgartenEncoder
from engines.errors import UnknownGameError
from engines.registry import get_game

ENCODERS: Mapping[str, Callable[[int, Any], Encoder]] = {
    "koenigsgarten": lambda seats, options: KoenigsgartenEncoder(),
    "blumengarten": lambda seats, options: BlumengartenEncoder(options),
    "kings_corner": lambda seats, options: KingsCornerEncoder(seats),
    "kardinal": KardinalEncoder,
}


@dataclass(frozen=True)
class EnvSpec:
    """A game with its seat count and parsed options, its action index and encoder."""

    game: Game
    seats: int
    options: Any
    actions: ActionIndex
    encoder: Encoder


def env_spec(game: str | Game, seats: int | None = None, options: Any = None) -> EnvSpec:
    """The spec of ``game`` (a name or a game) for ``seats`` (default: the game's
    default) and ``options`` (a mapping, as on the command line, or parsed options).

    Raises:
        UnknownGameError: no such game, or one without an environment.
        SeatCountError, OptionError: bad seats or options; the message quotes them.
    """
    resolved = get_game(game) if isinstance(game, str) else game
    make_encoder = ENCODERS.get(resolved.name)
    if make_encoder is None:
        raise UnknownGameError(
            f"no environment for game {resolved.name!r} (there are environments for "
            f"{', '.join(sorted(ENCODERS))})"
        )
    count = resolved.check_seats(resolved.default_seats if seats is None else seats)
    parsed = resolved.parse_options(options)
    return EnvSpec(
        resolved, count, parsed, action_index(resolved, count, parsed), make_encoder(count, parsed)
    )
