"""``arena bench report``: ``arena report`` on a large tournament, in every format.

:func:`fill_tournament` stores one completed round robin straight into the tables (no
engine runs for each row): every deal is played twice with the seats swapped, as the
scheduler plays rotations, the results drawn from a Bradley–Terry model of the bots'
strengths with some luck of the deal shared by the two games of a pair, 1% forfeits
(crashes and timeouts), each row with a real record of the game. :func:`report_speed`
then times the report in each format as the command makes it: load the games, count,
fit, render (and, for ``--plot``, draw), once in this process and once as a fresh
``arena report`` process.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine

from arena.bench.web import GameWriter, bench_bots, record_pool
from arena.store.db import open_database, session_scope
from arena.store.models import Participant, Tournament, utcnow
from engines.outcome import ForfeitReason, Termination
from engines.registry import get_game
from engines.seeding import derive_seed

FORFEIT_SHARE = 0.01
DEAL_LUCK = 0.3
"""How far a deal may move the first seat's expected score (shared by the pair)."""
FORMATS = ("text", "md", "html", "json", "csv", "text --plot")


@dataclass(frozen=True)
class Timing:
    format: str
    in_process: float
    """Seconds to load, count, fit and render in this (warm) process."""
    command: float
    """Seconds of a fresh ``arena report`` process, start-up included."""


def fill_tournament(
    engine: Engine, *, games: int, bots: int = 8, game: str = "koenigsgarten", seed: int = 0
) -> int:
    """Store a completed round robin of ``games`` two-seat games among ``bots`` built-in
    bot versions; returns its id.

    Raises:
        ValueError: fewer than 2 bots or 2 games.
    """
    if bots < 2 or games < 2:
        raise ValueError(f"need 2+ bots and 2+ games, got {bots} and {games}")
    rng = random.Random(seed)
    engine_game = get_game(game)
    pool = record_pool(engine_game.name, seed)
    strengths = [rng.uniform(-300.0, 300.0) for _ in range(bots)]
    with session_scope(engine) as session:
        rows = bench_bots(session, engine_game.name, bots, "report-bench")
        bot_ids = [bot.id for bot in rows if bot.id is not None]
        labels = [bot.label for bot in rows]
        pairs = [(a, b) for a in range(bots) for b in range(a + 1, bots)]
        tournament = Tournament(
            name="report bench",
            game=engine_game.name,
            options=engine_game.options_to_dict(engine_game.parse_options(None)),
            format="round-robin",
            config={
                "game": engine_game.name,
                "format": "round-robin",
                "bots": labels,
                "games": -(-games // len(pairs)),
                "seed": seed,
                "executor": "local",
            },
            seed=seed,
            status="completed",
            scheduled=games,
            started=utcnow(),
            finished=utcnow(),
        )
        session.add(tournament)
        session.flush()
        assert tournament.id is not None
        tournament_id = tournament.id
        for position, bot_id in enumerate(bot_ids):
            session.add(Participant(tournament_id=tournament_id, bot_id=bot_id, position=position))
    writer = GameWriter(engine)
    for index in range(games):
        deal, second_game = divmod(index, 2)
        a, b = pairs[deal % len(pairs)]
        first, other = (a, b) if not second_game else (b, a)
        luck_rng = random.Random(derive_seed(seed, "luck", deal))
        luck = luck_rng.uniform(-DEAL_LUCK, DEAL_LUCK) * (1 if not second_game else -1)
        expected = 1.0 / (1.0 + 10 ** ((strengths[other] - strengths[first]) / 400.0))
        expected = min(0.99, max(0.01, expected + luck * min(expected, 1.0 - expected)))
        roll = rng.random()
        ranking = (1, 1) if roll < 0.1 else (1, 2) if roll < 0.1 + 0.9 * expected else (2, 1)
        record = dict(rng.choice(pool[ranking]))
        record["players"] = [labels[first], labels[other]]
        offender = reason = None
        if ranking != (1, 1) and rng.random() < FORFEIT_SHARE:
            offender, reason = (
                ranking.index(2),
                rng.choice((ForfeitReason.CRASH, ForfeitReason.TIMEOUT)),
            )
            record["outcome"] = {
                **record["outcome"],
                "termination": Termination.FORFEIT,
                "offender": offender,
                "reason": reason,
            }
        writer.add(
            tournament_id=tournament_id,
            index=index,
            seed=derive_seed(seed, "deal", deal),
            seats=(bot_ids[first], bot_ids[other]),
            ranking=ranking,
            record=record,
            offender=offender,
            reason=reason,
        )
    writer.flush()
    with engine.connect() as connection:
        connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
    return tournament_id


def time_format(engine: Engine, tournament_id: int, fmt: str, folder: Path) -> float:
    """Seconds to make the report in ``fmt`` in this process, as ``arena report`` does."""
    from arena.cli.report import render
    from arena.report.build import tournament_report
    from arena.report.plot import plot_report

    started = time.perf_counter()
    report = tournament_report(engine, tournament_id)
    text_format, _, plot = fmt.partition(" ")
    (folder / f"report.{text_format}").write_text(render(report, text_format), encoding="utf-8")
    if plot:
        plot_report(report, folder / "report.png")
    return time.perf_counter() - started


def time_command(database: Path, tournament_id: int, fmt: str, folder: Path) -> float:
    """Seconds of ``arena report ID --format FMT -o FILE`` as a fresh process.

    Raises:
        RuntimeError: the command failed.
    """
    text_format, _, plot = fmt.partition(" ")
    command = [
        sys.executable,
        "-m",
        "arena",
        "report",
        str(tournament_id),
        "--format",
        text_format,
        "-o",
        str(folder / f"command.{text_format}"),
        "--db",
        str(database),
    ]
    if plot:
        command += ["--plot", str(folder / "command.png")]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()}")
    return seconds


def report_speed(
    *, games: int = 100_000, bots: int = 8, folder: Path | None = None
) -> tuple[float, list[Timing]]:
    """Fill a temporary SQLite database and time the report in every format; returns
    the fill's seconds and the timings."""
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        where = Path(tmp)
        database = where / "bench.db"
        engine = open_database(str(database))
        try:
            started = time.perf_counter()
            tournament_id = fill_tournament(engine, games=games, bots=bots)
            fill = time.perf_counter() - started
            timings = [
                Timing(
                    fmt,
                    time_format(engine, tournament_id, fmt, where),
                    time_command(database, tournament_id, fmt, where),
                )
                for fmt in FORMATS
            ]
        finally:
            engine.dispose()
    return fill, timings
