"""Rummy 101 with tiles (RULES.md section T): whole rounds played by bots.

The modules, from the rules to the data:

- :mod:`.core`, :mod:`.bots`, :mod:`.engine`: the round engine (numba): the rules, the
  bots' choices, turns and chunks of rounds;
- :mod:`.play`: its Python face (rules and policies as arrays, chunks, traced rounds);
- :mod:`.tables`: chunks of rounds as the ``rounds`` and ``players`` tables;
- :mod:`.summary`: a run's summary and its ``--until-ci`` metrics;
- :mod:`.trace`: a traced round for people and as JSON for machines;
- :mod:`.referee`: the rules referee, in plain Python, replaying JSON traces.
"""

from __future__ import annotations

from sim.games.family import Family
from sim.precision import Metric

POLICIES = ("greedy", "careful")  # sim.games.rummy101.bots: GREEDY, CAREFUL
FINISHES = ("normal", "joker", "one_turn", "one_turn_joker", "stock_out")  # core.FINISH_*
OPEN_KINDS = ("melds", "pairs")  # core.OPEN_MELDS, core.OPEN_PAIRS


class Rummy101(Family):
    name = "rummy101"
    title = "Rummy 101"
    policies = POLICIES
    finishes = FINISHES
    kernel_modules = ("sim.deal", "sim.solver.runs", "sim.solver.kernel", "sim.solver.layout",
                      "sim.games.rummy101.core", "sim.games.rummy101.bots", "sim.games.rummy101.engine")
    metrics = (
        Metric("p_open_by_turn_T", r"p_open_by_turn_(?P<turn>\d+)",
               "share of players opened by their own T-th turn (all seats)", True),
        Metric("p_open_by_turn_T_seat_S", r"p_open_by_turn_(?P<turn>\d+)_seat_(?P<seat>\d+)",
               "the same for seat S", True),
        Metric("win_seat_S", r"win_seat_(?P<seat>\d+)", "share of rounds won by seat S", True),
        Metric("stock_out", "stock_out", "share of rounds ending with the stock exhausted", True),
        Metric("mean_score", "mean_score", "mean score of all players", False),
        Metric("mean_score_seat_S", r"mean_score_seat_(?P<seat>\d+)", "mean score of seat S", False),
        Metric("mean_penalty", "mean_penalty", "mean penalty of the players who did not win", False),
        Metric("mean_turns", "mean_turns", "mean turns per round", False),
    )

    def prepare(self, progress=True):
        """Compile the engine if needed, and build or load the solver's run table: both
        once, here, before worker processes start."""
        super().prepare(progress)
        from sim.solver.runs import run_table

        run_table()


FAMILY = Rummy101()
