"""The host side of the bot protocol, against a scripted bot (like python-chess's
mock engine): the messages it sends, how it reads answers, and every fault."""

from __future__ import annotations

import json
import os
import re
import select
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest

from arena.play.runner import TimeControl
from arena.players import subprocess_bot
from arena.players.sandbox import DEFAULT_LIMITS
from arena.players.subprocess_bot import (
    BotErrorReport,
    BotVersionMismatch,
    SubprocessBot,
    _ActionTexts,
    _Channel,
    _encode,
)
from bots.base import (
    BotCrash,
    BotFault,
    BotIllegalAction,
    BotMalformedOutput,
    BotProtocolError,
    BotTimeout,
    GameInfo,
)
from engines.core import State
from engines.registry import get_game
from tests.arena.hostile import make_bot, raw_source, scripted_source

HELLO = {"type": "hello", "protocol": 1, "name": "mock", "games": ["koenigsgarten", "kardinal"]}
READY = {"type": "ready"}


def start(game: str = "koenigsgarten", seed: int = 5, seats: int = 2) -> tuple[State, GameInfo]:
    engine = get_game(game)
    state = engine.new_initial_state(seed=seed, seats=seats)
    options = engine.options_to_dict(state.options)
    return state, GameInfo(engine, options, state.current_seat, seats, seed)


def opening(info: GameInfo) -> list[tuple[dict[str, Any], list[Any]]]:
    return [
        ({"type": "hello", "protocol": 1}, [HELLO]),
        (
            {
                "type": "new_game",
                "game": info.game.name,
                "options": dict(info.options),
                "seat": info.seat,
                "seats": info.num_seats,
            },
            [READY],
        ),
    ]


def received(bot: SubprocessBot) -> list[dict[str, Any]]:
    """The messages the scripted bot read, from its stderr."""
    lines = bot.last_stderr.decode().splitlines()
    assert not any(line.startswith("MISMATCH") for line in lines), lines
    return [json.loads(line[4:]) for line in lines if line.startswith("GOT {")]


def test_a_game_speaks_the_documented_messages_and_maps_the_answer() -> None:
    state, info = start()
    legal = state.legal_actions()
    observation = json.loads(json.dumps(state.observation(info.seat)))
    texts = [str(a) for a in legal]
    act = {"type": "act", "observation": observation, "legal_actions": texts}
    steps = [*opening(info), (act, [{"type": "action", "action": texts[3]}]), ({}, []), ({}, [])]
    bot = make_bot(scripted_source(steps), time_control=TimeControl(per_move=2.0))
    bot.new_game(info)
    assert bot.handshake is not None and bot.handshake.name == "mock"
    action = bot.act(state.observation(info.seat), legal, 7.5)
    assert action is legal[3]
    state.apply_action(action)
    outcome = state.game.forfeit_outcome(state, 1, "timeout")
    bot.game_over(outcome)
    messages = received(bot)
    assert [m["type"] for m in messages] == ["hello", "new_game", "act", "game_over", "quit"]
    seed = messages[1]["seed"]  # the bot's own (tests/arena/hostile/test_hidden_deals.py)
    assert isinstance(seed, int) and 0 <= seed < 2**63 and seed != info.seed
    assert messages[2]["time_left"] == 7.5 and messages[2]["move_time"] == 2.0
    assert messages[3]["outcome"] == json.loads(json.dumps(outcome.to_dict()))
    assert bot.last_exit == 0  # it left on its own after quit
    assert bot.process is None


def test_every_act_carries_the_whole_observation_of_the_seat() -> None:
    state, info = start("kardinal", seats=3)
    legal = state.legal_actions()
    first = {"type": "action", "action": str(legal[0])}
    steps = [*opening(info), ({"type": "act"}, [first])]
    bot = make_bot(scripted_source(steps), game="kardinal")
    bot.new_game(info)
    # Kardinal's actions are dataclasses: the answer's text maps onto the engine's object.
    assert bot.act(state.observation(info.seat), legal, None) is legal[0]
    bot.close()
    message = received(bot)[-1]
    assert message["observation"] == json.loads(json.dumps(state.observation(info.seat)))
    assert message["legal_actions"] == [str(a) for a in legal]


@pytest.mark.parametrize(
    ("hello", "fault", "clue"),
    [
        ({**HELLO, "protocol": 2}, BotVersionMismatch, "protocol version 2"),
        ({**HELLO, "games": ["kardinal"]}, BotProtocolError, "does not play koenigsgarten"),
        ({**HELLO, "name": ""}, BotProtocolError, "'name'"),
        ({**HELLO, "games": "koenigsgarten"}, BotProtocolError, "'games'"),
        ({**HELLO, "zygote": "yes"}, BotProtocolError, "'zygote' must be true or false"),
        ({"type": "ready"}, BotProtocolError, "expected 'hello'"),
        ("hello there", BotMalformedOutput, "not JSON"),
    ],
)
def test_a_bad_handshake_is_a_fault_and_stops_the_bot(
    hello: Any, fault: type[BotFault], clue: str
) -> None:
    _, info = start()
    bot = make_bot(scripted_source([({"type": "hello"}, [hello])]))
    with pytest.raises(fault, match=clue) as raised:
        bot.new_game(info)
    assert "while starting" in str(raised.value)
    assert bot.process is None and bot.last_process is not None


def test_a_bot_playing_any_game_says_so_with_a_star() -> None:
    _, info = start()
    steps = opening(info)
    steps[0] = (steps[0][0], [{**HELLO, "games": ["*"]}])
    bot = make_bot(scripted_source(steps))
    bot.new_game(info)
    assert bot.handshake is not None and bot.handshake.plays("koenigsgarten")
    bot.close()


@pytest.mark.parametrize(
    ("replies", "fault", "clue"),
    [
        ([[1, 2]], BotProtocolError, "not a JSON object"),
        ([{"type": "ready"}], BotProtocolError, "expected 'action'"),
        ([{"type": "action", "action": 3}], BotProtocolError, "must be a string"),
        ([{"type": "action", "action": "ZZ"}], BotIllegalAction, "'ZZ' is not legal"),
        ([{"type": "action", "action": "ad"}], BotIllegalAction, "'ad'"),  # not canonical
        ([{"type": "error", "message": "lost my marbles"}], BotErrorReport, "lost my marbles"),
        (['{"type": "action", "action": '], BotMalformedOutput, "not JSON"),
        (["x" * 300], BotMalformedOutput, "longer than 200 bytes"),
    ],
)
def test_a_bad_answer_is_the_right_fault(
    replies: list[Any], fault: type[BotFault], clue: str
) -> None:
    state, info = start()
    bot = make_bot(scripted_source([*opening(info), ({"type": "act"}, replies)]), line_bytes=200)
    bot.new_game(info)
    with pytest.raises(fault, match=clue):
        bot.act(state.observation(0), state.legal_actions(), None)
    assert bot.process is None  # a fault kills the bot at once


def test_an_answer_nobody_asked_for_is_a_protocol_violation() -> None:
    state, info = start()
    answer = {"type": "action", "action": str(state.legal_actions()[0])}
    steps = [*opening(info), ({"type": "act"}, [answer, answer, 0.2])]
    bot = make_bot(scripted_source(steps))
    bot.new_game(info)
    state.apply_action(bot.act(state.observation(0), state.legal_actions(), None))
    state.apply_action(state.legal_actions()[0])
    time.sleep(0.3)  # the second line has arrived by now
    with pytest.raises(BotProtocolError):
        bot.act(state.observation(0), state.legal_actions(), None)


def test_the_move_deadline_is_the_tournaments_per_move_limit() -> None:
    state, info = start()
    steps = [*opening(info), ({"type": "act"}, [])]  # and then never answers
    bot = make_bot(scripted_source(steps), time_control=TimeControl(per_move=0.3), move_seconds=5)
    bot.new_game(info)
    started = time.monotonic()
    with pytest.raises(BotTimeout, match="in time"):
        bot.act(state.observation(0), state.legal_actions(), None)
    assert 0.3 <= time.monotonic() - started < 1.5


def test_the_deadline_is_the_time_left_when_that_is_shorter() -> None:
    state, info = start()
    bot = make_bot(scripted_source([*opening(info), ({"type": "act"}, [])]), move_seconds=5)
    bot.new_game(info)
    started = time.monotonic()
    with pytest.raises(BotTimeout):
        bot.act(state.observation(0), state.legal_actions(), 0.3)
    assert 0.3 <= time.monotonic() - started < 1.5


def test_without_a_game_clock_the_sandboxs_game_budget_runs_out() -> None:
    state, info = start()
    steps = [*opening(info)]
    for _ in range(2):
        state_texts = [str(a) for a in state.legal_actions()]
        steps.append(({"type": "act"}, [0.3, {"type": "action", "action": state_texts[0]}]))
    bot = make_bot(scripted_source(steps), game_seconds=0.5, move_seconds=5)
    bot.new_game(info)
    first = bot.act(state.observation(0), state.legal_actions(), None)
    state.apply_action(first)
    state.apply_action(state.legal_actions()[0])
    with pytest.raises(BotTimeout):  # 0.3 s spent, 0.2 s left, and it takes 0.3 s
        bot.act(state.observation(0), state.legal_actions(), None)


def test_a_bot_exiting_before_it_answers_is_a_crash() -> None:
    state, info = start()
    bot = make_bot(scripted_source([*opening(info), ({"type": "quit"}, [])]))
    bot.new_game(info)
    # The script expects quit, reads act instead and exits with status 3.
    with pytest.raises(BotCrash, match="exited with status 3"):
        bot.act(state.observation(0), state.legal_actions(), None)
    assert "MISMATCH" in bot.last_stderr.decode()


def test_stderr_is_drained_while_waiting_and_its_end_kept() -> None:
    state, info = start()
    bot = make_bot(raw_source("chatty"), stderr_bytes=4096)
    bot.new_game(info)
    action = bot.act(state.observation(0), state.legal_actions(), None)  # after 1 MiB of stderr
    assert action == state.legal_actions()[0]
    bot.game_over(state.game.forfeit_outcome(state, 1, "timeout"))
    assert len(bot.last_stderr) == 4096 and bot.last_stderr.endswith(b"chatter done\n")


def test_a_program_that_does_not_exist_is_a_crash_at_start() -> None:
    _, info = start()
    bot = SubprocessBot(["no-such-bot-program"])
    with pytest.raises(BotCrash, match="no program 'no-such-bot-program'"):
        bot.new_game(info)


def test_act_without_a_game_is_a_crash() -> None:
    state, _ = start()
    with pytest.raises(BotCrash):
        SubprocessBot(["true"]).act(state.observation(0), state.legal_actions(), None)


class ThawWitness:
    """Stands in for a bot's process and cgroup: when thawed, it notes what its input
    holds at that moment and then, as a bot, reads the whole request and answers with
    the first legal action (in a thread, so the host may write the rest meanwhile)."""

    def __init__(self) -> None:
        self.input, input_end = os.pipe()
        output_end, self.output = os.pipe()
        error_end, self.error = os.pipe()
        os.set_blocking(self.input, False)
        self.process = SimpleNamespace(
            stdin=open(input_end, "wb"),  # noqa: SIM115 (closed by close())
            stdout=open(output_end, "rb"),  # noqa: SIM115
            stderr=open(error_end, "rb"),  # noqa: SIM115
        )
        self.limits = DEFAULT_LIMITS
        self.cgroup = self
        self.held_at_thaw: list[bytes] = []
        self.requests: list[bytes] = []
        self.reader: threading.Thread | None = None

    def thaw(self) -> None:
        try:
            held = os.read(self.input, 1 << 20)
        except BlockingIOError:
            held = b""
        self.held_at_thaw.append(held)
        self.reader = threading.Thread(target=self._answer, args=(held,))
        self.reader.start()

    def freeze(self) -> None:
        pass

    def _answer(self, request: bytes) -> None:
        waiting = select.poll()
        waiting.register(self.input, select.POLLIN)
        while not request.endswith(b"\n"):
            assert waiting.poll(60_000), "the host did not write the rest of its request"
            request += os.read(self.input, 1 << 20)
        self.requests.append(request)
        answer = {"type": "action", "action": json.loads(request)["legal_actions"][0]}
        os.write(self.output, json.dumps(answer).encode() + b"\n")

    def close(self) -> None:
        for file in vars(self.process).values():
            file.close()
        for fd in (self.input, self.output, self.error):
            os.close(fd)


def witnessed_bot(witness: ThawWitness) -> SubprocessBot:
    bot = SubprocessBot(["unused"])
    bot.process = witness  # type: ignore[assignment]
    bot._channel = _Channel(witness)  # type: ignore[arg-type]
    return bot


@pytest.mark.parametrize("size", [0, 300_000])
def test_a_bot_is_thawed_once_its_request_is_in_its_pipe(size: int) -> None:
    """Written first, thawed then: the bot wakes once, to find its request. One longer
    than the pipe holds is finished once the bot reads (the pipe held a part)."""
    state, _ = start()
    observation = {**state.observation(0), "padding": "x" * size}
    legal = state.legal_actions()
    witness = ThawWitness()
    try:
        action = witnessed_bot(witness).act(observation, legal, None)
        assert witness.reader is not None
        witness.reader.join(60)
    finally:
        witness.close()
    assert action is legal[0]
    (held,) = witness.held_at_thaw
    (request,) = witness.requests
    assert json.loads(request)["observation"] == observation
    if size:
        assert held and len(held) < len(request)
    else:
        assert held == request


def test_each_action_text_is_made_once_and_the_texts_kept_are_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[int] = []

    class Counted:
        def __init__(self, number: int) -> None:
            self.number = number

        def __hash__(self) -> int:
            return self.number

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Counted) and other.number == self.number

        def __str__(self) -> str:
            made.append(self.number)
            return f"a{self.number}"

    monkeypatch.setattr(subprocess_bot, "TEXTS_KEPT", 3)
    texts = _ActionTexts()
    assert [texts[Counted(n)] for n in (1, 2, 1, 2)] == ["a1", "a2", "a1", "a2"]
    assert made == [1, 2]
    assert [texts[Counted(n)] for n in (3, 4, 5)] == ["a3", "a4", "a5"]
    assert len(texts) <= 3


@pytest.mark.parametrize(
    "message",
    [
        {"type": "act", "observation": {"seat": 1, "name": "König", "x": None}, "n": 0.1},
        {"type": "new_game", "params": {"big": 2**70, "small": -(2**63)}},
        {"type": "act", "observation": {1: "an integer key", "s": "\ud800"}},
    ],
)
def test_a_message_is_the_same_json_whichever_library_encodes_it(
    message: dict[str, Any],
) -> None:
    line = _encode(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == json.loads(json.dumps(message))


def test_a_timeout_gives_the_limit_the_time_taken_and_the_flush_hint() -> None:
    state, info = start()
    steps = [*opening(info), ({"type": "act"}, [])]  # and then never answers
    bot = make_bot(scripted_source(steps), time_control=TimeControl(per_move=0.3), move_seconds=5)
    bot.new_game(info)
    with pytest.raises(BotTimeout) as caught:
        bot.act(state.observation(0), state.legal_actions(), None)
    message = str(caught.value)
    assert "limit 0.3 s" in message and "flush stdout after each line" in message
    taken = float(re.search(r"took ([\d.]+) s", message).group(1))  # type: ignore[union-attr]
    assert taken >= 0.3
