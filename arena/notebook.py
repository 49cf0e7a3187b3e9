"""Play a game in a notebook: ``arena.run(game, [agent, agent])``, as Kaggle's
``env.run([...])``, and see the replay inline.

An agent is a built-in bot written as on the command line (``"greedy"``,
``"mcts:iterations=50"``), a :class:`bots.base.Bot`, or any callable
``agent(observation, legal_actions) -> action`` (an action of the list, or its text).
The result shows the game step by step in a notebook (``_repr_html_``) from the same
views as the web replay (:func:`arena.web.replay.replay_views`, spectator's view).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.play.records import GameRecord
from arena.play.runner import play_game
from arena.web.replay import Step, replay_views
from bots.base import Bot
from bots.registry import make_bot, parse_bot_spec
from engines.core import Action
from engines.registry import get_game

Agent = str | Bot | Callable[[Mapping[str, Any], Sequence[Action]], Any]


class AgentError(ArenaError):
    """An agent given to :func:`run` is neither a bot name, a Bot nor a callable."""


class CallableBot(Bot):
    """A function ``agent(observation, legal_actions)`` as a bot; it may return the
    action or its text. A return that is neither is played as it is, so the game ends
    as the arena ends an illegal action (a forfeit)."""

    def __init__(self, agent: Callable[[Mapping[str, Any], Sequence[Action]], Any], name: str):
        super().__init__()
        self.agent = agent
        self.name = name

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        choice = self.agent(observation, legal_actions)
        by_text = {str(action): action for action in legal_actions}
        found: Action = by_text.get(str(choice), choice)
        return found


@dataclass(frozen=True)
class RunResult:
    """A played game: its record (the arena's own, ``record.model_dump_json()`` saves
    it), the players' names and returns; shown inline in a notebook."""

    record: GameRecord

    @property
    def players(self) -> list[str]:
        return list(self.record.players)

    @property
    def returns(self) -> list[float]:
        return list(self.record.outcome_value.returns)

    def steps(self) -> list[Step]:
        """The spectator's view after the deal and after every action."""
        return replay_views(self.record, None)

    def __repr__(self) -> str:
        pairs = ", ".join(f"{p}: {r:g}" for p, r in zip(self.players, self.returns, strict=True))
        return f"<{self.record.game} game, {len(self.record.actions)} actions; {pairs}>"

    def _repr_html_(self) -> str:
        frames = [{"title": _title(step, self.players), "text": step.text} for step in self.steps()]
        data = html.escape(json.dumps(frames), quote=True)
        summary = html.escape(repr(self))
        last = len(frames) - 1
        return (
            f'<div class="arena-replay" data-frames="{data}">'
            f"<div>{summary}</div>"
            f'<input type="range" min="0" max="{last}" value="{last}" style="width:100%" '
            'oninput="var f=JSON.parse(this.parentNode.dataset.frames)[this.value];'
            "this.nextSibling.textContent=f.title;"
            'this.nextSibling.nextSibling.textContent=f.text">'
            f"<div>{html.escape(frames[last]['title'])}</div>"
            f"<pre>{html.escape(frames[last]['text'])}</pre></div>"
        )


def _title(step: Step, players: Sequence[str]) -> str:
    if step.seat is None:
        return "the deal"
    return f"{step.index + 1}. {players[step.seat]} (seat {step.seat}): {step.action}"


def _bot(agent: Agent, game: str, seat: int) -> Bot:
    if isinstance(agent, Bot):
        return agent
    if isinstance(agent, str):
        kind, params = parse_bot_spec(agent)
        bot = make_bot(kind, game, params)
        bot.name = agent
        return bot
    if callable(agent):
        return CallableBot(agent, getattr(agent, "__name__", f"agent {seat}"))
    raise AgentError(
        f"agent {agent!r} for seat {seat} is neither a bot name (e.g. 'greedy'), a Bot "
        "nor a function agent(observation, legal_actions) -> action"
    )


def run(game: str, agents: Sequence[Agent], *, seed: int = 0, options: Any = None) -> RunResult:
    """Play one game of ``game`` with ``agents[seat]`` in each seat (as many seats as
    agents), dealt from ``seed``; returns the result.

    Raises:
        UnknownGameError: no such game. UnknownBotError: an unknown bot name.
        SeatCountError, OptionError: the game does not take that many seats, or a bad
            option. AgentError: an agent that is neither a name, a Bot nor a callable.
    """
    resolved = get_game(game)
    bots = [_bot(agent, resolved.name, seat) for seat, agent in enumerate(agents)]
    state = resolved.new_initial_state(seed=seed, seats=len(bots), options=options)
    return RunResult(play_game(state, bots))
