"""Issue 18, point 7: the ladder's algorithms on simulated games of known strength."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from arena.ladder import VersionTest
from arena.ladder.simulation import SimulatedLadder, version_test_pairs

pytestmark = pytest.mark.slow  # simulations of thousands of games, seconds each


def test_a_simulated_ladder_converges_to_the_true_order() -> None:
    rng = np.random.default_rng(11)
    ladder = SimulatedLadder()
    truth = {bot: -440.0 + 80.0 * bot for bot in range(12)}
    for bot in rng.permutation(12):  # registered in a random order
        ladder.add_bot(int(bot), f"owner{bot % 4}", truth[int(bot)])
    while ladder.elo.games < 12_000:
        ladder.step(40, rng)
    assert ladder.order() == sorted(truth, key=lambda bot: -truth[bot])
    mean = np.mean(list(truth.values()))
    covered = sum(
        rating.lower <= truth[bot] - mean <= rating.upper for bot, rating in ladder.ratings.items()
    )
    assert covered >= 10  # 95% intervals: 11.4 of 12 expected
    assert max(r.half_width for r in ladder.ratings.values()) < 60.0


def run_tests(elo_difference: float, streams: int, seed: int) -> Counter[str]:
    rng = np.random.default_rng(seed)
    outcomes = Counter[str]()
    for _ in range(streams):
        test = VersionTest()
        while test.status == "running" and test.pairs < 40_000:
            test.add_pairs(version_test_pairs(elo_difference, 400, rng))
        outcomes[test.status] += 1
    return outcomes


def binomial_ceiling(rate: float, trials: int) -> float:
    """A generous upper bound on the count of events of ``rate`` in ``trials``."""
    return rate * trials + 3.0 * (rate * (1.0 - rate) * trials) ** 0.5 + 1.0


@pytest.mark.parametrize(("difference", "wrong"), [(0.0, "H1"), (30.0, "H0")])
def test_version_tests_decide_at_the_expected_error_rates(difference: float, wrong: str) -> None:
    streams = 80
    outcomes = run_tests(difference, streams, seed=int(difference) + 1)
    assert outcomes["running"] == 0
    # α = β = 0.05; a new version +0 sits on H0 (elo0 = 0), one +30 Elo is above H1
    # (elo1 = 10 normalised Elo, about 10 Elo at this draw rate): a wrong decision at
    # most at the rate α (resp. β), in practice fewer (the test overshoots its bounds).
    assert outcomes[wrong] <= binomial_ceiling(0.05, streams)


def test_owners_share_equally_and_budgets_cap_what_they_use() -> None:
    rng = np.random.default_rng(12)
    ladder = SimulatedLadder(owner_budget=3_000, ladder_budget=5_000)
    ladder.charged["many"] = 2_000  # charged before: 1,000 games left
    for bot in range(20):
        ladder.add_bot(bot, "many", float(rng.uniform(-300, 300)))
    ladder.add_bot(20, "one", 0.0)
    for bot in range(21, 24):
        ladder.add_bot(bot, "few", float(rng.uniform(-300, 300)))
    while ladder.charged["many"] < 3_000:
        assert ladder.step(9, rng)
    # Until "many" reached its budget the three owners took turns: 20 bots or 1 or 3.
    shares = [ladder.charged["many"] - 2_000, ladder.charged["one"], ladder.charged["few"]]
    assert max(shares) - min(shares) <= 0.05 * sum(shares)
    played_then = dict(ladder.played)
    while ladder.step(9, rng):
        pass
    # Over budget: none of its bots played again, not even as an opponent.
    assert all(ladder.played[bot] == played_then[bot] for bot in range(20))
    assert ladder.elo.games == 5_000  # the ladder's budget, spent to the last game
    # The owner order is shuffled per call, so an odd count favours a random owner.
    assert ladder.charged["one"] + ladder.charged["few"] == 4_000
    assert abs(ladder.charged["one"] - ladder.charged["few"]) <= 0.05 * 4_000
    assert ladder.charged["many"] == 3_000
