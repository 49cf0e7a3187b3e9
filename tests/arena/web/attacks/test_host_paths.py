"""A submitted command may name only the submission's own files (no shell runs it, so
shell syntax in it is refused; a path after a shell operator in the script of ``sh -c``
counts), and no message hands back more than a short excerpt of what a bot wrote
(whatever it managed to read)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from sqlmodel import Session, select

from arena.players.loader import COMMAND, BotSource, bundle_files
from arena.players.submission import INTERPRETERS
from arena.players.subprocess_bot import QUOTE_CHARS, STDERR_IN_MESSAGE
from arena.store.bots import add_bot
from arena.store.db import session_scope
from arena.store.models import BotVersion
from arena.tournament.config import validate_config
from arena.tournament.driver import TournamentRunner, create_tournament
from tests.arena.web.conftest import Web
from tests.arena.web.test_submit import tar_gz

THIEF = """
import sys
sys.stderr.write(open(sys.argv[1]).read())
sys.exit(1)
"""

PROTOCOL = """
import json
import sys

def send(message):
    print(json.dumps(message), flush=True)

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        {hello}
    elif message["type"] == "new_game":
        send({{"type": "ready"}})
    elif message["type"] == "act":
        sys.stderr.write("V" * 5000 + "\\n")
        send({{"type": "action", "action": "W" * 5000}})
    elif message["type"] == "quit":
        break
"""
HONEST_HELLO = 'send({"type": "hello", "protocol": 1, "name": "loud", "games": ["*"]})'
HUGE_TYPE_HELLO = 'send({"type": "Z" * 50000})'
STDERR_FLOOD = 'import sys\nsys.stderr.write("Q" * 5000 + "\\n")\nsys.exit(3)\n'


def submit_archive(web: Web, files: dict[str, str], command: str, name: str = "thief") -> object:
    return web.client.post(
        "/api/bots",
        headers=web.auth(),
        data={"name": name, "game": "koenigsgarten", "command": command},
        files={"archive": ("bot.tar.gz", tar_gz(files), "application/gzip")},
    )


def stored_names(web: Web) -> list[str]:
    with Session(web.engine) as session:
        return [bot.name for bot in session.exec(select(BotVersion)).all()]


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("python3 {code}/thief.py SECRET", "names a path outside the archive"),
        ("python3 {code}/thief.py --file=SECRET", "names a path outside the archive"),
        ("python3 {code}/thief.py x:SECRET", "names a path outside the archive"),
        ("python3 {code}/thief.py {code}/../../../..SECRET", "is not a file of the archive"),
        ("python3 {code}/thief.py ../../../..SECRET", "climbs out with '..'"),
        ("python3 {code}/thief.py ~/x", "names a path outside the archive"),
        ("sh -c 'cat SECRET >&2' {code}", "names a path outside the archive"),
        ("cat SECRET {code}", "must be an interpreter of the sandbox's runtime"),
        ("/usr/bin/python3 {code}/thief.py", "must be an interpreter"),
        ("{code}/../../../../usr/bin/python3 {code}/thief.py", "must be an interpreter"),
        ("python3 {code}/other.py", "is not a file of the archive"),
        # A shell reads the script of sh -c: a path after its operators is a path.
        ("sh -c 'cat<SECRET >&2' {code}", "names a path outside the archive"),
        ("sh -c 'cat {code}/thief.py>SECRET' {code}", "names a path outside the archive"),
        ("sh -c 'true|SECRET' {code}", "names a path outside the archive"),
        ("sh -c 'true&SECRET' {code}", "names a path outside the archive"),
        ("sh -c 'true&&cat<SECRET' {code}", "names a path outside the archive"),
        # No shell runs the command itself: its operators are refused, named.
        ("python3 {code}/thief.py <SECRET", "'<' is shell syntax, and no shell runs"),
        ("python3 {code}/thief.py >SECRET", "'>' is shell syntax"),
        ("python3 {code}/thief.py 2>&1", "'>&' is shell syntax"),
        ("python3 {code}/thief.py x | cat", "'|' is shell syntax"),
        ("python3 {code}/thief.py x & python3 {code}/thief.py y", "'&' is shell syntax"),
        ("python3 {code}/thief.py x && cat x", "'&&' is shell syntax"),
    ],
)
def test_a_command_naming_a_host_path_is_refused_before_it_runs(
    web: Web, tmp_path: Path, command: str, words: str
) -> None:
    secret = tmp_path / "arena.db"
    secret.write_text("TOKEN-HASH-OF-ALICE " * 10)
    response = submit_archive(web, {"thief.py": THIEF}, command.replace("SECRET", str(secret)))
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert detail.startswith("field 'command': ") and words in detail
    assert "TOKEN-HASH" not in detail
    assert stored_names(web) == []


@pytest.mark.slow
def test_an_interpreter_of_the_runtime_and_archive_paths_are_accepted(web: Web) -> None:
    files = {"bot/main.py": PROTOCOL.format(hello=HONEST_HELLO), "bot/lib/util.py": ""}
    assert "python3" in INTERPRETERS
    command = "python3 -u {code}/bot/main.py --lib={code}/bot/lib relative/name"
    response = submit_archive(web, files, command, name="loud")
    # It plays an illegal move on the sample position: the command itself passed.
    assert response.status_code == 422, response.text
    assert response.json()["detail"].startswith("bot rejected: illegal action")


@pytest.mark.slow
def test_a_rejection_quotes_a_short_excerpt_of_the_bots_stderr(web: Web) -> None:
    response = submit_archive(web, {"flood.py": STDERR_FLOOD}, "python3 {code}/flood.py")
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert detail.startswith("bot rejected: crash: exited with status 3")
    assert 0 < detail.count("Q") <= STDERR_IN_MESSAGE


@pytest.mark.slow
def test_a_rejection_quotes_a_short_excerpt_of_what_the_bot_sent(web: Web) -> None:
    files = {"big.py": PROTOCOL.format(hello=HUGE_TYPE_HELLO)}
    response = submit_archive(web, files, "python3 {code}/big.py")
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert detail.startswith("bot rejected: protocol violation")
    assert 0 < detail.count("Z") <= QUOTE_CHARS
    assert len(detail) < 600


def test_forfeit_messages_quote_a_short_excerpt_everywhere_they_are_shown(web: Web) -> None:
    source = BotSource(
        COMMAND,
        "python3 {code}/loud.py",
        {},
        bundle_files({"loud.py": PROTOCOL.format(hello=HONEST_HELLO)}),
    )
    with session_scope(web.engine) as session:  # straight in: the check would refuse it
        add_bot(session, name="loud", game="koenigsgarten", source=source)
    config = {"game": "koenigsgarten", "bots": ["loud", "first-legal"], "games": 1}
    with session_scope(web.engine) as session:
        tournament_id = create_tournament(session, validate_config({**config, "executor": "local"}))
    TournamentRunner(web.engine, tournament_id, console=Console(file=io.StringIO())).run()
    games = web.client.get(f"/api/tournaments/{tournament_id}/games").json()["items"]
    assert {game["reason"] for game in games} == {"illegal_action"}
    game_id = games[0]["id"]
    record = web.client.get(f"/api/records/{game_id}").json()["record"]
    assert "is not legal here" in record["outcome"]["details"]["message"]
    for path in (
        f"/api/records/{game_id}",
        f"/api/records/{game_id}/replay",
        f"/records/{game_id}",
        f"/api/tournaments/{tournament_id}",
        f"/tournaments/{tournament_id}",
        "/api/bots/loud",
        "/bots/loud",
    ):
        text = web.client.get(path).text
        assert text.count("W") <= QUOTE_CHARS + 20, path  # the page's own words have a few
        assert text.count("V") <= STDERR_IN_MESSAGE + 20, path
