# Two commands for a newcomer (see README): `make demo` sets up and runs the main job,
# `make test` runs the tests. Both create .venv and install the package on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

demo: $(VENV)/.installed
	$(BIN)/sim run --preset rummy101 --rounds 100000 --seed 1 --out data/demo/run

test: $(VENV)/.installed
	$(BIN)/python -m pytest

lint: $(VENV)/.installed
	$(BIN)/ruff check .

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/bench_opening.py

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e ".[dev]"
	touch $@

clean:
	rm -rf $(VENV) data/demo
