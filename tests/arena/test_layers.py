"""The import contract of docs/architecture.md covers the whole of arena/ and holds."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from importlinter import cli

ROOT = Path(__file__).resolve().parents[2]


def _contracts() -> list[dict[str, object]]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        contracts: list[dict[str, object]] = tomllib.load(file)["tool"]["importlinter"]["contracts"]
    return contracts


def test_every_part_of_arena_has_a_layer() -> None:
    (inner,) = [c for c in _contracts() if c.get("containers") == ["arena"]]
    layers = inner["layers"]
    assert isinstance(layers, list)
    named = {name for layer in layers for name in re.split(r"[:|]", layer)}
    named = {name.strip() for name in named}
    parts = {
        path.stem if path.is_file() else path.name
        for path in (ROOT / "arena").iterdir()
        if (path.is_dir() and (path / "__init__.py").exists())
        or (path.suffix == ".py" and path.stem not in ("__init__", "__main__"))
    }
    assert parts == named


def test_the_contracts_hold() -> None:
    assert cli.lint_imports(config_filename=str(ROOT / "pyproject.toml")) == cli.EXIT_STATUS_SUCCESS
