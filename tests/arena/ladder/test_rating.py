"""IncrementalElo: the same ratings and intervals as fit_elo, refitted as games arrive."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ladder import IncrementalElo, LadderError
from arena.ratings import GameResult, PairwiseGames, fit_elo, pairwise_games
from arena.ratings.pairs import game_score
from arena.ratings.simulate import simulate_rotations

BASE = 500
"""Bot ids are database ids, not 0..n-1: offset them."""


def rotations(seed: int, elos: list[float], count: int) -> PairwiseGames:
    return simulate_rotations(
        elos, count, rng=np.random.default_rng(seed), draw_rate=0.3, seat_effect=0.5
    )


def triples(games: PairwiseGames) -> list[tuple[int, int, float]]:
    return [
        (BASE + int(a), BASE + int(b), float(s))
        for a, b, s in zip(games.first, games.second, games.score, strict=True)
    ]


def assert_matches(elo: IncrementalElo, games: PairwiseGames, *, prior: float = 0.0) -> None:
    ratings = elo.refit()
    full = fit_elo(games, prior_draws=prior)
    assert set(ratings) == {BASE + i for i in range(len(games.players))}
    for i in range(len(games.players)):
        mine = ratings[BASE + i]
        assert mine.elo == pytest.approx(full.elo[i], abs=1e-8)
        assert mine.lower == pytest.approx(full.lower[i], abs=1e-8)
        assert mine.upper == pytest.approx(full.upper[i], abs=1e-8)
        assert mine.games == int(full.counts.games_played()[i])


def seated_rotations(seed: int, seats: int, bots: int, count: int) -> list[GameResult]:
    """``count`` rotations of ``seats`` distinct bots, seat orders shifted game by game,
    some cut short; places from strength plus noise, rounded so that ties occur."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, bots)
    results = []
    for rotation in range(count):
        table = rng.choice(bots, seats, replace=False)
        for shift in range(int(rng.integers(1, seats + 1))):
            order = np.roll(table, shift)
            value = np.round(strength[order] + rng.logistic(size=seats))
            ranking = tuple(1 + int((value > v).sum()) for v in value)
            results.append(GameResult(tuple(f"b{b:02d}" for b in order), ranking, rotation))
    return results


def group_of(game: GameResult) -> int:
    assert isinstance(game.group, int)
    return game.group


def seat_triples(results: list[GameResult]) -> tuple[list[tuple[int, int, float]], list[int]]:
    """Every pair of seats of each game (as the ladder worker adds them) and its rotation."""
    games, rotation = [], []
    for game in results:
        ids = [BASE + int(name[1:]) for name in game.players]
        for i, j in itertools.combinations(range(len(ids)), 2):
            games.append((ids[i], ids[j], game_score(game.ranking[i], game.ranking[j])))
            rotation.append(group_of(game))
    return games, rotation


def assert_matches_results(elo: IncrementalElo, results: list[GameResult]) -> None:
    """The ratings and intervals of the tournament report's fit: ``fit_elo`` on the
    games decomposed into pairs of seats, each rotation one cluster."""
    ratings = elo.refit()
    full = fit_elo(pairwise_games(results))
    assert set(ratings) == {BASE + int(name[1:]) for name in full.players}
    for k, name in enumerate(full.players):
        mine = ratings[BASE + int(name[1:])]
        assert mine.elo == pytest.approx(full.elo[k], abs=1e-8)
        assert mine.lower == pytest.approx(full.lower[k], abs=1e-8)
        assert mine.upper == pytest.approx(full.upper[k], abs=1e-8)
        assert mine.games == int(full.counts.games_played()[k])


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_multi_seat_rotations_in_batches_match_fit_elo_at_every_stage(seats: int) -> None:
    results = seated_rotations(seats, seats, 9, 240)
    elo = IncrementalElo()
    done = 0
    for stop in (60, 61, 150, 240):  # whole rotations per call
        part = [g for g in results if done <= group_of(g) < stop]
        elo.add_games(*seat_triples(part))
        done = stop
        assert_matches_results(elo, [g for g in results if group_of(g) < stop])


def test_mixed_seat_counts_and_single_rotations_match_fit_elo() -> None:
    two = seated_rotations(11, 2, 6, 100)
    four = [
        GameResult(g.players, g.ranking, 1000 + group_of(g))
        for g in seated_rotations(12, 4, 6, 100)
    ]
    elo = IncrementalElo()
    for group in sorted({group_of(g) for g in two + four}):
        elo.add_rotation(seat_triples([g for g in two + four if g.group == group])[0])
    assert elo.clusters == 200
    assert_matches_results(elo, two + four)


def test_multi_seat_rotations_of_an_unconnected_group_are_left_out() -> None:
    results = seated_rotations(13, 3, 8, 120)
    elo = IncrementalElo()
    elo.add_games(*seat_triples(results))
    # Three bots that only ever met each other, one rotation of three games.
    loners = [(BASE + 90, BASE + 91, 1.0), (BASE + 91, BASE + 92, 0.5), (BASE + 92, BASE + 90, 1.0)]
    elo.add_rotation(loners)
    assert_matches_results(elo, results)


@settings(max_examples=20, deadline=None)
@given(
    st.integers(3, 5),
    st.lists(st.integers(1, 79), min_size=1, max_size=4, unique=True),
    st.integers(0, 99),
)
def test_how_multi_seat_rotations_are_split_into_calls_does_not_matter(
    seats: int, cuts: list[int], seed: int
) -> None:
    results = seated_rotations(seed, seats, 7, 80)
    whole = IncrementalElo()
    whole.add_games(*seat_triples(results))
    parts = IncrementalElo()
    for start, stop in itertools.pairwise([0, *sorted(cuts), 80]):
        parts.add_games(*seat_triples([g for g in results if start <= group_of(g) < stop]))
        parts.refit()
    expected = whole.refit()
    for bot, rating in parts.refit().items():
        assert rating.elo == pytest.approx(expected[bot].elo, abs=1e-7)
        assert rating.lower == pytest.approx(expected[bot].lower, abs=1e-7)
        assert rating.upper == pytest.approx(expected[bot].upper, abs=1e-7)


def test_rotations_in_batches_match_fit_elo_at_every_stage() -> None:
    games = rotations(1, [0.0, 120.0, -80.0, 250.0, 40.0], 600)
    # Play order: rotation k's two games are rows k and k + 600.
    order = np.argsort(np.arange(len(games)) % 600, kind="stable")
    elo = IncrementalElo()
    done = 0
    for stop in (200, 201 * 2, 1200):
        batch = order[done:stop]
        elo.add_games([triples(games)[k] for k in batch], [int(games.group[k]) for k in batch])
        done = stop
        seen = order[:stop]
        part = PairwiseGames.from_arrays(
            games.players,
            games.first[seen],
            games.second[seen],
            games.score[seen],
            games.group[seen],
        )
        assert_matches(elo, part)


def test_games_without_rotations_are_clusters_of_one() -> None:
    games = rotations(2, [0.0, 60.0, -60.0], 300)
    single = PairwiseGames.from_arrays(games.players, games.first, games.second, games.score)
    elo = IncrementalElo()
    elo.add_games(triples(games))
    assert elo.clusters == len(games)
    assert_matches(elo, single)


def test_add_rotation_is_one_cluster() -> None:
    games = rotations(3, [0.0, 100.0, -50.0], 200)
    elo = IncrementalElo()
    everything = list(zip(triples(games), games.group, strict=True))
    for group in range(200):
        elo.add_rotation([t for t, g in everything if g == group])
    assert elo.clusters == 200
    assert_matches(elo, games)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 399), min_size=1, max_size=4, unique=True), st.integers(0, 99))
def test_how_games_are_split_into_refits_does_not_matter(cuts: list[int], seed: int) -> None:
    games = triples(rotations(seed, [0.0, 90.0, -40.0, 10.0], 200))
    whole = IncrementalElo()
    whole.add_games(games)
    parts = IncrementalElo()
    edges = [0, *sorted(cuts), len(games)]
    for start, stop in itertools.pairwise(edges):
        parts.add_games(games[start:stop])
        parts.refit()
    expected = whole.refit()
    for bot, rating in parts.refit().items():
        assert rating.elo == pytest.approx(expected[bot].elo, abs=1e-7)
        assert rating.upper == pytest.approx(expected[bot].upper, abs=1e-7)


def test_a_bot_that_won_every_game_gets_virtual_draws() -> None:
    games = rotations(4, [0.0, 50.0, 100.0], 150)
    data = triples(games) + [(BASE + 9, BASE + i, 1.0) for i in range(3) for _ in range(5)]
    elo = IncrementalElo()
    elo.add_games(data)
    ratings = elo.refit()
    assert np.isfinite(ratings[BASE + 9].elo)
    assert ratings[BASE + 9].elo == max(r.elo for r in ratings.values())


def test_bots_not_yet_connected_are_left_out() -> None:
    elo = IncrementalElo()
    assert elo.refit() == {}
    elo.add_games([(1, 2, 1.0), (2, 1, 1.0), (1, 2, 0.5)])
    elo.add_games([(7, 8, 1.0)])  # a second group that never met the first
    assert set(elo.refit()) == {1, 2}
    assert elo.games_of(7) == 1
    assert elo.games_of(99) == 0
    elo.add_games([(8, 1, 0.0), (7, 2, 0.5), (1, 7, 0.5)])
    assert set(elo.refit()) == {1, 2, 7, 8}


def test_anchor_fixes_one_bot_and_the_mean_otherwise() -> None:
    data = triples(rotations(5, [0.0, 70.0, -30.0], 200))
    plain, anchored = IncrementalElo(), IncrementalElo(anchor=BASE + 1, anchor_elo=1500.0)
    plain.add_games(data)
    anchored.add_games(data)
    free, fixed = plain.refit(), anchored.refit()
    assert sum(r.elo for r in free.values()) == pytest.approx(0.0, abs=1e-8)
    assert fixed[BASE + 1].elo == pytest.approx(1500.0)
    assert fixed[BASE + 1].lower == pytest.approx(1500.0)
    difference = free[BASE + 2].elo - free[BASE + 1].elo
    assert fixed[BASE + 2].elo - 1500.0 == pytest.approx(difference, abs=1e-8)


def test_state_round_trips_through_bytes_without_pickle() -> None:
    games = rotations(6, [0.0, 40.0, -90.0], 100)
    elo = IncrementalElo(confidence=0.9, anchor=BASE, anchor_elo=100.0)
    elo.add_games(triples(games), games.group.tolist())
    before = elo.refit()
    data = elo.to_bytes()
    assert data[:2] == b"PK"  # a NumPy .npz archive
    copy = IncrementalElo.from_bytes(data)
    assert copy.refit() == before
    assert (copy.games, copy.clusters, copy.bots) == (elo.games, elo.clusters, elo.bots)
    more = [(BASE, BASE + 1, 1.0), (BASE + 2, BASE, 0.5)]
    copy.add_games(more)
    elo.add_games(more)
    assert copy.refit() == elo.refit()


def test_multi_seat_state_round_trips_with_its_cross_terms() -> None:
    results = seated_rotations(7, 4, 8, 150)
    first = [g for g in results if group_of(g) < 75]
    elo = IncrementalElo()
    elo.add_games(*seat_triples(first))
    copy = IncrementalElo.from_bytes(elo.to_bytes())
    assert copy.refit() == elo.refit()
    copy.add_games(*seat_triples(results[len(first) :]))
    assert_matches_results(copy, results)


def test_cross_terms_of_high_bot_numbers_round_trip() -> None:
    elo = IncrementalElo()
    elo.add_games([(b, b + 1, 1.0) for b in range(0, 100, 2)])  # 100 bot numbers
    elo.add_rotation([(80, 81, 1.0), (82, 99, 0.5), (98, 80, 0.0), (99, 81, 1.0)])
    copy = IncrementalElo.from_bytes(elo.to_bytes())
    assert np.array_equal(copy._cross_keys, elo._cross_keys)
    assert np.array_equal(copy._cross, elo._cross)


def test_a_version_1_state_does_not_load_and_says_why() -> None:
    buffer = io.BytesIO()
    current = np.load(io.BytesIO(IncrementalElo().to_bytes()))
    old = {name: current[name] for name in current.files if not name.startswith("cross")}
    np.savez_compressed(buffer, **{**old, "version": np.array([1])})
    with pytest.raises(LadderError, match=r"version 1, need 2 .*cross terms"):
        IncrementalElo.from_bytes(buffer.getvalue())


def test_a_state_whose_cross_terms_name_unknown_bots_does_not_load() -> None:
    elo = IncrementalElo()
    elo.add_rotation([(1, 2, 1.0), (2, 3, 0.0), (3, 1, 0.5)])
    archive = np.load(io.BytesIO(elo.to_bytes()))
    arrays = {name: archive[name] for name in archive.files}
    steps = arrays["cross_key_steps"].astype(np.int64)
    steps[0] += 2**31 * 5  # a pair of bot number 3 or higher
    arrays["cross_key_steps"] = steps
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    with pytest.raises(LadderError, match="cross keys unsorted or of unknown bots"):
        IncrementalElo.from_bytes(buffer.getvalue())


@pytest.mark.parametrize("data", [b"", b"not a state", b"PK\x03\x04broken"])
def test_bad_state_bytes_raise_ladder_error(data: bytes) -> None:
    with pytest.raises(LadderError, match="not a ladder rating state"):
        IncrementalElo.from_bytes(data)


def test_bad_games_raise_and_add_nothing() -> None:
    elo = IncrementalElo()
    elo.add_games([(1, 2, 1.0)])
    with pytest.raises(LadderError, match=r"score 0\.3 is not 0, 0\.5 or 1"):
        elo.add_games([(1, 2, 0.5), (1, 3, 0.3)])
    with pytest.raises(LadderError, match="pits bot 4 against itself"):
        elo.add_games([(4, 4, 1.0)])
    with pytest.raises(LadderError, match="2 rotation names for 1 games"):
        elo.add_games([(1, 2, 1.0)], ["a", "b"])
    assert (elo.games, elo.bots) == (1, (1, 2))
    with pytest.raises(LadderError, match="131074 new bots on top of 2: more than 65,536 bots"):
        elo.add_games([(b, b + 65_537, 1.0) for b in range(100, 65_637)])
    assert (elo.games, elo.bots) == (1, (1, 2))
    with pytest.raises(LadderError, match=r"confidence 1\.5"):
        IncrementalElo(confidence=1.5)


def test_a_rotation_split_across_two_calls_is_refused_and_nothing_added() -> None:
    elo = IncrementalElo()
    elo.add_games([(1, 2, 1.0), (1, 3, 0.5)], ["deal 7", "deal 8"])
    with pytest.raises(LadderError, match="rotation 'deal 7' was added in an earlier call"):
        elo.add_games([(3, 1, 0.0), (2, 1, 0.0)], ["deal 9", "deal 7"])
    assert (elo.games, elo.clusters, elo.bots) == (2, 2, (1, 2, 3))
    elo.add_games([(3, 1, 0.0)], ["deal 9"])  # the refused call added nothing
    assert (elo.games, elo.clusters) == (3, 3)
