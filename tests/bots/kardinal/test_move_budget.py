"""Every built-in Kardinal & König bot moves within its budget on any valid deck
(issue 17, point 5): decks without circles, tablet mixes of only ``mixed`` tablets,
random decks, two and five seats, at the turn starts hardest on the take planner
(:mod:`tests.bots.kardinal.hard_positions`). The planner once searched every order
of takes there: 2–20 s a move for the greedy player.

The bounds are in CPU seconds (a loaded machine stretches wall time, not the
work a move does), generous, and grow with the bot's budget: a fixed allowance, plus
a share per search iteration or twice the search's time limit."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.base import GameInfo
from bots.registry import all_bot_kinds, get_bot_kind, parse_bot_spec
from engines.kardinal import (
    CARD_COUNTRY,
    COUNTRIES,
    GAME,
    NUM_CARDS,
    NUM_TABLETS,
    Deck,
    DeckCard,
    KardinalState,
    SymbolName,
    TabletMix,
)
from tests.bots.kardinal.hard_positions import hoarding_positions, no_circles_deck, options

ALLOWANCE = 3.0
"""Seconds any move may take, whatever the budget (a loaded machine, the planner)."""
PER_ITERATION = 0.1
"""Seconds a search iteration may add (about 5 ms unloaded on these decks)."""
SMALL_BUDGETS = ("ismcts:iterations=10", "ismcts:seconds=0.05,iterations=100000")


def bot_specs() -> list[str]:
    """Every built-in kind that plays Kardinal with its defaults, and the search bots
    with a small budget."""
    return [kind.name for kind in all_bot_kinds(GAME.name)] + list(SMALL_BUDGETS)


def bound(spec: str) -> float:
    """The seconds a move of ``spec`` may take: the allowance, plus its budget."""
    name, params = parse_bot_spec(spec)
    budget = get_bot_kind(name, GAME.name).validate_params(params)
    if "iterations" not in budget:
        return ALLOWANCE
    by_iterations = PER_ITERATION * float(budget["iterations"])
    seconds = float(budget.get("seconds", 0.0))
    return ALLOWANCE + (min(by_iterations, 2 * seconds) if seconds > 0 else by_iterations)


def slowest_moves(deck: Deck, position: KardinalState, specs: list[str]) -> dict[str, float]:
    """How long each bot of ``specs`` takes to move at ``position``, over its bound
    (1.0: exactly the bound). Measured in this process's CPU seconds, not the wall
    clock's: a loaded machine (load 8 on 2 cores) stretched a move's wall time to its
    bound while the move's work stayed the same, and the slowness this guards against
    (a planner searching every order of takes: 2–20 s a move) is CPU work."""
    me = position.current_seat
    shares = {}
    for spec in specs:
        name, params = parse_bot_spec(spec)
        bot = get_bot_kind(name, GAME.name).create(params)
        bot.new_game(GameInfo(GAME, options(deck), me, position.num_seats, seed=0))
        legal = position.legal_actions()
        started = time.process_time()
        action = bot.act(position.observation(me), legal, None)
        shares[spec] = (time.process_time() - started) / bound(spec)
        assert action in legal
    return shares


def assert_within_budget(deck: Deck, seats: int, seed: int, specs: list[str]) -> None:
    for position in hoarding_positions(deck, seats, seed, count=1):
        shares = slowest_moves(deck, position, specs)
        over = {spec: f"{share:.1f}× its bound" for spec, share in shares.items() if share > 1}
        assert not over, f"too slow at {position.render(position.current_seat)}: {over}"


def test_the_budget_grows_with_iterations_or_follows_the_time_limit() -> None:
    assert bound("greedy") == ALLOWANCE
    assert bound("ismcts") == ALLOWANCE + 200 * PER_ITERATION
    assert bound("ismcts:seconds=0.05,iterations=100000") == ALLOWANCE + 0.1
    assert {"greedy", "ismcts", "random", "first-legal"} <= set(bot_specs())


@pytest.mark.slow
@pytest.mark.parametrize("seats", [2, 5])
def test_every_bot_moves_in_time_on_the_deck_without_circles(seats: int) -> None:
    assert_within_budget(no_circles_deck(), seats, seed=1, specs=bot_specs())


@pytest.mark.slow
def test_every_bot_moves_in_time_with_only_mixed_tablets() -> None:
    deck = no_circles_deck(TabletMix(reclaim=0, three=0, mixed=8, minus2=0))
    assert_within_budget(deck, 2, seed=2, specs=bot_specs())


@st.composite
def adversarial_decks(draw: st.DrawFn) -> Deck:
    """Valid decks with mostly circle-less cards and many playable tablets."""
    circles = draw(
        st.lists(st.sampled_from((0, 0, 0, 1, 2)), min_size=NUM_CARDS, max_size=NUM_CARDS)
    )
    symbol_names: tuple[SymbolName, ...] = ("none", "ship", "carriage")
    symbols = draw(st.lists(st.sampled_from(symbol_names), min_size=NUM_CARDS, max_size=NUM_CARDS))
    mixed = draw(st.integers(1, NUM_TABLETS))
    reclaim = draw(st.integers(0, NUM_TABLETS - mixed))
    three = draw(st.integers(0, NUM_TABLETS - mixed - reclaim))
    minus2 = NUM_TABLETS - mixed - reclaim - three
    cards = tuple(
        DeckCard(
            country=COUNTRIES[CARD_COUNTRY[card]].name, circles=circles[card], symbol=symbols[card]
        )
        for card in range(NUM_CARDS)
    )
    tablets = TabletMix(reclaim=reclaim, three=three, mixed=mixed, minus2=minus2)
    return Deck(cards=cards, tablets=tablets)


@pytest.mark.slow  # plays every bot on random decks
@settings(max_examples=6)
@given(deck=adversarial_decks(), seats=st.sampled_from([2, 5]), seed=st.integers(0, 1000))
def test_every_bot_moves_in_time_on_random_adversarial_decks(
    deck: Deck, seats: int, seed: int
) -> None:
    assert_within_budget(deck, seats, seed, specs=bot_specs())
