"""Stand-ins for the ladder's algorithms (``rating``, ``matchmaking``, ``regression``),
built on the interfaces agreed with their author; deleted when the real modules land."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from arena.ratings.pairs import Pentanomial, pair_category
from arena.ratings.sprt import SprtSettings, log_likelihood_ratio

ELO_PER_NAT = 400 / math.log(10)
Z95 = 1.959964


class IncrementalElo:
    """Maximum-likelihood Elo over pairwise results, refit from the pair counts."""

    def __init__(self) -> None:
        self.points: dict[tuple[int, int], float] = {}
        self.played: dict[tuple[int, int], int] = {}
        self.games: dict[int, int] = {}

    def add_games(self, pairs: Iterable[tuple[int, int, float]]) -> None:
        for a, b, score in pairs:
            key = (a, b) if a < b else (b, a)
            self.points[key] = self.points.get(key, 0.0) + (score if a < b else 1.0 - score)
            self.played[key] = self.played.get(key, 0) + 1
            self.games[a] = self.games.get(a, 0) + 1
            self.games[b] = self.games.get(b, 0) + 1

    def refit(self) -> dict[int, tuple[float, float, float, int]]:
        bots = sorted(self.games)
        if not bots:
            return {}
        where = {bot: i for i, bot in enumerate(bots)}
        n = len(bots)
        wins = np.full(n, 0.5)  # a prior: one draw against the mean
        played = np.zeros((n, n))
        for (a, b), count in self.played.items():
            i, j = where[a], where[b]
            played[i, j] += count
            played[j, i] += count
            wins[i] += self.points[(a, b)]
            wins[j] += count - self.points[(a, b)]
        strength = np.ones(n)
        for _ in range(200):
            denominator = (played / (strength[:, None] + strength[None, :])).sum(axis=1)
            denominator += 1.0 / (strength + 1.0)
            new = wins / denominator
            new /= np.exp(np.log(new).mean())
            done = np.max(np.abs(new - strength)) < 1e-9
            strength = new
            if done:
                break
        logs = np.log(strength)
        p = strength[:, None] / (strength[:, None] + strength[None, :])
        information = (played * p * (1 - p)).sum(axis=1) + 0.25
        half = Z95 / np.sqrt(information) * ELO_PER_NAT
        elo = logs * ELO_PER_NAT
        return {
            bot: (float(elo[i]), float(elo[i] - half[i]), float(elo[i] + half[i]), self.games[bot])
            for bot, i in where.items()
        }

    def to_bytes(self) -> bytes:
        rows = [[a, b, self.points[(a, b)], n] for (a, b), n in self.played.items()]
        return json.dumps(rows).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> IncrementalElo:
        elo = cls()
        for a, b, points, n in json.loads(data):
            elo.points[(a, b)] = points
            elo.played[(a, b)] = n
            elo.games[a] = elo.games.get(a, 0) + n
            elo.games[b] = elo.games.get(b, 0) + n
        return elo


@dataclass(frozen=True)
class LadderBot:
    id: int
    owner: int | None
    rating: float
    lower: float
    upper: float
    games: int
    placement_done: bool


@dataclass(frozen=True)
class LadderView:
    bots: list[LadderBot]
    seats: int = 2
    owner_games: dict[int | None, int] = field(default_factory=dict)
    owner_budget: int | None = None


def next_pairings(view: LadderView, count: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """Tables of ``view.seats`` bots: the least-played bot against its nearest rivals."""
    allowed = [
        bot
        for bot in view.bots
        if view.owner_budget is None or view.owner_games.get(bot.owner, 0) < view.owner_budget
    ]
    if len(allowed) < view.seats:
        return []
    tables = []
    games = {bot.id: bot.games for bot in allowed}
    for _ in range(count):
        first = min(allowed, key=lambda bot: (games[bot.id], rng.random()))
        rest = sorted(
            (bot for bot in allowed if bot.id != first.id),
            key=lambda bot: abs(bot.rating - first.rating) + 200 * rng.random(),
        )[: view.seats - 1]
        table = (first.id, *(bot.id for bot in rest))
        for bot in table:
            games[bot] += view.seats
        tables.append(table)
    return tables


class VersionTest:
    """A pentanomial SPRT of one version against another."""

    def __init__(self, elo0: float, elo1: float, alpha: float, beta: float) -> None:
        self.settings = SprtSettings(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
        self.counts = Pentanomial()

    def add_pair(self, score_a: float, score_b: float) -> None:
        category = pair_category(score_a, score_b)
        self.counts = dataclasses.replace(
            self.counts, **{category: getattr(self.counts, category) + 1}
        )

    @property
    def llr(self) -> float:
        return log_likelihood_ratio(self.counts, self.settings.elo0, self.settings.elo1)

    @property
    def bounds(self) -> tuple[float, float]:
        return (self.settings.lower_bound, self.settings.upper_bound)

    @property
    def status(self) -> str:
        llr = self.llr
        if llr >= self.settings.upper_bound:
            return "H1"
        if llr <= self.settings.lower_bound:
            return "H0"
        return "running"
