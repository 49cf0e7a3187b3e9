"""The example submitted bots (Python and JavaScript) play both their games in the
sandbox and pass the submission check."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.play.runner import TimeControl, play_game
from arena.players.loader import COMMAND, PYTHON, BotSource, BotSpec, instantiate
from arena.players.sample_games import sample_games
from arena.players.submission import check_submission
from bots.simple import RandomBot
from engines.registry import get_game

EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples"
NODE = shutil.which("node")

PYTHON_BOT = BotSource(PYTHON, "ExampleBot", {}, (EXAMPLES / "python_bot.py").read_text())
JS_BOT = BotSource(COMMAND, f"{NODE} {EXAMPLES / 'js_bot.js'}")
needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
EXAMPLE_BOTS = [
    pytest.param(PYTHON_BOT, "example-python", id="python"),
    pytest.param(JS_BOT, "example-js", id="javascript", marks=needs_node),
]
GAMES = ("koenigsgarten", "kardinal")


@pytest.mark.slow  # whole games through each example's own process
@pytest.mark.parametrize(("source", "name"), EXAMPLE_BOTS)
@pytest.mark.parametrize("game", GAMES)
def test_the_example_plays_whole_games(source: BotSource, name: str, game: str) -> None:
    bot = instantiate(BotSpec(1, name, game, source), time_control=TimeControl(per_move=5.0))
    engine = get_game(game)
    wins = 0
    for seed in range(10):
        state = engine.new_initial_state(seed=seed, seats=2)
        seats = [bot, RandomBot(seed=seed)] if seed % 2 == 0 else [RandomBot(seed=seed), bot]
        outcome = play_game(state, seats).outcome
        assert outcome.get("offender") is None, outcome
        wins += outcome["ranking"][seed % 2] == 1
    if game == "koenigsgarten":  # where its lookahead is worth a lot (9 in 10 against random)
        assert wins >= 7


@pytest.mark.parametrize(("source", "name"), EXAMPLE_BOTS)
@pytest.mark.parametrize("game", GAMES)
def test_the_example_passes_the_submission_check(source: BotSource, name: str, game: str) -> None:
    result = check_submission(source, game)
    assert (result.name, result.protocol, result.warning) == (name, 1, None)
    assert set(GAMES) <= set(result.games)
    assert result.played == result.planned == len(sample_games(get_game(game)))
    assert result.times.moves >= result.played
