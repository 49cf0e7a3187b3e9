"""Deal files: the deals a tournament plays, like cutechess's opening files.

A deal file is JSON lines, one deal a line, in the game's own deal notation: the
``deal`` object of a record (docs/records.md, docs/games/). ``arena deals make``
writes each line as ``{"game": …, "seats": …, "seed": …, "deal": {…}}``; a line
may also be the bare deal object. Blank lines are skipped; a file holding one JSON
object over several lines (the deal files of ``arena solve --deal``) is one deal.

Two tournaments naming one deal file (``deals = "FILE"``) play the same deals in the
same order of rounds (``deal_order = "sequential"``, wrapping around at the end), or
in an order drawn from the tournament's seed (``"random"``), whatever their bots and
seeds.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from engines.core import Game
from engines.errors import GameError
from engines.seeding import derive_seed

MAX_DEALS = 100_000
"""The most deals a file (or a configuration) may hold."""


class DealFileError(ArenaError):
    """A deal file that cannot be read, or a deal in it the game refuses; the message
    names the file and the line."""


class DealOrder(StrEnum):
    SEQUENTIAL = "sequential"
    RANDOM = "random"


def make_deals(
    game: Game, *, count: int, seats: int, seed: int, options: Any
) -> Iterator[dict[str, Any]]:
    """``count`` deals shuffled from ``seed`` (deal ``i`` from ``derive_seed(seed,
    "deal", i)``), each as a line of a deal file."""
    for number in range(count):
        deal_seed = derive_seed(seed, "deal", number)
        deal = game.random_deal(seats, options, random.Random(deal_seed))
        yield {"game": game.name, "seats": seats, "seed": deal_seed, "deal": deal}


def read_deal_file(path: Path, game: Game, *, seats: int, options: Any) -> list[dict[str, Any]]:
    """The deals of the file at ``path``, each checked by building its initial state.

    Raises:
        DealFileError: the file cannot be read, a line is not a JSON object, names
            another game or seat count, or holds a deal the game refuses; more than
            MAX_DEALS deals, or none.
    """
    where = repr(str(path))
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DealFileError(f"cannot read deal file {where}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise DealFileError(f"deal file {where} is not UTF-8 text") from None
    whole = _one_object(lines)
    if whole is not None:  # one deal written over several lines (`arena solve --deal`)
        lines = [whole]
    deals: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if len(deals) >= MAX_DEALS:
            raise DealFileError(f"deal file {where} holds more than {MAX_DEALS} deals")
        try:
            deals.append(_deal_of_line(line, game, seats))
            check_deal(game, deals[-1], seats=seats, options=options)
        except (ValueError, GameError) as exc:
            raise DealFileError(f"deal file {where}, line {number}: {exc}") from None
    if not deals:
        raise DealFileError(f"deal file {where} holds no deals")
    return deals


def _one_object(lines: list[str]) -> str | None:
    """The file as one line when it holds one JSON object over several lines."""
    if sum(1 for line in lines if line.strip()) < 2:
        return None
    text = " ".join(lines)
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return text if isinstance(data, dict) else None


def _deal_of_line(line: str, game: Game, seats: int) -> dict[str, Any]:
    """Raises ValueError for a line that is no deal of ``game`` for ``seats``."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"a JSON object per line, not {type(data).__name__}")
    if "deal" not in data:
        return data  # the bare deal
    if data.get("game", game.name) != game.name:
        raise ValueError(f"a deal of {data['game']!r}, not of {game.name}")
    if data.get("seats", seats) != seats:
        raise ValueError(f"a deal for {data['seats']!r} seats; the tournament has {seats}")
    deal = data["deal"]
    if not isinstance(deal, dict):
        raise ValueError(f"'deal' must be a JSON object, not {type(deal).__name__}")
    return deal


def check_deal(game: Game, deal: Mapping[str, Any], *, seats: int, options: Any) -> None:
    """Raises InvalidDealError (a GameError) when ``game`` refuses the deal."""
    game.state_from_deal(deal, seats=seats, options=game.parse_options(options))


def deal_index(order: DealOrder, number: int, count: int, seed: int) -> int:
    """The deal the ``number``-th deal seed of a tournament plays, of ``count``."""
    if order == DealOrder.SEQUENTIAL:
        return number % count
    return derive_seed(seed, "deal-order", number) % count
