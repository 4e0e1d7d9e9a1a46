"""Rummy 101 with cards (RULES.md, C): the hand solver so far (:mod:`.hand`, its Python
face :mod:`.play`); matches, bots and their tables are to come (issue 10)."""

HAND_MODULES = ("sim.deal", "sim.games.cards.hand")


def __getattr__(name: str):
    if name == "HAND_WORKLOAD":  # built on first use: sim.jit brings numba with it
        from sim.jit import Workload

        return Workload("the card hand solver", HAND_MODULES)
    raise AttributeError(name)
