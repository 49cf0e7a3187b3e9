"""The examples in the engines' docstrings run as tests, so they stay true: every
module of ``engines/`` and of its sub-packages (``engines.envs``)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import engines

MODULES = [
    importlib.import_module(module.name)
    for module in pkgutil.walk_packages(engines.__path__, prefix="engines.")
]


def test_every_engines_module_is_collected() -> None:
    root = Path(engines.__file__).parent
    on_disk = {
        ".".join(("engines", *path.relative_to(root).with_suffix("").parts)).removesuffix(
            ".__init__"
        )
        for path in root.rglob("*.py")
    }
    assert {module.__name__ for module in MODULES} | {"engines"} == on_disk


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.__name__)
def test_docstring_examples_hold(module: ModuleType) -> None:
    failed, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert failed == 0
