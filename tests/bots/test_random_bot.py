"""The random bot: its choices follow from its seed, the game's seed and its seat alone,
uniformly over the legal actions, however long the game."""

from __future__ import annotations

import hashlib
import struct
from collections import Counter

import pytest
from scipy.stats import chisquare

from bots.base import GameInfo
from bots.simple import RandomBot
from engines.registry import get_game

GAME = get_game("koenigsgarten")


def choices(bot: RandomBot, seed: int, seat: int, sizes: list[int]) -> list[int]:
    """The indexes ``bot`` picks in a game of ``seed`` at ``seat``, one move per size."""
    bot.new_game(GameInfo(GAME, {}, seat, 2, seed))
    return [bot.act({}, list(range(size)), None) for size in sizes]


def test_a_game_replays_alike_in_any_order_and_instance() -> None:
    sizes = [5, 9, 2, 13, 7] * 3
    first = RandomBot(seed=3)
    seen = {(seed, seat): choices(first, seed, seat, sizes) for seed in (1, 2) for seat in (0, 1)}
    other = RandomBot(seed=3)
    for seed, seat in reversed(list(seen)):
        assert choices(other, seed, seat, sizes) == seen[seed, seat]
    assert len({tuple(picks) for picks in seen.values()}) == 4  # seeds and seats differ
    assert choices(RandomBot(seed=4), 1, 0, sizes) != seen[1, 0]  # so does the bot's seed


def test_the_draws_are_blake2b_blocks_of_the_seeds_mapped_by_multiply_shift() -> None:
    # Documented: 64-bit little-endian words of BLAKE2b-512 over "seed␟game seed␟seat",
    # block i salted with i, so another implementation can reproduce a game. A 20-move
    # game crosses into the third block.
    key = b"7\x1f99\x1f1"
    blocks = [hashlib.blake2b(key, salt=i.to_bytes(16, "little")).digest() for i in range(3)]
    words = struct.unpack("<24Q", b"".join(blocks))
    sizes = [(move % 11) + 2 for move in range(20)]
    expected = [word * size >> 64 for word, size in zip(words, sizes, strict=False)]
    assert choices(RandomBot(seed=7), 99, 1, sizes) == expected


def test_choices_are_uniform_over_the_legal_actions() -> None:
    bot = RandomBot()
    counts: Counter[int] = Counter()
    for seed in range(3_000):
        counts.update(choices(bot, seed, 0, [6] * 4))
    observed = [counts[index] for index in range(6)]
    assert sum(observed) == 12_000
    # Fixed seeds: the same counts every run; a fair die passes at any usual level.
    assert chisquare(observed).pvalue > 0.001


def test_a_bot_asked_before_any_game_still_chooses_a_legal_action() -> None:
    bot = RandomBot(seed=5)
    picks = [bot.act({}, ["a", "b", "c"], None) for _ in range(50)]
    assert set(picks) <= {"a", "b", "c"} and len(set(picks)) > 1


@pytest.mark.parametrize("size", [1, 2, 52])
def test_every_index_drawn_is_in_range(size: int) -> None:
    assert all(0 <= pick < size for pick in choices(RandomBot(), 11, 0, [size] * 100))
