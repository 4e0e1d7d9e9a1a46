"""Simulation and analytics for rummy games played with tiles and cards.

The flow: :mod:`sim.rules` (what is allowed) -> :mod:`sim.solver` (the best opening of a
rack) -> :mod:`sim.games` (each family's rounds: engine, bots, referee, tables) ->
:mod:`sim.runner` (many rounds in parallel) -> :mod:`sim.store` (Parquet with
provenance) -> :mod:`sim.analysis`, :mod:`sim.report` -> :mod:`sim.cli`.

Importing ``sim`` imports no numba kernel: the solver's functions load on first use
(:mod:`sim.jit` compiles them once per machine).
"""

from __future__ import annotations

import importlib
from typing import Any

from sim.errors import DatasetError, NotationError, RulesError, SimError
from sim.rules import PRESETS, Rules, preset
from sim.tiles import Meld, Rack, parse_meld, parse_rack, parse_tile

__version__ = "0.2.0"

_LAZY = {  # public names living in modules that bring numba with them
    "Opening": "sim.solver.api",
    "best_opening": "sim.solver.api",
    "evaluate_racks": "sim.solver.api",
    "opening_values": "sim.solver.api",
    "TablePlay": "sim.games.rummikub.tableplay",
    "LayDown": "sim.games.cards.play",
    "best_lay_down": "sim.games.cards.play",
    "table_play": "sim.games.rummikub.tableplay",
}

__all__ = [
    "PRESETS",
    "DatasetError",
    "LayDown",
    "Meld",
    "NotationError",
    "Opening",
    "Rack",
    "Rules",
    "RulesError",
    "SimError",
    "TablePlay",
    "__version__",
    "best_lay_down",
    "best_opening",
    "evaluate_racks",
    "opening_values",
    "parse_meld",
    "parse_rack",
    "parse_tile",
    "preset",
    "table_play",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
