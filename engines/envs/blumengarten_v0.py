"""blumengarten as a PettingZoo module, as ``pettingzoo.classic`` has them:
``from engines.envs import blumengarten_v0; blumengarten_v0.env(seats=…, options=…)``."""

from __future__ import annotations

from functools import partial

from engines.envs.aec import CardGameEnv

env = partial(CardGameEnv, "blumengarten")
"""A PettingZoo AEC environment of blumengarten; keywords as :class:`engines.envs.env`."""
raw_env = env
