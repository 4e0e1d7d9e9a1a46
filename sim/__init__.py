"""Simulation and analytics for rummy games played with tiles and cards.

The flow: :mod:`sim.rules` (what is allowed) -> :mod:`sim.solver` (the best opening of a
rack) -> :mod:`sim.deal` (dealing racks reproducibly) -> :mod:`sim.dealstats` (how often a
dealt rack can open) -> :mod:`sim.store` (Parquet with provenance) -> :mod:`sim.cli`.
"""

from sim.errors import DatasetError, NotationError, RulesError, SimError
from sim.rules import PRESETS, Rules, preset
from sim.solver.api import Opening, best_opening, evaluate_racks, opening_values
from sim.tiles import Meld, Rack, parse_meld, parse_rack, parse_tile

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "DatasetError",
    "Meld",
    "NotationError",
    "Opening",
    "Rack",
    "Rules",
    "RulesError",
    "SimError",
    "__version__",
    "best_opening",
    "evaluate_racks",
    "opening_values",
    "parse_meld",
    "parse_rack",
    "parse_tile",
    "preset",
]
