# `make demo` and `make test` work on a fresh machine: each creates .venv when it is
# missing and installs the project into it, the demo only the core (pyproject.toml),
# the tests the `dev` extra (every extra and the tools). The install is redone only
# when pyproject.toml changes, so a second run installs nothing new; the `dev` install
# holds the core, so `make demo` after `make test` installs nothing either.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
CORE_INSTALLED := $(VENV)/.installed-core

.PHONY: demo test test-fast lint bench clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "arena needs Python 3.11 or newer"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(INSTALLED) $(CORE_INSTALLED)

$(CORE_INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(CORE_INSTALLED)

demo: $(CORE_INSTALLED)
	$(BIN)/arena demo

test: $(INSTALLED)
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup

# Everything but the tests marked slow (see pyproject.toml), and property tests with a
# quarter of their examples (the `fast` Hypothesis profile, tests/conftest.py) unless
# HYPOTHESIS_PROFILE says otherwise. CI runs `make test`.
test-fast: $(INSTALLED)
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-fast} $(BIN)/python -m pytest -q -n 2 --dist loadgroup -m "not slow"

lint: $(INSTALLED)
	$(BIN)/ruff check arena bots engines tests
	$(BIN)/ruff format --check arena bots engines tests
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(INSTALLED)
	$(BIN)/arena bench engines

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
