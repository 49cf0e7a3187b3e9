"""The learning example end to end: train through the environment, write the bot,
register it with ``arena bots add``, rank it against the built-ins in a tournament."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sqlmodel import Session
from typer.testing import CliRunner

from arena.cli import app
from arena.store.bots import find_bot
from arena.store.db import open_database
from arena.store.games import finished_games
from bots.examples.rl import koenigsgarten_policy as policy
from bots.examples.rl.train_koenigsgarten import bot_source, evaluate, main, train

runner = CliRunner()


@pytest.mark.slow
def test_training_turns_a_random_player_into_a_strong_one() -> None:
    weights = train(400, seed=3)
    untrained = evaluate(np.zeros(len(policy.FEATURES)), 100, seed=99)
    trained = evaluate(weights, 100, seed=99)
    assert untrained.score < 0.7  # equal weights: a uniformly random choice
    assert trained.score >= 0.85
    assert weights[policy.FEATURES.index("wins_now")] > 0
    assert weights[policy.FEATURES.index("gives_them_a_win")] < 0


def test_the_written_bot_carries_the_weights() -> None:
    weights = np.arange(len(policy.FEATURES), dtype=float) / 10
    namespace: dict[str, object] = {}
    exec(compile(bot_source(weights), "learned.py", "exec"), namespace)
    assert namespace["WEIGHTS"] == tuple(round(w, 4) for w in weights)


@pytest.mark.slow  # trains, then runs a tournament
def test_train_register_and_rank_against_the_builtins(tmp_path: Path) -> None:
    bot_file, db = tmp_path / "learned.py", tmp_path / "arena.db"
    assert (
        main(["--episodes", "400", "--eval-games", "20", "--seed", "1", "--out", str(bot_file)])
        == 0
    )
    entry = f"{bot_file}:LearnedKoenigsgarten"
    added = runner.invoke(
        app, ["bots", "add", "learned", "-g", "koenigsgarten", "--python", entry, "--db", str(db)]
    )
    assert added.exit_code == 0, added.output
    assert "registered learned@1" in added.stdout
    bots = ["-b", "learned", "-b", "random", "-b", "greedy"]
    plan = ["--games", "16", "--seed", "7", "--executor", "local", "--db", str(db)]
    played = runner.invoke(app, ["tournament", "run", "--game", "koenigsgarten", *bots, *plan])
    assert played.exit_code == 0, played.output
    assert "48 of 48 games stored" in played.stdout
    engine = open_database(str(db))
    with Session(engine) as session:
        learned = find_bot(session, "learned", game="koenigsgarten").id
        random_bot = find_bot(session, "random", game="koenigsgarten").id
    points = games = 0.0
    with Session(engine) as session:
        finished = finished_games(session, 1)
    for game in finished:
        if set(game.seats) == {learned, random_bot}:
            games += 1
            place = game.ranking[game.seats.index(learned)]
            other = game.ranking[game.seats.index(random_bot)]
            points += 1.0 if place < other else 0.5 if place == other else 0.0
    assert games == 16
    assert points / games >= 0.75  # against random; a seeded run, so it replays exactly
