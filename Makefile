# Two commands for a newcomer (see README): `make demo` sets up and runs the main job,
# `make test` runs the tests. Both create .venv and install what they need on first use:
# the demo only the package, the tests its test tools too.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip install --disable-pip-version-check

.PHONY: demo test test-fast compile browser lint bench clean reference-report reference-expert-sweeps reference-rummikub reference-cards reference-skill notebook-data lab

demo: $(VENV)/.core
	$(BIN)/sim run --preset rummy101 --rounds 100000 --seed 1 --out data/demo/run

# The tests: the kernels compile first (in parallel, behind a bar), not inside whichever
# test meets them first; the browser tests get Debian's chromium where it can be installed.
test: $(VENV)/.dev browser compile
	$(BIN)/python -m pytest -n auto

# The tests without the slow ones (marked `slow`: thousands of refereed rounds, the
# statistical checks, subprocess runs): a few minutes quicker, for development.
test-fast: $(VENV)/.dev compile
	$(BIN)/python -m pytest -n auto -m "not slow"

# Every numba kernel of the package, compiled once on this machine (later runs load them).
compile: $(VENV)/.core
	$(BIN)/sim compile

# The browser tests (the notebooks in JupyterLab, the HTML reports) need Debian's chromium
# and its driver: installed here as root on a Debian machine; elsewhere those tests are
# skipped, saying why.
browser:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's chromium and chromium-driver for the browser tests"; \
	    apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 \
	      || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1; } \
	      || echo "could not install chromium: the browser tests will be skipped"; \
	  else \
	    echo "no chromium: the browser tests will be skipped (sudo apt-get install chromium chromium-driver)"; \
	  fi; \
	fi

lint: $(VENV)/.dev
	$(BIN)/ruff check .

bench: $(VENV)/.core
	$(BIN)/python benchmarks/bench_opening.py

$(VENV)/.core: pyproject.toml
	@echo "setting up .venv: the package and its libraries (numba, polars, matplotlib, ...), once"
	$(PYTHON) -m venv $(VENV)
	$(PIP) -e .
	touch $@

$(VENV)/.dev: $(VENV)/.core
	@echo "installing the test tools (pytest, hypothesis, JupyterLab, dask, ...), once"
	$(PIP) -e ".[dev,cluster]"
	touch $@


clean:
	rm -rf $(VENV) data/demo data/notebooks

# Small datasets for the notebooks' defaults (data/notebooks, about two minutes): the
# reference report's sweeps at 25,000 rounds per variant and 200,000 dealt racks.
NB := data/notebooks
notebook-data: $(NB)/.done
$(NB)/.done: $(VENV)/.core
	$(BIN)/sim sweep --grid players=2,3,4 --grid threshold_mode=fixed,increasing \
		--grid button_jokers=0,1 --rounds 25000 --seed 2026 --out $(NB)/variants --no-progress
	$(BIN)/sim sweep --grid open_points=81,91,101,111,121 --rounds 25000 --seed 2026 --out $(NB)/thresholds \
		--no-progress
	$(BIN)/sim deal-stats --rack-size 21 --samples 200000 --seed 2026 --out $(NB)/deal-21.parquet --overwrite
	$(BIN)/sim deal-stats --rack-size 22 --samples 200000 --seed 2026 --out $(NB)/deal-22.parquet --overwrite
	$(BIN)/sim sweep --preset rummikub --grid players=2,3,4 --grid open_points=30,50 --rounds 2000 --seed 2026 \
		--out $(NB)/rummikub --no-progress
	$(BIN)/sim sweep --preset rummy101-cards --grid players=2,3,4 --grid target=101,500 --matches 5000 --seed 2026 \
		--out $(NB)/cards --no-progress
	$(BIN)/sim skill --preset rummy101-cards --players 2 --policies greedy,expert,oracle --matches 400 --seed 2026 \
		--out $(NB)/skill --no-progress
	touch $@

# JupyterLab on the notebooks, with their data, opening the jupytext .py notebooks as
# notebooks on a double click (notebooks/jupyterlab-settings/overrides.json).
lab: $(VENV)/.dev $(NB)/.done
	$(BIN)/jupyter lab --LabApp.app_settings_dir=notebooks/jupyterlab-settings \
		$(if $(filter 0,$(shell id -u)),--allow-root) notebooks

# The reference report (reports/reference): about 22 million rounds and 20 million dealt
# racks, 35 to 45 minutes on 2 cores, then the report step, 1 min 14 s (median of six runs) and
# 12.8 GB of memory at its peak (2026-12-07, an AMD EPYC; 1 min 33 s on 2026-12-05's machine, 2 to
# 3 min on slower ones, 6 min 26 s before in_memory). Reruns skip what data/reference already holds.
REF := data/reference
reference-report: $(VENV)/.core
	$(BIN)/sim sweep --grid players=2,3,4 --grid threshold_mode=fixed,increasing \
		--grid button_jokers=0,1 --rounds 1000000 --seed 2026 --out $(REF)/variants
	$(BIN)/sim sweep --grid open_points=81,91,101,111,121 --rounds 1000000 --seed 2026 \
		--out $(REF)/thresholds
	$(BIN)/sim sweep --grid starter_may_open=true,false --rounds 1000000 --seed 2026 --out $(REF)/starter
	$(BIN)/sim sweep --duplicate --grid players=2,3,4 --grid starter_may_open=true,false --grid starter_extra=1,0 \
		--rounds 240000 --chunk 24000 --seed 2026 --out $(REF)/seats
	$(BIN)/sim deal-stats --rack-size 21 --samples 10000000 --seed 2026 --out $(REF)/deal-21.parquet --overwrite
	$(BIN)/sim deal-stats --rack-size 22 --samples 10000000 --seed 2026 --out $(REF)/deal-22.parquet --overwrite
	$(MAKE) reference-expert-sweeps
	$(BIN)/sim report --data $(REF)/deal-21.parquet --data $(REF)/deal-22.parquet \
		--data $(REF)/variants --data $(REF)/thresholds --data $(REF)/starter --data $(REF)/seats \
		--data $(REF)/expert/variants --data $(REF)/expert/thresholds --data $(REF)/expert/starter \
		--data $(REF)/expert/seats \
		--notes reports/reference-notes.md --baseline players=4 --baseline open_points=101 \
		--baseline starter_may_open=true --baseline starter_extra=1 --out reports/reference

# The same sweeps with every seat expert (issue 27: findings that hold for good play), on
# the first rounds of the same seed (the same tiles as the greedy rounds they are set
# beside): 30,000 rounds a variant (seats: 24,000, duplicate), 858,000 rounds, about 20
# minutes on 2 cores.
reference-expert-sweeps: $(VENV)/.core
	$(BIN)/sim sweep --grid players=2,3,4 --grid threshold_mode=fixed,increasing --grid button_jokers=0,1 \
		--rounds 30000 --seed 2026 --policy expert --out $(REF)/expert/variants
	$(BIN)/sim sweep --grid open_points=81,91,101,111,121 --rounds 30000 --seed 2026 --policy expert \
		--out $(REF)/expert/thresholds
	$(BIN)/sim sweep --grid starter_may_open=true,false --rounds 30000 --seed 2026 --policy expert \
		--out $(REF)/expert/starter
	$(BIN)/sim sweep --duplicate --grid players=2,3,4 --grid starter_may_open=true,false --grid starter_extra=1,0 \
		--rounds 24000 --chunk 24000 --seed 2026 --policy expert --out $(REF)/expert/seats

# The reference report's Rummikub part (reports/reference-rummikub): every house rule
# (K-VAR) alone against the standard game, and the two readings of table jokers
# (K-JOKER-2: bound, free), 2-4 players, in seven paired sweeps of 5,000 rounds per
# variant, wrap_runs too since the table solver cuts the circle of numbers where few runs
# cross (issue 26: its greedy sweep took 34 minutes for 150 rounds before); then the
# same sweeps with every seat expert (data/reference/rummikub/expert: the same seed, so the
# same tiles), set beside the greedy ones in the report (issue 27). Reruns skip what
# data/reference holds.
RK := $(REF)/rummikub
RK_RULES := open_points=30,50 joker_penalty=30,25 locked_jokers=false,true easing_open=false,true \
	last_call=false,true wrap_runs=false,true joker_moves=bound,free
reference-rummikub: $(VENV)/.core
	for policy in greedy expert; do \
		to=$(RK); [ $$policy = expert ] && to=$(RK)/expert; \
		for rule in $(RK_RULES); do \
			$(BIN)/sim sweep --preset rummikub --grid players=2,3,4 --grid $$rule --rounds 5000 --seed 2026 \
				--chunk 1000 --policy $$policy --out $$to/$${rule%%=*} || exit 1; \
		done; \
	done
	$(BIN)/sim report $(foreach r,$(RK_RULES),--data $(RK)/$(firstword $(subst =, ,$(r)))) \
		$(foreach r,$(RK_RULES),--data $(RK)/expert/$(firstword $(subst =, ,$(r)))) \
		--notes reports/reference-rummikub-notes.md --baseline players=4 --out reports/reference-rummikub

# Which rules reward skill (reports/reference-skill, issue 22): `sim skill` at four players,
# the standard game and each house rule alone (a run per rule, its two values side by side on
# the same deals), every bot of each family's ladder in every seat against greedy in the
# others, the oracle last (the fictive player of relative skill): Rummy 101 8,000 rounds a bot
# and variant (500 deals), Rummikub 3,200 (200 deals), both greedy, careful, expert and oracle
# (their searches would take hours at these sizes), card Rummy 101 800 matches (50 deals, its
# ladder with the search). 53 minutes on 2 cores, compiling included (2026-12-05); reruns
# skip what data/reference holds.
SK := $(REF)/skill
SKILL_RUNS := rummy101:8000:threshold_mode=fixed,increasing rummy101:8000:button_jokers=0,1 \
	rummy101:8000:starter_may_open=true,false rummy101:8000:open_points=81,101,121 \
	$(foreach r,$(RK_RULES),rummikub:3200:$(r)) \
	rummy101-cards:800:partners=false,true rummy101-cards:800:decks=1,2 rummy101-cards:800:rummy_layoffs=false,true
reference-skill: $(VENV)/.core
	for run in $(SKILL_RUNS); do \
		preset=$${run%%:*}; rest=$${run#*:}; size=$${rest%%:*}; rule=$${rest#*:}; \
		unit=--rounds; [ $$preset = rummy101-cards ] && unit=--matches; \
		ladder=; [ $$preset != rummy101-cards ] && ladder="--policies greedy,careful,expert,oracle"; \
		$(BIN)/sim skill --preset $$preset --players 4 --grid $$rule $$unit $$size --seed 2026 $$ladder \
			--out $(SK)/$$preset/$${rule%%=*} || exit 1; \
	done
	$(BIN)/sim report $(foreach r,$(SKILL_RUNS),--data $(SK)/$(firstword $(subst :, ,$(r)))/$(firstword $(subst =, ,$(lastword $(subst :, ,$(r)))))) \
		--notes reports/reference-skill-notes.md --title "Which rules reward skill" --out reports/reference-skill

# The reference report's card part (reports/reference-cards): solo matches of 2-4 players to
# 100, 101 and 500, partners and two decks at four players, one careful bot among greedy
# ones, and rummy with and without lay-offs (C-SCORE-2, rummy_layoffs) with careful bots in
# every seat; 100,000 matches per variant. Then the solo, partners, decks and rummy sweeps
# with every seat expert (issue 27: findings that hold for good play;
# data/reference/cards/expert, the same seed, so the same cards), 40,000 matches per variant,
# set beside the others in the report. 30 minutes in all on 2 cores (2026-12-03, quiet): 18 of
# play by the simple bots, 8 by the experts, 5 for the report (measured beside another
# build, 2026-12-03). Reruns skip what data/reference holds.
RC := $(REF)/cards
# Each sweep: its name, then its flags (":" between them, "@" between a flag and its value).
CARD_SWEEPS := solo:--grid@players=2,3,4:--grid@target=100,101,500 \
	partners:--set@players=4:--grid@partners=false,true:--grid@target=101,500 decks:--set@players=4:--grid@decks=1,2 \
	rummy:--set@players=4:--grid@rummy_layoffs=false,true
reference-cards: $(VENV)/.core
	for sweep in $(CARD_SWEEPS); do \
		name=$${sweep%%:*}; flags=$$(echo $${sweep#*:} | tr ':@' '  '); \
		policy=greedy; [ $$name = rummy ] && policy=careful; \
		$(BIN)/sim sweep --preset rummy101-cards $$flags --policy $$policy --matches 100000 --seed 2026 \
			--out $(RC)/$$name || exit 1; \
		$(BIN)/sim sweep --preset rummy101-cards $$flags --policy expert --matches 40000 --seed 2026 \
			--out $(RC)/expert/$$name || exit 1; \
	done
	$(BIN)/sim run --preset rummy101-cards --players 4 --seat-policy 0=careful --matches 100000 --seed 2026 \
		--out $(RC)/careful
	$(BIN)/sim report $(foreach s,solo partners decks careful rummy,--data $(RC)/$(s)) \
		$(foreach s,solo partners decks rummy,--data $(RC)/expert/$(s)) \
		--notes reports/reference-cards-notes.md --baseline players=4 --baseline target=101 \
		--baseline partners=false --baseline decks=1 --baseline rummy_layoffs=false --out reports/reference-cards
