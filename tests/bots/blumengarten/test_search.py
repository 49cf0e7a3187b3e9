"""The Blumengarten solver: lines replay through the engine, known answers on hand-built
deals, and agreement with a brute-force search over the engine's own legal actions."""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.blumengarten.search import LOST, UNKNOWN, WON, SolveResult, solve
from engines.blumengarten import GAME, RESIGN, BlumengartenState, Move
from engines.cards import DECK
from engines.outcome import Termination
from engines.seeding import derive_seed

RANK_ORDER = "A23456789TJQK"


def rank(card: str) -> int:
    return RANK_ORDER.index(card[0]) + 1


def replay(state: BlumengartenState, result: SolveResult) -> BlumengartenState:
    """Play the solver's line on a copy through the checked path."""
    copy = GAME.state_from_deal(state.deal(), seats=1, options=state.options)
    for _, action in state.history:
        copy.apply_action(action)
    for action in result.line:
        copy.apply_action(action)
    return copy


def assert_consistent(state: BlumengartenState, result: SolveResult) -> None:
    final = replay(state, result)
    assert final.score == result.score
    if result.status == WON:
        outcome = final.outcome()
        assert outcome is not None and outcome.termination == Termination.WON
        assert len(result.line) <= state.moves_left
    else:
        assert result.score < 52


def low_cards_first() -> tuple[dict[str, Any], list[str]]:
    """Aces to fours in the bouquet; the rest dealt in ascending order round the columns
    from the exposed end down: won by playing every card to its foundation in order."""
    order = sorted((str(c) for c in DECK), key=lambda c: (rank(c), "SHDC".index(c[1])))
    columns: list[list[str]] = [[] for _ in range(6)]
    for index, card in enumerate(order[16:]):
        columns[index % 6].insert(0, card)
    return {"columns": columns, "bouquet": order[:16]}, order


def blocked(bouquet: Sequence[str]) -> dict[str, Any]:
    """Kings and two nines exposed; every queen, eight and ace buried below them."""
    exposed = ["KS", "KH", "KD", "KC", "9S", "9H"]
    buried = [str(c) for c in DECK if str(c) not in set(exposed) | set(bouquet)]
    return {
        "columns": [[*buried[i * 5 : i * 5 + 5], exposed[i]] for i in range(6)],
        "bouquet": list(bouquet),
    }


LOW = ["2S", "3S", "4S", "5S", "2H", "3H", "4H", "5H", "2D", "3D", "4D", "5D", "2C", "3C", "4C"]


def test_a_deal_that_plays_out_is_won() -> None:
    data, _ = low_cards_first()
    state = GAME.state_from_deal(data, seats=1)
    result = solve(state, time_limit=5)
    assert result.status == WON
    assert_consistent(state, result)


def test_a_deal_stuck_after_five_cards_is_proved_lost() -> None:
    """Only the spades ace to five can ever move (then nothing): lost, best score 5."""
    state = GAME.state_from_deal(blocked([*LOW, "AS"]), seats=1)
    result = solve(state, time_limit=5)
    assert result.status == LOST
    assert result.score == 5
    assert [str(a) for a in result.line] == ["AS>f", "2S>f", "3S>f", "4S>f", "5S>f"]


def test_a_deal_where_one_card_can_only_shuttle_is_proved_lost() -> None:
    """The 8C can go back and forth between the two nines and nothing else ever moves."""
    state = GAME.state_from_deal(blocked([*LOW, "8C"]), seats=1)
    assert {str(a) for a in state.legal_actions()} == {"8C>c5", "8C>c6", "resign"}
    result = solve(state, time_limit=5)
    assert result.status == LOST and result.score == 0


@pytest.mark.parametrize("seed", range(6))
def test_random_deal_lines_replay_through_the_engine(seed: int) -> None:
    state = GAME.new_initial_state(seed=seed)
    result = solve(state, time_limit=2)
    assert result.nodes > 0
    assert_consistent(state, result)


@pytest.mark.parametrize("options", [{"sequences": True}, {"garden_7x5": True}])
@pytest.mark.parametrize("seed", range(3))
def test_variant_lines_replay_through_the_engine(options: dict[str, bool], seed: int) -> None:
    state = GAME.new_initial_state(seed=seed, options=options)
    result = solve(state, time_limit=2)
    assert_consistent(state, result)


def test_the_variants_are_easier() -> None:
    """More columns or moving runs can only help: the same cards won classic are won
    with sequences as well (every classic move is still legal there)."""
    for seed in range(4):
        classic = solve(GAME.new_initial_state(seed=seed), time_limit=2)
        if classic.status != WON:
            continue
        with_runs = GAME.new_initial_state(seed=seed, options={"sequences": True})
        result = solve(with_runs, time_limit=2)
        assert result.status == WON
        assert_consistent(with_runs, result)


def test_a_node_budget_gives_unknown_never_lost() -> None:
    """A deal with no win whose proof takes far more positions than the budget."""
    state = GAME.new_initial_state(seed=derive_seed(0, 28))
    result = solve(state, time_limit=None, node_limit=2000)
    assert result.status == UNKNOWN
    assert result.nodes >= 2000
    assert_consistent(state, result)


def test_a_line_longer_than_the_move_cap_is_not_a_win() -> None:
    data, order = low_cards_first()
    state = GAME.state_from_deal(data, seats=1, options={"move_cap": len(order) - 1})
    result = solve(state, time_limit=5)
    # 52 foundation moves are needed: with 51 moves no win exists, but the search was
    # cut by the cap, so that is not proved either
    assert result.status == UNKNOWN
    assert_consistent(state, result)


def test_solving_mid_game_starts_from_the_position() -> None:
    data, order = low_cards_first()
    state = GAME.state_from_deal(data, seats=1)
    for card in order[:20]:
        state.apply_action(GAME.parse_action(f"{card}>f"))
    result = solve(state, time_limit=5)
    assert result.status == WON and len(result.line) == 32
    assert_consistent(state, result)


def test_a_finished_game_cannot_be_solved() -> None:
    state = GAME.state_from_deal(blocked([*LOW, "5C"]), seats=1)
    assert state.is_terminal()
    with pytest.raises(ValueError, match="over"):
        solve(state)


# -- agreement with brute force ------------------------------------------------------------


def brute_force(state: BlumengartenState, limit: int) -> bool | None:
    """Is a win reachable, by every legal card move of the engine (no pruning)? None
    when more than ``limit`` positions would have to be looked at."""

    def key(s: BlumengartenState) -> object:
        return tuple(sorted(s.columns)), s.bouquet

    seen = {key(state)}
    stack = [state]
    while stack:
        position = stack.pop()
        for action in position.legal_actions():
            if action == RESIGN:
                continue
            after = position.clone()
            after.apply_unchecked(action)
            if after.score == 52:
                return True
            if after.is_terminal() or key(after) in seen:
                continue
            if len(seen) >= limit:
                return None
            seen.add(key(after))
            stack.append(after)
    return False


@functools.cache
def winning_lines() -> list[tuple[int, tuple[Move, ...]]]:
    """Winning lines the solver finds within a node budget, for a few random deals."""
    lines = []
    for seed in range(8):
        result = solve(GAME.new_initial_state(seed=seed), time_limit=None, node_limit=60_000)
        if result.status == WON:
            lines.append((seed, result.line))
    assert len(lines) >= 2, "the solver should win some random deals"
    return lines


@pytest.mark.slow  # brute force
@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(pick=st.integers(0, 2**32), score=st.integers(26, 46), detour=st.integers(0, 30))
def test_the_solver_agrees_with_brute_force_late_in_the_game(
    pick: int, score: int, detour: int
) -> None:
    """Late positions (along a winning line, then a few random moves that may spoil it):
    whatever the exhaustive search over the engine's moves finds, the solver, which
    leaves out dominated moves and makes safe foundation moves at once, finds too."""
    seed, line = winning_lines()[pick % len(winning_lines())]
    state = GAME.new_initial_state(seed=seed)
    for action in line:
        if state.score >= score:
            break
        state.apply_action(action)
    rng = random.Random(pick)
    for _ in range(detour):
        moves = [a for a in state.legal_actions() if isinstance(a, Move)]
        if state.is_terminal() or not moves:
            return
        state.apply_action(rng.choice(moves))
    if state.is_terminal():
        return
    truth = brute_force(state, limit=3000)
    if truth is None:
        return
    result = solve(state, time_limit=None, node_limit=200_000)
    assert result.status == (WON if truth else LOST)
    assert_consistent(state, result)


@pytest.mark.parametrize(
    "extra",
    [["AS"], ["8C"], ["QD"], ["8C", "8D"], ["AS", "QD", "8H"], ["AH", "AS"], ["QS", "QH", "JD"]],
)
def test_the_solver_agrees_with_brute_force_on_nearly_blocked_deals(extra: list[str]) -> None:
    """The blocked deal with a few cards that can move swapped into the bouquet."""
    bouquet = [*extra, *LOW][:16]
    state = GAME.state_from_deal(blocked(bouquet), seats=1)
    truth = brute_force(state, limit=20_000)
    assert truth is not None
    result = solve(state, time_limit=None, node_limit=100_000)
    assert result.status == (WON if truth else LOST)
    assert_consistent(state, result)
