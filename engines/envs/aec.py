"""The games as PettingZoo AEC environments: seats take turns, one action at a time.

Agents are ``seat_0`` … ``seat_{n-1}``; the agent to act is the engine's current seat,
so a Kings in the Corner or Kardinal turn of several actions is several steps of the
same agent. Every observation is a dict: ``observation`` (the seat's float32 vector,
:mod:`engines.envs.encoding`) and ``action_mask`` (int8 over the fixed action index,
all 0 for a seat that is not to act). Rewards are the engine's returns, given once at
the end; a finished game terminates every agent (nothing is truncated: the engines end
every game by their rules). ``infos[agent]["observation"]`` holds the engine's JSON
observation of the agent to act — what a bot is sent in a tournament — and, once the
game is over, every agent's info holds its final observation and the ``outcome``.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from engines.core import TERMINAL, Game, State
from engines.envs.encoding import Tracker
from engines.envs.illegal import IllegalActions, check_policy, forfeit
from engines.envs.rendering import RENDER_MODES, check_render_mode, render
from engines.envs.seeds import DealSeeds
from engines.envs.spec import EnvSpec, env_spec
from engines.errors import IllegalActionError, InvalidStateError
from engines.outcome import Outcome

Observation = dict[str, Any]
ActionNumber = np.int64
"""What the action spaces sample; ``step`` takes any integer."""


class CardGameEnv(AECEnv[str, Observation, ActionNumber]):
    """One game as an AEC environment.

    ``reset(seed=s)`` deals exactly what the engine deals for seed ``s``
    (``game.new_initial_state(seed=s)``, which is also how a tournament deals from
    its derived seeds); each later ``reset()`` without a seed deals
    ``derive_seed(s, 1)``, ``derive_seed(s, 2)`` … (``s`` is 0 until a seed is given).
    Game options are fixed when the environment is made; ``reset``'s ``options`` are
    not used. ``illegal_actions`` is the policy of :mod:`engines.envs.illegal`.
    ``text_observations=False`` leaves the JSON observation out of ``infos`` (building
    it costs a fifth of a Königsgarten step, docs/benchmarks.md).

    Raises (from the constructor):
        UnknownGameError, SeatCountError, OptionError: bad game, seats, options, render
            mode or policy; the message quotes the value.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  (the APIs declare it per instance)
        "name": "arena_card_game_v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": 1,
    }

    def __init__(
        self,
        game: str | Game,
        *,
        seats: int | None = None,
        options: Any = None,
        render_mode: str | None = None,
        text_observations: bool = True,
        illegal_actions: IllegalActions = "raise",
    ):
        self.render_mode = check_render_mode(render_mode)
        self.illegal_actions = check_policy(illegal_actions)
        self.game_spec: EnvSpec = env_spec(game, seats, options)
        self.text_observations = text_observations
        spec = self.game_spec
        self.possible_agents = [f"seat_{seat}" for seat in range(spec.seats)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        count = len(spec.actions)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, spec.encoder.layout.high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (count,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(count) for agent in self.possible_agents}
        self._action_count = count
        self._actions = spec.actions.actions
        self._to_act = TERMINAL
        self._seeds = DealSeeds()
        self.game_state: State | None = None
        """The engine's state of the current game (None before the first reset)."""
        self._tracker: Tracker | None = None
        self.outcome: Outcome | None = None
        """How the current game ended (also by a forfeit), or None while it runs."""

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        deal_seed = self._seeds.next(seed)
        spec = self.game_spec
        self._begin(
            spec.game.new_initial_state(seed=deal_seed, seats=spec.seats, options=spec.options)
        )

    def reset_to(self, state: State) -> None:
        """Start from a copy of ``state`` (a position of this game, seats and options)
        instead of a fresh deal: for curricula, set positions and tests.

        Raises:
            InvalidStateError: the state is of another game, seat count or options.
        """
        spec = self.game_spec
        if (state.game.name, state.num_seats, state.options) != (
            spec.game.name,
            spec.seats,
            spec.options,
        ):
            raise InvalidStateError(
                f"a {state.game.name} state of {state.num_seats} seats with options "
                f"{state.options!r} does not fit this {spec.game.name} environment of "
                f"{spec.seats} seats with options {spec.options!r}"
            )
        self._begin(state.clone())

    def _begin(self, state: State) -> None:
        self.game_state = state
        self.outcome = None
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._tracker = self.game_spec.encoder.tracker(state, self.game_spec.actions)
        self.agent_selection = self.agents[max(state.current_seat, 0)]
        self._settle()

    def _settle(self) -> None:
        """Select the agent to act (with its JSON observation), or end the game."""
        state = self.game_state
        assert state is not None
        seat = state.current_seat
        if seat == TERMINAL:
            outcome = state.outcome()
            assert outcome is not None
            self._end(outcome)
            return
        self._to_act = seat
        agent = self.possible_agents[seat]
        if agent != self.agent_selection:
            self.infos[self.agent_selection] = {}
            self.agent_selection = agent
        if self.text_observations:
            self.infos[agent] = {"observation": state.observation(seat)}

    def _end(self, outcome: Outcome) -> None:
        """Give every agent its return and terminate it."""
        state = self.game_state
        assert state is not None
        self.outcome = outcome
        self._to_act = TERMINAL
        for agent in self.agents:
            seat = self._seat_of[agent]
            self.rewards[agent] = outcome.returns[seat]
            self.terminations[agent] = True
            info: dict[str, Any] = {"outcome": outcome.to_dict()}
            if self.text_observations:
                info["observation"] = state.observation(seat)
            self.infos[agent] = info
        self._accumulate_rewards()

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Play action number ``action`` for the agent to act (None for a finished agent).

        Raises:
            InvalidStateError: the environment was not reset yet.
            InvalidActionError: ``action`` is no action number of this game.
            IllegalActionError: the action is not legal now and the policy is
                ``"raise"`` (the game is unchanged).
        """
        state = self.game_state
        if state is None:
            raise InvalidStateError("reset() the environment before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(cast(Any, action))  # PettingZoo's annotation omits None
            return
        seat = self._to_act
        tracker = self._tracker
        assert tracker is not None
        # A plain int in range is the fast path (bools and floats are not action numbers).
        if type(action) is int and 0 <= action < self._action_count:
            number = action
        else:
            self.game_spec.actions.action(action)  # raises for what is no action number
            number = int(cast(int, action))
        move = self._actions[number]
        try:
            if tracker.is_legal(number):
                state.apply_unchecked(move)
            else:
                state.apply_action(move)  # raises, naming the legal actions
        except IllegalActionError as error:
            message = f"action {number} for {agent}: {error}"
            if self.illegal_actions == "raise":
                raise IllegalActionError(message) from None
            self._end(forfeit(state, seat, IllegalActionError(message)))
            return
        # No reward comes before the end, so the mover's cumulative reward is still 0.
        tracker.advance(seat, move)
        self._settle()

    def last(
        self, observe: bool = True
    ) -> tuple[Observation | None, float, bool, bool, dict[str, Any]]:
        """AECEnv.last, without its indirections (it runs once per step)."""
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent: str) -> Observation:
        tracker = self._tracker
        if tracker is None:
            raise InvalidStateError("reset() the environment before observe()")
        seat = self._seat_of[agent]
        if seat == self._to_act:
            mask = tracker.mask()
        else:
            mask = np.zeros(self._action_count, dtype=np.int8)
        return {"observation": tracker.vector(seat), "action_mask": mask}

    def render(self) -> str | None:
        """The board as text (``ansi``: returned; ``human``: printed)."""
        return render(self.game_state, self.render_mode)

    def close(self) -> None:
        """Nothing to release: the environment holds no resources."""

    def __str__(self) -> str:
        return f"{self.game_spec.game.name}_v0"


env = CardGameEnv
"""PettingZoo's name for making an environment. No wrappers are needed: the
environment checks its own input (an action before ``reset``, an unknown or illegal
action number) with errors that say what was wrong, and its illegal-action policy is
the arena's own."""
