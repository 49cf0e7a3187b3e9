"""The games as PettingZoo AEC environments: seats take turns, one action at a time.

Agents are ``seat_0`` … ``seat_{n-1}``; the agent to act is the engine's current seat,
so a Kings in the Corner or Kardinal turn of several actions is several steps of the
same agent. Every observation is a dict: ``observation`` (the seat's vector of
unsigned integers, :mod:`engines.envs.encoding`, a fresh array) and ``action_mask``
(int8 over the fixed action index, all 0 for a seat that is not to act; read-only and
shared, so it costs no copy and never changes under a learner that keeps it). Rewards
are the engine's returns, given once at the end; a finished game terminates every agent (nothing is
truncated: the engines end every game by their rules). Once the game is over, every
agent's info holds the ``outcome``. With ``text_observations=True``,
``infos[agent]["observation"]`` also holds the engine's JSON observation of the agent
to act — what a bot is sent in a tournament — and at the end every agent's final one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from engines.core import TERMINAL, Game, State
from engines.envs.encoding import Tracker
from engines.envs.illegal import IllegalActions, check_policy, forfeit
from engines.envs.rendering import RENDER_MODES, check_render_mode, render
from engines.envs.seeds import DealSeeds
from engines.envs.spec import EnvSpec, env_spec
from engines.errors import IllegalActionError, InvalidActionError, InvalidStateError
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
    ``text_observations=True`` puts the engine's JSON observation into ``infos`` (off by
    default: building it costs a sixth of a Königsgarten step, docs/benchmarks.md).

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
        text_observations: bool = False,
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
        layout = spec.encoder.layout
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0, layout.high, dtype=layout.dtype),
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
        self._first_removed: str | None = None
        """The first finished agent stepped (see :meth:`_was_dead_step`)."""
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
        self._first_removed = None
        self._tracker = self.game_spec.encoder.tracker(state, self.game_spec.actions)
        seat = state.current_seat
        self.agent_selection = self.agents[max(seat, 0)]
        if seat == TERMINAL:
            self._end()
        else:
            self._to_act = seat
            if self.text_observations:
                self._show(seat)

    def _show(self, seat: int) -> None:
        """Put the JSON observation into the info of ``seat``, the seat to act (and take
        it out of the info of the agent that acted before)."""
        state = self.game_state
        assert state is not None
        self.infos[self.agent_selection] = {}
        agent = self.agent_selection = self.possible_agents[seat]
        self.infos[agent] = {"observation": state.observation(seat)}

    def _end(self, outcome: Outcome | None = None) -> None:
        """Give every agent its return and terminate it: the game's outcome, or
        ``outcome`` (a forfeit)."""
        state = self.game_state
        assert state is not None
        if outcome is None:
            outcome = state.outcome()
            assert outcome is not None
        self.outcome = outcome
        self._to_act = TERMINAL
        for agent in self.agents:
            seat = self._seat_of[agent]
            # The only rewards of a game, so accumulating them is setting them.
            self.rewards[agent] = self._cumulative_rewards[agent] = outcome.returns[seat]
            self.terminations[agent] = True
            info: dict[str, Any] = {"outcome": outcome.to_dict()}
            if self.text_observations:
                info["observation"] = state.observation(seat)
            self.infos[agent] = info

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Play action number ``action`` for the agent to act (None for a finished agent).

        Raises:
            InvalidStateError: the environment was not reset yet, or every agent of the
                finished game has stepped already.
            InvalidActionError: ``action`` is no action number of this game, or not None
                for a finished agent.
            IllegalActionError: the action is not legal now and the policy is ``"raise"``
                (the game is unchanged).
        """
        mover = self._to_act
        if mover == TERMINAL:  # not reset yet, or the game is over: every agent is done
            self._was_dead_step(action)
            return
        # A plain int in range is the fast path (bools and floats are not action numbers).
        if type(action) is not int or not 0 <= action < self._action_count:
            action = self._number(action)
        tracker = self._tracker
        assert tracker is not None
        seat = tracker.play(mover, action, self._actions[action])
        # No reward comes before the end, so the mover's cumulative reward is still 0.
        if seat is None:
            self._illegal(mover, action)
        elif seat == TERMINAL:
            self._end()
        elif self.text_observations:
            self._to_act = seat
            self._show(seat)
        else:
            self._to_act = seat
            self.agent_selection = self.possible_agents[seat]

    def _number(self, action: Any) -> int:
        """``action`` as an action number (a NumPy integer, say).

        Raises:
            InvalidActionError: it is no action number of this game.
        """
        self.game_spec.actions.action(action)
        return int(action)

    def _illegal(self, seat: int, number: int) -> None:
        """Raise for illegal action ``number`` of ``seat``, or end the game by a forfeit."""
        state = self.game_state
        assert state is not None
        try:
            state.apply_action(self._actions[number])  # raises, naming the legal actions
        except IllegalActionError as error:
            message = f"action {number} for {self.agent_selection}: {error}"
            if self.illegal_actions == "raise":
                raise IllegalActionError(message) from None
            self._end(forfeit(state, seat, IllegalActionError(message)))
            return
        raise AssertionError(f"the tracker held legal action {number} illegal")

    def _was_dead_step(self, action: Any) -> None:
        """AECEnv._was_dead_step for the only way agents finish here, all at once:
        removes the agent to act and selects the next finished one (after the last,
        the first removed, as PettingZoo does), without PettingZoo's scans.

        Raises:
            InvalidStateError: no game (not reset yet, or every agent removed already).
            InvalidActionError: ``action`` is not None.
        """
        if self.game_state is None:
            raise InvalidStateError("reset() the environment before step()")
        if not self.agents:
            raise InvalidStateError("the game is over and every agent stepped: reset()")
        if action is not None:
            raise InvalidActionError(f"a finished agent's only action is None, not {action!r}")
        agent = self.agent_selection
        del self.terminations[agent], self.truncations[agent], self.infos[agent]
        del self.rewards[agent], self._cumulative_rewards[agent]
        agents = self.agents
        agents.remove(agent)
        if agents:
            if self._first_removed is None:
                self._first_removed = agent
            self.agent_selection = agents[0]
        elif self._first_removed is not None:
            self.agent_selection = self._first_removed
            self._first_removed = None
        rewards = self.rewards
        for other in agents:
            rewards[other] = 0.0

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:  # type: ignore[override]
        """AECEnv.agent_iter as a generator: the agent to act until every agent is done,
        at most ``max_iter`` times. (PettingZoo's iterator object costs a method call
        per step; the agents it yields are the same.)"""
        if max_iter < 2**63:
            for _ in range(max_iter):
                if not self.agents:
                    return
                yield self.agent_selection
            return
        # The default bound is never reached, and counting to it costs big-integer
        # arithmetic per step (it is past a machine word): loop without a count.
        while self.agents:
            yield self.agent_selection

    def last(
        self, observe: bool = True
    ) -> tuple[Observation | None, float, bool, bool, dict[str, Any]]:
        """AECEnv.last, without its indirections (it runs once per step).

        Raises:
            InvalidStateError: the environment was not reset yet.
        """
        tracker = self._tracker
        if tracker is None:
            raise InvalidStateError("reset() the environment before last()")
        agent = self.agent_selection
        seat = self._to_act
        if seat != TERMINAL:
            # While the game runs, the agent to act is seat's, has no reward yet (the
            # dicts hold 0.0 until the end) and is neither terminated nor truncated.
            return (
                tracker.observe(seat) if observe else None,
                0.0,
                False,
                False,
                self.infos[agent],
            )
        return (
            tracker.observe(self._seat_of[agent]) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent: str) -> Observation:
        """``agent``'s vector (a fresh array it may keep and change) and its action mask
        (read-only: copy it to change it; it never changes under the caller).

        Raises:
            InvalidStateError: the environment was not reset yet.
        """
        tracker = self._tracker
        if tracker is None:
            raise InvalidStateError("reset() the environment before observe()")
        return tracker.observe(self._seat_of[agent])

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
