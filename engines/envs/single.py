"""A game as a Gymnasium environment for one learner; fixed players take the other seats.

Blumengarten (one seat) needs no other players; in any other game the learner plays
one seat against :class:`FixedPlayer` s (``bots.envs`` makes them from the arena's
bots, which the engines may not import). The observation is the learner's vector
(unsigned integers, :attr:`Layout.dtype`); the legal actions are ``info["action_mask"]``
and ``env.action_masks()`` (the name maskable learners look for). The reward is the
learner's return, given when the game ends; nothing is truncated, the engines end every
game by their rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces

from engines.core import JSON, TERMINAL, Action, Game, State
from engines.envs.actions import Mask
from engines.envs.encoding import Tracker, Vector
from engines.envs.illegal import IllegalActions, check_policy, forfeit
from engines.envs.rendering import RENDER_MODES, check_render_mode, render
from engines.envs.seeds import DealSeeds
from engines.envs.spec import env_spec
from engines.errors import IllegalActionError, InvalidStateError, OptionError, SeatCountError
from engines.outcome import Outcome


class FixedPlayer(Protocol):
    """A player of the seats the learner does not play (a bot, a scripted policy)."""

    def start(self, *, game: Game, options: Any, seat: int, seats: int, seed: int) -> None:
        """A game starts; ``seed`` is its deal seed."""

    def act(self, observation: JSON, legal_actions: Sequence[Action]) -> Action:
        """One of ``legal_actions`` for the seat's observation."""

    def finish(self, outcome: Outcome) -> None:
        """The game is over."""


class SingleAgentEnv(gymnasium.Env[Vector, np.int64]):
    """``game`` for one learner at ``seat`` (None: seat ``deal seed % seats``, so the
    learner plays every seat in turn over seeded episodes) against ``players`` in the
    other seats, in seat order.

    ``reset(seed=s)`` deals what the engine deals for ``s``; later resets without a
    seed deal ``derive_seed(s, 1)``, ``derive_seed(s, 2)`` … ``info`` holds the
    ``action_mask``, the learner's ``seat``, the deal ``seed`` and the engine's JSON
    ``observation`` (what a bot is sent); at the end also the ``outcome``.

    Raises (from the constructor):
        UnknownGameError, SeatCountError, OptionError: bad game, seats or options, a
            player count that does not fill the other seats, or a bad seat.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012  (Gymnasium declares it per instance)
        "render_modes": list(RENDER_MODES),
        "render_fps": 1,
    }

    def __init__(
        self,
        game: str | Game,
        *,
        players: Sequence[FixedPlayer] = (),
        seats: int | None = None,
        options: Any = None,
        seat: int | None = None,
        render_mode: str | None = None,
        illegal_actions: IllegalActions = "forfeit",
    ):
        self.illegal_actions = check_policy(illegal_actions)
        self.render_mode = check_render_mode(render_mode)
        if seats is None and players:
            seats = len(players) + 1
        self.game_spec = env_spec(game, seats, options)
        spec = self.game_spec
        if len(players) != spec.seats - 1:
            raise SeatCountError(
                f"{spec.game.name} with {spec.seats} seats needs {spec.seats - 1} fixed "
                f"players besides the learner, got {len(players)}"
            )
        if seat is not None and not 0 <= seat < spec.seats:
            raise OptionError(f"the learner's seat {seat!r} is not in 0..{spec.seats - 1}")
        self.players = tuple(players)
        self.fixed_seat = seat
        layout = spec.encoder.layout
        self.observation_space = spaces.Box(0, layout.high, dtype=layout.dtype)
        self.action_space = spaces.Discrete(len(spec.actions))
        self._seeds = DealSeeds()
        self.seat = 0
        self.game_state: State | None = None
        self.outcome: Outcome | None = None
        """How the current game ended (also by a forfeit), or None while it runs."""
        self._tracker: Tracker | None = None
        self._seed = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Vector, dict[str, Any]]:
        super().reset(seed=seed)
        self._seed = self._seeds.next(seed)
        spec = self.game_spec
        state = spec.game.new_initial_state(seed=self._seed, seats=spec.seats, options=spec.options)
        self.game_state = state
        self.outcome = None
        self.seat = self._seed % spec.seats if self.fixed_seat is None else self.fixed_seat
        others = [seat for seat in range(spec.seats) if seat != self.seat]
        self._player_at = dict(zip(others, self.players, strict=True))
        for seat, player in self._player_at.items():
            player.start(
                game=spec.game, options=spec.options, seat=seat, seats=spec.seats, seed=self._seed
            )
        self._tracker = spec.encoder.tracker(state, spec.actions)
        self._play_others()
        return self._tracker.vector(self.seat), self._info()

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[Vector, float, bool, bool, dict[str, Any]]:
        """Play action number ``action`` for the learner, then the others until the
        learner is to act again or the game is over.

        Raises:
            InvalidStateError: no game is running (reset first, or again after the end).
            InvalidActionError: ``action`` is no action number of this game.
            IllegalActionError: the action is not legal now and the policy is ``"raise"``
                (the game is unchanged), or a fixed player chose an illegal action.
        """
        state, tracker = self.game_state, self._tracker
        if state is None or tracker is None or self.outcome is not None:
            raise InvalidStateError("no game is running: call reset() first")
        move = self.game_spec.actions.action(action)
        try:
            state.apply_action(move)
        except IllegalActionError as error:
            if self.illegal_actions == "raise":
                raise
            self._finish(forfeit(state, self.seat, error))
        else:
            tracker.advance(self.seat, move)
            self._play_others()
        reward = 0.0 if self.outcome is None else self.outcome.returns[self.seat]
        return tracker.vector(self.seat), reward, self.outcome is not None, False, self._info()

    def _play_others(self) -> None:
        state, tracker = self.game_state, self._tracker
        assert state is not None and tracker is not None
        while state.current_seat not in (TERMINAL, self.seat):
            seat = state.current_seat
            player = self._player_at[seat]
            action = player.act(state.observation(seat), state.legal_actions())
            try:
                state.apply_action(action)
            except IllegalActionError as exc:
                raise IllegalActionError(f"the fixed player at seat {seat}: {exc}") from None
            tracker.advance(seat, action)
        outcome = state.outcome()
        if outcome is not None:
            self._finish(outcome)

    def _finish(self, outcome: Outcome) -> None:
        self.outcome = outcome
        for player in self._player_at.values():
            player.finish(outcome)

    def _info(self) -> dict[str, Any]:
        state = self.game_state
        assert state is not None
        info: dict[str, Any] = {
            "action_mask": self.action_masks(),
            "seat": self.seat,
            "seed": self._seed,
            "observation": state.observation(self.seat),
        }
        if self.outcome is not None:
            info["outcome"] = self.outcome.to_dict()
        return info

    def action_masks(self) -> Mask:
        """1 for every legal action of the learner now (all 0 once the game is over): a
        fresh array, as Gymnasium's checker wants every info to be."""
        state = self.game_state
        assert state is not None, "call reset() first"
        if state.current_seat != self.seat or self.outcome is not None or self._tracker is None:
            return np.zeros(len(self.game_spec.actions), dtype=np.int8)
        return self._tracker.mask().copy()

    def render(self) -> str | None:
        """The board as the learner sees it (``ansi``: returned; ``human``: printed)."""
        return render(self.game_state, self.render_mode, self.seat)
