# Two commands for a newcomer (see README): `make demo` sets up and runs the main job,
# `make test` runs the tests. Both create .venv and install the package on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean reference-report lab

demo: $(VENV)/.installed
	$(BIN)/sim run --preset rummy101 --rounds 100000 --seed 1 --out data/demo/run

test: $(VENV)/.installed
	$(BIN)/python -m pytest

lint: $(VENV)/.installed
	$(BIN)/ruff check .

lab: $(VENV)/.installed
	$(BIN)/pip install --quiet --disable-pip-version-check -e ".[dev,notebooks]"
	$(BIN)/jupyter lab notebooks

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/bench_opening.py

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e ".[dev,cluster]"
	touch $@

clean:
	rm -rf $(VENV) data/demo

# The reference report (reports/reference): about 19 million rounds and 20 million dealt
# racks, about 45 minutes on 2 cores. Reruns skip what data/reference already holds.
REF := data/reference
reference-report: $(VENV)/.installed
	$(BIN)/sim sweep --grid players=2,3,4 --grid threshold_mode=fixed,increasing \
		--grid button_jokers=0,1 --rounds 1000000 --seed 2026 --out $(REF)/variants
	$(BIN)/sim sweep --grid open_points=81,91,101,111,121 --rounds 1000000 --seed 2026 \
		--out $(REF)/thresholds
	$(BIN)/sim sweep --grid starter_may_open=true,false --rounds 1000000 --seed 2026 --out $(REF)/starter
	$(BIN)/sim deal-stats --rack-size 21 --samples 10000000 --seed 2026 --out $(REF)/deal-21.parquet --overwrite
	$(BIN)/sim deal-stats --rack-size 22 --samples 10000000 --seed 2026 --out $(REF)/deal-22.parquet --overwrite
	$(BIN)/sim report --data $(REF)/deal-21.parquet --data $(REF)/deal-22.parquet \
		--data $(REF)/variants --data $(REF)/thresholds --data $(REF)/starter --notes reports/reference-notes.md \
		--baseline players=4 --baseline open_points=101 --baseline starter_may_open=true --out reports/reference
