"""Every path that plays submitted Python bots plays them warm, by default: a zygote
started once per bot version (and seat) in each worker serves game after game
(docs/protocol.md, "Every game from a pristine bot"). Tournaments on each executor
and across batches, the ladder's workers, browser games, `arena play` and the
submission check; the probe (tests/arena/warm_probe.py) sees each game's start from
the host."""

from __future__ import annotations

import io
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from arena.cli import app
from arena.ladder.service import LadderSettings, start_ladder
from arena.ladder.worker import LadderPlayer
from arena.players.loader import PYTHON, BotSource
from arena.players.sandbox import detect_isolation
from arena.players.submission import check_submission
from arena.players.subprocess_bot import SubprocessBot
from arena.store.bots import add_bot, resolve_bot
from arena.store.db import open_database, session_scope
from arena.tournament.config import validate_config
from arena.tournament.driver import TournamentRunner, create_tournament
from arena.web.accounts import create_account
from arena.web.humans import HumanGame, HumanGames, HumanLimits
from tests.arena import warm_probe
from tests.arena.hostile import make_bot
from tests.arena.hostile.test_pristine_games import play_against_random
from tests.waiting import wait_until

ISOLATION = detect_isolation()
pytestmark = pytest.mark.skipif(
    not (ISOLATION.cgroups.parents and ISOLATION.pids and ISOLATION.filesystem),
    reason="a zygote needs cgroups and PID and mount namespaces",
)
FIRST_LEGAL = """
class FirstLegal:
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
"""
MINE = BotSource(PYTHON, "FirstLegal", {}, FIRST_LEGAL)
GAME = "koenigsgarten"
runner = CliRunner()


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file each game's start is recorded in (in this process and its forks)."""
    path = tmp_path / "starts.jsonl"
    recorded = warm_probe.recording(SubprocessBot.new_game, path)
    monkeypatch.setattr(SubprocessBot, "new_game", recorded)
    return path


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    """A database holding ``mine``, a first-legal Python bot (registered unchecked)."""
    engine = open_database(str(tmp_path / "arena.db"))
    with session_scope(engine) as session:
        add_bot(session, name="mine", game=GAME, source=MINE)
    yield engine
    engine.dispose()


def run_tournament(engine: Engine, **config: object) -> None:
    settings = {"game": GAME, "bots": ["mine", "random"], "seed": 1, **config}
    with session_scope(engine) as session:
        tournament_id = create_tournament(session, validate_config(settings, "test"))
    TournamentRunner(engine, tournament_id, console=Console(file=io.StringIO())).run()


def test_a_tournament_here_plays_every_batch_with_one_zygote_per_seat(
    engine: Engine, probe: Path
) -> None:
    # Three batches of two games: each batch used to make the run's bots anew.
    sprt = {"batch": 2, "max_games": 6, "elo0": -200, "elo1": 200}
    run_tournament(engine, format="sprt", sprt=sprt, executor="local")
    starts = warm_probe.assert_served_warm(probe, games=6)
    assert len({start.instance for start in starts}) == 2  # seat 0 and seat 1


def test_worker_processes_keep_a_zygote_per_seat(engine: Engine, probe: Path) -> None:
    run_tournament(engine, games=12, executor="processes", workers=2)
    starts = warm_probe.assert_served_warm(probe, games=12)
    assert os.getpid() not in {start.process for start in starts}


def test_the_ladders_workers_keep_a_zygote_between_batches(engine: Engine, probe: Path) -> None:
    with session_scope(engine) as session:
        resolve_bot(session, "random", GAME)
        ladder, _ = start_ladder(session, GAME, time_control="unlimited", settings=LadderSettings())
        ladder_id = ladder.id
    assert ladder_id is not None
    with LadderPlayer(engine, executor="processes", workers=1, tables=1, seed=1) as player:
        for _ in range(2):
            summary = player.play_batch(ladder_id)
            assert summary is not None and summary.stored == 2
    warm_probe.assert_served_warm(probe, games=4)


def test_arena_play_plays_a_match_with_one_zygote(tmp_path: Path, probe: Path) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text(FIRST_LEGAL)
    arguments = ["play", GAME, "-b", "random", "--python", str(bot), "--match", "first-to-3"]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    warm_probe.assert_served_warm(probe, games=3)


def test_the_submission_check_plays_its_games_with_one_zygote(probe: Path) -> None:
    result = check_submission(MINE, "kings_corner")
    assert result.played == 3
    warm_probe.assert_served_warm(probe, games=3)


def play_as_first_legal(live: HumanGame) -> None:
    """Play the person's seat of ``live`` to the end: the first legal action each turn."""
    while True:
        wait_until(
            lambda: live.over or (live.latest is not None and live.latest.legal),
            what="the person's turn or the end",
        )
        view = live.latest
        if live.over or view is None or not view.legal:
            return
        live.move(view.version, view.legal[0])
        wait_until(
            lambda moved=view.version: live.latest is not None and live.latest.version > moved,
            what="the move",
        )


def test_browser_games_borrow_a_bot_whose_zygote_serves_the_next(
    engine: Engine, probe: Path
) -> None:
    with session_scope(engine) as session:
        account, _ = create_account(session, "alice")
        session.expunge(account)
    games = HumanGames(engine, HumanLimits(per_account=1))
    try:
        for _ in range(2):  # each game in a thread: the zygote outlives the first's
            live = games.start(account, game=GAME, seat=1, opponents=["mine"])
            play_as_first_legal(live)
            assert live.latest is not None and live.latest.error is None, live.latest
    finally:
        games.close()
    warm_probe.assert_served_warm(probe, games=2)


def test_a_thread_that_blocks_signals_starts_a_zygote_that_serves(probe: Path) -> None:
    """Ray's workers block signals; the sandbox's processes must not inherit that (a
    zygote with blocked signals is no pristine one, and plays cold)."""
    bot = make_bot(MINE)

    def play_two() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGTERM})
        for seed in range(2):
            play_against_random(bot, seed)

    thread = threading.Thread(target=play_two)
    try:
        thread.start()
        thread.join()
        warm_probe.assert_served_warm(probe, games=2)
    finally:
        bot.close()


@pytest.mark.slow  # starts Ray
@pytest.mark.xdist_group("ray")
def test_ray_workers_keep_a_zygote_per_seat(engine: Engine, tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    path = tmp_path / "ray-starts.jsonl"
    root = Path(__file__).resolve().parents[2]
    ray.init(
        address="local",  # a Ray of its own, whatever cluster another test left running
        num_cpus=1,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={
            "env_vars": {warm_probe.PROBE_FILE: str(path), "PYTHONPATH": str(root)},
            "worker_process_setup_hook": "tests.arena.warm_probe.install_from_environment",
        },
    )
    try:
        run_tournament(engine, games=12, executor="ray", workers=1)
    finally:
        ray.shutdown()
    warm_probe.assert_served_warm(path, games=12)
