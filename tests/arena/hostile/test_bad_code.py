"""Bad code, clear error (issue 28, point 6): Python code nested too deeply or with an
expression too long for Python's parser is refused with one line naming the file, exit
code 2 on the command line and 422 over the web; never a traceback or a 503."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.players.loader import BotLoadError, python_bot_class_name
from tests.arena.web.conftest import FIRST_LEGAL, Web

LONG_EXPRESSION = "x = " + "+".join(["1"] * 450_000) + "\n" + FIRST_LEGAL
"""A 450,000-term expression (900 kB) before a bot that would play."""
TOO_LONG = "the code is nested too deeply or an expression is too long for Python to parse"


def test_arena_bots_add_refuses_a_450000_term_expression_in_one_line(tmp_path: Path) -> None:
    file = tmp_path / "long.py"
    file.write_text(LONG_EXPRESSION)
    db = tmp_path / "arena.db"
    result = CliRunner().invoke(
        app,
        ["bots", "add", "long", "--python", str(file), "-g", "koenigsgarten", "--db", str(db)],
    )
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: long.py: {TOO_LONG}")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("x = " + "-" * 450_000 + "1", id="450,000 unary minuses"),
        pytest.param("x = a" + ".b" * 450_000, id="450,000 attributes"),
        pytest.param("x = " + "not " * 100_000 + "1", id="100,000 nots"),
    ],
)
def test_deep_or_long_code_is_a_load_error_naming_the_file(code: str) -> None:
    with pytest.raises(BotLoadError, match=re.escape(f"deep.py: {TOO_LONG}")):
        python_bot_class_name(code, "deep.py", None)


def test_a_syntax_error_without_a_line_says_so_without_none() -> None:
    with pytest.raises(BotLoadError, match=r"^nul\.py: syntax error: .*null bytes") as raised:
        python_bot_class_name("x = 1\x00\n", "nul.py", None)
    assert "None" not in str(raised.value)


@pytest.mark.slow  # the submission check runs in a child process
def test_the_web_refuses_a_450000_term_expression_with_422(web: Web) -> None:
    response = web.client.post(
        "/api/bots",
        headers=web.auth(),
        data={"name": "long", "game": "koenigsgarten"},
        files={"file": ("long.py", LONG_EXPRESSION.encode(), "text/x-python")},
    )
    assert response.status_code == 422, response.text
    assert response.json()["detail"].startswith(f"long.py: {TOO_LONG}")
