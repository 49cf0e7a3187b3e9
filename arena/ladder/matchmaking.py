"""Who plays next on a ladder: games where they inform most, shared fairly.

:func:`next_pairings` is a pure function of a :class:`LadderView` (the bots with their
current ratings, the games each owner has used) and a seeded generator. Each pairing
is chosen in three steps:

1. **The owner**, round-robin over the owners with an active bot and budget left, in
   an order shuffled per call: an owner with twenty bots gets no more pairings than an
   owner with one. A pairing is charged to this owner (its first bot's owner) against
   the per-owner budget; every pairing is charged to the ladder's budget.
2. **The owner's bot**: a bot still in its placement phase (fewer than
   ``placement_games`` games) first, the one with the fewest games; otherwise drawn
   with weight ``width · (½ + u)``, ``width`` its interval's width and ``u`` the largest
   chance that its order against another bot is wrong (overlapping intervals), but at
   least ``floor_share`` of the owner's mean weight, so that a bot with a narrow, stale
   interval still plays now and then.
3. **Its opponents**: for a placing bot, bots spread over the ladder's rating range
   (the quantiles ½, ¼, ¾, ⅛, … of the placed bots' ratings, one per placement game);
   afterwards placed bots drawn with weight ``u_ij · (width_i + width_j)``: pairs
   whose order is least certain, the wider the intervals the more. A placing bot is
   nobody else's opponent (but for want of placed bots), so its placement games are
   the spread ones.

An owner over budget gets no games, neither as first bot nor as opponent; a ladder
over budget gets no pairings at all.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr

from arena.ladder.errors import LadderError

Z_95 = 1.959963984540054
"""The half-width of a 95% interval in standard errors."""

UNRATED_WIDTH = 800.0
"""The interval width (Elo) assumed for a bot without a rating."""

MAX_SEATS = 5


@dataclass(frozen=True)
class LadderBot:
    """One bot on the ladder as matchmaking sees it.

    Attributes:
        id: the bot's id (pairings name bots by it).
        owner: who submitted it; fair share and budgets are per owner.
        rating, lower, upper: its Elo and 95% interval; None before its first rating.
        games: ladder games played so far.
        created: registration order (lower is older); breaks ties between placing bots.
        status: only ``"active"`` bots are matched (others: retired, suspended, …).
    """

    id: int
    owner: str
    rating: float | None = None
    lower: float | None = None
    upper: float | None = None
    games: int = 0
    created: int = 0
    status: str = "active"

    @property
    def rated(self) -> bool:
        return self.rating is not None and self.lower is not None and self.upper is not None


@dataclass(frozen=True)
class LadderView:
    """The state :func:`next_pairings` decides from.

    Attributes:
        bots: every bot of the ladder (inactive ones are skipped).
        owner_games: games charged to each owner so far (see the module's docstring).
        owner_budget: the most games an owner may be charged; None for no cap.
        ladder_games: games of the ladder so far.
        ladder_budget: the most games of the ladder; None for no cap.
        placement_games: games of a bot's placement phase.
        games_per_pairing: games one pairing costs (a rotation: 2 for two seats).
        floor_share: a bot's least weight, as a fraction of its owner's mean weight.

    Raises LadderError for a repeated bot id or a setting out of range.
    """

    bots: tuple[LadderBot, ...]
    owner_games: Mapping[str, int] = field(default_factory=dict)
    owner_budget: int | None = None
    ladder_games: int = 0
    ladder_budget: int | None = None
    placement_games: int = 20
    games_per_pairing: int = 2
    floor_share: float = 0.1

    def __post_init__(self) -> None:
        ids = [bot.id for bot in self.bots]
        if len(set(ids)) != len(ids):
            raise LadderError(f"bot ids repeat in the ladder view: {ids!r}")
        if self.games_per_pairing < 1 or self.placement_games < 0:
            raise LadderError(
                f"games_per_pairing {self.games_per_pairing!r} must be >= 1 and "
                f"placement_games {self.placement_games!r} >= 0"
            )
        if not 0.0 <= self.floor_share <= 1.0:
            raise LadderError(f"floor_share {self.floor_share!r} must lie in [0, 1]")

    def owner_left(self, owner: str) -> float:
        """Games ``owner`` may still be charged (infinite without a budget)."""
        if self.owner_budget is None:
            return math.inf
        return self.owner_budget - self.owner_games.get(owner, 0)

    def ladder_left(self) -> float:
        """Games the ladder may still play (infinite without a budget)."""
        if self.ladder_budget is None:
            return math.inf
        return self.ladder_budget - self.ladder_games


def next_pairings(
    view: LadderView, count: int, rng: np.random.Generator, seats: int = 2
) -> list[tuple[int, ...]]:
    """Up to ``count`` seat groups of ``seats`` distinct bot ids, the bot each was
    chosen for first (its owner is charged). Fewer when budgets run out or fewer than
    ``seats`` bots may play; ``[]`` when the ladder is over its budget.

    Raises LadderError unless ``2 <= seats <= 5`` and ``count >= 0``.
    """
    if not 2 <= seats <= MAX_SEATS:
        raise LadderError(f"seats {seats!r} must lie between 2 and {MAX_SEATS}")
    if count < 0:
        raise LadderError(f"count {count!r} must not be negative")
    cost = view.games_per_pairing
    pairings_left = count
    if view.ladder_budget is not None:
        pairings_left = min(count, (view.ladder_budget - view.ladder_games) // cost)
    bots = [
        bot for bot in view.bots if bot.status == "active" and view.owner_left(bot.owner) >= cost
    ]
    if pairings_left <= 0 or len(bots) < seats:
        return []
    state = _Weights(bots, view)
    owners = sorted({bot.owner for bot in bots})
    owners = [owners[i] for i in rng.permutation(len(owners))]
    left = {owner: view.owner_left(owner) for owner in owners}
    scheduled = np.zeros(len(bots), dtype=np.int64)
    playing = np.ones(len(bots), dtype=bool)
    result: list[tuple[int, ...]] = []
    turn = 0
    while len(result) < pairings_left and owners:
        owner = owners[turn % len(owners)]
        if playing.sum() < seats:
            break
        focus = state.choose_focus(owner, scheduled, rng)
        opponents = state.choose_opponents(focus, seats - 1, scheduled, playing, rng)
        group = (focus, *opponents)
        result.append(tuple(bots[i].id for i in group))
        scheduled[list(group)] += 1
        left[owner] -= cost
        if left[owner] < cost:
            owners.remove(owner)
            playing &= state.owner_of != owner
        else:
            turn += 1
    return result


class _Weights:
    """The per-call arrays behind the choices, bots numbered as in ``bots``."""

    def __init__(self, bots: list[LadderBot], view: LadderView) -> None:
        self.bots = bots
        self.owner_of = np.array([bot.owner for bot in bots], dtype=object)
        self.games = np.array([bot.games for bot in bots], dtype=np.int64)
        self.created = np.array([bot.created for bot in bots], dtype=np.int64)
        self.placement_games = view.placement_games
        self.games_per_pairing = view.games_per_pairing
        self.floor_share = view.floor_share
        rated = np.array([bot.rated for bot in bots], dtype=bool)
        self.placed = rated & (self.games >= view.placement_games)
        rating = np.array([bot.rating if bot.rated else math.nan for bot in bots], dtype=float)
        width = np.array(
            [
                (bot.upper - bot.lower)
                if bot.upper is not None and bot.lower is not None
                else UNRATED_WIDTH
                for bot in bots
            ],
            dtype=float,
        )
        width[~rated] = UNRATED_WIDTH
        self.width = np.maximum(width, 0.0)
        stderr = self.width / (2.0 * Z_95)
        gap = np.abs(rating[:, None] - rating[None, :])
        spread = np.sqrt(stderr[:, None] ** 2 + stderr[None, :] ** 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            uncertain = 2.0 * ndtr(-gap / spread)
        uncertain[np.isnan(uncertain)] = 1.0  # unrated, or two point intervals
        np.fill_diagonal(uncertain, 0.0)
        pair_weight = uncertain * (self.width[:, None] + self.width[None, :])
        pair_weight += 1e-9 * (pair_weight.max() + 1.0)
        pair_weight[:, ~self.placed] = 0.0
        np.fill_diagonal(pair_weight, 0.0)
        self.pair_weight = pair_weight
        """Row ``i``: the weight of each opponent of a placed bot ``i``."""
        self.focus_weight = self.width * (0.5 + uncertain.max(axis=1))
        self.by_rating = np.flatnonzero(self.placed)[np.argsort(rating[self.placed], kind="stable")]
        grouped: dict[str, list[int]] = {}
        for i, bot in enumerate(bots):
            grouped.setdefault(bot.owner, []).append(i)
        self.members = {owner: np.array(members) for owner, members in grouped.items()}
        self._focus_cumulative: dict[str, np.ndarray] = {}

    def focus_cumulative(self, owner: str) -> np.ndarray:
        """The running sum of the focus weights of ``owner``'s bots (computed once)."""
        cumulative = self._focus_cumulative.get(owner)
        if cumulative is None:
            weight = self.focus_weight[self.members[owner]]
            weight = np.maximum(weight, self.floor_share * weight.mean()) + 1e-12
            cumulative = self._focus_cumulative[owner] = np.cumsum(weight)
        return cumulative

    def placing(self, i: int) -> bool:
        return not self.placed[i]

    def choose_focus(self, owner: str, scheduled: np.ndarray, rng: np.random.Generator) -> int:
        members = self.members[owner]
        placing = members[~self.placed[members]]
        if placing.size:
            played = self.games[placing] + scheduled[placing] * self.games_per_pairing
            order = np.lexsort((self.created[placing], played))
            return int(placing[order[0]])
        return int(members[_draw(self.focus_cumulative(owner), rng)])

    def choose_opponents(
        self,
        focus: int,
        needed: int,
        scheduled: np.ndarray,
        playing: np.ndarray,
        rng: np.random.Generator,
    ) -> list[int]:
        allowed = playing.copy()
        allowed[focus] = False
        chosen: list[int] = []
        if self.placing(focus):
            ladder = [int(i) for i in self.by_rating if allowed[i]]
            placement_game = int(self.games[focus] // self.games_per_pairing + scheduled[focus])
            step = 0
            while len(chosen) < needed and len(chosen) < len(ladder):
                quantile = _spread_quantile(placement_game * needed + step + 1)
                pick = ladder[round(quantile * (len(ladder) - 1))]
                step += 1
                if pick not in chosen:
                    chosen.append(pick)
                if step > 4 * needed + len(ladder):
                    break
            for i in chosen:
                allowed[i] = False
            rest = np.flatnonzero(allowed)
            if len(chosen) < needed:
                extra = rng.choice(rest, size=needed - len(chosen), replace=False)
                chosen.extend(int(i) for i in extra)
            return chosen
        # Placing bots play their placement games on their owner's turns, against
        # opponents spread over the range: not here, where a wide interval would make
        # them everyone's first choice.
        weight = self.pair_weight[focus] * allowed
        placed_left = int(np.count_nonzero(weight))
        if placed_left < needed:
            candidates = np.flatnonzero(weight)
            rest = np.flatnonzero(allowed & ~self.placed)
            extra = rng.choice(rest, size=needed - placed_left, replace=False)
            return [int(i) for i in (*candidates, *extra)]
        if needed == 1:
            return [_draw(np.cumsum(weight), rng)]
        picked = rng.choice(weight.size, size=needed, replace=False, p=weight / weight.sum())
        return [int(i) for i in picked]


def _draw(cumulative: np.ndarray, rng: np.random.Generator) -> int:
    """An index drawn with probability proportional to its weight, given the weights'
    running sum (one uniform number: cheaper than ``Generator.choice`` for one draw)."""
    index = np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right")
    return min(int(index), cumulative.size - 1)


def _spread_quantile(k: int) -> float:
    """The ``k``-th point (k ≥ 1) of the base-2 van der Corput sequence: ½, ¼, ¾, ⅛, ⅝,
    …: each new point halves the largest gap left, so any prefix covers the range."""
    result, scale = 0.0, 0.5
    while k:
        k, digit = divmod(k, 2)
        result += digit * scale
        scale /= 2.0
    return result
