"""``arena bench submitted``: submitted bots beside the built-in ones, in one run.

The same round robin (the game, its seats, ``games`` games per table, ``workers``
worker processes) is played twice a round: by the built-in ``first-legal`` against
``random`` bots, and by a submitted bot in its place, a Python SDK bot answering the
first legal action (or the Node example bot, ``bots/examples/js_bot.js``); with
``sandboxed`` opponents the ``random`` bots are submitted SDK bots too. Each run is
:func:`arena.bench.service.tournament_speed` into a fresh SQLite database, start-up
included: scheduling, the workers' start, every bot's start-up (a warm bot's zygote,
once per seat and worker) and every game stored. The submitted bots are checked once
(the submission check, as `arena bots add` does) and registered in each run's
database before its clock starts. Rounds alternate which side plays first, so a
drift of the machine's speed within a round favours neither; each round's ratio
(submitted games/s over built-in games/s) is measured within one minute, with the
load average at its start and end (issue 29, point 2).
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from arena.bench.protocol import TRIVIAL_BOT
from arena.bench.service import TournamentSpeed, tournament_speed
from arena.errors import ArenaError
from arena.players.loader import PYTHON, BotSource
from arena.players.submission import check_submission
from arena.store.bots import command_source
from engines.registry import get_game

SDK_RANDOM = """
import random


class Random:
    def __init__(self, seed=0):
        self.rng = random.Random(seed)

    def act(self, observation, legal_actions, time_left):
        return self.rng.choice(legal_actions)
"""
JS_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "js_bot.js"


class SubmittedKind(StrEnum):
    """The submitted bot that takes the built-in ``first-legal``'s place."""

    PYTHON = "python"
    """The SDK, answering the first legal action (warm: a zygote per seat and worker)."""
    NODE = "node"
    """The Node example bot, a ``--cmd`` bot (single-game: a process per game)."""


class BenchError(ArenaError):
    """The comparison cannot run here (no ``node``, a bad seat count)."""


@dataclass(frozen=True)
class Lineup:
    """One side of the comparison: the round robin's participants, and the submitted
    bots among them (by name) to register first."""

    label: str
    bots: tuple[str, ...]
    submitted: Mapping[str, BotSource] = field(default_factory=dict)


def lineups(
    game: str,
    seats: int | None = None,
    *,
    kind: SubmittedKind = SubmittedKind.PYTHON,
    sandboxed: bool = False,
) -> tuple[Lineup, Lineup]:
    """The built-in line-up (``first-legal`` and ``random`` bots, one for each other
    seat) and the submitted one (the submitted bot in ``first-legal``'s place; with
    ``sandboxed`` submitted random bots in the others).

    Raises:
        UnknownGameError, SeatCountError: a bad game or seat count.
        BenchError: ``node`` is not installed (for the Node bot).
    """
    engine = get_game(game)
    count = engine.check_seats(seats if seats is not None else engine.default_seats)
    if count < 2:
        raise BenchError(f"{engine.name} is played alone: no opponents to compare against")
    randoms = ["random", *(f"random:seed={number}" for number in range(1, count - 1))]
    builtin = Lineup("built-in", ("first-legal", *randoms))
    submitted: dict[str, BotSource] = {"submitted": _submitted_bot(kind)}
    opponents: list[str] = randoms
    if sandboxed:
        opponents = [f"sandboxed-random-{number}" for number in range(count - 1)]
        for number, name in enumerate(opponents):
            submitted[name] = BotSource(PYTHON, "Random", {"seed": number}, SDK_RANDOM)
    label = f"submitted ({kind}{', sandboxed opponents' if sandboxed else ''})"
    return builtin, Lineup(label, ("submitted", *opponents), submitted)


def _submitted_bot(kind: SubmittedKind) -> BotSource:
    if kind is SubmittedKind.PYTHON:
        return BotSource(PYTHON, "FirstLegal", {}, TRIVIAL_BOT)
    if shutil.which("node") is None:
        raise BenchError("the Node example bot needs `node`, which is not installed here")
    return command_source(f"node {shlex.quote(str(JS_BOT))}")  # stored with its file


@dataclass(frozen=True)
class Round:
    """One round: both line-ups' runs, and the load average at its start and end."""

    number: int
    builtin: TournamentSpeed
    submitted: TournamentSpeed
    load: tuple[float, float]

    @property
    def ratio(self) -> float:
        """The submitted line-up's games/s over the built-in one's, start-up included."""
        return (
            self.submitted.games_per_second_with_startup
            / self.builtin.games_per_second_with_startup
        )


def check_lineup(lineup: Lineup, game: str) -> None:
    """Run the submission check on each submitted bot of ``lineup``.

    Raises:
        SubmissionRejected: one fails it (the sandbox does not work here, say).
    """
    for name, source in lineup.submitted.items():
        check_submission(source, game, label=name)


def compare(
    *,
    game: str,
    lineups: tuple[Lineup, Lineup],
    games: int,
    workers: int,
    rounds: int,
    seats: int | None = None,
    executor: str = "processes",
    on_round: Callable[[Round], None] = lambda finished: None,
) -> list[Round]:
    """Play both line-ups' round robins ``rounds`` times, in turn (the built-in one
    first in odd rounds); ``on_round`` is given each round as it ends.

    Raises:
        SubmissionRejected: a submitted bot fails the submission check.
        ConfigError: a line-up does not make a round robin of ``seats``.
    """
    builtin, submitted = lineups
    check_lineup(submitted, game)
    played = []
    for number in range(1, rounds + 1):
        load_at_start = os.getloadavg()[0]
        order = (builtin, submitted) if number % 2 else (submitted, builtin)
        speeds = {
            lineup.label: tournament_speed(
                game=game,
                bots=list(lineup.bots),
                games=games,
                executor=executor,
                workers=workers,
                seats=seats,
                register=lineup.submitted,
            )
            for lineup in order
        }
        finished = Round(
            number,
            speeds[builtin.label],
            speeds[submitted.label],
            (load_at_start, os.getloadavg()[0]),
        )
        on_round(finished)
        played.append(finished)
    return played
