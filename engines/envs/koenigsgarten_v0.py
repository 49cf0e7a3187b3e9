"""koenigsgarten as a PettingZoo module, as ``pettingzoo.classic`` has them:
``from engines.envs import koenigsgarten_v0; koenigsgarten_v0.env(seats=…, options=…)``."""

from __future__ import annotations

from functools import partial

from engines.envs.aec import CardGameEnv

env = partial(CardGameEnv, "koenigsgarten")
"""A PettingZoo AEC environment of koenigsgarten; keywords as :class:`engines.envs.env`."""
raw_env = env
