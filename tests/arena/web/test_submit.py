"""Submitting bots over HTTP: the check runs out of the server's process, before storing."""

from __future__ import annotations

import io
import tarfile

import pytest
from sqlmodel import Session, select

import arena.players.loader
import arena.players.submission
import arena.web.checker
from arena.store.models import BotVersion
from tests.arena.web.conftest import FIRST_LEGAL, Web

SYNTAX_ERROR = "class Broken:\n    def act(self, observation legal_actions):\n        pass\n"

ARCHIVE_MAIN = """
import json
import sys

sys.path.insert(0, sys.argv[1])
from strategy.pick import choose

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        answer = {"type": "hello", "protocol": 1, "name": "archived", "games": ["*"]}
    elif kind == "new_game":
        answer = {"type": "ready"}
    elif kind == "act":
        answer = {"type": "action", "action": choose(message["legal_actions"])}
    elif kind == "quit":
        break
    else:
        continue
    print(json.dumps(answer), flush=True)
"""


def tar_gz(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def submit_python(web: Web, headers: dict[str, str], name: str, code: str, **fields: str) -> object:
    return web.client.post(
        "/api/bots",
        headers=headers,
        data={"name": name, "game": "koenigsgarten", **fields},
        files={"file": ("mine.py", code.encode(), "text/x-python")},
    )


def stored(web: Web) -> list[BotVersion]:
    with Session(web.engine) as session:
        return list(session.exec(select(BotVersion)).all())


@pytest.mark.slow
def test_a_python_bot_is_checked_out_of_process_and_stored_for_its_owner(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    def in_process(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server ran the submission check in its own process")

    # Neither parsing nor the check may happen in the server: the child does both.
    for module in (arena.players.loader, arena.web.checker):
        monkeypatch.setattr(module, "python_bot_class_name", in_process)
    for module in (arena.players.submission, arena.web.checker):
        monkeypatch.setattr(module, "check_submission", in_process)
    alice = web.auth("alice")
    response = submit_python(web, alice, "picker", FIRST_LEGAL, params='{"seed": 4}')
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["created"] is True and "speaks protocol 1" in body["check"]
    assert body["bot"]["label"] == "picker@1" and body["bot"]["owner"] == "alice"
    assert body["bot"]["entry"] == "FirstLegal" and body["bot"]["params"] == {"seed": 4}
    (bot,) = stored(web)
    assert bot.code == FIRST_LEGAL and bot.owner_id is not None
    again = submit_python(web, alice, "picker", FIRST_LEGAL, params='{"seed": 4}')
    assert again.status_code == 200 and again.json()["created"] is False
    code = web.client.get("/api/bots/picker@1/code", headers=alice)
    assert code.status_code == 200 and code.text == FIRST_LEGAL


def test_a_rejected_bot_is_not_stored_and_the_reason_is_given(web: Web) -> None:
    response = submit_python(web, web.auth(), "broken", SYNTAX_ERROR)
    assert response.status_code == 422
    assert "syntax error at line 2" in response.json()["detail"]
    assert stored(web) == []


@pytest.mark.slow
def test_an_archive_with_folders_runs_by_its_command(web: Web) -> None:
    archive = tar_gz(
        {
            "bot/main.py": ARCHIVE_MAIN,
            "bot/strategy/__init__.py": "",
            "bot/strategy/pick.py": "def choose(legal):\n    return legal[-1]\n",
        }
    )
    response = web.client.post(
        "/api/bots",
        headers=web.auth(),
        data={
            "name": "packed",
            "game": "koenigsgarten",
            "command": "python3 {code}/bot/main.py {code}/bot",
            "params": '{"depth": 2}',
        },
        files={"archive": ("packed.tar.gz", archive, "application/gzip")},
    )
    assert response.status_code == 201, response.text
    assert "archived speaks protocol 1" in response.json()["check"]
    (bot,) = stored(web)
    assert bot.kind == "command" and bot.entry == "python3 {code}/bot/main.py {code}/bot"
    assert bot.params == {"depth": 2}  # its new_game message carries them
    assert arena.players.loader.command_files(bot.code)["bot/strategy/pick.py"].startswith(
        "def choose"
    )


@pytest.mark.parametrize(
    ("fields", "files", "status", "words"),
    [
        ({"name": "9lives"}, "python", 422, "field 'name': bad bot name '9lives'"),
        ({"game": "chess"}, "python", 422, "field 'game': unknown game 'chess'"),
        ({}, None, 422, "exactly one of the fields 'file'"),
        ({"command": "python3 x"}, "python", 422, "only an archive takes a command"),
        ({"params": "[1, 2]"}, "python", 422, "field 'params': a JSON object"),
        ({"params": "{seed"}, "python", 422, "field 'params': not JSON"),
        ({"class_name": "no-name"}, "python", 422, "field 'class_name': not a Python name"),
        ({}, "archive", 422, "field 'command': an archive needs the command"),
        ({"command": "python3 main.py"}, "archive", 422, "name the archive's files as {code}"),
        ({}, "../evil.py", 422, "field 'file': bad file name '../evil.py'"),
        ({}, "huge", 413, "larger than 1000000 bytes"),
    ],
)
def test_bad_submissions_are_refused_naming_the_field(
    web: Web, fields: dict[str, str], files: str | None, status: int, words: str
) -> None:
    uploads = {
        "python": {"file": ("mine.py", FIRST_LEGAL.encode(), "text/x-python")},
        "archive": {"archive": ("a.tar.gz", tar_gz({"main.py": "pass\n"}), "application/gzip")},
        "../evil.py": {"file": ("../evil.py", FIRST_LEGAL.encode(), "text/x-python")},
        "huge": {"file": ("mine.py", b"#" * 1_000_001, "text/x-python")},
        None: {},
    }[files]
    response = web.client.post(
        "/api/bots",
        headers=web.auth(),
        data={"name": "mine", "game": "koenigsgarten", **fields},
        files=uploads or None,
    )
    assert response.status_code == status, response.text
    assert words in response.json()["detail"]
    assert stored(web) == []


def test_a_body_over_the_cap_is_refused_before_it_is_read(web: Web) -> None:
    response = web.client.post(
        "/api/bots",
        headers=web.auth(),
        data={"name": "mine", "game": "koenigsgarten"},
        files={"archive": ("a.zip", b"\0" * (3 * 1024 * 1024), "application/zip")},
    )
    assert response.status_code == 413
    assert "request body is larger than" in response.json()["detail"]
