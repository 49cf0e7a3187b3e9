"""next_pairings: placement, informative pairs, floor share, fair share, budgets."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ladder import LadderBot, LadderError, LadderView, next_pairings


def rated(bot: int, owner: str, elo: float, half: float = 40.0, games: int = 200) -> LadderBot:
    return LadderBot(
        bot, owner, rating=elo, lower=elo - half, upper=elo + half, games=games, created=bot
    )


def ladder(count: int = 20, owners: int = 5) -> list[LadderBot]:
    """Bots 100 Elo apart, owners dealt round."""
    return [rated(i, f"o{i % owners}", 100.0 * i) for i in range(count)]


def test_a_placing_bot_meets_opponents_across_the_rating_range() -> None:
    bots = ladder(21)  # 6 owners with the new one: 6 pairings give each owner one turn
    rng = np.random.default_rng(0)
    opponents = []
    for played in range(0, 16, 2):  # 8 placement rotations of 2 games
        placing = LadderBot(99, "new", games=played, created=99)
        pairings = next_pairings(LadderView((*bots, placing), placement_games=20), 6, rng)
        (mine,) = [p for p in pairings if 99 in p]  # nobody else's opponent
        assert mine[0] == 99
        opponents.append(mine[1])
    ratings = [100 * o for o in opponents]
    assert ratings[:3] == [1000, 500, 1500]  # the middle, then the quartiles
    assert min(ratings) <= 300 and max(ratings) >= 1700
    assert len(set(opponents)) == len(opponents)


def test_placing_bots_of_an_owner_go_first_fewest_games_first() -> None:
    bots = (
        *ladder(10, owners=1),
        LadderBot(50, "o0", games=6, created=50),
        LadderBot(51, "o0", games=2, created=51),
    )
    pairings = next_pairings(LadderView(bots), 2, np.random.default_rng(1))
    assert [p[0] for p in pairings] == [51, 51]
    view = LadderView(bots, games_per_pairing=2)
    pairings = next_pairings(view, 3, np.random.default_rng(1))
    assert [p[0] for p in pairings] == [51, 51, 50]  # 51 reaches 6 games, then ties by age


def test_after_placement_uncertain_neighbours_meet_most() -> None:
    bots = ladder(20, owners=20)
    view = LadderView(tuple(bots))
    distance = Counter[int]()
    rng = np.random.default_rng(2)
    for _ in range(50):
        for a, b in next_pairings(view, 20, rng):
            distance[abs(a - b)] += 1
    total = sum(distance.values())
    assert distance[1] / total > 0.6
    assert sum(n for d, n in distance.items() if d >= 4) / total < 0.02


def test_bots_with_wider_intervals_are_chosen_more_but_none_hides() -> None:
    bots = [rated(i, "solo", 0.0, half=100.0) for i in range(9)]
    bots.append(rated(9, "solo", 0.0, half=1.0))  # narrow and stale: it must still play
    view = LadderView(tuple(bots), floor_share=0.1)
    rng = np.random.default_rng(3)
    first = Counter(p[0] for _ in range(400) for p in next_pairings(view, 10, rng))
    assert first[0] > 5 * first[9]
    assert first[9] > 0.005 * sum(first.values())


def test_every_owner_gets_an_equal_share_whatever_their_bot_count() -> None:
    bots = [rated(i, "many", float(10 * i)) for i in range(20)]
    bots.append(rated(20, "one", 95.0))
    view = LadderView(tuple(bots))
    rng = np.random.default_rng(4)
    charged = Counter[str]()
    for _ in range(200):
        for pairing in next_pairings(view, 7, rng):
            charged["one" if pairing[0] == 20 else "many"] += 1
    assert abs(charged["one"] - charged["many"]) <= 200  # odd batches: one extra turn each


def test_an_owner_over_budget_gets_no_games_and_the_ladder_caps_the_count() -> None:
    bots = ladder(12, owners=3)
    view = LadderView(tuple(bots), owner_games={"o0": 100, "o1": 98, "o2": 10}, owner_budget=100)
    pairings = next_pairings(view, 50, np.random.default_rng(5))
    over = {b.id for b in bots if b.owner == "o0"}
    assert not any(set(p) & over for p in pairings)
    assert Counter(bots[p[0]].owner for p in pairings) == {"o1": 1, "o2": 45}
    capped = LadderView(tuple(bots), ladder_games=990, ladder_budget=1000)
    assert len(next_pairings(capped, 50, np.random.default_rng(5))) == 5
    full = LadderView(tuple(bots), ladder_games=1000, ladder_budget=1000)
    assert next_pairings(full, 50, np.random.default_rng(5)) == []


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_multi_seat_groups_are_distinct_bots(seats: int) -> None:
    bots = [*ladder(8), LadderBot(40, "new", created=40)]
    pairings = next_pairings(LadderView(tuple(bots)), 40, np.random.default_rng(seats), seats)
    assert len(pairings) == 40
    assert all(len(p) == seats == len(set(p)) for p in pairings)


def test_only_active_bots_play_and_too_few_bots_give_nothing() -> None:
    bots = ladder(6)
    retired = [
        LadderBot(b.id, b.owner, b.rating, b.lower, b.upper, b.games, b.created, "retired")
        for b in bots[:3]
    ]
    view = LadderView((*retired, *bots[3:]))
    played = {bot for p in next_pairings(view, 30, np.random.default_rng(6)) for bot in p}
    assert played == {3, 4, 5}
    assert next_pairings(view, 5, np.random.default_rng(6), seats=4) == []


def test_the_same_seed_gives_the_same_pairings() -> None:
    view = LadderView(tuple(ladder(30, owners=7)))
    first = next_pairings(view, 25, np.random.default_rng(7))
    assert first == next_pairings(view, 25, np.random.default_rng(7))


def test_bad_arguments_raise_ladder_error() -> None:
    view = LadderView(tuple(ladder(4)))
    rng = np.random.default_rng(8)
    with pytest.raises(LadderError, match="seats 6"):
        next_pairings(view, 1, rng, seats=6)
    with pytest.raises(LadderError, match="count -1"):
        next_pairings(view, -1, rng)
    with pytest.raises(LadderError, match="bot ids repeat"):
        LadderView((*ladder(2), *ladder(2)))
    with pytest.raises(LadderError, match="floor_share 2"):
        LadderView((), floor_share=2)


@st.composite
def views(draw: st.DrawFn) -> LadderView:
    count = draw(st.integers(0, 14))
    bots = []
    for i in range(count):
        rated_bot = draw(st.booleans())
        elo = draw(st.floats(-500, 500))
        half = draw(st.floats(0, 200))
        bots.append(
            LadderBot(
                id=100 + i,
                owner=draw(st.sampled_from("abcd")),
                rating=elo if rated_bot else None,
                lower=elo - half if rated_bot else None,
                upper=elo + half if rated_bot else None,
                games=draw(st.integers(0, 60)),
                created=i,
                status=draw(st.sampled_from(["active", "active", "active", "retired"])),
            )
        )
    budget = draw(st.none() | st.integers(0, 40))
    return LadderView(
        tuple(bots),
        owner_games={owner: draw(st.integers(0, 40)) for owner in "abcd"},
        owner_budget=budget,
        ladder_games=draw(st.integers(0, 100)),
        ladder_budget=draw(st.none() | st.integers(0, 140)),
        games_per_pairing=draw(st.integers(1, 4)),
    )


@settings(max_examples=200, deadline=None)
@given(views(), st.integers(0, 30), st.integers(2, 5), st.integers(0, 2**32))
def test_pairings_always_respect_seats_status_and_budgets(
    view: LadderView, count: int, seats: int, seed: int
) -> None:
    pairings = next_pairings(view, count, np.random.default_rng(seed), seats)
    cost = view.games_per_pairing
    by_id = {bot.id: bot for bot in view.bots}
    eligible = [b for b in view.bots if b.status == "active" and view.owner_left(b.owner) >= cost]
    assert len(pairings) <= count and len(pairings) * cost <= max(0, view.ladder_left())
    charged = Counter[str]()
    for pairing in pairings:
        assert len(pairing) == seats == len(set(pairing))
        assert all(by_id[bot] in eligible for bot in pairing)
        charged[by_id[pairing[0]].owner] += cost
    assert all(charged[owner] <= view.owner_left(owner) for owner in charged)
    if view.owner_budget is None and len(eligible) >= seats:
        left = count if view.ladder_budget is None else view.ladder_left() // cost
        assert len(pairings) == max(0, min(count, left))
