"""Rummy 101 with tiles (docs/rules.md section T): whole rounds played by bots.

The modules, from the rules to the data:

- :mod:`.rules`: its rules and presets;
- :mod:`.core`, :mod:`.bots`, :mod:`.engine`: the round engine (numba): the rules, the
  bots' choices, turns and chunks of rounds; :mod:`.search` the search and the oracle
  (numba, compiled when one of them plays);
- :mod:`.play`: its Python face (rules and policies as arrays, chunks, traced rounds);
- :mod:`.tables`: chunks of rounds as the ``rounds`` and ``players`` tables;
- :mod:`.summary`: a run's summary and its ``--until-ci`` metrics;
- :mod:`.trace`: a traced round for people and as JSON for machines;
- :mod:`.referee`: the rules referee, in plain Python, replaying JSON traces;
- :mod:`.analysis`: its own questions (openings, thresholds, penalties), :mod:`.report` its
  report sections, :mod:`.solve` its ``sim solve``.
"""

from __future__ import annotations

from typing import ClassVar

from sim.games.family import SHARED_METRICS, Costs, Family, Param
from sim.games.rummy101.rules import PRESETS, Rummy101Rules
from sim.precision import DEAL_METRICS as TILE_DEAL_METRICS
from sim.precision import Metric

# sim.games.rummy101.bots: GREEDY, CAREFUL, EXPERT, SEARCH, ORACLE
POLICIES = ("greedy", "careful", "expert", "search", "oracle")
# The expert's tuning constants (sim.games.rummy101.expert reads them as X_*).
EXPERT_PARAMS = (
    Param("meld", 20.0, 0.0, 60.0, "worth of a tile in a run or set of three the rack holds"),
    Param("near", 1.0, 0.0, 5.0, "worth per unseen copy of the one tile that would complete a meld with it"),
    Param("far", 0.5, 0.0, 5.0, "worth of a meld two tiles short, per pair of unseen copies over the unseen"),
    Param("near_after", 1.0, 0.0, 5.0, "after opening, the same (a meld of new tiles places them all)"),
    Param("far_after", 0.5, 0.0, 5.0, "after opening, the same two tiles short"),
    Param("points_before", 1.0, 0.0, 4.0, "before opening, how much more a meld of 13s is worth than of 1s"),
    Param("points_after", 0.3, 0.0, 2.0, "after opening, a tile's cost per point on the rack (T-SCORE-2)"),
    Param("twin", 2.0, 0.0, 20.0, "worth of a second copy where pairs count (T-OPEN-2)"),
    Param("bridge", 1.0, 0.0, 5.0, "after opening, worth per unseen copy of the tile between it and a table run"),
    Param("feed", 30.0, 0.0, 100.0, "cost of a discard the next player, opened, could add to the table"),
    Param("pairs_turn", 3, 1, 8, "own turn from which it opens with pairs when melds fall short", integer=True),
    Param("reach", 100.0, 0.0, 300.0, "before opening, worth of the chance that the next draw opens"),
    Param("joker_hold", 3, 0, 22, "after opening, hold jokers for a joker finish while every opponent holds more "
          "tiles than this", integer=True),
    Param("look", 4, 1, 8, "before opening, the tiles worth least looked at one draw ahead", integer=True),
    Param("guard", 5.0, 0.0, 50.0, "cost of a discard the next player, not opened, could open with: its partners"),
    # the search's budget (``search:N`` sets ``samples``), not the expert's judgement: not tuned
    Param("samples", 32, 1, 1024, "search: worlds each option (take or draw, a discard) is played out in",
          integer=True, tuned=False),
    Param("options", 3, 1, 8, "search: the discards it tries (the expert's and the next it would throw)",
          integer=True, tuned=False),
    Param("margin", 80.0, 0.0, 200.0, "search: how many points a round better another discard must do than the "
          "expert's to be thrown", tuned=False),
)

FINISHES = ("normal", "joker", "one_turn", "one_turn_joker", "stock_out")  # core.FINISH_*
OPEN_KINDS = ("melds", "pairs")  # core.OPEN_MELDS, core.OPEN_PAIRS


ENGINE_MODULES = ("sim.deal", "sim.solver.runs", "sim.solver.kernel", "sim.solver.layout", "sim.games.rummy101.core",
                  "sim.games.rummy101.view", "sim.games.rummy101.expert", "sim.games.rummy101.bots",
                  "sim.games.rummy101.engine")
# The engine stopped at a decision and played a turn at a time (sim.games.rummy101.turns): the
# bots' tests, apart so that `sim run` does not compile it (its workload, Family.other_workload).
TURN_BY_TURN = "the Rummy 101 engine turn by turn"
# The search and the oracle (sim.games.rummy101.search), compiled when one of them plays.
SEARCH_PLAY = "the Rummy 101 search"

class Rummy101(Family):
    name = "rummy101"
    title = "Rummy 101"
    rules_class = Rummy101Rules
    presets: ClassVar[dict] = PRESETS
    policies = POLICIES
    expert_params = EXPERT_PARAMS
    balance_example = ("open_points", "81:121", "p_open_by_turn_3=0.5")
    finishes = FINISHES
    kernel_modules = ENGINE_MODULES
    other_workloads = ((TURN_BY_TURN, (*ENGINE_MODULES, "sim.games.rummy101.search", "sim.games.rummy101.turns")),
                       (SEARCH_PLAY, (*ENGINE_MODULES, "sim.games.rummy101.search")))
    policy_workloads: ClassVar[dict] = {"search": SEARCH_PLAY, "oracle": SEARCH_PLAY}
    uses_run_table = True
    deals_at = "sim.dealstats:TILE_DEALS"  # the tile deal and the opening solver
    deal_metrics = TILE_DEAL_METRICS
    metrics = (
        *SHARED_METRICS,
        Metric("stock_out", "stock_out", "share of rounds ending with the stock exhausted", True),
        Metric("mean_penalty", "mean_penalty", "mean penalty of the players who did not win", False),
    )
    variant_metrics: ClassVar[dict] = {
        "stock_out": ("share of rounds ending with the stock exhausted", ("stock_out",)),
        "joker_finish": ("share of rounds won by a joker finish", ("joker", "one_turn_joker")),
    }
    compared_metrics = ("opened_by_3", "stock_out", "mean_penalty", "seat0_win", "never_opened", "turns")
    referee_checks = "every action checked, scores recomputed"
    # Measured with the standard game (4 players, greedy, seed 1, one worker process on the
    # shared 2-core machine): a run of 40,000 rounds in chunks of 10,000 wrote 1.08 MB
    # (26.9 bytes a round) at 3,700 rounds/s; deal-stats of 1,000,000 racks of 22 wrote
    # 2.54 MB at 166,000 racks/s, and 2,000,000 against 6,000,000 racks raised the peak
    # memory by 61 bytes a rack.
    costs = Costs(disk_per_unit=27, units_per_second=4_000, disk_per_sample=2.6, memory_per_sample=61,
                  samples_per_second=170_000)

    def describe(self, rules) -> str:
        opening = f"open {rules.open_points} points" + (f" or {rules.open_pairs} pairs" if rules.open_pairs else "")
        button = f", {rules.button_jokers} joker button" if rules.button_jokers else ""
        return f"{self.title}: {rules.threshold_mode} thresholds, {opening}{button}"


FAMILY = Rummy101()
