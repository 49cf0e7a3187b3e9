"""A heuristic player for Königsgarten: one move deep, with a look at the reply.

It ranks its legal cards, best first:

1. a card that wins at once (a pattern completed, or the opponent left without a
   card);
2. a card after which the opponent cannot win at once (no reply completes one of
   its patterns or leaves this player without a card) — the last card of the garden
   (a draw) counts as one;
3. among those, the card that leaves the opponent the fewest cards to choose from;
4. then the card that improves the patterns most: each pattern still open to a
   player (no marker of the other in it) is worth 4 to the power of that player's
   markers in it, own patterns counting for, the opponent's against;
5. then at random.

Cards that hand the opponent a win come last, ordered the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from bots.base import Bot
from bots.koenigsgarten.solver import WIN, GardenRules, Position, read_observation
from bots.registry import BotKind
from engines.core import Action
from engines.koenigsgarten import WINNING_PATTERNS

_WINS_NOW: Final = 2
_SAFE: Final = 1
_HANDS_OVER_A_WIN: Final = 0


def pattern_potential(mine: int, theirs: int) -> int:
    """Σ 4^(own markers) over patterns free of the opponent's markers, less the same
    for the opponent."""
    total = 0
    for pattern in WINNING_PATTERNS:
        if not pattern & theirs:
            total += 4 ** (pattern & mine).bit_count()
        if not pattern & mine:
            total -= 4 ** (pattern & theirs).bit_count()
    return total


def rank_move(rules: GardenRules, position: Position, cell: int) -> tuple[int, int, int]:
    """The sort key of taking ``cell`` (higher is better; see the module docstring)."""
    ended, following = rules.after(position, cell)
    if ended == WIN:
        return (_WINS_NOW, 0, 0)
    replies = [] if ended is not None else rules.legal_cells(following)
    safe = all(rules.after(following, reply)[0] != WIN for reply in replies)
    # ``following`` is seen from the opponent: its ``theirs`` are this player's markers.
    potential = pattern_potential(following.theirs, following.mine)
    return (_SAFE if safe else _HANDS_OVER_A_WIN, -len(replies), potential)


class GreedyKoenigsgartenBot(Bot):
    """Wins at once when it can, never hands over a win it can avoid, then corners
    the opponent and builds patterns."""

    name = "greedy"

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]  # the only legal action
        layout, position = read_observation(observation)
        rules = GardenRules(layout)
        keys = {cell: rank_move(rules, position, cell) for cell in rules.legal_cells(position)}
        best = max(keys.values())
        choices = [cell for cell, key in keys.items() if key == best]
        chosen = rules.layout[choices[self.rng.randrange(len(choices))]]
        return legal_actions[legal_actions.index(chosen)]


GREEDY: Final = BotKind(
    "greedy",
    GreedyKoenigsgartenBot,
    "Königsgarten: wins at once, never hands over a win, corners the opponent, builds patterns",
    games=frozenset({"koenigsgarten"}),
)
