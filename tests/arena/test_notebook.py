"""arena.run: a game of agents (bot names, Bots, functions) shown inline in a notebook."""

from __future__ import annotations

import html
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

import arena
from arena.notebook import AgentError
from bots.registry import UnknownBotError
from bots.simple import RandomBot
from engines.registry import get_game


def first_legal(observation: Mapping[str, Any], legal_actions: Sequence[Any]) -> str:
    return str(legal_actions[0])


def test_a_bot_name_and_a_function_play_a_game_that_replays() -> None:
    result = arena.run("koenigsgarten", ["greedy", first_legal], seed=3)
    assert result.players == ["greedy", "first_legal"]
    state = get_game("koenigsgarten").new_initial_state(seed=3)
    for seat, action in result.record.actions:
        assert state.current_seat == seat
        if seat == 1:
            assert action == str(state.legal_actions()[0])
        state.apply_action(state.game.parse_action(action))
    assert state.is_terminal()
    assert result.returns == list(state.returns())


def test_the_inline_replay_holds_every_step_and_the_final_board() -> None:
    result = arena.run("kings_corner", [RandomBot(seed=1), "random", "greedy"], seed=5)
    page = result._repr_html_()
    steps = result.steps()
    assert len(steps) == len(result.record.actions) + 1
    assert f'max="{len(steps) - 1}"' in page
    assert html.escape(steps[-1].text) in page
    last_seat, last_action = result.record.actions[-1]
    assert html.escape(f"{result.players[last_seat]} (seat {last_seat}): {last_action}") in page


def test_an_agent_that_is_nothing_playable_is_named() -> None:
    with pytest.raises(AgentError, match="agent 42 for seat 1 is neither"):
        arena.run("koenigsgarten", ["random", 42])
    with pytest.raises(UnknownBotError, match="greedyy"):
        arena.run("koenigsgarten", ["random", "greedyy"])


def test_import_arena_does_not_import_the_game_stack() -> None:
    code = (
        "import sys, arena; "
        "print(sorted(m for m in sys.modules if m.startswith(('arena.', 'bots', 'engines'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
