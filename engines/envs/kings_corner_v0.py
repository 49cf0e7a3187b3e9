"""kings_corner as a PettingZoo module, as ``pettingzoo.classic`` has them:
``from engines.envs import kings_corner_v0; kings_corner_v0.env(seats=…, options=…)``."""

from __future__ import annotations

from functools import partial

from engines.envs.aec import CardGameEnv

env = partial(CardGameEnv, "kings_corner")
"""A PettingZoo AEC environment of kings_corner; keywords as :class:`engines.envs.env`."""
raw_env = env
