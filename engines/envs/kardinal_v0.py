"""kardinal as a PettingZoo module, as ``pettingzoo.classic`` has them:
``from engines.envs import kardinal_v0; kardinal_v0.env(seats=…, options=…)``."""

from __future__ import annotations

from functools import partial

from engines.envs.aec import CardGameEnv

env = partial(CardGameEnv, "kardinal")
"""A PettingZoo AEC environment of kardinal; keywords as :class:`engines.envs.env`."""
raw_env = env
