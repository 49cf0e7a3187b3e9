"""``arena ladder start | stop | list | show | run | stop-test``: continuous ladders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from arena.cli.common import EXECUTOR_HELP, DbOption, database
from arena.cli.console import console

if TYPE_CHECKING:
    from arena.ladder.service import TestLine
    from arena.store.models import Ladder

app = typer.Typer(
    help="Start, stop, show and play continuous ladders: every active bot of a game rated.",
    no_args_is_help=True,
)

GameArgument = Annotated[str, typer.Argument(metavar="GAME", help="see `arena games`")]
SeatsOption = Annotated[
    int | None, typer.Option("--seats", help="seats per game (default: the game's)")
]
TimeControlOption = Annotated[
    str | None,
    typer.Option(
        "--time-control",
        metavar="TC",
        help="a class (bullet | blitz | rapid | classical | unlimited: st=0.05, 0.5, 5, 30 or "
        "none) or a time control ('st=0.2', 'tc=60+0.5'); default blitz",
    ),
]


@app.command("start")
def start(
    game: GameArgument,
    seats: SeatsOption = None,
    time_control: TimeControlOption = None,
    elo0: Annotated[float, typer.Option(help="regression tests: H0's normalised Elo")] = 0.0,
    elo1: Annotated[float, typer.Option(help="regression tests: H1's normalised Elo")] = 10.0,
    alpha: Annotated[float, typer.Option(help="regression tests: false-positive rate")] = 0.05,
    beta: Annotated[float, typer.Option(help="regression tests: false-negative rate")] = 0.05,
    game_budget: Annotated[
        int | None, typer.Option(help="games the ladder plays at most (default: no end)")
    ] = None,
    owner_budget: Annotated[
        int | None, typer.Option(help="games one owner's bots play at most per hour")
    ] = None,
    db: DbOption = None,
) -> None:
    """Start the ladder of GAME (one per seat count and time-control class), or start a
    stopped one again where it was. Every active bot version of GAME is in it; workers
    (`arena worker`, `arena ladder run`) play it."""
    from arena.ladder.service import LadderSettings, start_ladder
    from arena.store.db import session_scope

    settings = LadderSettings(elo0, elo1, alpha, beta, game_budget, owner_budget)
    with session_scope(database(db)) as session:
        ladder, new = start_ladder(
            session, game, seats=seats, time_control=time_control, settings=settings
        )
        line = _title(ladder)
    console.print(f"{'started' if new else 'started again'}: {line}", markup=False)


@app.command("stop")
def stop(
    game: GameArgument,
    seats: SeatsOption = None,
    time_control: TimeControlOption = None,
    db: DbOption = None,
) -> None:
    """Stop a ladder: workers play no more of it; games, ratings and tests stay."""
    from arena.ladder.service import select_ladder, stop_ladder
    from arena.store.db import session_scope

    with session_scope(database(db)) as session:
        ladder = select_ladder(session, game, seats, time_control)
        stop_ladder(session, ladder)
        line = _title(ladder)
    console.print(f"stopped: {line}", markup=False)


@app.command("list")
def list_command(db: DbOption = None) -> None:
    """List the ladders: game, seats, time control, status, bots and games."""
    from sqlmodel import Session

    from arena.ladder.service import stored_games
    from arena.store.ladders import all_ladders, ladder_members

    with Session(database(db)) as session:
        rows = [
            (
                ladder,
                tournament,
                len(ladder_members(session, ladder)),
                stored_games(session, ladder),
            )
            for ladder, tournament in all_ladders(session)
        ]
    if not rows:
        console.print("no ladders (see `arena ladder start --help`)")
        return
    table = Table(title="ladders")
    for column in ("game", "seats", "class", "time control", "status", "bots", "games"):
        table.add_column(column)
    for ladder, tournament, bots, games in rows:
        table.add_row(
            ladder.game,
            str(ladder.seats),
            ladder.time_class,
            ladder.time_control or "none",
            tournament.status,
            str(bots),
            str(games),
        )
    console.print(table)


@app.command("show")
def show(
    game: GameArgument,
    seats: SeatsOption = None,
    time_control: TimeControlOption = None,
    db: DbOption = None,
) -> None:
    """The ladder's ratings (maximum-likelihood Elo ± 95% interval), games and status
    of every bot (active, retired, suspended: why), and its regression tests."""
    from sqlmodel import Session

    from arena.ladder.service import (
        describe_tests,
        ladder_status,
        select_ladder,
        standings,
        stored_games,
    )
    from arena.store.ladders import regression_tests

    with Session(database(db)) as session:
        ladder = select_ladder(session, game, seats, time_control)
        assert ladder.id is not None
        status = ladder_status(session, ladder)
        games = stored_games(session, ladder)
        lines = standings(session, ladder)
        tests = describe_tests(session, regression_tests(session, ladder_id=ladder.id))
        title = _title(ladder)
    console.print(f"{title}: {status}, {games} games stored", markup=False, highlight=False)
    table = Table()
    for column in ("#", "bot", "elo", "95% interval", "games", "status"):
        table.add_column(column)
    for rank, line in enumerate(lines, start=1):
        rated = line.rating is not None and line.lower is not None and line.upper is not None
        table.add_row(
            str(rank),
            line.label,
            f"{line.rating:.0f}" if rated else "—",
            f"{line.lower:.0f} … {line.upper:.0f}" if rated else "—",
            str(line.games),
            line.status,
        )
    console.print(table)
    _print_tests(tests)


def _print_tests(tests: list[TestLine]) -> None:
    if not tests:
        console.print("regression tests: none")
        return
    console.print("regression tests:")
    for test in tests:
        console.print(
            f"  {test.candidate} vs {test.baseline}: {test.status}, LLR {test.llr:.2f} "
            f"({test.lower_bound:.2f} … {test.upper_bound:.2f}), {test.games} games"
            + (f" — {test.message}" if test.message else ""),
            markup=False,
            highlight=False,
        )


@app.command("run")
def run(
    game: GameArgument,
    seats: SeatsOption = None,
    time_control: TimeControlOption = None,
    executor: Annotated[str, typer.Option(help=EXECUTOR_HELP)] = "auto",
    workers: Annotated[int | None, typer.Option(help="worker processes or Ray tasks")] = None,
    ray_address: Annotated[str | None, typer.Option(help="a Ray cluster to play on")] = None,
    games: Annotated[
        int | None, typer.Option(help="stop after storing about this many games")
    ] = None,
    tables: Annotated[int, typer.Option(help="tables per batch")] = 8,
    db: DbOption = None,
) -> None:
    """Play the ladder here until Ctrl-C (or --games): batches of games chosen by its
    matchmaking, each stored with the ratings in one transaction. Ctrl-C stores what
    finished; several `ladder run` and `arena worker` may play one ladder at once."""
    import signal
    import threading

    from sqlmodel import Session

    from arena.ladder.service import select_ladder
    from arena.ladder.worker import LadderPlayer, run_ladder

    engine = database(db)
    with Session(engine) as session:
        ladder = select_ladder(session, game, seats, time_control)
        ladder_id = ladder.id
        title = _title(ladder)
    assert ladder_id is not None
    console.print(f"playing {title} (Ctrl-C stops)", markup=False, highlight=False)
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, _interrupt)
    stored = 0
    try:
        with LadderPlayer(
            engine,
            executor=executor,
            workers=workers,
            ray_address=ray_address,
            tables=tables,
            announce=lambda line: console.print(line, markup=False, highlight=False),
        ) as player:
            stored = run_ladder(
                engine,
                ladder_id,
                player=player,
                stop=stop,
                max_games=games,
                on_batch=lambda s: console.print(
                    f"stored {s.stored} games of {s.tables} tables", highlight=False
                ),
            )
    except KeyboardInterrupt:
        console.print("stopped; the games finished are stored")
    finally:
        signal.signal(signal.SIGTERM, previous)
    if stored:
        console.print(f"{stored} games stored")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@app.command("stop-test")
def stop_test(
    reference: Annotated[str, typer.Argument(metavar="NAME@VERSION")],
    game: Annotated[
        str | None, typer.Option("--game", "-g", help="when several games have this name")
    ] = None,
    db: DbOption = None,
) -> None:
    """Stop the running regression tests of a bot version (against the version before)."""
    from arena.ladder.service import stop_regression_tests
    from arena.store.bots import find_bot
    from arena.store.db import session_scope

    with session_scope(database(db)) as session:
        bot = find_bot(session, reference, game=game)
        stopped = stop_regression_tests(session, bot, why="stopped by its owner")
        label = bot.label
    console.print(f"stopped {len(stopped)} regression test(s) of {label}", markup=False)


def _title(ladder: Ladder) -> str:
    control = ladder.time_control or "no time limit"
    return f"{ladder.game} ladder, {ladder.seats} seats, {ladder.time_class} ({control})"
