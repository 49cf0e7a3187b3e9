"""A browser game's opponents (arena/web/opponents.py): built-in bots played from the
sandbox exactly as in process, their clock, and a goodbye that waits for the page."""

from __future__ import annotations

from typing import Any, cast

from arena.play.runner import TimeControl, play_game
from arena.players.live_bots import BotPool
from arena.players.loader import BUILTIN, PYTHON, BotSource, BotSpec, instantiate
from arena.players.subprocess_bot import SubprocessBot
from arena.web.humans import CLOCKS
from arena.web.opponents import (
    Opponent,
    in_sandbox,
    opponent_bot,
    opponent_control,
    return_opponent,
)
from bots.registry import make_bot
from engines.outcome import Outcome
from engines.registry import get_game


def test_a_built_in_bot_plays_from_the_sandbox_as_in_process() -> None:
    game = get_game("koenigsgarten")
    spec = BotSpec(7, "first-legal@1", game.name, BotSource(BUILTIN, "first-legal", {}))
    assert in_sandbox(spec).source.kind == PYTHON
    records = []
    pool = BotPool()
    for bot in (instantiate(spec), opponent_bot(pool, spec, TimeControl(per_move=10.0))):
        state = game.new_initial_state(seed=11, seats=2)
        try:
            records.append(play_game(state, [bot, make_bot("random", game.name, {"seed": 5})]))
        finally:
            bot.close()
    pool.close()
    in_process, sandboxed = records
    assert sandboxed.actions == in_process.actions and sandboxed.outcome == in_process.outcome
    assert sandboxed.outcome.get("offender") is None


def test_every_opponent_has_its_time_per_move_and_the_games_clock() -> None:
    assert opponent_control(None, 10.0) == TimeControl(per_move=10.0)
    blitz = CLOCKS["5+3"]
    assert opponent_control(blitz, 10.0) == TimeControl(300.0, 10.0, 3.0)
    assert opponent_control(blitz, 2.0, clock_left=41.5) == TimeControl(41.5, 2.0, 3.0)


class Recorder:
    """Stands in for a sandboxed bot: what it was told, in order."""

    name = "recorder"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def game_over(self, outcome: Outcome) -> None:
        self.calls.append("game_over")

    def close(self) -> None:
        self.calls.append("close")


def test_the_bot_hears_of_the_games_end_when_it_is_closed() -> None:
    recorder = Recorder()
    opponent = Opponent(cast(SubprocessBot, recorder))
    opponent.game_over(cast(Any, Outcome.forfeit(0, 2, "timeout")))
    assert recorder.calls == []  # the page is told first
    opponent.close()
    assert recorder.calls == ["game_over", "close"]
    opponent.close()  # closed again (after a failure): no second goodbye
    assert recorder.calls == ["game_over", "close", "close"]


def test_an_opponent_whose_game_ended_is_lent_again_and_one_whose_game_failed_is_closed() -> None:
    spec = BotSpec(7, "first-legal@1", "koenigsgarten", BotSource(BUILTIN, "first-legal", {}))
    control = TimeControl(per_move=10.0)
    pool = BotPool()
    first = opponent_bot(pool, spec, control)
    return_opponent(pool, first, reuse=True)
    again = opponent_bot(pool, spec, control)
    assert again.bot is first.bot  # the version's warm bot serves its next game
    closed: list[str] = []
    again.bot.close = lambda: closed.append("closed")  # type: ignore[method-assign]
    return_opponent(pool, again, reuse=False)
    assert closed == ["closed"]
    assert opponent_bot(pool, spec, control).bot is not first.bot
    pool.close()
