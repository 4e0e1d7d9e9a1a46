"""Rummikub (docs/rules.md section K): the exact table solver and whole rounds played by bots.

The modules, from the rules to the data:

- :mod:`.rules`: its rules, house variants and preset;
- :mod:`.tablesolver`: the table solver (numba): the best play of a rack onto a table that may
  be rebuilt as a whole; :mod:`.tableturn` one turn's table play, the table's jokers
  bound, freed or locked as the rules say (K-JOKER-1/2), and :mod:`.tablecall` its entry
  from Python; :mod:`.tableplay` is its Python face (:func:`sim.table_play`, ``sim solve
  --table``);
- :mod:`.state`: the layout of a round's integer arrays; :mod:`.engine`: the round engine
  and its two simple bots (numba); :mod:`.view`: what one seat may know, and :mod:`.expert`
  the ``expert`` bot deciding from it alone; :mod:`.search` the search and the oracle
  (numba, compiled when one of them plays); :mod:`.play` the engine's Python face (rules
  and policies as arrays, chunks, traced rounds, rounds turn by turn);
- :mod:`.tables`: chunks of rounds as the ``rounds`` and ``players`` tables;
- :mod:`.summary`: a run's summary and its ``--until-ci`` metrics;
- :mod:`.trace`: a traced round for people and as JSON for machines;
- :mod:`.referee`: the rules referee, in plain Python, replaying JSON traces;
- :mod:`.report` its report sections, :mod:`.solve` its ``sim solve``.
"""

from __future__ import annotations

from typing import ClassVar

from sim.games.family import SHARED_METRICS, Costs, Family, Param
from sim.games.rummikub.rules import PRESETS, RummikubRules
from sim.precision import DEAL_METRICS as TILE_DEAL_METRICS
from sim.precision import Metric

POLICIES = ("greedy", "careful", "expert", "search", "oracle")  # engine.POLICY_*
# The expert's tuning constants (sim.games.rummikub.expert reads them by name from its seat's
# row of ``tune``, sim.games.family.expert_tune). The defaults are the best of
#   python benchmarks/tune_expert.py --preset rummikub --players 4 --objective score --trials 30 --deals 60
#       --validate 300 --jobs 2
# (trial 14 of 30; on 300 fresh deals +29.8 points a round over greedy and careful, the
# earlier defaults +27.5; README, "Rummikub rounds").
EXPERT_PARAMS = (
    Param("danger_tiles", 1, 0, 4, "an opponent with this many rack tiles or fewer is about to go out: play the "
          "most value, jokers included", integer=True),
    Param("danger_loss", 88.72, 5, 100, "the same when the rack's value times the chance that an opponent goes out "
          "before the next turn (from its rack size) reaches this many points"),
    Param("danger_pool", 0, 0, 20, "the pool down to this many tiles: the same (K-END-2 is near)", integer=True),
    Param("open_lean", 1, 0, 1, "open with the fewest tiles that reach the bar (1) or every meld (0)", integer=True),
    Param("open_jokers", 0, 0, 1, "open with rack jokers (1), or without them when the rest reach the bar (0)",
          integer=True),
    # the search's budget (``search:N`` sets ``samples``), not the expert's judgement: not tuned
    Param("samples", 16, 1, 1024, "search: worlds each action (lay or draw) is played out in", integer=True,
          tuned=False),
    Param("margin", 100.0, 0.0, 500.0, "search: how many points a round better the other action must do than the "
          "expert's to be played", tuned=False),
)
FINISHES = ("out", "blocked", "last_call")  # engine.FINISH_*
TABLE_MODULES = ("sim.games.rummikub.tablesolver", "sim.games.rummikub.tableturn", "sim.games.rummikub.tablecall")
TABLE_SOLVER = "the Rummikub table solver"  # its workload (Family.other_workload)
ENGINE_MODULES = ("sim.deal", "sim.solver.runs", "sim.solver.kernel", "sim.solver.layout",
                  "sim.games.rummikub.tablesolver", "sim.games.rummikub.tableturn", "sim.games.rummikub.view",
                  "sim.games.rummikub.expert", "sim.games.rummikub.engine")
# The search and the oracle (sim.games.rummikub.search), compiled when one of them plays.
SEARCH_PLAY = "the Rummikub search"


class Rummikub(Family):
    name = "rummikub"
    title = "Rummikub"
    rules_class = RummikubRules
    presets: ClassVar[dict] = PRESETS
    policies = POLICIES
    expert_params = EXPERT_PARAMS
    balance_example = ("open_points", "20:40", "p_open_by_turn_3=0.5")
    finishes = FINISHES
    kernel_modules = ENGINE_MODULES
    other_workloads = ((TABLE_SOLVER, TABLE_MODULES), (SEARCH_PLAY, (*ENGINE_MODULES, "sim.games.rummikub.search")))
    policy_workloads: ClassVar[dict] = {"search": SEARCH_PLAY, "oracle": SEARCH_PLAY}
    uses_run_table = True
    deals_at = "sim.dealstats:TILE_DEALS"  # the tile deal and the opening solver
    deal_metrics = TILE_DEAL_METRICS
    piece = 250  # about a second of four-player rounds on one core: a chunk of 10,000 is a minute or more
    metrics = (
        *SHARED_METRICS,
        Metric("blocked", "blocked", "share of rounds ending with the pool empty and every player passing", True),
        Metric("mean_rack_value", "mean_rack_value", "mean value left on the racks of the players who did not win",
               False),
    )
    public: ClassVar[dict] = {"TablePlay": "tableplay", "table_play": "tableplay", "table_plays": "tableplay"}
    variant_metrics: ClassVar[dict] = {
        "pool_empty": ("share of rounds ending with the pool empty (blocked or last call, K-END-2)",
                       ("blocked", "last_call")),
    }
    compared_metrics = ("opened_by_3", "pool_empty", "mean_penalty", "seat0_win", "never_opened", "turns")
    referee_checks = "every turn checked, scores recomputed"
    # Measured with the standard game (4 players, greedy, seed 1, one worker process on the
    # shared 2-core machine): a run of 2,000 rounds in chunks of 1,000 wrote 102 kB (50.9
    # bytes a round) at 210 rounds/s; deal-stats of 1,000,000 racks of 14 wrote 2.51 MB at
    # 240,000 racks/s, holding what the Rummy 101 racks hold (61 bytes a rack at the peak).
    costs = Costs(disk_per_unit=51, units_per_second=200, disk_per_sample=2.6, memory_per_sample=61,
                  samples_per_second=240_000)

    def describe(self, rules) -> str:
        return f"{self.title}: racks of {rules.rack_size}, open {rules.open_points} points"


FAMILY = Rummikub()
