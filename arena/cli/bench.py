"""``arena bench …``: measurements for docs/benchmarks.md."""

from __future__ import annotations

import platform
import statistics
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from arena.cli import bench_search
from arena.cli.console import console
from arena.errors import ArenaError
from arena.optional import require

app = typer.Typer(help="Measure speed; figures go into docs/benchmarks.md.", no_args_is_help=True)
app.command("mcts")(bench_search.mcts)
app.command("opening-solve")(bench_search.opening_solve)


@app.command("engines")
def engines(
    game: Annotated[
        list[str] | None, typer.Option("--game", "-g", help="only these games (default: all)")
    ] = None,
    seconds: Annotated[float, typer.Option(help="time per game and seat count")] = 3.0,
) -> None:
    """Random-playout games per second per game and seat count, on one core."""
    from arena.bench.engines import random_playouts
    from engines.registry import all_games, get_game

    chosen = [get_game(name) for name in game] if game else all_games()
    table = Table(
        title=f"random playouts, one core ({platform.python_implementation()} "
        f"{platform.python_version()}, {platform.machine()})"
    )
    for column in ("game", "seats", "games", "games/s", "actions/s", "actions/game"):
        table.add_column(column, justify="right" if column != "game" else "left")
    for g in chosen:
        for seats in g.seat_counts:
            speed = random_playouts(g, seats, seconds)
            table.add_row(
                g.name,
                str(seats),
                str(speed.games),
                f"{speed.games_per_second:,.0f}",
                f"{speed.actions_per_second:,.0f}",
                f"{speed.actions / speed.games:.1f}",
            )
    console.print(table)


@app.command("ratings")
def ratings(
    games: Annotated[int, typer.Option(help="games to simulate and fit")] = 1_000_000,
    bots: Annotated[int, typer.Option(help="players of known strength")] = 50,
    interval: Annotated[str, typer.Option(help="hessian or bootstrap")] = "hessian",
    samples: Annotated[int, typer.Option(help="bootstrap resamples")] = 1000,
    seed: Annotated[int, typer.Option(help="simulation seed")] = 0,
) -> None:
    """Time the Elo fit (aggregation, fit and intervals) on simulated games."""
    from arena.bench.engines import rating_fit_speed
    from arena.ratings import IntervalMethod, RatingError

    if interval not in ("hessian", "bootstrap"):
        raise RatingError(f"--interval {interval!r} is not 'hessian' or 'bootstrap'")
    if games < 2 or bots < 2:
        raise RatingError(f"need at least 2 games and 2 bots, got {games} and {bots}")
    method: IntervalMethod = "bootstrap" if interval == "bootstrap" else "hessian"
    speed = rating_fit_speed(games, bots, interval=method, bootstrap_samples=samples, seed=seed)
    table = Table(
        title=f"Elo fit from per-game arrays ({platform.python_implementation()} "
        f"{platform.python_version()}, {platform.machine()})"
    )
    columns = ("games", "bots", "interval", "fit s", "aggregate s", "max err", "mean ±95%")
    for column in columns:
        table.add_column(column, justify="right")
    interval_label = f"bootstrap ×{samples}" if method == "bootstrap" else method
    table.add_row(
        f"{speed.games:,}",
        str(speed.bots),
        interval_label,
        f"{speed.seconds:.2f}",
        f"{speed.aggregation_seconds:.3f}",
        f"{speed.max_error:.1f}",
        f"{speed.mean_half_width:.1f}",
    )
    console.print(table)


@app.command("tournament")
def tournament(
    game: Annotated[str, typer.Option(help="the game")] = "koenigsgarten",
    bot: Annotated[
        list[str] | None,
        typer.Option("--bot", "-b", help="participants (default: two random bots)"),
    ] = None,
    games: Annotated[int, typer.Option(help="games per pairing")] = 10_000,
    executor: Annotated[str, typer.Option(help="auto | processes | ray | local")] = "auto",
    workers: Annotated[
        list[int] | None, typer.Option(help="worker counts to compare (repeatable)")
    ] = None,
    rating_interval: Annotated[
        list[int] | None,
        typer.Option(
            help="live statistics every N games, 0 for none; several to compare (repeatable)"
        ),
    ] = None,
    loop: Annotated[
        bool,
        typer.Option(
            help="also time the hand-written loop (engine, random actions, a record per "
            "game added with SQLModel, one commit) over as many games"
        ),
    ] = True,
    raw: Annotated[
        bool, typer.Option(help="also time the engine's random playouts on 2 cores at once")
    ] = True,
    rounds: Annotated[
        int,
        typer.Option(
            min=1,
            help="measure everything this many times in turn and print each ratio's median "
            "(the machine's speed drifts between runs; ratios within one round share it)",
        ),
    ] = 1,
) -> None:
    """End to end: schedule, play and store a round robin into a fresh SQLite database;
    compared, in the same run, with the hand-written loop and the engine's raw rate."""
    import os
    import statistics

    from arena.bench.service import hand_written_loop, raw_playout_rate, tournament_speed
    from arena.tournament.cluster import live_address
    from arena.tournament.progress import DEFAULT_RATING_INTERVAL

    participants = bot or ["random", "random:seed=1"]
    warm = live_address() if executor == "ray" else None
    runs = [
        (count, interval)
        for count in workers or [2]
        for interval in rating_interval or [DEFAULT_RATING_INTERVAL]
    ]
    table = Table(
        title=f"{game} round robin, {' vs '.join(participants)}, {games} games per pairing, "
        f"{executor} executor" + (f" (the warm local cluster at {warm})" if warm else "")
    )
    for column in (
        "round",
        "workers",
        "rating interval",
        "games",
        "stored",
        "executor start s",
        "play+store s",
        "games/s",
        "games/s incl. start",
        "speed-up",
        "× loop",
        "of raw",
    ):
        table.add_column(column, justify="right")
    ratios: dict[tuple[int, int, str], list[float]] = {}
    loop_rates: list[float] = []
    raw_rates: list[float] = []
    load_at_start = os.getloadavg()[0]
    for round_number in range(1, rounds + 1):
        loop_rate = hand_written_loop(game=game, games=games).games_per_second if loop else None
        raw_before = raw_playout_rate(game=game) if raw else None
        loop_rates += [loop_rate] if loop_rate else []
        speeds = {}
        # Every other round runs in reverse order, so a drift of the machine's speed
        # within a round does not always favour the same run.
        for count, interval in runs if round_number % 2 else runs[::-1]:
            speeds[count, interval] = tournament_speed(
                game=game,
                bots=participants,
                games=games,
                executor=executor,
                workers=count,
                rating_interval=interval,
            )
            if executor == "ray":
                import ray

                ray.shutdown()
        raw_rate = None
        if raw_before:
            # Raw playouts before and after the tournaments: their mean is the machine's
            # speed while the tournaments ran, whichever way it drifted meanwhile.
            raw_after = raw_playout_rate(game=game)
            raw_rates += [raw_before, raw_after]
            raw_rate = (raw_before + raw_after) / 2
        baseline = speeds[runs[0]].games_per_second
        for count, interval in runs:
            speed = speeds[count, interval]
            measured = {"speed-up": speed.games_per_second / baseline}
            if loop_rate:
                measured["× loop"] = speed.games_per_second_with_startup / loop_rate
            if raw_rate:
                measured["of raw"] = speed.games_per_second_with_startup / raw_rate
            for name, value in measured.items():
                ratios.setdefault((count, interval, name), []).append(value)
            table.add_row(
                str(round_number),
                str(count),
                str(interval) if interval else "off",
                str(speed.games),
                str(speed.stored),
                f"{speed.executor_start_seconds:.2f}",
                f"{speed.setup_seconds + speed.run_seconds - speed.executor_start_seconds:.2f}",
                f"{speed.games_per_second:,.0f}",
                f"{speed.games_per_second_with_startup:,.0f}",
                f"{measured['speed-up']:.2f}×",
                f"{measured['× loop']:.2f}×" if loop_rate else "",
                f"{measured['of raw']:.1%}" if raw_rate else "",
            )
    if rounds > 1:
        for count, interval in runs:
            cells = [
                f"{statistics.median(ratios[(count, interval, name)]):{form}}"
                if (count, interval, name) in ratios
                else ""
                for name, form in (("speed-up", ".2f"), ("× loop", ".2f"), ("of raw", ".1%"))
            ]
            table.add_row(
                "median",
                str(count),
                str(interval) if interval else "off",
                *[""] * 6,
                f"{cells[0]}×",
                f"{cells[1]}×" if cells[1] else "",
                cells[2],
            )
    console.print(table)
    if loop_rates:
        console.print(
            f"hand-written loop: {games} games at {_rates(loop_rates)} games/s (one core, one "
            "commit); × loop compares the tournament's games/s incl. start",
            highlight=False,
        )
    if raw_rates:
        console.print(
            f"raw random playouts on 2 cores, before and after each round's tournaments: "
            f"{_rates(raw_rates)} games/s (no bots, records or storage); of raw compares the "
            "tournament's games/s incl. start with the mean of its round's two",
            highlight=False,
        )
    console.print(
        f"load average {load_at_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end",
        highlight=False,
    )
    if executor == "ray":
        import ray

        from arena.bench.service import ray_task_overhead

        overhead = ray_task_overhead()
        ray.shutdown()
        console.print(
            f"Ray per-task overhead: median {overhead.median_seconds * 1000:.2f} ms over "
            f"{overhead.tasks} empty tasks = {overhead.share:.2%} of a "
            f"{overhead.chunk_seconds:.1f} s chunk"
        )


def _rates(rates: list[float]) -> str:
    """Each round's rate, in order."""
    return " · ".join(f"{rate:,.0f}" for rate in rates)


@app.command("submitted")
def submitted(
    game: Annotated[str, typer.Option(help="the game")] = "koenigsgarten",
    seats: Annotated[int | None, typer.Option(help="seats per game (default: the game's)")] = None,
    games: Annotated[int, typer.Option(help="games per run", min=1)] = 10_000,
    workers: Annotated[int, typer.Option(help="worker processes", min=1)] = 2,
    rounds: Annotated[int, typer.Option(help="rounds, each both runs in turn", min=1)] = 3,
    bot: Annotated[
        str, typer.Option(help="the submitted bot: python (the SDK, first legal) | node")
    ] = "python",
    sandboxed: Annotated[
        bool, typer.Option(help="submitted random bots as its opponents (else built-in)")
    ] = False,
    executor: Annotated[str, typer.Option(help="processes | local | ray | auto")] = "processes",
) -> None:
    """A submitted bot's tournament speed beside the built-in one's, in one run: the
    same round robin with the built-in first-legal and with a submitted bot in its
    place (checked and registered first), against random bots, start-up included; the
    rounds alternate which plays first."""
    from arena.bench.submitted import Round, SubmittedKind, compare, lineups
    from engines.errors import did_you_mean

    kinds = [kind.value for kind in SubmittedKind]
    if bot not in kinds:
        raise ArenaError(f"--bot {bot!r}: {did_you_mean(bot, kinds)}the bots: {', '.join(kinds)}")
    sides = lineups(game, seats, kind=SubmittedKind(bot), sandboxed=sandboxed)
    builtin, submitted = sides
    table = Table(
        title=f"{game}, {' vs '.join(builtin.bots)} and {' vs '.join(submitted.bots)}: "
        f"{games} games per table, {workers} workers, {executor} executor, start-up included"
    )
    columns = ("round", "line-up", "games", "stored", "s", "games/s", "submitted/built-in", "load")
    for column in columns:
        table.add_column(column, justify="left" if column == "line-up" else "right")

    def shown(finished: Round) -> None:
        load = f"{finished.load[0]:.1f}–{finished.load[1]:.1f}"
        for lineup, speed in ((builtin, finished.builtin), (submitted, finished.submitted)):
            table.add_row(
                str(finished.number),
                lineup.label,
                str(speed.games),
                str(speed.stored),
                f"{speed.setup_seconds + speed.run_seconds:.2f}",
                f"{speed.games_per_second_with_startup:,.0f}",
                f"{finished.ratio:.1%}" if lineup is submitted else "",
                load,
            )

    played = compare(
        game=game,
        lineups=sides,
        games=games,
        workers=workers,
        rounds=rounds,
        seats=seats,
        executor=executor,
        on_round=shown,
    )
    if rounds > 1:
        median = statistics.median(finished.ratio for finished in played)
        table.add_row("median", "", "", "", "", "", f"{median:.1%}", "")
    console.print(table)


@app.command("worker")
def worker(
    game: Annotated[str, typer.Option(help="the game (played by 1 or 2 seats)")] = "koenigsgarten",
    games: Annotated[int, typer.Option(help="games per round", min=1)] = 2_000,
    rounds: Annotated[int, typer.Option(help="rounds, each timed on its own", min=1)] = 3,
) -> None:
    """A tournament worker's CPU time per random-vs-random game (play_chunk and the
    pickling of its result) against the engine's raw random playout of the same deals,
    alternating in chunks of 200 games in this one process."""
    import os

    from arena.bench.worker import worker_cost

    table = Table(title=f"{game}: worker vs raw playout, CPU µs per game, {games} games a round")
    for column in ("round", "raw playout", "worker", "of which pickling", "worker / raw"):
        table.add_column(column, justify="right")
    for number in range(1, rounds + 1):
        cost = worker_cost(game=game, games=games)
        table.add_row(
            str(number),
            f"{cost.raw_micros:.1f}",
            f"{cost.worker_micros:.1f}",
            f"{cost.pickle_micros:.1f}",
            f"{cost.ratio:.2f}×",
        )
    console.print(table)
    console.print(f"load average {os.getloadavg()[0]:.1f} at the end", highlight=False)


@app.command("scale")
def scale(
    game: Annotated[str, typer.Option(help="the game")] = "koenigsgarten",
    games: Annotated[int, typer.Option(help="games of two random bots")] = 100_000,
    executor: Annotated[str, typer.Option(help="ray | local")] = "local",
    workers: Annotated[int, typer.Option(help="Ray workers")] = 2,
    interrupt_at: Annotated[
        float, typer.Option(help="stop the run after this share of its games, then resume")
    ] = 0.5,
    folder: Annotated[
        Path | None, typer.Option(help="where the temporary database goes (default: /tmp)")
    ] = None,
) -> None:
    """A big tournament's driver: peak memory, games/s of the first and last 10%, and
    how fast a resume stores its first game. Target: memory independent of the count."""
    import os

    from arena.bench.scale import tournament_scale

    run = tournament_scale(
        game=game,
        bots=["random", "random:seed=1"],
        games=games,
        executor=executor,
        workers=workers,
        interrupt_at=interrupt_at,
        folder=folder,
    )
    table = Table(
        title=f"{game}, random vs random, {run.games:,} games stored, {executor} executor, "
        f"interrupted at {interrupt_at:.0%} and resumed"
    )
    for column in ("measure", "value"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    for measure, value in (
        ("tournament created, s", f"{run.schedule_seconds:.1f}"),
        ("games/s, first 10%", f"{run.rate(0.0, 0.1):,.0f}"),
        ("games/s, last 10%", f"{run.rate(0.9, 1.0):,.0f}"),
        ("last 10% / first 10%", f"{run.rate(0.9, 1.0) / run.rate(0.0, 0.1):.2f}"),
        (
            "games/s by tenth",
            " ".join(f"{run.rate(k / 10, (k + 1) / 10):,.0f}" for k in range(10)),
        ),
        ("resume: first batch stored after, s", f"{run.resume_first_store_seconds:.1f}"),
        (
            "resident MB at 10% / 50% / 90%",
            " / ".join(f"{run.resident_at(f):.0f}" for f in (0.1, 0.5, 0.9)),
        ),
        ("peak resident MB, play", f"{run.peak_before_snapshot_mb:.0f}"),
        ("peak resident MB, with the final snapshot", f"{run.peak_mb:.0f}"),
        ("final snapshot and status, s", f"{run.snapshot_seconds:.1f}"),
    ):
        table.add_row(measure, value)
    console.print(table)
    console.print(f"load average {os.getloadavg()[0]:.1f} at the end", highlight=False)


@app.command("protocol")
def protocol(
    game: Annotated[str, typer.Option(help="the game whose sample position is sent")] = (
        "koenigsgarten"
    ),
    moves: Annotated[int, typer.Option(help="act round trips to time")] = 20_000,
    games: Annotated[int, typer.Option(help="game starts and ends to time")] = 30,
    warm: Annotated[
        bool, typer.Option(help="start the bot once, each game a fork of it (SandboxLimits.warm)")
    ] = False,
) -> None:
    """The bot protocol's cost: per move (act round trip) and per game (start, end), with
    a trivial Python SDK bot in the full sandbox (``--warm``: its zygote's games)."""
    import os

    from arena.bench.protocol import protocol_speed

    if moves < 1 or games < 1:
        raise ArenaError(f"--moves and --games must be at least 1, not {moves} and {games}")
    load_at_start = os.getloadavg()[0]
    speed = protocol_speed(game=game, moves=moves, games=games, warm=warm)
    table = Table(
        title=f"bot protocol, {speed.game} sample position ({speed.observation_bytes} bytes of "
        f"observation), trivial SDK bot{' (warm)' if warm else ''} "
        f"({platform.python_implementation()} "
        f"{platform.python_version()}, {platform.machine()})"
    )
    per_move = {
        "moves": f"{len(speed.round_trips):,}",
        "act median µs": f"{speed.median * 1e6:.1f}",
        "act p90 µs": f"{speed.p90 * 1e6:.1f}",
        "act mean µs": f"{statistics.mean(speed.round_trips) * 1e6:.1f}",
        "never frozen µs": (
            f"{statistics.median(speed.never_frozen) * 1e6:.1f}" if speed.never_frozen else "-"
        ),
        "host CPU µs": f"{speed.host_cpu * 1e6:.1f}",
        "bot CPU µs": f"{speed.bot_cpu * 1e6:.1f}" if speed.bot_cpu is not None else "-",
    }
    for column in per_move:
        table.add_column(column, justify="right")
    table.add_row(*per_move.values())
    console.print(table)
    games_table = Table()
    per_game = {
        "games": str(len(speed.starts)),
        "start median ms": f"{statistics.median(speed.starts) * 1e3:.1f}",
        "end median ms": f"{statistics.median(speed.ends) * 1e3:.1f}",
    }
    for column in per_game:
        games_table.add_column(column, justify="right")
    games_table.add_row(*per_game.values())
    console.print(games_table)
    console.print(
        "never frozen: the median of as many moves of the same bot, in alternating blocks, "
        "with its freezing off (what freezing it off its turn costs); host and bot CPU: per "
        "act, as getrusage and the bot's cgroup count it",
        highlight=False,
    )
    console.print(f"sandbox: {speed.isolation.describe()}", highlight=False)
    console.print(
        f"load average {load_at_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end",
        highlight=False,
    )


@app.command("sandbox")
def sandbox(
    starts: Annotated[int, typer.Option(help="starts and ends to time per variant")] = 100,
) -> None:
    """What each fence of the sandbox adds to a game's start and end: /bin/true started
    and closed with every fence, and without each costly one in turn."""
    from arena.bench.sandbox import fence_costs
    from arena.players.sandbox import detect_isolation

    if starts < 1:
        raise ArenaError(f"--starts must be at least 1, not {starts}")
    costs = fence_costs(starts=starts)
    table = Table(title=f"sandbox start and end of /bin/true, {starts} each, interleaved")
    for column in ("fences", "start median ms", "start p90 ms", "end median ms"):
        table.add_column(column, justify="right" if column != "fences" else "left")
    for cost in costs:
        ordered = sorted(cost.starts)
        table.add_row(
            cost.variant,
            f"{statistics.median(cost.starts) * 1e3:.1f}",
            f"{ordered[int(0.9 * (len(ordered) - 1))] * 1e3:.1f}",
            f"{statistics.median(cost.ends) * 1e3:.1f}",
        )
    console.print(table)
    console.print(f"sandbox: {detect_isolation().describe()}", highlight=False)


@app.command("solver")
def solver(
    game: Annotated[str, typer.Argument(help="the patience to solve (blumengarten)")],
    deals: Annotated[int, typer.Option(help="random deals to solve")] = 200,
    timeout: Annotated[float, typer.Option(help="seconds per deal")] = 10.0,
    seed: Annotated[int, typer.Option(help="deal i is shuffled from derive_seed(seed, i)")] = 0,
    jobs: Annotated[int, typer.Option(help="deals solved at once, one worker process each")] = 2,
    variant: Annotated[
        list[str] | None, typer.Option(help="sequences, garden_7x5 (default: classic)")
    ] = None,
) -> None:
    """Solve random deals: the shares won, proved lost and unknown, and time per won deal."""
    import os

    from arena.bench.solver import DealResult, run_solver_bench

    options = {name: True for name in variant or [] if name != "classic"}
    done = 0

    def progress(result: DealResult) -> None:
        nonlocal done
        done += 1
        if done % 20 == 0 or done == deals:
            console.print(f"  {done}/{deals} deals solved", highlight=False)

    summary = run_solver_bench(
        game,
        deals=deals,
        timeout=timeout,
        seed=seed,
        jobs=jobs,
        options=options,
        on_result=progress,
    )
    won_times = summary.won_seconds
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    table = Table(
        title=f"{game} solver: {deals} deals from seed {seed}, {timeout:g} s each, "
        f"{jobs} at a time ({platform.python_implementation()} {platform.python_version()}, "
        f"load average {load:.1f} at the end)"
    )
    for column in (
        "won",
        "lost (proved)",
        "unknown",
        "won: median s",
        "won: p90 s",
        "won: max s",
        "nodes/s",
    ):
        table.add_column(column, justify="right")

    def share(status: str) -> str:
        return f"{summary.count(status)} ({summary.share(status):.1%})"

    def at(fraction: float) -> str:
        if not won_times:
            return "—"
        return f"{won_times[min(len(won_times) - 1, int(fraction * len(won_times)))]:.2f}"

    median = summary.median_won_seconds
    table.add_row(
        share("won"),
        share("lost"),
        share("unknown"),
        "—" if median is None else f"{median:.2f}",
        at(0.9),
        at(1.0),
        f"{summary.nodes_per_second:,.0f}",
    )
    console.print(table)
    console.print(
        f"won {share('won')}, proved lost {share('lost')}, unknown {share('unknown')}; "
        f"median time of a won deal "
        f"{'—' if median is None else f'{median:.2f} s'}",
        soft_wrap=True,
    )


@app.command("web")
def web(
    games: Annotated[int, typer.Option(help="finished games to store first")] = 100_000,
    requests: Annotated[int, typer.Option(help="leaderboard requests to time")] = 200,
    bots: Annotated[int, typer.Option(help="bot versions playing them")] = 8,
    db: Annotated[
        str | None,
        typer.Option(help="an empty database to fill (default: a temporary SQLite file)"),
    ] = None,
) -> None:
    """Leaderboard API latency (GET /api/leaderboards/GAME) over a database of stored games."""
    require("fastapi", extra="web")
    require("httpx", extra="web")
    from arena.bench.web import leaderboard_latency

    if games < 1 or requests < 1 or bots < 2:
        raise ArenaError(
            f"--games and --requests must be at least 1 and --bots 2, not {games}, {requests}, "
            f"{bots}"
        )
    speed = leaderboard_latency(games=games, requests=requests, bots=bots, url=db)
    table = Table(
        title=f"GET /api/leaderboards/koenigsgarten, {speed.games:,} stored games among {bots} "
        f"bots, {speed.fill.tournaments} tournaments, {speed.database} "
        f"({platform.python_implementation()} {platform.python_version()})"
    )
    columns = ("fill s", "cold s", "requests", "p50 ms", "p90 ms", "p99 ms", "max ms")
    for column in columns:
        table.add_column(column, justify="right")
    table.add_row(
        f"{speed.fill.seconds:.1f}",
        f"{speed.cold_seconds:.2f}",
        str(speed.requests),
        f"{speed.p50 * 1e3:.1f}",
        f"{speed.p90 * 1e3:.1f}",
        f"{speed.p99 * 1e3:.1f}",
        f"{max(speed.seconds) * 1e3:.1f}",
    )
    console.print(table)


@app.command("browser")
def browser(
    moves: Annotated[int, typer.Option(help="moves to time (at least)")] = 100,
    game: Annotated[str, typer.Option(help="a two-seat game")] = "koenigsgarten",
    bot: Annotated[str, typer.Option(help="the built-in bot to play")] = "random",
) -> None:
    """A person's move in the browser: click to the bot's answer drawn (live server,
    headless Chromium, loopback)."""
    require("fastapi", extra="web")
    require("httpx", extra="web")
    from arena.bench.browser import browser_round_trips

    if moves < 1:
        raise ArenaError(f"--moves must be at least 1, not {moves}")
    trips = browser_round_trips(moves=moves, game=game, bot=bot)
    ordered = sorted(trips.seconds)
    table = Table(
        title=f"browser move round trip: {trips.game} against {trips.bot}, "
        f"{trips.games} games, headless Chromium, loopback"
    )
    for column in ("moves", "p50 ms", "p90 ms", "p99 ms", "max ms"):
        table.add_column(column, justify="right")
    table.add_row(
        str(len(ordered)),
        f"{statistics.median(ordered) * 1e3:.1f}",
        f"{ordered[int(0.9 * (len(ordered) - 1))] * 1e3:.1f}",
        f"{ordered[int(0.99 * (len(ordered) - 1))] * 1e3:.1f}",
        f"{ordered[-1] * 1e3:.1f}",
    )
    console.print(table)


@app.command("busy-games")
def busy_games(
    games: Annotated[int, typer.Option(help="browser games at once", min=1)] = 4,
    game: Annotated[str, typer.Option(help="a two-seat game")] = "kardinal",
    bot: Annotated[str, typer.Option(help="the bot they play")] = "ismcts:iterations=100000",
    requests: Annotated[int, typer.Option(help="requests timed per phase", min=2)] = 200,
    warmup: Annotated[float, typer.Option(help="seconds of play before timing", min=0)] = 10.0,
    checkout: Annotated[
        Path | None,
        typer.Option(help="run the server from this checkout of arena (a before/after)"),
    ] = None,
) -> None:
    """GET /api/games latency of a live server, idle and while browser games keep
    their bots searching (loopback, one run)."""
    require("fastapi", extra="web")
    require("httpx", extra="web")
    from arena.bench.busy_games import busy_games as measure

    result = measure(
        games=games, game=game, bot=bot, requests=requests, warmup=warmup, checkout=checkout
    )
    table = Table(
        title=f"GET /api/games, idle and with {result.games} browser games of {result.game} "
        f"against {result.bot} ({result.bot_moves} bot moves), loopback"
    )
    for column in ("phase", "requests", "p50 ms", "p90 ms", "max ms", "load (1 min)"):
        table.add_column(column, justify="right")
    for phase, latencies, load in (
        ("idle", result.idle, result.load_before),
        ("busy", result.busy, result.load_after),
    ):
        table.add_row(
            phase,
            str(len(latencies.seconds)),
            f"{latencies.p50 * 1e3:.1f}",
            f"{latencies.p90 * 1e3:.1f}",
            f"{max(latencies.seconds) * 1e3:.1f}",
            f"{load:.2f}",
        )
    console.print(table)
    console.print(
        f"busy / idle: p50 {result.busy.p50 / result.idle.p50:.2f}, "
        f"p90 {result.busy.p90 / result.idle.p90:.2f}; the web process used "
        f"{result.server_cpu_seconds:.1f} s of CPU in the {result.busy_seconds:.1f} s busy phase"
    )


@app.command("archives")
def archives(
    uploads: Annotated[int, typer.Option(help="archives uploaded at once")] = 10,
    kind: Annotated[
        list[str] | None,
        typer.Option("--kind", "-k", help="a bomb of arena/bench/archives.py (default: all)"),
    ] = None,
    size: Annotated[int, typer.Option(help="MiB each bomb announces or unpacks to")] = 1900,
) -> None:
    """The web process's peak memory while archive bombs are uploaded at once (a live
    arena serve, one account per upload), against as many honest archives of the
    largest size allowed."""
    require("fastapi", extra="web")
    require("httpx", extra="web")
    import os
    from collections import Counter

    from arena.bench.archives import BOMBS, MIB, bomb_bytes, honest_archive, upload_memory

    kinds = kind or list(BOMBS)
    unknown = [name for name in kinds if name not in BOMBS]
    if unknown or uploads < 1 or size < 1:
        raise ArenaError(
            f"--uploads and --size must be at least 1 and --kind one of {', '.join(BOMBS)} "
            f"(got {uploads}, {size}, {', '.join(unknown) or '-'})"
        )
    load_at_start = os.getloadavg()[0]
    chosen = [kinds[index % len(kinds)] for index in range(uploads)]
    rounds = [
        [("honest", "honest.tar.gz", honest_archive())] * uploads,
        [(name, BOMBS[name].filename, bomb_bytes(name, size * MIB)) for name in chosen],
    ]
    table = Table(
        title=f"arena serve's memory (VmHWM) with {uploads} archives uploaded at once, "
        f"bombs of {size} MiB"
    )
    columns = ("archives", "largest KiB", "answers", "RSS before MiB", "peak MiB", "growth MiB")
    for column in (*columns, "slowest s"):
        table.add_column(column, justify="left" if column in ("archives", "answers") else "right")
    for batch in rounds:
        memory = upload_memory(batch)
        statuses = Counter(answer.status for answer in memory.answers)
        table.add_row(
            memory.kinds[0] if len(memory.kinds) == 1 else f"{len(memory.kinds)} kinds of bomb",
            f"{max(len(data) for _, _, data in batch) / 1024:.0f}",
            ", ".join(f"{count}×{status}" for status, count in sorted(statuses.items())),
            f"{memory.resident_before / MIB:.0f}",
            f"{memory.peak_after / MIB:.0f}",
            f"{memory.growth / MIB:.0f}",
            f"{max(answer.seconds for answer in memory.answers):.2f}",
        )
    console.print(table)
    console.print(
        f"load average {load_at_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end",
        highlight=False,
    )


@app.command("envs")
def envs(
    game: Annotated[
        list[str] | None, typer.Option("--game", "-g", help="only these games (default: all)")
    ] = None,
    seconds: Annotated[float, typer.Option(help="time per loop and round")] = 2.0,
    rounds: Annotated[int, typer.Option(help="alternating engine/env rounds")] = 5,
) -> None:
    """The PettingZoo environments' step rate beside the engine's random-playout rate, in
    the same run (needs the rl extra)."""
    import os

    require("pettingzoo", extra="rl")
    require("gymnasium", extra="rl")
    from arena.bench.envs import env_speed
    from engines.registry import all_games, get_game

    if rounds < 1 or not seconds > 0:
        raise ArenaError(
            f"--rounds must be at least 1 and --seconds positive, not {rounds}, {seconds}"
        )
    chosen = [get_game(name) for name in game] if game else all_games()
    load_at_start = os.getloadavg()[0]
    table = Table(
        title=f"random games through the PettingZoo API vs the engine, one core, median of "
        f"{rounds} alternating rounds ({platform.python_implementation()} "
        f"{platform.python_version()})"
    )
    for column in (
        "game",
        "seats",
        "infos text",
        "engine actions/s",
        "env actions/s",
        "env/engine",
        "protocol floor",
    ):
        table.add_column(column, justify="left" if column == "game" else "right")
    for g in chosen:
        for seats in g.seat_counts:
            for text in (False, True):  # the default first
                speed = env_speed(g, seats, seconds=seconds, rounds=rounds, text_observations=text)
                table.add_row(
                    g.name,
                    str(seats),
                    "yes" if text else "no",
                    f"{speed.engine:,.0f}",
                    f"{speed.env:,.0f}",
                    f"{speed.ratio:.0%}",
                    f"{speed.bare_ratio:.0%}",
                )
    console.print(table)
    console.print(
        "protocol floor: the same loop through a bare PettingZoo AEC env that only steps the "
        "engine (no vector, mask or infos), as a share of the engine's rate",
        highlight=False,
    )
    console.print(
        "infos text: whether infos carry the engine's JSON observation "
        "(text_observations=True; off by default)",
        highlight=False,
    )
    console.print(
        f"load average at the start: {load_at_start:.1f}, at the end: {os.getloadavg()[0]:.1f}",
        highlight=False,
    )


@app.command("report")
def report(
    games: Annotated[int, typer.Option(help="games of the tournament to report")] = 100_000,
    bots: Annotated[int, typer.Option(help="bot versions in its round robin")] = 8,
) -> None:
    """`arena report` on a large tournament in every format (and with --plot): in this
    process and as a fresh command. Target: 5 s each for 100,000 games."""
    import os

    from arena.bench.report import report_speed

    if games < 2 or bots < 2:
        raise ArenaError(f"--games and --bots must be at least 2, not {games} and {bots}")
    fill, timings = report_speed(games=games, bots=bots)
    load = os.getloadavg()[0]
    table = Table(
        title=f"arena report, round robin of {games:,} stored games among {bots} bots, SQLite "
        f"(filled in {fill:.1f} s; {platform.python_implementation()} "
        f"{platform.python_version()}, load average {load:.1f} at the end)"
    )
    for column in ("format", "in process s", "arena report s"):
        table.add_column(column, justify="left" if column == "format" else "right")
    for timing in timings:
        table.add_row(timing.format, f"{timing.in_process:.2f}", f"{timing.command:.2f}")
    console.print(table)


@app.command("live")
def live(
    games: Annotated[int, typer.Option(help="games fed to the live statistics")] = 100_000,
    bots: Annotated[int, typer.Option(help="bots of the round robin")] = 8,
    rating_interval: Annotated[
        list[int] | None, typer.Option(help="refit every N games (repeatable)")
    ] = None,
) -> None:
    """What the live Elo costs the tournament driver per game, refit included."""
    import os

    from arena.bench.live import live_cost

    if games < 2 or bots < 2:
        raise ArenaError(f"--games and --bots must be at least 2, not {games} and {bots}")
    table = Table(title=f"live statistics, {games:,} two-seat games among {bots} bots")
    for column in ("interval", "refits", "µs per game", "one refit at the end ms"):
        table.add_column(column, justify="right")
    for interval in rating_interval or [10, 100, 1000]:
        cost = live_cost(games=games, bots=bots, interval=interval)
        table.add_row(
            str(interval),
            f"{cost.refits:,}",
            f"{cost.microseconds_per_game:.1f}",
            f"{1e3 * cost.last_refit_seconds:.2f}",
        )
    console.print(table)
    console.print(f"load average {os.getloadavg()[0]:.1f} at the end", highlight=False)


@app.command("ladder-rating")
def ladder_rating(
    bots: Annotated[int, typer.Option(help="bots on the ladder")] = 50,
    games: Annotated[int, typer.Option(help="simulated games fed in")] = 1_000_000,
    rate: Annotated[float, typer.Option(help="games arriving per second")] = 2_000.0,
    interval: Annotated[float, typer.Option(help="refit at most every S seconds")] = 0.25,
    round_trip: Annotated[
        bool,
        typer.Option(help="load and save the rating state every cycle, as a ladder worker does"),
    ] = True,
    seats: Annotated[int, typer.Option(help="seats per game: rotations of N games")] = 2,
    seed: Annotated[int, typer.Option(help="simulation seed")] = 0,
) -> None:
    """Issue 18: does the ladder's incremental Elo keep up? The lag from a game's
    arrival to the refit that includes it, games arriving at --rate (virtual clock,
    real work)."""
    import os

    from arena.bench.ladder import rating_lag

    lag = rating_lag(
        bots=bots,
        games=games,
        rate=rate,
        interval=interval,
        round_trip=round_trip,
        seats=seats,
        seed=seed,
    )
    saved = ", state loaded and saved every cycle" if round_trip else ""
    table = Table(
        title=f"ladder refit, {lag.games:,} games of {bots} bots, {seats} seats "
        f"({lag.results:,} pair results), at {rate:,.0f}/s{saved}"
    )
    columns = ("interval s", "refits", "max lag s", "mean lag s", "cycle p50 ms")
    for column in (*columns, "cycle max ms", "busy", "max |err| Elo"):
        table.add_column(column, justify="right")
    table.add_row(
        f"{interval:g}",
        f"{lag.refits:,}",
        f"{lag.max_lag:.3f}",
        f"{lag.mean_lag:.3f}",
        f"{1e3 * lag.median_refit:.1f}",
        f"{1e3 * lag.max_refit:.1f}",
        f"{lag.busy:.0%}",
        f"{lag.max_error:.1f}",
    )
    console.print(table)
    console.print(
        f"rating state at the end: {lag.memory_bytes / 2**20:,.1f} MiB in memory, "
        f"{lag.state_bytes / 2**20:,.1f} MiB saved",
        highlight=False,
    )
    console.print(f"load average {os.getloadavg()[0]:.1f} at the end", highlight=False)


@app.command("ladder-placement")
def ladder_placement(
    bots: Annotated[int, typer.Option(help="bots on the ladder")] = 50,
    owners: Annotated[int, typer.Option(help="owners the bots belong to")] = 10,
    versions: Annotated[int, typer.Option(help="new versions registered, one by one")] = 10,
    games_per_second: Annotated[
        float, typer.Option(help="the ladder's games/s, to turn games into seconds")
    ] = 2_000.0,
    target: Annotated[float, typer.Option(help="the ± Elo to reach")] = 50.0,
    settle_games: Annotated[int, typer.Option(help="games played before")] = 100_000,
    seed: Annotated[int, typer.Option(help="simulation seed")] = 0,
) -> None:
    """Issue 18, simulated: from a new version's registration to a ±TARGET Elo
    interval, in ladder games and in seconds at --games-per-second."""
    import os

    from arena.bench.ladder import matchmaking_seconds, placement_games

    found = placement_games(
        bots=bots,
        owners=owners,
        versions=versions,
        target=target,
        settle_games=settle_games,
        seed=seed,
    )
    table = Table(
        title=f"simulated ladder: {bots} bots, {owners} owners, after "
        f"{found.settle_games:,} games; new version to ±{target:g} Elo"
    )
    for column in ("", "ladder games", "its own games", f"s at {games_per_second:,.0f} games/s"):
        table.add_column(column, justify="right")
    for label, pick in (("median", statistics.median), ("max", max)):
        table.add_row(
            label,
            f"{pick(found.games):,.0f}",
            f"{pick(found.own_games):,.0f}",
            f"{pick(found.games) / games_per_second:.2f}",
        )
    console.print(table)
    for count in (1, 10, 50):
        seconds = matchmaking_seconds(bots=bots, owners=owners, count=count)
        console.print(
            f"next_pairings for {count} pairing(s) of {bots} bots: {1e3 * seconds:.2f} ms (median)",
            highlight=False,
        )
    console.print(f"load average {os.getloadavg()[0]:.1f} at the end", highlight=False)


@app.command("ladder-board")
def ladder_board(
    games: Annotated[int, typer.Option(help="ladder games stored")] = 1_000_000,
    bots: Annotated[int, typer.Option(help="bots on the ladder")] = 50,
    reads: Annotated[int, typer.Option(help="standings read, timed one by one")] = 50,
    database_file: Annotated[
        Path | None,
        typer.Option("--database", help="SQLite file to fill (default: a temporary one)"),
    ] = None,
) -> None:
    """Issue 18: a ladder's leaderboard (`arena ladder show`, the web's table) with
    --games ladder games stored: the median and 95th percentile of reading it."""
    import tempfile

    from arena.bench.ladder_live import leaderboard_timing

    if games < 1 or bots < 2 or reads < 1:
        raise ArenaError("--games and --reads must be at least 1 and --bots at least 2")
    with tempfile.TemporaryDirectory() as folder:
        path = database_file or Path(folder) / "ladder.db"
        if path.exists():
            raise ArenaError(f"{str(path)!r} exists: the bench fills a new database")
        timing = leaderboard_timing(path, games=games, bots=bots, reads=reads)
    console.print(
        f"ladder leaderboard: {timing.games:,} games, {timing.bots} bots, "
        f"{timing.history_rows:,} rating-history rows (filled in {timing.fill_seconds:.0f} s): "
        f"p50 {timing.p50 * 1000:.1f} ms, p95 {timing.p95 * 1000:.1f} ms over {reads} reads",
        highlight=False,
    )


@app.command("ladder-live")
def ladder_live(
    bots: Annotated[int, typer.Option(help="bots on the ladder")] = 50,
    workers: Annotated[int, typer.Option(help="`arena ladder run` processes")] = 2,
    warmup: Annotated[int, typer.Option(help="games stored before the new version")] = 3000,
    target: Annotated[float, typer.Option(help="the interval's half-width, Elo")] = 50.0,
) -> None:
    """Issue 18: with --bots built-ins of Königsgarten on a ladder played by --workers
    real workers, the time from registering a new version to a ±--target Elo interval
    (its regression test against the previous version runs meanwhile)."""
    import tempfile

    from arena.bench.ladder_live import placement_time

    if bots < 3 or workers < 1 or warmup < 0 or not target > 0:
        raise ArenaError("--bots must be at least 3, --workers 1, --target above 0")
    with tempfile.TemporaryDirectory() as folder:
        timing = placement_time(
            Path(folder) / "ladder.db", bots=bots, workers=workers, warmup=warmup, target=target
        )
    console.print(
        f"ladder of {bots} bots, {workers} workers: mine@2 at ±{timing.half_width:.0f} Elo "
        f"{timing.seconds:.1f} s after its registration, after {timing.own_games} of its own "
        f"games ({timing.ladder_games} ladder games meanwhile); its test: {timing.test}",
        highlight=False,
    )


@app.command("load")
def load(
    users: Annotated[
        list[int] | None,
        typer.Option("--users", "-u", help="locust users at once; repeat to step up"),
    ] = None,
    seconds: Annotated[float, typer.Option(help="run time at each step", min=1)] = 30.0,
    game: Annotated[str, typer.Option(help="the game read and played")] = "kardinal",
    bot: Annotated[str, typer.Option(help="the bot people play")] = "random",
    bare: Annotated[bool, typer.Option(help="also measure the bare FastAPI app")] = True,
) -> None:
    """Locust's readers and browser players against a live `arena serve` (loopback,
    SQLite) for a bounded time per step: count, rate, p50, p99 and 5xx per route, the
    load average and the web process's memory; the step whose every route's p99 is
    at most 200 ms is the rate held."""
    from arena.bench.load import bare_load, check_installed, service_load

    check_installed()

    for count in users or [10]:
        run = service_load(users=count, seconds=seconds, game=game, bot=bot)
        _print_load(f"arena serve, {count} users, {seconds:g} s", run)
        settled = run.rss_settled_and_end()
        if settled is not None:
            console.print(f"web process RSS: settled {settled[0]:.0f} MB, end {settled[1]:.0f} MB")
        console.print(f"accepted by the generator: {run.counts}")
        if bare:
            reference = bare_load(users=count, seconds=seconds)
            _print_load(f"bare FastAPI, {count} users, {seconds:g} s", reference)


def _print_load(title: str, run: object) -> None:
    from arena.bench.load import LoadRun

    assert isinstance(run, LoadRun)
    held = all(route.p99_ms <= 200 for route in run.routes)
    table = Table(
        title=f"{title} (load {run.load_before:.1f} → {run.load_after:.1f}; "
        f"p99 ≤ 200 ms on every route: {'yes' if held else 'no'})"
    )
    for column in ("route", "count", "req/s", "p50 ms", "p99 ms", "failures", "5xx"):
        table.add_column(column, justify="left" if column == "route" else "right")
    for route in run.routes:
        table.add_row(
            route.name,
            str(route.requests),
            f"{route.rate:.1f}",
            f"{route.p50_ms:.0f}",
            f"{route.p99_ms:.0f}",
            str(route.failures),
            str(route.server_errors),
        )
    console.print(table)
