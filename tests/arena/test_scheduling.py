"""The formats' schedules: rotations, pairings, tables, gauntlets, solitaire deals."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from arena.tournament.scheduling import (
    gauntlet_tables,
    rotations,
    round_robin_tables,
    schedule_tables,
    seating_orders,
    solitaire_games,
)


def test_rotations_put_every_bot_in_every_seat_once() -> None:
    assert rotations((1, 2, 3)) == [(1, 2, 3), (2, 3, 1), (3, 1, 2)]
    assert rotations((4, 5)) == [(4, 5), (5, 4)]


@given(
    bots=st.integers(2, 6),
    seats=st.integers(2, 4),
    games=st.integers(1, 9),
    seed=st.integers(0, 2**40),
)
def test_round_robin_plays_every_table_in_whole_rotations(
    bots: int, seats: int, games: int, seed: int
) -> None:
    if seats > bots:
        return
    ids = list(range(10, 10 + bots))
    tables = round_robin_tables(ids, seats)
    assert sorted(tables) == sorted(itertools.combinations(ids, seats))
    planned = schedule_tables(tables, games_per_table=games, seed=seed)
    rounds = -(-games // seats)
    assert len(planned) == len(tables) * rounds * seats
    assert [g.index for g in planned] == list(range(len(planned)))
    # Every table meets on every deal of a round in every rotation of one of its orders
    # around the table; all tables share the deal.
    by_seed: dict[int, list[tuple[int, ...]]] = {}
    for game in planned:
        by_seed.setdefault(game.seed, []).append(game.seats)
    assert len(by_seed) == rounds
    for number, seatings in enumerate(by_seed.values()):
        orders = [seating_orders(t)[number % len(seating_orders(t))] for t in tables]
        assert sorted(seatings) == sorted(r for t in orders for r in rotations(t))
        assert all(sorted(order) == sorted(t) for order, t in zip(orders, tables, strict=True))
    # Every bot sits in every seat equally often.
    per_seat = Counter((bot, seat) for g in planned for seat, bot in enumerate(g.seats))
    assert len(set(per_seat.values())) == 1


def test_seating_orders_are_every_order_around_the_table() -> None:
    assert seating_orders((1, 2)) == [(1, 2)]
    assert seating_orders((1, 2, 3)) == [(1, 2, 3), (1, 3, 2)]
    assert len(seating_orders((1, 2, 3, 4))) == 6


def test_over_the_orders_every_bot_sits_after_every_other_equally_often() -> None:
    # Four bots at one four-seat table, 6 rounds: (4 - 1)! orders, each rotated.
    planned = schedule_tables([(1, 2, 3, 4)], games_per_table=24, seed=3)
    follows = Counter(
        (game.seats[seat], game.seats[(seat + 1) % 4]) for game in planned for seat in range(4)
    )
    assert len(follows) == 12  # every ordered pair of distinct bots
    assert set(follows.values()) == {8}


def test_gauntlet_meets_the_field_but_the_field_not_itself() -> None:
    tables = gauntlet_tables([1, 2], [7, 8, 9], 3)
    assert len(tables) == 2 * 3
    assert all(t[0] in (1, 2) and set(t[1:]) <= {7, 8, 9} for t in tables)
    planned = schedule_tables(tables, games_per_table=3, seed=1)
    for game in planned:
        assert len({1, 2} & set(game.seats)) == 1


def test_solitaire_gives_every_bot_the_same_deals() -> None:
    planned = solitaire_games([3, 4, 5], deals=4, seed=8)
    assert len(planned) == 12
    deals = {bot: [g.seed for g in planned if g.seats == (bot,)] for bot in (3, 4, 5)}
    assert deals[3] == deals[4] == deals[5]
    assert len(set(deals[3])) == 4
