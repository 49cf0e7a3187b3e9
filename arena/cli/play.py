"""``arena games``, ``arena play`` and ``arena replay``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from arena.cli.common import SEED_RULE, DbOption, EachOption, chosen_seed, parse_assignments
from arena.cli.console import console, progress_console
from arena.errors import ArenaError

if TYPE_CHECKING:
    from arena.play.records import GameRecord, MatchRecord
    from arena.play.runner import TimeControl
    from bots.base import Bot
    from engines.core import Action, Game, State
    from engines.match import MatchSpec


def games() -> None:
    """List the games, their seat counts, bots and options."""
    from arena.cli.game_table import ROWS

    table = Table(title="Games", show_lines=True)
    for column in ("game", "seats", "information", "bots", "options (default)"):
        table.add_column(column)
    for row in ROWS:
        table.add_row(*row)
    console.print(table)


def unique_names(specs: Sequence[str]) -> list[str]:
    """Bot specs as player names, numbered where the same spec plays twice."""
    return [
        spec if specs.count(spec) == 1 else f"{spec}#{specs[: i + 1].count(spec)}"
        for i, spec in enumerate(specs)
    ]


def _make_bots(
    game: Game,
    specs: Sequence[str],
    files: _FileBots,
    db: str | None,
    controls: Sequence[TimeControl],
) -> tuple[list[Bot], list[str]]:
    """The bots of ``--bot`` (built-in kinds, else registered bots), then ``--python``
    and ``--cmd`` (submitted bots straight from the files), in that seat order; a
    sandboxed bot gets its seat's time control of ``controls``."""
    from bots.registry import all_bot_kinds, make_bot, parse_bot_spec

    if not (specs or files.python or files.cmd):
        raise ArenaError(
            f"no bots given: pass one --bot per seat (e.g. --bot random) for {game.name}"
        )
    if files.params and not (files.python or files.cmd):
        raise ArenaError(
            "--param goes with --python and --cmd; a built-in kind takes its parameters "
            "as KIND:key=value (`arena bots kinds GAME` lists them)"
        )
    builtin = {kind.name for kind in all_bot_kinds(game.name)}
    bots: list[Bot] = []
    # controls go on past the --bot seats, to the file bots' seats
    seats = [
        (spec, control)
        for spec, control in zip(specs, controls, strict=False)
        if _registered(spec, builtin)
    ]
    stored = iter(_registered_bots(game, seats, db) if seats else [])
    for spec in specs:
        if _registered(spec, builtin):
            bots.append(next(stored))
        else:
            kind, params = parse_bot_spec(spec)
            bots.append(make_bot(kind, game.name, params))
    names = unique_names(specs)
    for python in files.python:
        bots.append(_file_bot(game, python, "python", files.params, controls[len(bots)]))
        names.append(Path(python).name)
    for command in files.cmd:
        bots.append(_file_bot(game, command, "command", files.params, controls[len(bots)]))
        names.append(command if len(command) <= 40 else command[:39] + "…")
    return bots, unique_names(names)


@dataclass(frozen=True)
class _FileBots:
    """The bots ``arena play`` runs from the user's files, and their parameters."""

    python: list[str]
    cmd: list[str]
    params: dict[str, str]


def _registered(spec: str, builtin: set[str]) -> bool:
    """A reference to a registered bot (``mine``, ``mine@2``), not a built-in kind."""
    kind = spec.partition(":")[0].strip().lower()
    return "@" in spec or (kind not in builtin and ":" not in spec)


def _registered_bots(
    game: Game, seats: Sequence[tuple[str, TimeControl]], db: str | None
) -> list[Bot]:
    """A bot for each (reference, time control) of registered bots, each run as
    tournaments run it: a built-in in this process, submitted code (the stored copy)
    in the sandbox; one instance per seat, even of one bot.

    Raises:
        NotFoundError: no such bot for the game (the message lists the built-in kinds).
    """
    from sqlmodel import Session

    from arena.cli.common import database
    from arena.errors import NotFoundError
    from arena.players.loader import instantiate
    from arena.store.bots import find_bot, spec_of
    from arena.store.db import resolve_url
    from bots.registry import all_bot_kinds
    from engines.errors import did_you_mean

    kinds = ", ".join(kind.name for kind in all_bot_kinds(game.name))
    url = resolve_url(db)
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        close = did_you_mean(seats[0][0].partition("@")[0], kinds.split(", "))
        raise NotFoundError(
            f"unknown bot: {seats[0][0]!r} ({close}built-in kinds for {game.name}: {kinds}; "
            f"no database of registered bots at {url.removeprefix('sqlite:///')!r})"
        )
    bots: list[Bot] = []
    with Session(database(db)) as session:
        for reference, control in seats:
            try:
                stored = find_bot(session, reference, game=game.name)
            except NotFoundError as exc:
                # find_bot's message names the close registered bots, this the kinds.
                close = did_you_mean(reference.partition("@")[0], kinds.split(", "))
                raise NotFoundError(
                    f"unknown bot: {reference!r} ({close}built-in kinds for {game.name}: "
                    f"{kinds}); {exc}"
                ) from None
            bots.append(instantiate(spec_of(stored), time_control=control))
    return bots


def _file_bot(
    game: Game, target: str, kind: str, params: dict[str, str], control: TimeControl
) -> Bot:
    """A bot from ``--python FILE[:Class]`` or ``--cmd COMMAND``: read now, as
    `arena bots add` would store it, and run in the sandbox (nothing is registered).

    Raises:
        BotRegistryError, BotLoadError: see :func:`arena.store.bots.python_source` and
            :func:`arena.store.bots.command_source`.
    """
    from arena.players.loader import BotSpec, instantiate
    from arena.store.bots import command_source, python_source

    if kind == "python":
        source = python_source(target, params)
    else:
        source = command_source(target, params=params)
    return instantiate(BotSpec(0, target, game.name, source), time_control=control)


def _show_step(state: State, seat: int, action: Action) -> None:
    from arena.play.render import board

    console.print(f"\nmove {len(state.history)}: seat {seat} plays [bold]{action}[/]")
    console.print(board(state))


def play(
    game_name: Annotated[str, typer.Argument(metavar="GAME", help="see `arena games`")],
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            "-b",
            metavar="BOT",
            help="one per seat: KIND, KIND:key=value,… or a registered NAME[@VERSION]",
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help=f"seed of the deal ({SEED_RULE})")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-O", metavar="NAME=VALUE", help="a game option")
    ] = None,
    match: Annotated[
        str,
        typer.Option(help="single, or a match format of the game (`arena games` lists them)"),
    ] = "single",
    show: Annotated[bool, typer.Option("--show", help="print the board after every move")] = False,
    record: Annotated[
        Path | None, typer.Option(help="write the game (or match) record to this JSON file")
    ] = None,
    python: Annotated[
        list[str] | None,
        typer.Option(
            metavar="FILE[:Class]",
            help="a seat for a Python bot straight from its file (after the --bot seats)",
        ),
    ] = None,
    cmd: Annotated[
        list[str] | None,
        typer.Option(
            metavar="COMMAND",
            help="a seat for a program speaking the bot protocol (after the --python seats)",
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", metavar="KEY=VALUE", help="a parameter of the file bots"),
    ] = None,
    each: EachOption = None,
    db: DbOption = None,
) -> None:
    """Play one game or a match between bots and show the result.

    A --bot is a built-in kind (`random`, `mcts:iterations=200`) or a registered bot
    (`mine`, `mine@2`, from the database); --python and --cmd play your files without
    registering them. Submitted code runs in the sandbox, as in tournaments."""
    from arena.play.options import resolve_file_options
    from arena.play.runner import TimeControl
    from arena.play.time_control import parse_time_control
    from engines.registry import get_game

    game = get_game(game_name)
    raw_options = resolve_file_options(game.name, parse_assignments(option or [], "option"))
    options = game.parse_options(raw_options)
    files = _FileBots(python or [], cmd or [], parse_assignments(param or [], "parameter"))
    everyone = parse_time_control(each) if each is not None else TimeControl()
    specs: list[str] = []
    controls: list[TimeControl] = []
    for entry in bot or []:
        spec, _, own = entry.strip().partition(" ")
        specs.append(spec)
        controls.append(parse_time_control(own) if own.strip() else everyone)
    controls += [everyone] * (len(files.python) + len(files.cmd))
    bots, names = _make_bots(game, specs, files, db, controls)
    try:
        _play(game, options, bots, names, seed, match, show, record, controls)
    finally:
        for player in bots:
            player.close()


def _play(
    game: Game,
    options: Any,
    bots: list[Bot],
    names: list[str],
    seed: int | None,
    match: str,
    show: bool,
    record: Path | None,
    controls: list[TimeControl],
) -> None:
    from engines.match import MatchKind

    game.check_seats(len(bots))
    spec = game.parse_match_format(match)
    seed = chosen_seed(seed)
    progress_console(console).print(f"{game.title}: {' vs '.join(names)}   seed {seed}")
    setup = _Setup(game, options, bots, names, seed, record, _show_step if show else None, controls)
    if spec.kind == MatchKind.SINGLE:
        _play_single(setup)
    elif spec.kind == MatchKind.PENALTIES:
        _play_penalty_match(setup, spec.target)
    else:
        _play_two_player_match(setup, spec)


@dataclass(frozen=True)
class _Setup:
    game: Game
    options: Any
    bots: list[Bot]
    names: list[str]
    seed: int
    record: Path | None
    on_step: Callable[[State, int, Action], None] | None
    controls: list[TimeControl]


def _play_one(setup: _Setup, state: State, order: list[int]) -> GameRecord:
    from arena.play.render import board, describe_outcome
    from arena.play.runner import play_game

    if setup.on_step is not None:
        console.print(board(state))
    result = play_game(
        state,
        [setup.bots[p] for p in order],
        players=[setup.names[p] for p in order],
        time_control=[setup.controls[p] for p in order],
        on_step=setup.on_step,
    )
    if setup.on_step is None:
        progress_console(console).print(board(state))
    console.print(describe_outcome(result.outcome_value, result.players))
    return result


def _play_single(setup: _Setup) -> None:
    from arena.play.records import save_record

    state = setup.game.new_initial_state(
        seed=setup.seed, seats=len(setup.bots), options=setup.options
    )
    result = _play_one(setup, state, list(range(len(setup.bots))))
    if setup.record is not None:
        save_record(result, setup.record)


def _play_two_player_match(setup: _Setup, spec: MatchSpec) -> None:
    from engines.match import Match
    from engines.seeding import derive_seed

    names = setup.names
    shown = progress_console(console)  # the games' lines; -q: the results alone
    tally = Match(spec)
    records: list[GameRecord] = []
    while not tally.is_over:
        opener = tally.next_opener
        order = [opener, 1 - opener]
        state = setup.game.new_initial_state(
            seed=derive_seed(setup.seed, len(records)), seats=2, options=setup.options
        )
        shown.print(f"\n[bold]game {len(records) + 1}[/]: {names[opener]} opens")
        result = _play_one(setup, state, order)
        records.append(result)
        outcome = result.outcome_value
        winner = None if len(outcome.winners) != 1 else order[outcome.winners[0]]
        tally.record(winner, setup.game.match_points(state) if winner is not None else 0)
        shown.print(f"score: {names[0]} {tally.score[0]} – {tally.score[1]} {names[1]}")
    champion = None if tally.winner is None else names[tally.winner]
    console.print(
        f"\n[bold]match ({spec}): {champion or 'drawn'}[/]" + (" wins" if champion else "")
    )
    _save_match(setup, str(spec), records, [] if champion is None else [champion], tally.score)


def _play_penalty_match(setup: _Setup, limit: int) -> None:
    """Penalties (the game's :meth:`~engines.core.Game.match_penalties`) add up until
    someone reaches the limit; a forfeit costs its offender the whole limit."""
    from engines.match import PenaltyMatch
    from engines.seeding import derive_seed

    names = setup.names
    shown = progress_console(console)  # the games' lines; -q: the results alone
    players = len(setup.bots)
    tally = PenaltyMatch(players, limit)
    records: list[GameRecord] = []
    while not tally.is_over:
        opener = tally.next_opener
        order = [(opener + k) % players for k in range(players)]
        state = setup.game.new_initial_state(
            seed=derive_seed(setup.seed, len(records)), seats=players, options=setup.options
        )
        shown.print(f"\n[bold]game {len(records) + 1}[/]: {names[opener]} opens")
        result = _play_one(setup, state, order)
        records.append(result)
        outcome = result.outcome_value
        by_seat = (
            [limit if seat == outcome.offender else 0 for seat in range(players)]
            if outcome.is_forfeit
            else list(setup.game.match_penalties(state))
        )
        penalties = [0] * players
        for seat, player in enumerate(order):
            penalties[player] = by_seat[seat]
        tally.record(penalties)
        shown.print(
            "totals: " + ", ".join(f"{n} {t}" for n, t in zip(names, tally.totals, strict=True))
        )
    winners = [names[p] for p in tally.winners]
    verb = "wins" if len(winners) == 1 else "share the win"
    console.print(f"\n[bold]match (penalties to {limit}): {', '.join(winners)} {verb}[/]")
    _save_match(setup, f"penalties-{limit}", records, winners, tally.totals)


def _save_match(
    setup: _Setup, spec: str, records: list[GameRecord], winners: list[str], score: list[int]
) -> None:
    from arena.play.records import MatchRecord, MatchResult, save_record

    if setup.record is None:
        return
    save_record(
        MatchRecord(
            game=setup.game.name,
            match=spec,
            players=setup.names,
            games=records,
            result=MatchResult(
                winner=winners[0] if len(winners) == 1 else None, winners=winners, score=score
            ),
        ),
        setup.record,
    )


def replay_command(
    file: Annotated[Path, typer.Argument(help="a record written by --record or a tournament")],
    show: Annotated[bool, typer.Option("--show", help="print the game step by step")] = False,
) -> None:
    """Re-validate every action of a record; name the first illegal one by its index."""
    from arena.play.records import MatchRecord, load_record, replay
    from arena.play.render import board, describe_outcome
    from engines.registry import get_game

    loaded = load_record(file)
    games_ = loaded.games if isinstance(loaded, MatchRecord) else [loaded]
    for number, rec in enumerate(games_, start=1):
        if len(games_) > 1:
            console.print(f"\n[bold]game {number}[/]")
        if show:
            console.print(f"{rec.game}: {' vs '.join(rec.players)}   seed {rec.seed}")
            game = get_game(rec.game)
            console.print(
                board(game.state_from_deal(rec.deal, seats=rec.seats, options=rec.options))
            )

            def step(index: int, seat: int, action: Action, state: State) -> None:
                console.print(f"\nmove {index + 1}: seat {seat} plays [bold]{action}[/]")
                console.print(board(state))

            replay(rec, on_step=step)
        else:
            replay(rec)
        players = rec.players or [f"seat {s}" for s in range(rec.seats)]
        console.print(
            f"{len(rec.actions)} actions valid; {describe_outcome(rec.outcome_value, players)}"
        )
    if isinstance(loaded, MatchRecord):
        console.print(f"\n[bold]{_match_result(loaded)}[/]")


def _match_result(record: MatchRecord) -> str:
    """``match (penalties-25): greedy wins; random 36, greedy 0``: as stored."""
    result = record.result
    winners = result.winners or ([result.winner] if result.winner is not None else [])
    verdict = (
        "drawn"
        if not winners
        else f"{', '.join(winners)} {'wins' if len(winners) == 1 else 'share the win'}"
    )
    score = ", ".join(f"{n} {s}" for n, s in zip(record.players, result.score, strict=False))
    return f"match ({record.match}): {verdict}; {score}"
