"""The command line's conventions: `--version`, shell completion, `-q`/`-v`, usage
errors as one `error:` line with "did you mean", readable metavars, progress lines when
piped, one seed rule, `arena replay` of a match; and errors that name the real problem."""

from __future__ import annotations

import importlib.metadata
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer._click import Command
from typer.core import TyperGroup
from typer.testing import CliRunner

from arena.cli import COMMANDS, app, build_command
from arena.tournament import progress
from arena.tournament.progress import ProgressDisplay
from engines.errors import did_you_mean, short_repr

runner = CliRunner()
ARENA = Path(sys.executable).parent / "arena"
FOUR_BOTS = ("-b", "random", "-b", "greedy", "-b", "first-legal", "-b", "random:seed=3")


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    return result.exit_code, result.stdout, result.stderr


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_version_prints_the_installed_version() -> None:
    code, out, _ = run("--version")
    assert code == 0
    assert out == f"arena {importlib.metadata.version('arena')}\n"


@pytest.mark.parametrize(
    ("args", "error", "hint"),
    [
        (
            ["games", "--bogus"],
            "error: no such option '--bogus' (did you mean '--verbose'?)",
            "arena games",
        ),
        (["--bogus"], "error: no such option '--bogus'", "arena"),
        (["gmaes"], "error: no such command 'gmaes' (did you mean 'games'?)", "arena"),
        (["bots", "ad"], "error: no such command 'ad' (did you mean 'add'?)", "arena bots"),
        (
            ["tournament", "run", "--gmae", "x"],
            "error: no such option '--gmae' (did you mean '--game' or '--games' or '--name'?)",
            "arena tournament run",
        ),
        (
            ["tournament", "run", "--games", "x"],
            "error: invalid value 'x' for '--games': ",
            "arena tournament run",
        ),
        (["play"], "error: missing argument 'GAME'", "arena play"),
    ],
)
def test_a_usage_error_is_one_error_line_and_a_hint(args: list[str], error: str, hint: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == ""
    assert lines(err) == [lines(err)[0], f"Try '{hint} --help' for help."], err
    assert lines(err)[0].startswith(error), err
    assert "╭" not in err and "Usage:" not in err and "Traceback" not in err


def help_texts() -> list[tuple[str, str]]:
    """Every command's help, groups and their commands alike."""
    texts = [("arena", run("--help")[1])]

    def visit(path: list[str], command: Command) -> None:
        texts.append((" ".join(path), run(*path, "--help")[1]))
        if isinstance(command, TyperGroup):
            for name, sub in command.commands.items():
                visit([*path, name], sub)

    for name in COMMANDS:
        visit([name], build_command(name))
    return texts


def test_help_shows_readable_metavars_everywhere() -> None:
    texts = help_texts()
    assert len(texts) > 30
    for path, text in texts:
        assert "Usage:" in text, path
        assert not re.search(r"<(str|int|float|bool|path|list\[\w+\])[^>]*>", text), (path, text)
    bots_add = dict(texts)["bots add"]
    assert re.search(r"--game\s+-g\s+GAME\s", bots_add)
    assert re.search(r"--check-time\s+NUMBER\s", bots_add)
    assert "arena bots add [OPTIONS] {NAME}" in bots_add
    run_help = dict(texts)["tournament run"]
    assert re.search(r"--games\s+N\s", run_help) and re.search(r"--type\s+TYPE\s", run_help)
    assert re.search(r"--deals\s+FILE\s", run_help)


def test_every_command_takes_quiet_and_verbose() -> None:
    for path, text in help_texts()[1:]:
        if "Commands" not in text:  # a command, not a group
            assert "--quiet" in text and "-q" in text and "--verbose" in text, path


def test_completion_script_and_completing_a_lazy_command() -> None:
    # The shell named, not detected from the parent processes (pytest's workers may
    # have no shell among them): Typer's own switch for that.
    named = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    shown = subprocess.run(
        [ARENA, "--show-completion", "bash"], capture_output=True, text=True, timeout=120, env=named
    )
    assert shown.returncode == 0, shown.stderr
    assert "complete -o default -F _arena_completion arena" in shown.stdout
    for words, expected in (
        ("arena gam", ["games"]),
        ("arena tournament re", ["resume"]),
        ("arena play k", ["kardinal", "kings_corner", "koenigsgarten"]),
        ("arena tournament run --game kar", ["kardinal"]),
        ("arena play koenigsgarten -b mc", ["mcts"]),
        ("arena play koenigsgarten --se", ["--seed"]),
    ):
        env = {
            **os.environ,
            "_ARENA_COMPLETE": "complete_bash",
            "COMP_WORDS": words,
            "COMP_CWORD": str(len(words.split()) - 1),
        }
        completed = subprocess.run([ARENA], capture_output=True, text=True, env=env, timeout=120)
        assert completed.stdout.split() == expected, (words, completed.stdout, completed.stderr)


def tournament(db: Path, *args: str, root: tuple[str, ...] = ()) -> tuple[int, str, str]:
    """``arena [ROOT…] tournament run`` of four bots of Kings in the Corner, 8 games."""
    return run(
        *root,
        "tournament",
        "run",
        "--db",
        str(db),
        "--game",
        "kings_corner",
        *FOUR_BOTS,
        "--games",
        "8",
        "--rating-interval",
        "0",
        *args,
    )


def test_a_piped_run_prints_progress_lines_standings_and_the_next_command(
    tmp_path: Path,
) -> None:
    code, out, _ = tournament(tmp_path / "a.db", "--seed", "4")
    assert code == 0
    shown = lines(out)
    assert shown[0] == "tournament 1: kings_corner round-robin (round-robin, kings_corner, seed 4)"
    assert any(
        re.fullmatch(r"\[8/8\] 100% [\d,]+ games/s, 0:\d\d:\d\d elapsed, .*", s) for s in shown
    )
    assert any("greedy@1" in s for s in shown) and any("score %" in s for s in shown)
    assert shown[-2].startswith("tournament 1: completed, 8 of 8 games stored")
    assert shown[-1] == "next: `arena report 1`"


@pytest.mark.parametrize("where", ["root", "command"])
def test_quiet_prints_the_result_alone(tmp_path: Path, where: str) -> None:
    if where == "root":
        code, out, err = tournament(tmp_path / "a.db", "--seed", "4", root=("-q",))
    else:
        code, out, err = tournament(tmp_path / "a.db", "--seed", "4", "-q")
    assert code == 0 and err == ""
    assert len(lines(out)) == 1 and out.startswith("tournament 1: completed, 8 of 8 games")


def test_progress_lines_every_tenth_when_piped_and_every_batch_when_verbose(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(progress, "PROGRESS_LINE_SECONDS", 1e9)  # no time-based lines

    def shown(*, verbose: bool) -> list[str]:
        out = io.StringIO()
        display = ProgressDisplay(Console(file=out, force_terminal=False), "t", verbose=verbose)
        with display:
            display.start(0, 100)
            for done in (1, 5, 9, 10, 11, 25, 25, 100):
                display.update(done, 100)
        return [line.split("]")[0] + "]" for line in lines(out.getvalue())]

    assert shown(verbose=False) == ["[10/100]", "[25/100]", "[100/100]"]
    assert shown(verbose=True) == [f"[{n}/100]" for n in (1, 5, 9, 10, 11, 25, 100)]


def test_verbose_prints_a_line_per_batch(tmp_path: Path) -> None:
    _, normal, _ = tournament(tmp_path / "a.db", "--seed", "4", "--games", "40")
    _, verbose, _ = tournament(tmp_path / "a.db", "--seed", "4", "--games", "40", root=("-v",))
    progress_lines = [
        [s for s in lines(text) if re.match(r"\[\d+/40\] \d+%", s)] for text in (normal, verbose)
    ]
    assert len(progress_lines[1]) >= len(progress_lines[0]) >= 1
    assert progress_lines[1][-1].startswith("[40/40] 100%")


def test_without_a_seed_a_random_one_is_printed_and_repeats_the_run(tmp_path: Path) -> None:
    code, out, _ = run("play", "kings_corner", "-b", "random", "-b", "greedy")
    assert code == 0
    seed = re.search(r"seed (\d+)", out)
    assert seed is not None
    again = run("play", "kings_corner", "-b", "random", "-b", "greedy", "--seed", seed[1])[1]
    assert again == out
    _, first, _ = tournament(tmp_path / "a.db")
    assert re.search(r"kings_corner, seed \d+\)", " ".join(first.split()))  # wrapped or not
    config = tmp_path / "t.toml"
    config.write_text('game = "kings_corner"\nseed = 9\ngames = 4\n')
    code, out, _ = run("tournament", "run", str(config), "--db", str(tmp_path / "a.db"), *FOUR_BOTS)
    assert code == 0 and "kings_corner, seed 9)" in " ".join(out.split())


def test_replay_prints_the_result_of_a_match(tmp_path: Path) -> None:
    record = tmp_path / "match.json"
    code, out, _ = run(
        "play", "kings_corner", "-b", "random", "-b", "greedy", "--match", "penalties-25",
        "--seed", "3", "--record", str(record),
    )  # fmt: skip
    assert code == 0
    played = re.search(r"match \(penalties to 25\): (\w+) wins", out)
    assert played is not None
    code, out, _ = run("replay", str(record))
    assert code == 0
    assert re.search(rf"match \(penalties-25\): {played[1]} wins; random \d+, greedy \d+$", out)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "kardnal"], "unknown game 'kardnal' (did you mean 'kardinal'? known: "),
        (
            ["play", "kings_corner", "-b", "random", "-b", "random", "-O", "king_piles=x"],
            "unknown option 'king_piles' for kings_corner (did you mean 'king_piles_to_corner'? ",
        ),
        (
            ["play", "kings_corner", "-b", "random", "-b", "random", "--match", "penaltis-25"],
            "unknown match format 'penaltis-25' (did you mean 'penalties-25' or 'penalties-50'? ",
        ),
        (
            ["play", "koenigsgarten", "-b", "ranodm", "-b", "random"],
            "unknown bot: 'ranodm' (did you mean 'random'? built-in kinds for koenigsgarten: ",
        ),
    ],
)
def test_a_misspelt_name_gets_a_did_you_mean(args: list[str], message: str) -> None:
    code, _, err = run(*args)
    assert code == 2
    assert lines(err) == [lines(err)[0]] and lines(err)[0].startswith(f"error: {message}"), err


@pytest.mark.parametrize(
    ("bot", "message"),
    [
        ("mcts:iterations=-5", "bad value '-5' for parameter 'iterations' of bot 'mcts'"),
        ("mcts:nosuch=1", "unknown parameter 'nosuch' for bot 'mcts' (known: seed, "),
        ("mtcs:iterations=5", "bot 'mtcs:iterations=5': unknown bot: 'mtcs' (did you mean 'mcts'?"),
        ("ranodm", "unknown bot 'ranodm': not registered (`arena bots list`) and not a built-in "),
        ("mybot12", "(did you mean 'mybot123'? built-in kinds: first-legal, greedy, mcts,"),
    ],
)
def test_a_tournament_bot_error_names_the_real_problem(
    tmp_path: Path, bot: str, message: str
) -> None:
    db = str(tmp_path / "a.db")
    code, _, err = run(
        "bots", "add", "mybot123", "-g", "koenigsgarten", "--builtin", "greedy", "--db", db
    )
    assert code == 0, err
    code, _, err = run(
        "tournament", "run", "--db", db, "--game", "koenigsgarten", "-b", bot, "-b", "random"
    )
    assert code == 2
    assert len(lines(err)) == 1 and message in err, err
    if ":" in bot:
        assert "not registered" not in err


def test_a_missing_field_quotes_no_input_and_a_long_input_is_cut() -> None:
    code, _, err = run("tournament", "run")
    assert code == 2 and lines(err) == ["error: command line: field 'game': Field required"]
    assert short_repr("x" * 500) == repr("x" * 500)[:79] + "…"
    assert short_repr([1, 2]) == "[1, 2]"
    assert did_you_mean("Kardnal", ["kardinal", "kings_corner"]) == "did you mean 'kardinal'? "
    assert did_you_mean("chess", ["kardinal", "kings_corner"]) == ""


def test_a_flag_means_one_thing_in_every_command() -> None:
    long_names: dict[str, set[tuple[str, ...]]] = {}
    format_helps: list[str] = []

    def visit(command: Command) -> None:
        if isinstance(command, TyperGroup):
            for sub in command.commands.values():
                visit(sub)
            return
        for param in command.params:
            longs = tuple(name for name in param.opts if name.startswith("--"))
            for name in param.opts:
                if not name.startswith("--"):
                    long_names.setdefault(name, set()).add(longs)
            if "--format" in longs:
                format_helps.append(getattr(param, "help", "") or "")

    for name in COMMANDS:
        visit(build_command(name))
    assert {short: longs for short, longs in long_names.items() if len(longs) > 1} == {}
    assert long_names["-o"] == {("--output",)} and long_names["-O"] == {("--option",)}
    assert format_helps and all(text.startswith("output format") for text in format_helps)


def test_quiet_play_prints_the_results_alone() -> None:
    args = ("play", "kings_corner", "-b", "greedy", "-b", "random", "--seed", "1")
    code, out, _ = run("-q", *args)
    assert code == 0 and lines(out) == ["seat 0 (greedy) wins (hand emptied)"]
    code, out, _ = run(*args, "--match", "penalties-25", "-q")
    assert code == 0
    assert all(re.fullmatch(r"seat \d \(\w+\) wins \(.*\)", s) for s in lines(out)[:-1])
    assert lines(out)[-1] == "match (penalties to 25): greedy wins"
    code, out, _ = run(*args)
    assert "seed 1" in lines(out)[0] and len(lines(out)) > 5


def test_a_misspelt_registered_bot_gets_a_did_you_mean(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    code, _, err = run(
        "bots", "add", "mybot123", "-g", "koenigsgarten", "--builtin", "greedy", "--db", db
    )
    assert code == 0, err
    for args, message in (
        (["bots", "show", "mybot12"], "no bot 'mybot12' (did you mean 'mybot123'? see "),
        (["bots", "remove", "mybot13", "-g", "koenigsgarten"], "no bot 'mybot13' for koenig"),
        (["play", "koenigsgarten", "-b", "mybot12", "-b", "random"], "(did you mean 'mybot123'?"),
    ):
        code, _, err = run(*args, "--db", db)
        assert code == 2 and len(lines(err)) == 1 and message in err, err
        assert err.count("did you mean") == 1, err


def test_a_misspelt_config_field_gets_a_did_you_mean(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text('game = "kings_corner"\nseeds = 3\n')
    code, _, err = run("tournament", "run", str(config), "--db", str(tmp_path / "a.db"))
    assert code == 2 and len(lines(err)) == 1
    assert f"error: {str(config)!r}: unknown field 'seeds' (did you mean 'seed' or " in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--type", "roundrobin"], "(got 'roundrobin'; did you mean 'round-robin'?)"),
        (["--executor", "proceses"], "(got 'proceses'; did you mean 'processes'?)"),
        (["--format", "jsn"], "unknown output format 'jsn' (did you mean 'json'? formats: "),
    ],
)
def test_a_misspelt_value_of_tournament_run_gets_a_did_you_mean(
    tmp_path: Path, args: list[str], message: str
) -> None:
    code, _, err = tournament(tmp_path / "a.db", *args)
    assert code == 2 and len(lines(err)) == 1 and message in err, err


def test_misspelt_report_and_listing_values_get_a_did_you_mean(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    assert tournament(db, "--seed", "1")[0] == 0
    for args, message in (
        (["report", "1", "--format", "mdd"], "unknown format 'mdd' (did you mean 'md'? "),
        (["tournament", "games", "1", "--result", "wn"], "unknown result 'wn' (did you mean"),
    ):
        code, _, err = run(*args, "--db", str(db))
        assert code == 2 and len(lines(err)) == 1 and message in err, err
