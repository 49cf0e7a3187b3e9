"""`arena games`, `arena play`, `arena replay` and their handling of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def one_line_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected a one-line error, got {stderr!r}"
    assert "Traceback" not in stderr
    return lines[0]


def test_games_lists_every_game_with_seats() -> None:
    code, out, _ = run("games")
    assert code == 0
    assert "koenigsgarten" in out and "Königsgarten" in out and "random" in out


def test_play_shows_board_and_result(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    code, out, _ = run(
        "play",
        "koenigsgarten",
        "--bot",
        "random",
        "--bot",
        "first-legal",
        "--seed",
        "7",
        "--record",
        str(record),
    )
    assert code == 0, out
    assert "seed 7" in out and ("wins" in out or "draw" in out)
    assert any(symbol in out for symbol in "♠♥♦♣●")
    data = json.loads(record.read_text())
    assert data["format"] == "arena-record/1"
    assert data["seed"] == 7 and data["players"] == ["random", "first-legal"]
    assert len(data["deal"]["layout"]) == 16
    code, out, _ = run("replay", str(record))
    assert code == 0 and f"{len(data['actions'])} actions valid" in out


def test_play_is_reproducible_from_the_seed(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for path in (first, second):
        code, _, _ = run(
            "play",
            "koenigsgarten",
            "-b",
            "random",
            "-b",
            "random:seed=3",
            "--seed",
            "11",
            "--record",
            str(path),
        )
        assert code == 0
    a, b = json.loads(first.read_text()), json.loads(second.read_text())
    a.pop("duration"), b.pop("duration")
    assert a == b


def test_play_show_prints_every_move() -> None:
    code, out, _ = run(
        "play", "koenigsgarten", "-b", "first-legal", "-b", "first-legal", "--seed", "2", "--show"
    )
    assert code == 0
    assert "move 1: seat 0 plays" in out and "move 2: seat 1 plays" in out


def test_first_to_three_match_record_replays(tmp_path: Path) -> None:
    record = tmp_path / "match.json"
    code, out, _ = run(
        "play",
        "koenigsgarten",
        "-b",
        "random",
        "-b",
        "first-legal",
        "--seed",
        "5",
        "--match",
        "first-to-3",
        "--record",
        str(record),
    )
    assert code == 0, out
    data = json.loads(record.read_text())
    assert data["format"] == "arena-match/1"
    assert max(data["result"]["score"]) == 3
    wins = {"random": 0, "first-legal": 0}
    for game in data["games"]:
        winners = [
            p
            for p, place in zip(game["players"], game["outcome"]["ranking"], strict=True)
            if place == 1
        ]
        if len(winners) == 1:
            wins[winners[0]] += 1
    assert sorted(wins.values()) == sorted(data["result"]["score"])
    code, out, _ = run("replay", str(record))
    assert code == 0 and out.count("actions valid") == len(data["games"])


def test_points_match_reaches_its_target(tmp_path: Path) -> None:
    record = tmp_path / "match.json"
    code, _, _ = run(
        "play",
        "koenigsgarten",
        "-b",
        "random",
        "-b",
        "random:seed=1",
        "--seed",
        "3",
        "--match",
        "points-15",
        "--record",
        str(record),
    )
    assert code == 0
    data = json.loads(record.read_text())
    assert data["match"] == "points-15" and max(data["result"]["score"]) >= 15


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess", "-b", "random", "-b", "random"], "unknown game 'chess'"),
        (["play", "koenigsgarten", "-b", "random", "-b", "deep-blue"], "unknown bot: 'deep-blue'"),
        (
            ["play", "koenigsgarten", "-b", "random", "-b", "random:depth=3"],
            "unknown parameter 'depth'",
        ),
        (["play", "koenigsgarten", "-b", "random", "-b", "random:seed=x"], "'x'"),
        (["play", "koenigsgarten", "-b", "random"], "played by 2 seats, not 1"),
        (
            ["play", "koenigsgarten", "-b", "random", "-b", "random", "-O", "size=5"],
            "unknown option 'size'",
        ),
        (
            ["play", "koenigsgarten", "-b", "random", "-b", "random", "-O", "size"],
            "bad option 'size'",
        ),
        (
            ["play", "koenigsgarten", "-b", "random", "-b", "random", "--match", "best-of-7"],
            "unknown match format 'best-of-7'",
        ),
        (["replay", "/nonexistent/file.json"], "cannot read record"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(args: list[str], message: str) -> None:
    code, _, err = run(*args)
    assert code == 2
    assert message in one_line_error(err)


@pytest.fixture
def recorded_game(tmp_path: Path) -> dict[str, object]:
    path = tmp_path / "g.json"
    code, _, _ = run(
        "play",
        "koenigsgarten",
        "-b",
        "random",
        "-b",
        "random",
        "--seed",
        "21",
        "--record",
        str(path),
    )
    assert code == 0
    data: dict[str, object] = json.loads(path.read_text())
    return data


def _replay_edited(tmp_path: Path, data: object) -> str:
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    code, _, err = run("replay", str(path))
    assert code == 2
    return one_line_error(err)


def test_replay_names_the_first_illegal_action_by_index(
    tmp_path: Path, recorded_game: dict[str, list[list[object]]]
) -> None:
    actions = recorded_game["actions"]
    first, second = str(actions[0][1]), str(actions[1][1])
    # Seat 1 answers with a card that shares neither rank nor suit with seat 0's card.
    garden = [c for c in recorded_game["deal"]["layout"] if c not in (first, second)]  # type: ignore[index, call-overload]
    bad = next(c for c in garden if c[0] != first[0] and c[1] != first[1])
    actions[1][1] = bad
    message = _replay_edited(tmp_path, recorded_game)
    assert f"action 1 ({bad!r} by seat 1) is illegal" in message


def test_replay_rejects_a_malformed_action(
    tmp_path: Path, recorded_game: dict[str, list[list[object]]]
) -> None:
    recorded_game["actions"][2][1] = "Q?"
    assert "action 2 ('Q?' by seat 0) is illegal: not a Königsgarten action" in _replay_edited(
        tmp_path, recorded_game
    )


def test_replay_rejects_a_malformed_card_in_the_deal(
    tmp_path: Path, recorded_game: dict[str, dict[str, list[str]]]
) -> None:
    recorded_game["deal"]["layout"][3] = "1X"
    assert "'1X'" in _replay_edited(tmp_path, recorded_game)


def test_replay_rejects_an_action_out_of_turn(
    tmp_path: Path, recorded_game: dict[str, list[list[object]]]
) -> None:
    recorded_game["actions"][1][0] = 0
    assert "action 1" in _replay_edited(tmp_path, recorded_game)
    assert "out of turn" in _replay_edited(tmp_path, recorded_game)


def test_replay_rejects_a_wrong_outcome(
    tmp_path: Path, recorded_game: dict[str, dict[str, object]]
) -> None:
    recorded_game["outcome"]["termination"] = "resigned"
    assert "differs from the replayed" in _replay_edited(tmp_path, recorded_game)


def test_replay_rejects_a_record_cut_short(
    tmp_path: Path, recorded_game: dict[str, list[object]]
) -> None:
    recorded_game["actions"] = recorded_game["actions"][:3]
    assert "not over" in _replay_edited(tmp_path, recorded_game)


def test_replay_rejects_a_truncated_file(tmp_path: Path, recorded_game: object) -> None:
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(recorded_game)[:-40])
    code, _, err = run("replay", str(path))
    assert code == 2 and "not valid JSON (truncated?)" in one_line_error(err)


def test_replay_rejects_a_record_with_a_missing_field(
    tmp_path: Path, recorded_game: dict[str, object]
) -> None:
    del recorded_game["deal"]
    assert "bad field 'deal'" in _replay_edited(tmp_path, recorded_game)


def test_replay_rejects_an_unknown_game(tmp_path: Path, recorded_game: dict[str, object]) -> None:
    recorded_game["game"] = "go"
    assert "unknown game 'go'" in _replay_edited(tmp_path, recorded_game)


def test_replay_show_prints_the_game_step_by_step(tmp_path: Path, recorded_game: object) -> None:
    path = tmp_path / "g.json"
    path.write_text(json.dumps(recorded_game))
    code, out, _ = run("replay", str(path), "--show")
    assert code == 0 and "move 1: seat 0 plays" in out and "a    b    c    d" in out


def test_kings_in_the_corner_penalty_match(tmp_path: Path) -> None:
    record = tmp_path / "match.json"
    code, out, _ = run(
        "play",
        "kings_corner",
        "-b",
        "greedy",
        "-b",
        "random",
        "-b",
        "random",
        "--match",
        "penalties-25",
        "--seed",
        "4",
        "--record",
        str(record),
    )
    assert code == 0, out
    data = json.loads(record.read_text())
    assert data["players"] == ["greedy", "random#1", "random#2"]
    totals = [0, 0, 0]
    for number, game in enumerate(data["games"]):
        penalties = game["outcome"]["details"]["penalties"]
        for seat, player in enumerate(game["players"]):
            totals[data["players"].index(player)] += penalties[seat]
        assert game["players"][0] == data["players"][number % 3]  # the opener moves left
    assert totals == data["result"]["score"] and max(totals) >= 25
    assert data["result"]["winners"] == [
        p for p, t in zip(data["players"], totals, strict=True) if t == min(totals)
    ]
    code, out, _ = run("replay", str(record))
    assert code == 0 and out.count("actions valid") == len(data["games"])


def test_penalty_matches_belong_to_kings_in_the_corner() -> None:
    code, _, err = run(
        "play", "koenigsgarten", "-b", "random", "-b", "random", "--match", "penalties-25"
    )
    assert code == 2 and "koenigsgarten is not played in 'penalties-25' matches" in one_line_error(
        err
    )
    code, _, err = run(
        "play", "kings_corner", "-b", "random", "-b", "random", "--match", "penalties-30"
    )
    assert code == 2 and "penalties-25, penalties-50" in one_line_error(err)


def test_play_asks_the_game_for_its_match_formats(monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena play` names no game: which matches a game is played in is the game's own
    answer (Game.match_formats), here taken away from Kings in the Corner."""
    from engines.match import SINGLE_FORMAT
    from engines.registry import all_games, get_game

    source = (Path(__file__).parents[2] / "arena" / "cli" / "play.py").read_text()
    for game in all_games():
        assert repr(game.name) not in source and f'"{game.name}"' not in source
    monkeypatch.setattr(type(get_game("kings_corner")), "match_formats", lambda _: SINGLE_FORMAT)
    code, _, err = run(
        "play", "kings_corner", "-b", "random", "-b", "random", "--match", "penalties-25"
    )
    assert code == 2 and (
        "kings_corner is not played in 'penalties-25' matches (its formats: single)"
        in one_line_error(err)
    )
    code, out, _ = run("play", "kings_corner", "-b", "random", "-b", "random", "--seed", "3")
    assert code == 0, out
