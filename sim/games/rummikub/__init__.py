"""Rummikub (RULES.md section K). So far the table solver: :mod:`.table` (numba) finds the
best play of a rack onto a table rebuilt as a whole, :mod:`.tableplay` is its Python face
(:func:`sim.table_play`, ``sim solve --table``). Whole rounds are to come."""

from __future__ import annotations

TABLE_MODULES = ("sim.games.rummikub.table",)


def _workload(name: str, modules: tuple[str, ...]):
    from sim.jit import Workload

    return Workload(name, modules)


def __getattr__(name: str):
    if name == "TABLE_SOLVER_WORKLOAD":  # built on first use: sim.jit brings numba with it
        return _workload("the Rummikub table solver", TABLE_MODULES)
    raise AttributeError(name)
