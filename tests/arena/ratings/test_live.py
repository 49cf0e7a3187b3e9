"""LiveElo: game by game, the same ratings and intervals as the full fit."""

from __future__ import annotations

import numpy as np
import pytest

from arena.ratings import GameResult, RatingError, fit_elo, pairwise_games
from arena.ratings.live import LiveElo
from arena.ratings.simulate import simulate_rotations
from arena.ratings.solitaire import SolitaireResult, duplicate_games


def assert_same(live: LiveElo, games: list[GameResult], names: list[str]) -> None:
    ratings, regularised = live.fit()
    full = fit_elo(pairwise_games(games, names), prior_draws=1.0 if regularised else 0.0)
    assert ratings.players == full.players
    np.testing.assert_allclose(ratings.elo, full.elo, atol=1e-9)
    np.testing.assert_allclose(ratings.covariance, full.covariance, atol=1e-8)
    np.testing.assert_allclose(ratings.lower, full.lower, atol=1e-8)


def test_two_seat_rotations_with_draws_match_the_fit_at_every_stage() -> None:
    data = simulate_rotations(
        [0.0, 80.0, -60.0, 150.0],
        200,
        rng=np.random.default_rng(4),
        draw_rate=0.3,
        seat_effect=0.5,
    )
    names = list(data.players)
    games = [
        GameResult(
            (names[data.first[k]], names[data.second[k]]),
            (1, 2) if data.score[k] == 1 else (1, 1) if data.score[k] == 0.5 else (2, 1),
            int(data.group[k]),
        )
        for k in range(len(data))
    ]
    live = LiveElo(names)
    for count, game in enumerate(games, start=1):
        live.add_game(game.players, game.ranking, game.group or 0)
        if count in (60, 250, len(games)):
            assert_same(live, games[:count], names)


def test_four_seat_rotations_and_a_bot_in_two_seats_match_the_fit() -> None:
    rng = np.random.default_rng(9)
    names = [f"b{i}" for i in range(6)]
    games = []
    for deal in range(120):
        table = [names[i] for i in rng.choice(6, 4, replace=False)]
        if deal % 10 == 0:
            table[3] = table[0]  # the same bot twice: no result between its seats
        for turn in range(4):
            seats = tuple(table[(turn + k) % 4] for k in range(4))
            ranking = tuple(int(p) for p in rng.integers(1, 4, 4))
            games.append(GameResult(seats, ranking, f"deal-{deal}"))
    live = LiveElo(names)
    for game in games:
        live.add_game(game.players, game.ranking, game.group or "")
    assert_same(live, games, names)


def test_duplicate_comparisons_match_the_duplicate_fit() -> None:
    rng = np.random.default_rng(2)
    names = ["a", "b", "c"]
    results = [
        SolitaireResult(name, deal, float(rng.integers(0, 53)), False)
        for deal in range(80)
        for name in names
    ]
    live = LiveElo(names)
    played: dict[int, dict[str, float]] = {}
    for result in results:
        deal = played.setdefault(int(result.deal), {})
        live.add_results(
            [
                (
                    result.player,
                    other,
                    1.0 if result.score > s else 0.5 if result.score == s else 0.0,
                )
                for other, s in deal.items()
            ],
            result.deal,
        )
        deal[result.player] = result.score
    ratings, _ = live.fit()
    full = fit_elo(duplicate_games(results))
    np.testing.assert_allclose(ratings.elo, full.elo, atol=1e-9)
    np.testing.assert_allclose(ratings.upper, full.upper, atol=1e-8)


def test_a_clean_sweep_falls_back_to_virtual_draws() -> None:
    live = LiveElo(["a", "b"])
    for deal in range(3):
        live.add_game(("a", "b"), (1, 2), deal)
    ratings, regularised = live.fit()
    assert regularised and ratings.rating("a") > ratings.rating("b")


def test_unknown_players_and_bad_scores_are_refused() -> None:
    live = LiveElo(["a", "b"])
    with pytest.raises(RatingError, match="unknown player 'c'"):
        live.add_game(("a", "c"), (1, 2), 0)
    with pytest.raises(RatingError, match=r"0\.3 is not"):
        live.add_results([("a", "b", 0.3)], 0)
    with pytest.raises(RatingError):
        live.fit()  # nothing played yet


def test_closing_complete_rotations_keeps_the_fit_and_frees_them() -> None:
    rng = np.random.default_rng(5)
    names = ["a", "b", "c"]
    games = []
    for deal in range(150):
        table = tuple(names[i] for i in rng.choice(3, 2, replace=False))
        for seats in (table, table[::-1]):
            games.append(GameResult(seats, tuple(int(p) for p in rng.integers(1, 3, 2)), deal))
    live = LiveElo(names)
    for first, second in zip(games[::2], games[1::2], strict=True):
        live.add_game(first.players, first.ranking, first.group or 0)
        live.add_game(second.players, second.ranking, second.group or 0)
        live.close(first.group or 0)
    assert not live._rotations, "closed rotations are not held"
    assert_same(live, games, names)


def test_whole_rotations_added_at_once_hold_what_game_by_game_holds() -> None:
    # Three players, rotations of three-seat games (three pairs each) with draws, and
    # two-seat ones; the same rotation kinds many times, as a batch of random games.
    kinds = [
        ((0, 1, 1.0), (0, 2, 0.5), (1, 2, 0.0), (1, 0, 0.5), (2, 0, 1.0), (2, 1, 0.5)),
        ((0, 1, 0.0), (1, 0, 1.0)),
        ((2, 1, 0.5), (1, 2, 0.5)),
        ((1, 2, 1.0), (0, 2, 0.0), (1, 0, 1.0)),
    ]
    counts = [5, 3, 7, 2]
    one = LiveElo(["a", "b", "c"])
    group = 0
    for results, count in zip(kinds, counts, strict=True):
        for _ in range(count):
            group += 1
            one.add_numbered(list(results), group)
            one.close(group)
    whole = LiveElo(["a", "b", "c"])
    whole.add_rotations(dict(zip(kinds, counts, strict=True)))
    assert whole.games == one.games and whole._closed == one._closed == sum(counts)
    assert whole._wins == one._wins and whole._draws == one._draws
    assert dict(whole._sums) == dict(one._sums)  # exact: points are multiples of ½
    assert not whole._rotations
    ratings, _ = whole.fit()
    expected, _ = one.fit()
    np.testing.assert_allclose(ratings.elo, expected.elo, atol=1e-9)
    np.testing.assert_allclose(ratings.lower, expected.lower, atol=1e-9)
    with pytest.raises(RatingError, match=r"score 0\.25"):
        whole.add_rotations({((0, 1, 0.25),): 1})
