"""How long the built-in bots take per move in Kardinal & König on a given deck: the
measurement behind "every built-in bot moves within its budget on any valid deck"
(``docs/benchmarks.md``, "Kardinal take planner")::

    python -m bots.kardinal.move_bench configs/kardinal/no-circles.toml

Each bot kind plays every seat of seeded four-seat games (each seat seeded on its
own), and every move is timed. A game that runs past ``--give-up`` seconds is
abandoned after the move in progress and counted as unfinished.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bots.base import GameInfo
from bots.registry import make_bot, parse_bot_spec
from engines.kardinal import GAME, deck_from_toml_text, deck_to_data

KINDS = ("greedy", "ismcts", "ismcts:iterations=10", "random", "first-legal")


@dataclass(frozen=True)
class MoveTimes:
    """The seconds of every timed move, and the games abandoned at the time limit."""

    seconds: list[float]
    unfinished: int


def move_times(
    spec: str,
    options: Mapping[str, Any],
    *,
    games: int,
    seed: int = 0,
    seats: int = 4,
    give_up: float = 120.0,
) -> MoveTimes:
    """Time every move of ``games`` seeded games in which the bot ``spec`` (with
    seed 0, 1, … per seat) plays every seat.

    Raises:
        UnknownBotError: ``spec`` names no Kardinal bot or has a bad parameter.
        OptionError: ``options`` are not Kardinal options.
    """
    kind, params = parse_bot_spec(spec)
    seconds: list[float] = []
    unfinished = 0
    for game in range(games):
        game_seed = seed + game
        bots = [make_bot(kind, GAME.name, {**params, "seed": seat}) for seat in range(seats)]
        for seat, bot in enumerate(bots):
            bot.new_game(GameInfo(GAME, options, seat, seats, game_seed))
        state = GAME.new_initial_state(seed=game_seed, seats=seats, options=options)
        started = time.perf_counter()
        while not state.is_terminal():
            if time.perf_counter() - started > give_up:
                unfinished += 1
                break
            seat = state.current_seat
            observation, legal = state.observation(seat), state.legal_actions()
            before = time.perf_counter()
            action = bots[seat].act(observation, legal, None)
            seconds.append(time.perf_counter() - before)
            state.apply_action(action)
    return MoveTimes(seconds, unfinished)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("deck", type=Path, help="a deck file (configs/kardinal/*.toml)")
    parser.add_argument("--bot", action="append", help=f"bot kinds (default: {KINDS})")
    parser.add_argument("--games", type=int, default=3, help="games per bot kind")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game")
    parser.add_argument("--give-up", type=float, default=120.0, help="seconds per game")
    args = parser.parse_args(argv)
    deck = deck_from_toml_text(args.deck.read_text(encoding="utf-8"))
    options = {"deck": deck_to_data(deck)}
    print(f"{'bot':<24}{'moves':>7}{'median ms':>11}{'worst ms':>10}{'unfinished':>12}")
    for spec in args.bot or KINDS:
        timed = move_times(spec, options, games=args.games, seed=args.seed, give_up=args.give_up)
        print(
            f"{spec:<24}{len(timed.seconds):>7}{statistics.median(timed.seconds) * 1e3:>11.1f}"
            f"{max(timed.seconds) * 1e3:>10.1f}{timed.unfinished:>12}"
        )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
