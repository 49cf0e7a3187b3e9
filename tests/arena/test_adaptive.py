"""The paired SPRT of a sprt tournament: candidate's side, pair by pair, schedule order."""

from __future__ import annotations

import random

import pytest

from arena.ratings import Pentanomial, RatingError, SprtDecision, SprtSettings
from arena.ratings.sprt import sprt_sequence
from arena.store.tally import StoredGame
from arena.tournament.adaptive import PairedSprt

CANDIDATE, BASELINE = 9, 4
SETTINGS = SprtSettings(elo0=0.0, elo1=60.0, alpha=0.05, beta=0.05)
PLACES = {"W": (1, 2), "D": (1, 1), "L": (2, 1)}


def pair_games(
    index: int, first: str, second: str, *, reason: str | None = None
) -> list[StoredGame]:
    """Games ``index`` and ``index + 1`` on one deal: the candidate in seat 0, then in
    seat 1; ``first``/``second`` are its results (W, D, L)."""

    def stored(at: int, seats: tuple[int, int], ranking: tuple[int, int]) -> StoredGame:
        offender = 1 if reason else None
        status = "forfeit" if reason else "ok"
        end = "forfeit" if reason else "normal"
        return StoredGame(
            1, at, 1000 + index, seats, ranking, (0.0, 0.0), end, offender, reason, status
        )

    mine_second = PLACES[second]
    return [
        stored(index, (CANDIDATE, BASELINE), PLACES[first]),
        stored(index + 1, (BASELINE, CANDIDATE), (mine_second[1], mine_second[0])),
    ]


CATEGORY = {
    "LL": "ll",
    "LD": "ld",
    "DL": "ld",
    "WL": "wl",
    "LW": "wl",
    "DD": "dd",
    "WD": "wd",
    "DW": "wd",
    "WW": "ww",
}


def test_the_test_reads_from_the_candidates_side_whatever_the_names() -> None:
    rng = random.Random(3)
    results = [rng.choice(["WW", "WD", "WL", "DD", "LD", "WW"]) for _ in range(200)]
    games = [g for k, r in enumerate(results) for g in pair_games(2 * k, r[0], r[1])]
    test = PairedSprt(CANDIDATE, BASELINE, SETTINGS, set(), labels=("zz-new", "aa-old"))
    test.add(games)
    expected, used = sprt_sequence([CATEGORY[r] for r in results], SETTINGS, before=Pentanomial())
    assert test.result == expected and test.pairs == used
    assert expected.decision is SprtDecision.ACCEPT_H1  # the candidate wins most pairs
    assert test.games_seen == 2 * used and used < len(results)  # stopped at the first crossing
    assert "zz-new over aa-old" in test.describe() and "H1 accepted" in test.describe()


def test_the_order_games_finish_in_does_not_change_the_test() -> None:
    rng = random.Random(5)
    results = [rng.choice(["WW", "WD", "LD", "DD", "WL", "LL"]) for _ in range(120)]
    games = [g for k, r in enumerate(results) for g in pair_games(2 * k, r[0], r[1])]
    in_order = PairedSprt(CANDIDATE, BASELINE, SETTINGS, set())
    in_order.add(games)
    shuffled = games[:]
    rng.shuffle(shuffled)
    scrambled = PairedSprt(CANDIDATE, BASELINE, SETTINGS, set())
    for start in range(0, len(shuffled), 7):
        scrambled.add(shuffled[start : start + 7])
    assert scrambled.result == in_order.result and scrambled.pairs == in_order.pairs


def test_a_pair_waits_for_every_game_scheduled_before_it() -> None:
    test = PairedSprt(CANDIDATE, BASELINE, SETTINGS, set())
    test.add(pair_games(2, "W", "W"))
    assert test.pairs == 0  # games 0 and 1 are not stored yet
    test.add(pair_games(0, "L", "W"))
    assert test.pairs == 2 and test.result.counts == Pentanomial(wl=1, ww=1)


def test_pairs_with_an_unplayed_game_are_left_out() -> None:
    test = PairedSprt(CANDIDATE, BASELINE, SETTINGS, set())
    test.add([*pair_games(0, "W", "W", reason="suspended"), *pair_games(2, "D", "D")])
    assert test.pairs == 1 and test.result.counts == Pentanomial(dd=1)


def test_games_of_other_bots_are_refused() -> None:
    test = PairedSprt(CANDIDATE, 77, SETTINGS, set())
    with pytest.raises(RatingError, match="not the SPRT's two bots"):
        test.add(pair_games(0, "W", "W"))
