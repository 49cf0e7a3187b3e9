"""The replay viewer's data: each seat sees what it saw, never more."""

from __future__ import annotations

import json

import pytest

from arena.errors import RecordError
from arena.play.records import GameRecord
from arena.web.replay import replay_views
from engines.cards import parse_card
from engines.core import play_random
from engines.registry import get_game
from tests.arena.web.conftest import Web, play_tournament


def kings_corner_record(seed: int) -> GameRecord:
    import random

    game = get_game("kings_corner")
    state = play_random(game.new_initial_state(seed=seed, seats=3), random.Random(seed))
    outcome = state.outcome()
    assert outcome is not None
    return GameRecord(
        game=game.name,
        options=game.options_to_dict(state.options),
        seats=3,
        seed=seed,
        deal=dict(state.deal()),
        actions=[(seat, str(action)) for seat, action in state.history],
        outcome=outcome.to_dict(),
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_seat_never_sees_another_hand(seed: int) -> None:
    record = kings_corner_record(seed)
    spectator = replay_views(record, None)
    for seat in range(3):
        steps = replay_views(record, seat)
        assert len(steps) == len(spectator) == len(record.actions) + 1
        for step, full in zip(steps, spectator, strict=True):
            assert step.observation is not None and step.observation["seat"] == seat
            assert step.action == full.action and step.to_move == full.to_move
            # The legal actions show the mover's hand: only on the seat's own turns.
            assert (step.legal is not None) == (step.to_move == seat)
        first = steps[0]
        for other in {0, 1, 2} - {seat}:
            hidden = record.deal["hands"][other]
            shown = json.dumps(first.observation) + first.text + json.dumps(first.legal)
            assert not any(code in shown for code in hidden)
            assert not any(parse_card(code).pretty() in first.text for code in hidden)
        own = record.deal["hands"][seat]
        assert all(parse_card(code).pretty() in first.text for code in own)
    everything = spectator[0].text
    for hand in record.deal["hands"]:
        assert all(parse_card(code).pretty() in everything for code in hand)


def test_steps_follow_the_record_to_its_end() -> None:
    record = kings_corner_record(4)
    steps = replay_views(record, 1)
    assert steps[0].index == -1 and steps[0].action is None
    assert [(s.seat, s.action) for s in steps[1:]] == [tuple(a) for a in record.actions]
    assert steps[-1].to_move is None and steps[-1].legal is None


def test_a_seat_the_game_lacks_or_a_broken_record_is_refused() -> None:
    record = kings_corner_record(5)
    with pytest.raises(RecordError, match="seat 3 is not a seat"):
        replay_views(record, 3)
    broken = record.model_copy(update={"actions": [(1, "draw")]})
    with pytest.raises(RecordError, match="out of turn"):
        replay_views(broken, 0)


def test_the_replay_endpoint_serves_one_seat_at_a_time(web: Web) -> None:
    play_tournament(web.engine, game="kings_corner", bots=["random", "greedy"], games=2, seats=2)
    game = web.client.get("/api/tournaments/1/games").json()["items"][0]
    record = web.client.get(f"/api/records/{game['id']}").json()["record"]
    seat1 = web.client.get(f"/api/records/{game['id']}/replay?seat=1")
    assert seat1.status_code == 200
    data = seat1.json()
    assert data["seat"] == 1 and data["players"] == game["players"]
    assert len(data["steps"]) == len(record["actions"]) + 1
    hidden = record["deal"]["hands"][0]
    assert not any(code in json.dumps(data["steps"][0]) for code in hidden)
    spectator = web.client.get(f"/api/records/{game['id']}/replay").json()
    assert spectator["seat"] is None and spectator["steps"][0]["observation"] is None
    too_far = web.client.get(f"/api/records/{game['id']}/replay?seat=2")
    assert too_far.status_code == 422 and "seat 2 is not a seat" in too_far.json()["detail"]
