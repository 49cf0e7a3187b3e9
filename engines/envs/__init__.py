"""The games as learning environments: PettingZoo AEC environments for every game and
seat count, and a Gymnasium environment for one learner (Blumengarten, or any game
with fixed players in the other seats). See docs/envs.md.

Needs the optional extra ``rl`` (``pip install -e '.[rl]'``: pettingzoo, gymnasium).
The engines themselves never import this package.
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as missing:  # pragma: no cover - the dev extra installs both
    raise ImportError(
        f"engines.envs needs {missing.name!r}: install the optional extra, "
        "pip install -e '.[rl]' (pettingzoo and gymnasium)"
    ) from missing

from engines.envs.actions import ActionIndex, action_index
from engines.envs.aec import CardGameEnv, env
from engines.envs.encoding import Block, Encoder, Layout
from engines.envs.registration import GYMNASIUM_IDS, register_all
from engines.envs.single import FixedPlayer, SingleAgentEnv
from engines.envs.spec import EnvSpec, env_spec

raw_env = CardGameEnv
"""PettingZoo's name for the unwrapped environment class."""

register_all()

__all__ = [
    "GYMNASIUM_IDS",
    "ActionIndex",
    "Block",
    "CardGameEnv",
    "Encoder",
    "EnvSpec",
    "FixedPlayer",
    "Layout",
    "SingleAgentEnv",
    "action_index",
    "env",
    "env_spec",
    "raw_env",
]
