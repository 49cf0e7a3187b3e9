"""A bot that chooses from the legal actions alone is given no observation (the host
skips building one), and plays exactly as it would with one; a subclass that defines its
own ``act`` is shown observations again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from arena.play.runner import play_game
from bots.base import NO_OBSERVATION, Bot
from bots.simple import FirstLegalBot, RandomBot
from engines.core import Action
from engines.registry import get_game


class _Watching(RandomBot):
    """A random bot that notes what it was shown."""

    def __init__(self, *, seed: int = 0) -> None:
        super().__init__(seed=seed)
        self.shown: list[Mapping[str, Any]] = []

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        self.shown.append(observation)
        return super().act(observation, legal_actions, time_left)


class _Blind(_Watching):
    reads_observation = False


def test_the_simple_bots_read_no_observation_and_subclasses_with_their_own_act_do() -> None:
    assert not RandomBot.reads_observation
    assert not FirstLegalBot.reads_observation
    assert _Watching.reads_observation
    assert not _Blind.reads_observation
    assert Bot.reads_observation


@pytest.mark.parametrize("game_name", ["koenigsgarten", "kings_corner", "kardinal"])
def test_a_bot_that_reads_none_plays_the_same_game_without_one(game_name: str) -> None:
    game = get_game(game_name)
    seats = game.default_seats
    watching = [_Watching(seed=seat) for seat in range(seats)]
    blind = [_Blind(seed=seat) for seat in range(seats)]
    shown = play_game(game.new_initial_state(seed=7, seats=seats), watching)
    hidden = play_game(game.new_initial_state(seed=7, seats=seats), blind)
    assert shown.actions == hidden.actions
    assert shown.outcome == hidden.outcome
    assert all(observation for bot in watching for observation in bot.shown)
    assert all(observation is NO_OBSERVATION for bot in blind for observation in bot.shown)
    assert any(bot.shown for bot in blind)
