"""A tournament worker's fast path gives what the general path gives: the same
results and records, byte for byte, for every game, for bots that read observations
or not, timed or untimed, and for a bot answering with an illegal action."""

from __future__ import annotations

import json
import pickle
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from arena.play import runner
from arena.play.records import RecordWriter, new_record
from arena.play.results import PlannedGame, PlayedGame, played_values
from arena.play.runner import TimeControl, play_game
from arena.players.loader import BotSource, BotSpec
from arena.tournament import execution
from arena.tournament.execution import ChunkResult, TournamentContext, play_chunk
from bots.base import Bot
from bots.registry import make_bot
from engines.core import Action
from engines.outcome import ForfeitReason, Outcome, Termination
from engines.registry import get_game

GAMES = ("koenigsgarten", "kardinal", "kings_corner", "blumengarten")
KINDS = ("random", "first-legal", "greedy", "illegal")


class IllegalSometimes(Bot):
    """Answers with a text that is no action of any game, one move in five."""

    name = "illegal"
    reads_observation = False

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        return "NOT-AN-ACTION" if self.rng.random() < 0.2 else legal_actions[0]


def a_bot(spec: BotSpec) -> Bot:
    bot = (
        IllegalSometimes()
        if spec.source.entry == "illegal"
        else make_bot(spec.source.entry, spec.game)
    )
    bot.name = spec.label
    return bot


def tournament(game: str) -> tuple[TournamentContext, list[PlannedGame]]:
    """Every pairing of KINDS, six deals each; bot 1 on a clock with an increment and
    bot 3 with a per-move limit (generous: no game times out), the others untimed."""
    seats = get_game(game).min_seats
    bots = {
        number: BotSpec(number, f"{kind}-{number}", game, BotSource("builtin", kind))
        for number, kind in enumerate(KINDS, start=1)
    }
    controls = {1: TimeControl(per_game=1000.0, increment=1.0), 3: TimeControl(per_move=100.0)}
    context = TournamentContext(1, game, {}, seats, bots, time_controls=controls)
    pairings = [(a, b, a, b)[:seats] for a in bots for b in bots]
    planned = [
        PlannedGame(index, 7000 + index, pairing)
        for index, pairing in enumerate(pairing for pairing in pairings for _ in range(6))
    ]
    return context, planned


def played_the_general_way(context: TournamentContext, planned: PlannedGame) -> PlayedGame:
    """What the worker gave before its fast path: fresh bots, ``play_game``, the record
    as a model dumped to JSON, ``PlayedGame.from_record``."""
    state = context.initial_state(planned)
    specs = [context.bots[bot_id] for bot_id in planned.seats]
    record = play_game(
        state,
        [a_bot(spec) for spec in specs],
        players=[spec.label for spec in specs],
        time_control=[context.control_of(bot_id) for bot_id in planned.seats],
    )
    return PlayedGame.from_record(planned, record, worker=execution.worker_name())


def without_duration(game: PlayedGame) -> PlayedGame:
    record = re.sub(r'"duration":[0-9.e-]+\}$', '"duration":0}', game.record)
    assert record != game.record, game.record
    return PlayedGame.from_values((*played_values(game)[:9], record, 0.0, game.worker))


@pytest.mark.parametrize("game", GAMES)
def test_a_chunk_plays_every_game_as_the_general_path_does(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(execution, "instantiate", lambda spec, **_: a_bot(spec))
    context, planned = tournament(game)
    result = play_chunk(context, planned)
    fast = result.games  # rebuilt from the rows a chunk is played into
    general = [played_the_general_way(context, one) for one in planned]
    assert [without_duration(one) for one in fast] == [without_duration(one) for one in general]
    # The kinds it counts (standings, live statistics, health) are the games' own, and
    # repeat: each is converted once.
    assert result.kinds == ChunkResult(general, 0.0).kinds
    assert len(result.kinds[0]) < len(planned)
    # Equal values of the same types: the store and the standings read them as before.
    for one, other in zip(fast, general, strict=True):
        assert [type(value) for value in played_values(one)] == [
            type(value) for value in played_values(other)
        ]
    illegal = [one for one in fast if one.reason is ForfeitReason.ILLEGAL_ACTION]
    assert illegal and all(one.status == "forfeit" for one in illegal)
    assert "'NOT-AN-ACTION', not legal" in illegal[0].record
    assert any(one.status == "ok" for one in fast)


def test_a_chunk_result_pickles_to_equal_games() -> None:
    context, planned = tournament("koenigsgarten")
    result = play_chunk(context, [one for one in planned if 4 not in one.seats])
    again = pickle.loads(pickle.dumps(result))
    assert isinstance(again, ChunkResult) and again.seconds == result.seconds
    assert again.games == result.games
    assert [vars(one) for one in again.games] == [vars(one) for one in result.games]


def finished_states(game: str, count: int) -> list[Any]:
    rules = get_game(game)
    rng = random.Random(game)
    states = []
    for seed in range(count):
        state = rules.new_initial_state(seed=seed, seats=rules.min_seats)
        deal = dict(state.deal())
        for _ in range(rng.randrange(200)):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_unchecked(legal[rng.randrange(len(legal))])
        states.append((state, deal))
    return states


OUTCOMES = [
    None,  # the game's own, or a forfeit when it is not over
    Outcome.forfeit(0, 1, ForfeitReason.CRASH, details={"message": 'act raised "ä\\n\x00 ☃ 𝄞"'}),
    Outcome(
        returns=(0.5,),
        ranking=(1,),
        termination=Termination.FORFEIT,
        offender=0,
        reason=ForfeitReason.TIMEOUT,
        details={"message": "took 1e-05 s", "at": [1, 2.5]},
    ),
]
DURATIONS = [0.0, 1e-7, 1e-6, 5e-5, 0.000123, 0.1 + 0.2, 1.5, 12345.678901, 1e17]


@pytest.mark.parametrize("game", GAMES)
def test_the_record_writer_writes_what_the_record_model_dumps(game: str) -> None:
    rules = get_game(game)
    options = rules.options_to_dict(rules.parse_options(None))
    writer = RecordWriter(rules, options)
    for number, (state, deal) in enumerate(finished_states(game, 12)):
        outcome = OUTCOMES[number % len(OUTCOMES)]
        if outcome is None or outcome.num_seats != state.num_seats:
            outcome = state.outcome() or rules.forfeit_outcome(state, 0, ForfeitReason.CRASH)
        players = tuple(f"bot {seat} «{number % 3}»" for seat in range(state.num_seats))
        duration = DURATIONS[number % len(DURATIONS)]
        text = writer.encode(state, players=players, deal=deal, outcome=outcome, duration=duration)
        model = new_record(
            state, players=players, deal=deal, outcome=outcome, duration=duration, options=options
        )
        assert text == model.model_dump_json()
        assert json.loads(text)["actions"] == [
            [seat, str(action)] for seat, action in state.history
        ]


def test_a_seat_without_a_limit_reads_no_clock_and_one_with_a_limit_still_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reads = 0
    clock = runner.time.perf_counter

    def counted() -> float:
        nonlocal reads
        reads += 1
        return clock()

    monkeypatch.setattr(runner.time, "perf_counter", counted)
    rules = get_game("koenigsgarten")
    state = rules.new_initial_state(seed=3)
    bots = [make_bot("random", "koenigsgarten"), make_bot("random", "koenigsgarten")]
    play_game(state, bots)
    assert reads == 2  # the game's start and end, none per move
    reads = 0
    state = rules.new_initial_state(seed=3)
    limited = [TimeControl(per_move=60.0), TimeControl()]
    play_game(state, bots, time_control=limited)
    moves_of_seat_0 = sum(1 for seat, _ in state.history if seat == 0)
    assert reads == 2 + 2 * moves_of_seat_0


def test_a_record_that_fails_to_encode_is_an_error_and_leaves_no_empty_kind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every record of one pairing fails: its games are errors, and their kinds of
    # outcome, met only there, are no kinds of the chunk.
    context, planned = tournament("koenigsgarten")
    planned = [one for one in planned if 4 not in one.seats]
    broken = planned[0].seats
    labels = tuple(context.bots[bot].label for bot in broken)
    encode = RecordWriter.encode

    def failing(self: RecordWriter, state: Any, **parts: Any) -> str:
        if parts["players"] == labels:
            raise RuntimeError("an engine's bad outcome")
        return encode(self, state, **parts)

    monkeypatch.setattr(RecordWriter, "encode", failing)
    result = play_chunk(context, planned)
    errors = [game for game in result.games if game.status == "error"]
    assert errors and all(game.seats == broken for game in errors)
    assert "an engine's bad outcome" in errors[0].record
    kinds, of_game = result.kinds
    assert sorted(set(of_game)) == list(range(len(kinds)))  # every kind has a game
    assert all(kind[0] != broken or kind[-1] == "error" for kind in kinds)
