"""Simulation and analytics for rummy games played with tiles and cards.

The flow: :mod:`sim.rules` (what every family's rules share) -> :mod:`sim.solver` (the
best opening of a tile rack) -> :mod:`sim.games` (the families, each a package: rules,
presets, engine, bots, referee, tables, analysis, report sections) ->
:mod:`sim.runner` (many rounds in parallel) -> :mod:`sim.store` (Parquet with
provenance) -> :mod:`sim.analysis`, :mod:`sim.report` -> :mod:`sim.cli`.

Importing ``sim`` imports no numba kernel: the solver's functions load on first use
(:mod:`sim.jit` compiles them once per machine).
"""

from __future__ import annotations

import importlib
from typing import Any

from sim.errors import DatasetError, NotationError, RulesError, SimError
from sim.games import families, preset, presets
from sim.rules import Rules
from sim.tiles import Meld, Rack, parse_meld, parse_rack, parse_tile
from sim.version import __version__

_LAZY = {  # public names living in modules that bring numba with them
    "Opening": "sim.solver.api",
    "best_opening": "sim.solver.api",
    "evaluate_racks": "sim.solver.api",
    "opening_values": "sim.solver.api",
}
# Each family's public names (Family.public), from modules of its package.
_LAZY.update({name: f"{f.package}.{module}" for f in families() for name, module in f.public.items()})

__all__ = [
    "PRESETS", "DatasetError", "Meld", "NotationError", "Opening", "Rack", "Rules", "RulesError", "SimError",
    "__version__", "best_opening", "evaluate_racks", "opening_values", "parse_meld", "parse_rack", "parse_tile",
    "preset",
]
__all__ += [name for f in families() for name in f.public]


def __getattr__(name: str) -> Any:
    if name == "PRESETS":  # every family's presets by name (sim.games.presets)
        return presets()
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
