"""Rummy 101 with cards (RULES.md, C): the hand solver so far (:mod:`.hand`, its Python
face :mod:`.play`); matches, bots and their tables are to come (issue 10)."""

from sim.precision import Metric

HAND_MODULES = ("sim.deal", "sim.games.cards.hand")
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
