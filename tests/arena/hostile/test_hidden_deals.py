"""Hidden cards stay hidden (issue 28, point 1): a bot learns about the deal only
through its observation. A submitted bot can import the engines, so the seed it is
handed must not be the deal's (nor anything the deal's seed can be recomputed from)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bots.base import GameInfo
from engines.registry import get_game
from tests.arena.hostile import make_bot, python_source

DEAL_SEED = 1
"""A seed a person might pick (`--seed 1`): the least entropy a deal can have."""


def claims(stderr: bytes) -> list[dict[str, Any]]:
    """What the re-dealing bot reported on stderr."""
    lines = stderr.decode().splitlines()
    return [json.loads(line[6:]) for line in lines if line.startswith("CLAIM ")]


def hidden_from(seat: int, game: str, deal: dict[str, Any]) -> dict[str, Any]:
    """What ``seat`` may not know of a deal: in Kings in the Corner the other hands and
    the stock's order, in Kardinal & König which card carries which face-down tablet."""
    if game == "kings_corner":
        others = [hand for other, hand in enumerate(deal["hands"]) if other != seat]
        return {"hands": others, "stock": deal["stock"]}
    return {"tablets": deal["tablets"]}


@pytest.mark.parametrize("game", ["kings_corner", "kardinal"])
def test_a_bot_that_deals_the_game_again_learns_no_hidden_card(game: str) -> None:
    engine = get_game(game)
    bot = make_bot(python_source("redealer.py", "Redealer"), game)
    for seat in range(2):
        state = engine.new_initial_state(seed=DEAL_SEED, seats=2)
        options = engine.options_to_dict(state.options)
        try:
            bot.new_game(GameInfo.of(engine, options, seat, 2, DEAL_SEED))
        finally:
            bot.close()
        (claim,) = claims(bot.last_stderr)
        # The bot deals right: from the seed it was handed, its claim is that deal's.
        dealt = engine.new_initial_state(seed=claim["seed"], seats=2, options=options)
        assert claim["deal"] == json.loads(json.dumps(dealt.to_dict()["deal"]))
        truth = hidden_from(seat, game, json.loads(json.dumps(state.to_dict()["deal"])))
        claimed = hidden_from(seat, game, claim["deal"])
        assert claim["seed"] != DEAL_SEED
        assert claimed != truth
        for part, cards in truth.items():  # not one hidden part is named right
            assert claimed[part] != cards, part
