"""What an illegal action does in an environment: a named policy, the same in every env.

``"raise"`` (the default) raises IllegalActionError and leaves the game unchanged: a
learner that uses the action mask never sees it, so it flags a bug. ``"forfeit"``
ends the game as the arena ends it when a bot plays an illegal action: the engine's
forfeit outcome (``Game.forfeit_outcome``: the offender loses; in Blumengarten it keeps
the cards it brought to the foundations), for tools that sample unmasked actions.
"""

from __future__ import annotations

from typing import Literal

import gymnasium

from engines.core import State
from engines.errors import IllegalActionError, OptionError
from engines.outcome import Outcome

IllegalActions = Literal["raise", "forfeit"]
POLICIES = ("raise", "forfeit")
REASON = "illegal_action"
"""The forfeit reason, as the arena stores it for a bot's illegal action."""


def check_policy(policy: str) -> IllegalActions:
    """Raises OptionError for a policy that is not ``"raise"`` or ``"forfeit"``."""
    if policy == "raise":
        return "raise"
    if policy == "forfeit":
        return "forfeit"
    raise OptionError(f"illegal_actions {policy!r} is not one of {', '.join(POLICIES)}")


def forfeit(state: State, seat: int, error: IllegalActionError) -> Outcome:
    """The outcome of ``seat`` forfeiting ``state`` for ``error``; logs a warning."""
    gymnasium.logger.warn(f"{error}: the game ends, seat {seat} forfeits")
    return state.game.forfeit_outcome(state, seat, REASON)
