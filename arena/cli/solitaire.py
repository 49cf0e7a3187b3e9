"""``arena solitaire GAME --bot A --bot B …``: bots on the same deals of a patience."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from arena.cli.common import SEED_RULE, chosen_seed, parse_assignments
from arena.cli.console import console
from arena.errors import ArenaError


def solitaire(
    game_name: Annotated[str, typer.Argument(metavar="GAME", help="a one-player game")],
    bot: Annotated[
        list[str],
        typer.Option("--bot", "-b", help="a bot to compare: KIND or KIND:key=value,…"),
    ],
    deals: Annotated[int, typer.Option(help="deals every bot plays")] = 100,
    seed: Annotated[
        int | None, typer.Option(help=f"seed of the series of deals ({SEED_RULE})")
    ] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-O", metavar="NAME=VALUE", help="a game option")
    ] = None,
) -> None:
    """Play the same deals with every bot; print each bot's win rate with a 95% Wilson
    interval and its mean score."""
    from arena.play.solitaire import evaluate_bots
    from bots.base import Bot
    from bots.registry import make_bot, parse_bot_spec
    from engines.registry import get_game

    game = get_game(game_name)
    if game.min_seats != 1:
        raise ArenaError(f"{game.name} is not a one-player game (it needs {game.min_seats} seats)")
    options = game.parse_options(parse_assignments(option or [], "option"))
    if not bot:
        raise ArenaError("no bots given: pass --bot KIND at least once")
    bots: list[Bot] = []
    for spec in bot:
        kind, params = parse_bot_spec(spec)
        bots.append(make_bot(kind, game.name, params))
    names = _distinct(bot)
    seed = chosen_seed(seed)
    tallies = evaluate_bots(game, bots, names, deals=deals, seed=seed, options=options)
    table = Table(title=f"{game.title}: {deals} deals from seed {seed}")
    for column in ("bot", "won", "win rate", "95% interval", "mean score"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for tally in tallies:
        low, high = tally.wilson_interval()
        table.add_row(
            tally.name,
            f"{tally.wins}/{tally.deals}",
            f"{tally.win_rate:.1%}",
            f"{low:.1%} – {high:.1%}",
            f"{tally.mean_score:.2f}",
        )
    console.print(table)


def _distinct(specs: list[str]) -> list[str]:
    """The specs as names, numbered when one is given twice (``random``, ``random#2``)."""
    names: list[str] = []
    for spec in specs:
        name = spec
        number = 2
        while name in names:
            name = f"{spec}#{number}"
            number += 1
        names.append(name)
    return names
