"""The games of the submission check: whole games against the built-in bots, timed.

A bot that crashes on its third move, or plays an illegal card only at three seats,
passes one move on one position. :func:`play_sample_games` plays it whole games
instead (:func:`sample_games`): one at each seat count the game allows, its seat
turning from game to game, and a second one at another seat where the game has a
single seat count of several seats. The other seats are the built-in ``random`` and
``first-legal`` bots in turn. The deals' seeds are fixed and public
(:data:`SAMPLE_SEED` onwards): the check is no game of any tournament.

The bot's time in these games (its start-ups and its moves) is bounded by a budget
(:data:`CHECK_BUDGET_SECONDS`): once it is spent the check stops before the bot's next
move and says so. Its moves are timed as a tournament's runner times them, and
:class:`MoveTimes` says which time-control classes they fit
(:data:`~arena.play.time_control.CLASS_MOVE_SECONDS`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.play.time_control import CLASS_MOVE_SECONDS, TimeClass
from arena.players.subprocess_bot import SubprocessBot
from bots.base import NO_OBSERVATION, Bot, BotFault, GameInfo
from bots.simple import FirstLegalBot, RandomBot
from engines.core import Game

SAMPLE_SEED = 1
"""The first sample game's deal; the others' follow it (2, 3, …)."""
CHECK_BUDGET_SECONDS = 15.0
"""The bot's time (start-ups and moves) the check's games may take in all."""
MAX_GAMES = 6
"""The most games the check plays (a game of many seat counts plays the first ones)."""


@dataclass(frozen=True)
class SampleGame:
    """One game of the check: its seat count, the bot's seat, the deal's seed."""

    seats: int
    seat: int
    seed: int

    def __str__(self) -> str:
        seats = "1 seat" if self.seats == 1 else f"{self.seats} seats"
        return f"{seats}, seat {self.seat}, seed {self.seed}"


def sample_games(game: Game) -> list[SampleGame]:
    """The games the check plays of ``game``: one at each seat count, the bot at seat
    ``k mod seats`` in the k-th; then, if it sat first in every one and the game has
    other seats, one more at the last seat of the largest count (at most
    :data:`MAX_GAMES`)."""
    games = [
        SampleGame(seats, index % seats, SAMPLE_SEED + index)
        for index, seats in enumerate(game.seat_counts)
    ]
    if all(planned.seat == 0 for planned in games) and game.max_seats > 1:
        games.append(SampleGame(game.max_seats, game.max_seats - 1, SAMPLE_SEED + len(games)))
    return games[:MAX_GAMES]


class SampleGameFault(Exception):
    """The bot failed in a sample game: ``fault`` is what it did, ``where`` the game and
    its move (``"in game 2 of 4 (3 seats, seat 1, seed 2), its move 3"``); None when it
    failed to start its first game (the fault says "while starting": nothing was played)."""

    def __init__(self, fault: BotFault, where: str | None) -> None:
        super().__init__(f"{where or 'at its start'}: {fault}")
        self.fault = fault
        self.where = where


@dataclass(frozen=True)
class MoveTimes:
    """The wall time of the bot's moves in the check (seconds), as a runner clocks it."""

    moves: int
    median: float
    p90: float
    max: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> MoveTimes | None:
        """The statistics of ``seconds`` (nearest rank); None for no move."""
        if not seconds:
            return None
        ordered = sorted(seconds)

        def rank(share: float) -> float:
            return ordered[max(math.ceil(share * len(ordered)) - 1, 0)]

        return cls(len(ordered), rank(0.5), rank(0.9), ordered[-1])

    def fits(self) -> dict[TimeClass, bool]:
        """Whether every move fits each class's per-move limit (the classes that have one)."""
        return {
            time_class: self.max <= seconds
            for time_class, seconds in CLASS_MOVE_SECONDS.items()
            if seconds is not None
        }

    def describe(self) -> list[str]:
        """``["move times: median 0.70 s, p90 0.71 s, max 0.72 s over 23 moves",
        "fits bullet: no, fits blitz: no, fits rapid: yes, fits classical: yes (…)"]``"""
        limits = [f"{seconds:g}" for seconds in CLASS_MOVE_SECONDS.values() if seconds is not None]
        fits = ", ".join(
            f"fits {time_class}: {'yes' if fitting else 'no'}"
            for time_class, fitting in self.fits().items()
        )
        return [
            f"move times: median {_shown(self.median)}, p90 {_shown(self.p90)}, "
            f"max {_shown(self.max)} over {self.moves} {'move' if self.moves == 1 else 'moves'}",
            f"{fits} (its slowest move against {', '.join(limits[:-1])} and {limits[-1]} s a move)",
        ]


def _shown(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 0.1 else f"{seconds:.2f} s"


@dataclass
class SampleRun:
    """What the bot did in the check's games."""

    planned: int
    finished: int = 0
    move_seconds: list[float] = field(default_factory=list)
    spent: float = 0.0
    """The bot's time so far: its start-ups and moves (seconds)."""
    sandbox: str | None = None
    """What held the bot's memory and processes (:meth:`SandboxedProcess.enforced`)."""
    cut_short: str | None = None
    """Why the check stopped before its last game's end (the budget ran out), or None."""


def play_sample_games(
    bot: SubprocessBot, game: Game, *, budget: float = CHECK_BUDGET_SECONDS
) -> SampleRun:
    """Play :func:`sample_games` with ``bot``, stopping before its next start or move
    once ``budget`` seconds of its time are spent. A warm bot plays them all as forks
    of one zygote, as in a tournament; the bot is closed on return.

    Raises:
        SampleGameFault: the bot failed (crash, timeout, malformed output, protocol
            violation, illegal move, an error it reported); it names the game and move.
        HostError: the host failed (not the bot's fault).
    """
    plans = sample_games(game)
    run = SampleRun(len(plans))
    try:
        for number, plan in enumerate(plans, 1):
            label = f"game {number} of {len(plans)}"
            if run.spent >= budget:
                run.cut_short = _cut_short(budget, f"before {label}")
                break
            if not _play(bot, game, plan, label, run, budget):
                break
            run.finished += 1
    finally:
        bot.close()
    return run


def _play(
    bot: SubprocessBot, game: Game, plan: SampleGame, label: str, run: SampleRun, budget: float
) -> bool:
    """Play one sample game to its end (True), or until the budget is spent (False:
    ``run.cut_short`` says so); the bot's time and move times go into ``run``.

    Raises:
        SampleGameFault: the bot failed (its first game's start-up unplaced, as nothing
            was played yet).
    """
    where = f"in {label} ({plan})"
    state = game.new_initial_state(seed=plan.seed, seats=plan.seats)
    options = game.options_to_dict(state.options)
    players = _seat_players(bot, plan, run.finished + 1)
    for seat, player in enumerate(players):
        started = time.perf_counter()
        try:
            player.new_game(GameInfo.of(game, options, seat, plan.seats, plan.seed))
        except BotFault as fault:
            raise SampleGameFault(
                fault, f"{where}, at its start" if run.finished else None
            ) from None
        if player is bot:
            run.spent += time.perf_counter() - started
            if run.sandbox is None and bot.process is not None:
                run.sandbox = bot.process.enforced()
    moves = 0
    while (seat := state.current_seat) >= 0:
        player, legal = players[seat], state.legal_actions()
        if player is not bot:
            seen = state.observation(seat) if player.reads_observation else NO_OBSERVATION
            state.apply_action(player.act(seen, legal, None))
            continue
        if run.spent >= budget:
            run.cut_short = _cut_short(budget, f"in {label} after its move {moves}")
            return False
        moves += 1
        started = time.perf_counter()
        try:
            action = bot.act(state.observation(seat), legal, None)
        except BotFault as fault:
            raise SampleGameFault(fault, f"{where}, its move {moves}") from None
        took = time.perf_counter() - started
        run.spent += took
        run.move_seconds.append(took)
        state.apply_action(action)
    # Told the outcome and asked to quit, as a tournament does: nothing it does then
    # counts (game_over never raises), and a warm bot's zygote serves the next game.
    outcome = state.outcome()
    assert outcome is not None, "a finished state always has an outcome"
    bot.game_over(outcome)
    return True


def _seat_players(bot: SubprocessBot, plan: SampleGame, number: int) -> list[Bot]:
    """``bot`` at its seat, ``random`` and ``first-legal`` in turn at the others."""
    others: list[Bot] = [
        FirstLegalBot() if (number + index) % 2 == 0 else RandomBot(seed=plan.seed)
        for index in range(plan.seats - 1)
    ]
    return [*others[: plan.seat], bot, *others[plan.seat :]]


def _cut_short(budget: float, when: str) -> str:
    return (
        f"the check's time budget ({budget:g} s of the bot's start-ups and moves) ran out "
        f"{when}: the rest was not played"
    )
