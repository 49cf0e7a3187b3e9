"""The games under Gymnasium ids: ``gymnasium.make("arena/Koenigsgarten-v0")`` once
``engines.envs`` is imported (or ``gymnasium.make("engines.envs:arena/Koenigsgarten-v0")``,
which imports it).

Blumengarten is the patience itself (:class:`engines.envs.SingleAgentEnv`); in every other
game the learner plays one seat against ``random`` bots, one per other seat
(``bots.envs.versus_bots_env``, named by a string so the engines import no bots).
``gymnasium.make`` passes its keyword arguments on: ``opponents=["greedy"]``, ``seats=3``,
``options={...}``, ``seat=0``, ``illegal_actions="raise"``.
"""

from __future__ import annotations

import gymnasium

NAMESPACE = "arena"
VERSION = 0

GYMNASIUM_IDS: dict[str, str] = {
    "koenigsgarten": f"{NAMESPACE}/Koenigsgarten-v{VERSION}",
    "blumengarten": f"{NAMESPACE}/Blumengarten-v{VERSION}",
    "kings_corner": f"{NAMESPACE}/KingsCorner-v{VERSION}",
    "kardinal": f"{NAMESPACE}/Kardinal-v{VERSION}",
}
"""Each game's Gymnasium id."""


def register_all() -> None:
    """Registers every game under its id (again is harmless: Gymnasium replaces it)."""
    for game, env_id in GYMNASIUM_IDS.items():
        if env_id in gymnasium.registry:
            continue
        if game == "blumengarten":
            gymnasium.register(
                env_id, entry_point="engines.envs.single:SingleAgentEnv", kwargs={"game": game}
            )
        else:
            gymnasium.register(
                env_id,
                entry_point="bots.envs:versus_bots_env",
                kwargs={"game": game, "opponents": ["random"]},
            )
