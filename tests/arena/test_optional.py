"""The extras of pyproject.toml: a core install (no web stack, PostgreSQL driver,
matplotlib, Ray, PettingZoo or Gymnasium) plays tournaments and prints text reports,
and every command that needs an extra says which one, in one line, without a traceback.
A missing package is simulated in a child interpreter (``sys.modules[name] = None``
makes its import fail as if it were not installed)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.optional import EXTRAS, MissingExtraError, require

ROOT = Path(__file__).resolve().parents[2]

# Each extra's packages, as the code imports them.
OPTIONAL = {
    "web": ("fastapi", "starlette", "uvicorn", "jinja2", "multipart", "python_multipart", "httpx"),
    "postgres": ("psycopg",),
    "plot": ("matplotlib",),
    "ray": ("ray",),
    "rl": ("pettingzoo", "gymnasium"),
}

PLAY = ("tournament", "run", "--game", "koenigsgarten", "--bot", "random", "--bot", "first-legal")

# Blocks every optional package, then runs the command line once per command in this
# interpreter; after each, a line "@@ EXIT_CODE" on stdout and "@@" on stderr.
CORE_ONLY = """
import sys

for name in {blocked!r}:
    sys.modules[name] = None
from arena.cli import main

for argv in {commands!r}:
    sys.argv = ["arena", *argv]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    print(f"@@ {{code}}", flush=True)
    print("@@", file=sys.stderr, flush=True)
"""


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str


def run_core_only(*commands: tuple[str, ...], cwd: Path) -> list[Ran]:
    """``arena COMMAND`` for each command, in ``cwd`` (its default database ``arena.db``
    there), without the extras."""
    blocked = tuple(name for names in OPTIONAL.values() for name in names)
    result = subprocess.run(
        [sys.executable, "-c", CORE_ONLY.format(blocked=blocked, commands=commands)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={key: value for key, value in os.environ.items() if key != "ARENA_DB"},
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    outs = re.split(r"^@@ (-?\d+)\n", result.stdout, flags=re.MULTILINE)
    errs = result.stderr.split("@@\n")
    assert len(outs) == 2 * len(commands) + 1 and outs[-1] == "", result.stdout
    return [Ran(int(outs[2 * i + 1]), outs[2 * i], errs[i]) for i in range(len(commands))]


def test_the_extras_are_the_ones_require_knows_and_all_holds_them() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert set(extras) == {*EXTRAS, "all", "dev"}
    assert extras["all"] == [f"arena[{','.join(EXTRAS)}]"]
    assert "arena[all]" in extras["dev"]


def test_the_core_dependencies_hold_no_optional_package() -> None:
    core = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = " ".join(core).lower()
    for package in ("ray", "matplotlib", "psycopg", "fastapi", "uvicorn", "jinja2", "httpx"):
        assert package not in names


def test_require_returns_an_installed_module() -> None:
    assert require("tomllib", extra="plot") is tomllib


def test_require_names_the_extra_of_a_missing_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingExtraError) as caught:
        require("ray", extra="ray")
    assert str(caught.value) == "Ray is not installed: pip install 'arena[ray]'"


def test_require_names_the_package_of_a_missing_submodule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    # An earlier test in this process may have imported pyplot: as if it never had.
    monkeypatch.delitem(sys.modules, "matplotlib.pyplot", raising=False)
    with pytest.raises(MissingExtraError, match=r"matplotlib is not installed: .*arena\[plot\]"):
        require("matplotlib.pyplot", extra="plot")


def test_require_rejects_an_unknown_extra() -> None:
    with pytest.raises(ValueError, match="'plots'"):
        require("matplotlib", extra="plots")


@pytest.mark.slow
def test_a_core_install_plays_a_tournament_and_reports_it_as_text(tmp_path: Path) -> None:
    formats = ("text", "md", "json", "csv")
    played, *reports = run_core_only(
        (*PLAY, "--games", "4"),
        *[("report", "1", "--format", fmt) for fmt in formats],
        cwd=tmp_path,
    )
    assert played.code == 0, played.stderr
    for report in reports:
        assert report.code == 0, report.stderr
        assert "random" in report.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            (*PLAY, "--games", "2", "--executor", "ray"),
            "Ray is not installed: pip install 'arena[ray]'",
            marks=pytest.mark.slow,
        ),
        (("serve",), "FastAPI is not installed: pip install 'arena[web]'"),
        (("bench", "web"), "FastAPI is not installed: pip install 'arena[web]'"),
        (("bench", "envs"), "PettingZoo is not installed: pip install 'arena[rl]'"),
        (
            ("tournament", "list", "--db", "postgresql+psycopg://arena@localhost/arena"),
            "psycopg (the PostgreSQL driver) is not installed: pip install 'arena[postgres]'",
        ),
    ],
    ids=["ray", "serve", "bench-web", "bench-envs", "postgres"],
)
def test_a_command_needing_a_missing_extra_names_it(
    argv: tuple[str, ...], message: str, tmp_path: Path
) -> None:
    (ran,) = run_core_only(argv, cwd=tmp_path)
    assert ran.code == 2, ran.stderr
    assert message in ran.stderr
    assert "Traceback" not in ran.stderr


@pytest.mark.slow
def test_a_report_plot_without_matplotlib_names_the_plot_extra(tmp_path: Path) -> None:
    played, *reports = run_core_only(
        (*PLAY, "--games", "2"),
        ("report", "1", "--plot", "plot.png"),
        ("report", "1", "--format", "html"),
        cwd=tmp_path,
    )
    assert played.code == 0, played.stderr
    for ran in reports:
        assert ran.code == 2, ran.stderr
        assert "matplotlib is not installed: pip install 'arena[plot]'" in ran.stderr
        assert "Traceback" not in ran.stderr
        assert ran.stdout == ""  # said before any of the report is shown
