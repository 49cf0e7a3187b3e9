"""The console script runs NumPy's linear algebra on one thread unless the user says."""

from __future__ import annotations

import os

import pytest

import arena.cli


def test_main_sets_single_threaded_blas_and_keeps_a_users_choice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    seen: dict[str, str | None] = {}

    def fake_app(prog_name: str) -> None:
        seen.update({name: os.environ.get(name) for name in arena.cli.SINGLE_THREADED_BLAS})

    monkeypatch.setattr(arena.cli, "app", fake_app)
    arena.cli.main()
    assert seen == {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "3"}
