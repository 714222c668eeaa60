# The two commands of the README: `make demo` and `make test`. Both create .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: demo test test-all bench lint typecheck clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@ $(STAMP_RUN)

demo: $(STAMP_RUN)
	$(BIN)/anonkit demo --output-dir demo-output

# The default suite on TEST_WORKERS processes (2: the CI machines have two cores; 1 runs it
# in this process). test-all stays in one process: it holds the timed benchmarks.
TEST_WORKERS ?= 2
test: $(STAMP_DEV)
	$(BIN)/python -m pytest -q $(if $(filter-out 1,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist worksteal)

test-all: $(STAMP_DEV)
	$(BIN)/python -m pytest -q -m ""

bench: $(STAMP_DEV)
	$(BIN)/python benchmarks/ingest_1m.py
	$(BIN)/python benchmarks/lattice_adult.py

lint: $(STAMP_DEV)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(STAMP_DEV)
	$(BIN)/mypy

clean:
	rm -rf $(VENV) demo-output .pytest_cache .mypy_cache .ruff_cache
