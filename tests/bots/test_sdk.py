"""The Python SDK: loading a bot class and serving the protocol with it."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from bots.base import Bot, GameInfo
from bots.sdk import runtime
from bots.sdk.runtime import (
    ANY_GAME,
    PROTOCOL_VERSION,
    BotLoadFailure,
    Session,
    action_line,
    decode,
    load_bot_class,
    make_bot,
)
from engines.core import Action
from engines.outcome import Outcome

EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples"


class Recorder:
    """A plain bot class that records its calls."""

    name = "recorder"
    games = ("koenigsgarten",)

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def new_game(self, info: Any) -> None:
        self.calls.append(("new_game", info))

    def act(self, observation: Any, legal_actions: Any, time_left: Any) -> Any:
        self.calls.append(("act", (observation, legal_actions, time_left)))
        if observation.get("fail"):
            raise ValueError("cannot decide")
        return legal_actions[-1]

    def game_over(self, outcome: Any) -> None:
        self.calls.append(("game_over", outcome))


class EngineBot(Bot):
    """A bot written for the in-process API."""

    def act(
        self,
        observation: Mapping[str, Any],
        legal_actions: Sequence[Action],
        time_left: float | None,
    ) -> Action:
        assert self.info is not None and self.info.game.name == "koenigsgarten"
        assert all(type(a) is not str for a in legal_actions)  # engine objects, not text
        return legal_actions[0]


NEW_GAME = {
    "type": "new_game",
    "game": "koenigsgarten",
    "options": {"format": "single"},
    "seat": 1,
    "seats": 2,
    "seed": 9,
}
NOISY = """
class Noisy:
    def act(self, observation, legal_actions, time_left):
        print("thinking…")
        return legal_actions[0]
"""
OUTCOME = {"returns": [1.0, -1.0], "ranking": [1, 2], "termination": "four_in_a_pattern"}


def serve(cls: type, bot: Any, *messages: Mapping[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    incoming = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
    outgoing = io.BytesIO()
    status = Session(cls, bot, incoming, outgoing).run()
    return status, [json.loads(line) for line in outgoing.getvalue().splitlines()]


def act(observation: Mapping[str, Any], legal: list[str], **times: float) -> dict[str, Any]:
    return {"type": "act", "observation": observation, "legal_actions": legal, **times}


def test_a_plain_class_is_served_with_texts() -> None:
    bot = Recorder()
    status, replies = serve(
        Recorder,
        bot,
        {"type": "hello", "protocol": 1},
        NEW_GAME,
        act({"seat": 1}, ["AD", "QC"], time_left=12.0, move_time=2.5),
        {"type": "game_over", "outcome": OUTCOME},
        {"type": "quit"},
        {"type": "act"},  # never read: the session ended at quit
    )
    assert status == 0
    assert replies == [
        {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "name": "recorder",
            "games": ["koenigsgarten"],
        },
        {"type": "ready"},
        {"type": "action", "action": "QC"},
    ]
    (_, info), (_, (observation, legal, time_left)), (_, outcome) = bot.calls
    assert (info.game, info.seat, info.num_seats, info.seed) == ("koenigsgarten", 1, 2, 9)
    assert info.options == {"format": "single"}
    assert observation == {"seat": 1} and legal == ["AD", "QC"]
    assert time_left == 2.5  # the time for this answer: the smaller of the two
    assert outcome == OUTCOME


def test_an_exception_in_act_is_reported_and_the_session_goes_on() -> None:
    status, replies = serve(
        Recorder,
        Recorder(),
        act({"fail": True}, ["AD"]),
        act({}, ["AD", "KS"]),
    )
    assert status == 0
    assert replies[0]["type"] == "error" and "ValueError('cannot decide')" in replies[0]["message"]
    assert replies[1] == {"type": "action", "action": "KS"}


def test_a_class_without_the_optional_hooks_or_attributes_plays_any_game() -> None:
    class Minimal:
        def act(self, observation: Any, legal_actions: Any, time_left: Any) -> Any:
            return legal_actions[0]

    _, replies = serve(
        Minimal,
        Minimal(),
        {"type": "hello", "protocol": 1},
        NEW_GAME,
        act({}, ["JS"]),
        {"type": "game_over", "outcome": OUTCOME},
    )
    assert replies[0]["name"] == "Minimal" and replies[0]["games"] == [ANY_GAME]
    assert replies[1:] == [{"type": "ready"}, {"type": "action", "action": "JS"}]


def test_an_unknown_message_ends_the_session() -> None:
    status, replies = serve(Recorder, Recorder(), {"type": "observe"})
    assert status == 2 and replies[0]["type"] == "error"


def test_a_bot_base_class_gets_the_engines_values() -> None:
    bot = EngineBot(seed=3)
    _, replies = serve(
        EngineBot,
        bot,
        NEW_GAME,
        act({"seat": 1}, ["QC", "AD"]),
        {"type": "game_over", "outcome": OUTCOME},
    )
    assert replies == [{"type": "ready"}, {"type": "action", "action": "QC"}]
    assert isinstance(bot.info, GameInfo) and bot.info.seed == 9
    assert Outcome.from_dict(OUTCOME).winners == (0,)


def test_the_class_is_found_by_name_or_as_the_only_one_with_act(tmp_path: Path) -> None:
    file = tmp_path / "mine.py"
    file.write_text("class Helper:\n    pass\n\n" + NOISY.replace("Noisy", "Mine"))
    assert load_bot_class(f"{file}:Mine").__name__ == "Mine"
    assert load_bot_class(str(file)).__name__ == "Mine"


@pytest.mark.parametrize(
    ("code", "target", "clue"),
    [
        ("class A:\n    def act(self\n", "bot.py", "syntax error at line 2"),
        ("class A:\n    pass\n", "bot.py:B", "no class 'B' (classes: A)"),
        ("import no_such_module\n", "bot.py", "ModuleNotFoundError"),
        ("class A:\n    def act(self): pass\nclass B(A): pass\n", "bot.py", "name the class"),
    ],
)
def test_a_bot_that_cannot_load_says_why(tmp_path: Path, code: str, target: str, clue: str) -> None:
    (tmp_path / "bot.py").write_text(code)
    with pytest.raises(BotLoadFailure, match=re.escape(clue)):
        load_bot_class(str(tmp_path / target))


def test_a_missing_file_cannot_load(tmp_path: Path) -> None:
    with pytest.raises(BotLoadFailure, match="no bot file"):
        load_bot_class(str(tmp_path / "absent.py:Bot"))


def test_the_seed_is_given_to_constructors_that_take_it() -> None:
    class Seeded:
        def __init__(self, seed: int = 0) -> None:
            self.seed = seed

    assert make_bot(Seeded, 7).seed == 7
    assert isinstance(make_bot(Recorder, 7), Recorder)


def test_parameters_are_given_as_keywords_and_refused_when_not_taken() -> None:
    class Deep:
        def __init__(self, *, depth: int = 1, style: str = "plain") -> None:
            self.depth, self.style = depth, style

    class Anything:
        def __init__(self, **params: object) -> None:
            self.params = params

    deep = make_bot(Deep, 7, {"depth": 3, "style": "bold", "seed": 7})
    assert (deep.depth, deep.style) == (3, "bold")  # no seed: Deep does not take one
    assert make_bot(Anything, 7, {"depth": 3}).params == {"depth": 3, "seed": 7}
    with pytest.raises(
        BotLoadFailure,
        match=r"Deep takes no parameter 'width' \(its __init__ takes: depth, style\)",
    ):
        make_bot(Deep, 7, {"width": 2})
    with pytest.raises(BotLoadFailure, match="Recorder takes no parameter 'depth'"):
        make_bot(Recorder, 7, {"depth": 2})


def test_python_dash_m_bots_sdk_serves_a_file_and_keeps_stdout_for_the_protocol(
    tmp_path: Path,
) -> None:
    messages = [{"type": "hello", "protocol": 1}, act({"seat": 0}, ["AD"]), {"type": "quit"}]
    bot_file = tmp_path / "noisy.py"
    bot_file.write_text(NOISY)
    done = subprocess.run(
        [sys.executable, "-m", "bots.sdk", f"{bot_file}:Noisy"],
        input=b"".join(json.dumps(m).encode() + b"\n" for m in messages),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["type"] for r in replies] == ["hello", "action"]
    assert "thinking…" in done.stderr.decode()


def test_the_examples_load() -> None:
    assert load_bot_class(str(EXAMPLES / "python_bot.py")).__name__ == "ExampleBot"


def outcome_of(function: Any, line: bytes) -> tuple[str, str]:
    """What ``function(line)`` gives (its value's repr, type and all) or raises."""
    try:
        return "value", repr(function(line))
    except RecursionError:
        return "raises", "RecursionError"
    except ValueError as exc:
        return "raises", f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"act","observation":{"garden":["QD","KD"]},"legal_actions":["QD"]}\n',
        b'{"type":"hello","protocol":1}',
        '{"name":"Kardinal & K\u00f6nig","s":"\u00e9"}\n'.encode(),
        b'{"a":"\\ud800"}\n',  # a lone surrogate, escaped
        b'{"a":"\xed\xa0\x80"}\n',  # and encoded (json reads it, strict UTF-8 does not)
        b'{"n":123456789012345678901234567890,"x":-0.0,"y":1e400,"z":NaN}\n',
        b'{"a":1}\n\n',
        b'{"a":1} \r\n',
        b'{"a":1}x',
        b'{"a":1}\n{"b":2}\n',
        b'{"a":1',
        b'{"a":"\x01"}',
        b"{",
        b"",
        b"\xef\xbb\xbf{}",
        b'{"\x00":1}',
        b"[1,2]\n",
        b' {"a":1}',
        '{"a":1}'.encode("utf-16"),
        b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    ],
)
def test_decode_gives_exactly_what_json_loads_gives(line: bytes) -> None:
    assert outcome_of(decode, line) == outcome_of(json.loads, line)


@pytest.mark.parametrize(
    "text", ["QD", "7H>N", "take HU5", 'say "hi"\\', "König", "\ud800", "\x00"]
)
def test_the_action_line_is_the_json_of_the_answer_byte_for_byte(text: str) -> None:
    message = {"type": "action", "action": text}
    assert action_line(text) == json.dumps(message, separators=(",", ":")).encode() + b"\n"


def test_answers_are_written_to_the_descriptor_one_write_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Through the file's descriptor, not its buffer: one system call per answer."""
    read_end, write_end = os.pipe()
    writes: list[bytes] = []
    write = os.write

    def counted(fd: int, data: bytes) -> int:
        if fd == write_end:
            writes.append(bytes(data))
        return write(fd, data)

    monkeypatch.setattr(runtime.os, "write", counted)
    messages = [{"type": "hello", "protocol": 1}, act({}, ["AD", "KS"]), {"type": "quit"}]
    incoming = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
    with open(write_end, "wb") as outgoing:
        assert Session(Recorder, Recorder(), incoming, outgoing).run() == 0
    with open(read_end, "rb") as answers:
        replies = [json.loads(line) for line in answers.read().splitlines()]
    assert [reply["type"] for reply in replies] == ["hello", "action"]
    assert [json.loads(data) for data in writes] == replies
