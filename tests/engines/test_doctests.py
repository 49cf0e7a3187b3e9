"""The examples in the engines' docstrings run as tests, so they stay true (the
modules of engines/ itself; a sub-package runs its own)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import engines

MODULES = [
    importlib.import_module(f"engines.{module.name}")
    for module in pkgutil.iter_modules(engines.__path__)
    if not module.ispkg
]


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.__name__)
def test_docstring_examples_hold(module: ModuleType) -> None:
    failed, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert failed == 0
