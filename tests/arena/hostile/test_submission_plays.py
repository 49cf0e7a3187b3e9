"""The submission check plays whole games: a bot that crashes on its third move, or
plays an illegal card only at three seats, is refused, naming the game and the move;
a bot too slow for blitz is accepted with its move times, on the command line and
over the web (issue 29, point 4)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.players.loader import PYTHON, BotSource
from arena.players.sample_games import sample_games
from arena.players.submission import SubmissionRejected, check_submission
from engines.registry import get_game
from tests.arena.hostile import FAST, HERE, python_source
from tests.arena.web.conftest import Web

runner = CliRunner()
ROOMY = dataclasses.replace(FAST, move_seconds=10.0)
"""Moves as long as the check's own default: no bot here times out, however busy the machine."""
GOOD = """
class FirstLegal:
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
"""
THIRD = {"move": 3}
"""ExitMidgame's parameter: it exits on its third move."""
P90 = re.compile(r"p90 (\d+\.\d\d) s")


def add(tmp_path: Path, name: str, game: str, file: str) -> tuple[int, str]:
    result = runner.invoke(
        app, ["bots", "add", name, "-g", game, "--python", file, "--db", str(tmp_path / "a.db")]
    )
    return result.exit_code, result.stdout + result.stderr


def test_a_bot_that_crashes_on_its_third_move_is_refused_naming_the_move() -> None:
    source = dataclasses.replace(python_source("exit_midgame.py", "ExitMidgame"), params=THIRD)
    with pytest.raises(SubmissionRejected) as refused:
        check_submission(source, "kardinal", limits=ROOMY)
    message = str(refused.value)
    assert message.startswith(
        "bot rejected: crash in game 1 of 4 (2 seats, seat 0, seed 1), its move 3: "
        "exited with status 3 on its move"
    ), message
    assert "\n" not in message


def test_an_illegal_move_only_at_three_seats_is_refused_naming_it(tmp_path: Path) -> None:
    # Kings in the Corner is played by 2 to 4: the bot plays legally at 2 and 4 seats.
    file = str(HERE / "illegal_at_three_seats.py")
    code, out = add(tmp_path, "threes", "kings_corner", file)
    assert code == 2, out
    found = re.search(
        r"bot rejected: illegal action in game 2 of 3 \(3 seats, seat 1, seed 2\), its move 2: "
        r"'ZZ' is not legal here \(legal: ([^)]+)\)",
        out,
    )
    assert found is not None, out
    engine = get_game("kings_corner")
    for named in found[1].removesuffix(", …").split(", "):
        engine.parse_action(named)  # some of the position's legal moves, each a real one
    assert len(out.strip().splitlines()) == 1


def test_a_good_bot_is_accepted_with_its_move_times(tmp_path: Path) -> None:
    source = BotSource(PYTHON, "FirstLegal", {}, GOOD)
    result = check_submission(source, "kings_corner", limits=ROOMY)
    assert (result.played, result.planned, result.warning) == (3, 3, None)
    times = result.times
    assert times.moves >= 3 and 0 < times.median <= times.p90 <= times.max
    assert list(times.fits()) == ["bullet", "blitz", "rapid", "classical"]
    (tmp_path / "good.py").write_text(GOOD)
    code, out = add(tmp_path, "good", "koenigsgarten", str(tmp_path / "good.py"))
    assert code == 0, out
    assert "played 2 whole games against the built-in bots" in out
    assert "move times: median " in out and "fits classical: yes" in out


@pytest.mark.slow  # four moves of 0.7 s
def test_a_bot_too_slow_for_blitz_is_accepted_saying_so(tmp_path: Path) -> None:
    code, out = add(tmp_path, "slow", "koenigsgarten", str(HERE / "slow_mover.py"))
    assert code == 0, out
    assert "fits blitz: no" in out and "fits rapid: yes" in out
    found = P90.search(out)
    assert found is not None and float(found[1]) >= 0.7, out


@pytest.mark.slow  # four moves of 0.7 s
def test_the_web_answers_the_move_times(web: Web) -> None:
    response = web.client.post(
        "/api/bots",
        headers=web.auth(),
        data={"name": "slow", "game": "koenigsgarten"},
        files={"file": ("slow.py", (HERE / "slow_mover.py").read_bytes(), "text/x-python")},
    )
    assert response.status_code == 201, response.text
    body = response.json()
    times = body["times"]
    assert times["fits"] == {"bullet": False, "blitz": False, "rapid": True, "classical": True}
    assert times["p90"] >= 0.7 and times["max"] >= times["p90"] >= times["median"] > 0
    assert "fits blitz: no" in body["check"] and body["warning"] is None
    crashing = web.client.post(
        "/api/bots",
        headers=web.auth("bob"),
        data={"name": "crasher", "game": "kardinal", "params": json.dumps(THIRD)},
        files={"file": ("c.py", (HERE / "exit_midgame.py").read_bytes(), "text/x-python")},
    )
    assert crashing.status_code == 422, crashing.text
    assert crashing.json()["detail"].startswith(
        "bot rejected: crash in game 1 of 4 (2 seats, seat 0, seed 1), its move 3: "
    )


def test_a_check_cut_short_by_its_budget_passes_with_a_warning() -> None:
    source = python_source("slow_mover.py", "SlowMover")
    result = check_submission(source, "koenigsgarten", limits=ROOMY, budget=1.0)
    # Its first two moves (of five in game 1) take 0.7 s each: the check stops before
    # its second or third, as its start-up took more or less than 0.3 s.
    assert result.played == 0 and result.planned == 2
    assert result.times.moves in (1, 2) and result.times.max >= 0.7
    assert result.warning is not None and "time budget (1 s" in result.warning
    assert f"ran out in game 1 of 2 after its move {result.times.moves}: the rest" in (
        result.warning
    )


def test_the_sample_games_cover_every_seat_count_and_more_than_the_first_seat() -> None:
    def plan(game: str) -> list[tuple[int, int, int]]:
        return [(g.seats, g.seat, g.seed) for g in sample_games(get_game(game))]

    assert plan("kardinal") == [(2, 0, 1), (3, 1, 2), (4, 2, 3), (5, 3, 4)]
    assert plan("kings_corner") == [(2, 0, 1), (3, 1, 2), (4, 2, 3)]
    assert plan("koenigsgarten") == [(2, 0, 1), (2, 1, 2)]
    assert plan("blumengarten") == [(1, 0, 1)]
