"""Rummy 101 with cards (docs/rules.md section C): the hand solver and whole matches played by bots.

The modules, from the rules to the data:

- :mod:`.hand`: the best lay-down of a hand (numba); :mod:`.play` its Python face
  (:func:`sim.best_lay_down`, ``sim solve --preset rummy101-cards``), :mod:`.deals` its
  ``sim deal-stats``;
- :mod:`.engine`: the match engine and its two bots (numba); :mod:`.match` its Python
  face (rules and policies as arrays, chunks, traced matches);
- :mod:`.tables`: chunks of matches as the ``matches``, ``hands`` and ``players`` tables;
- :mod:`.summary`: a run's summary and its ``--until-ci`` metrics;
- :mod:`.trace`: a traced match for people and as JSON for machines;
- :mod:`.referee`: the rules referee, in plain Python, replaying JSON traces.
"""

from sim.games.family import Family
from sim.precision import Metric

HAND_MODULES = ("sim.deal", "sim.games.cards.hand")
POLICIES = ("greedy", "careful")  # engine.POLICY_GREEDY, POLICY_CAREFUL
FINISHES = ("out", "rummy", "wash")  # engine.FINISH_*
# The --until-ci metrics of card deal-stats (sim.games.cards.deals measures them); here, where
# `sim deal-stats --help` reads them without importing numba.
DEAL_METRICS = (
    Metric("p_meld", "p_meld", "share of dealt hands that can lay down a meld", True),
    Metric("p_out", "p_out", "share of dealt hands that could go out at once", True),
    Metric("mean_melded", "mean_melded", "mean points the hand can meld", False),
    Metric("mean_deadwood", "mean_deadwood", "mean deadwood points left", False),
)


def __getattr__(name: str):
    if name == "HAND_WORKLOAD":  # built on first use: sim.jit brings numba with it
        from sim.jit import Workload

        return Workload("the card hand solver", HAND_MODULES)
    raise AttributeError(name)


class CardRummy(Family):
    name = "rummy101-cards"
    title = "card Rummy 101"
    unit = "match"
    units = "matches"
    tables = ("matches", "hands", "players")
    id_column = "match_id"
    policies = POLICIES
    finishes = FINISHES
    kernel_modules = (*HAND_MODULES, "sim.games.cards.engine")
    metrics = (
        Metric("win_seat_S", r"win_seat_(?P<seat>\d+)", "share of matches won by seat S (with partners, team S)",
               True),
        Metric("mean_hands", "mean_hands", "mean hands per match, washes included", False),
        Metric("p_wash", "p_wash", "share of hands washed out (C-WASH-1)", True),
        Metric("p_rummy", "p_rummy", "share of hands won by going rummy (C-SCORE-2)", True),
        Metric("mean_points", "mean_points", "mean points of a hand someone went out of", False),
    )


    def describe(self, rules) -> str:
        return f"{self.title}: matches to {rules.target}, {rules.decks} deck{'s' if rules.decks > 1 else ''}"


FAMILY = CardRummy()
