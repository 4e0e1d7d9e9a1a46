"""The interface between a rule family and the shared layers.

A family package (``sim/games/<family>/``) defines one :class:`Family` subclass and an
instance ``FAMILY``. The runner plays chunks through :meth:`Family.chunk_tables`, writes
whatever tables they hold, summarises a run through :meth:`Family.summarise`, measures
``--until-ci`` targets through :attr:`Family.metrics` and :meth:`Family.chunk_stats`, and
the CLI prints traces through :meth:`Family.trace_text` and :meth:`Family.trace_json`.

Nothing here, nor in a family's ``__init__``, imports numba or a kernel: a family's
kernels are imported by the methods that play, and compile only when it plays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sim.precision import Metric

if TYPE_CHECKING:
    import numpy as np
    import polars as pl

    from sim.jit import Workload
    from sim.precision import Target
    from sim.rules import Rules


class Family:
    """What a rule family supplies to the shared layers (override every method)."""

    name: str = ""  # Rules.family
    title: str = ""  # for people
    unit: str = "round"  # what one id of a run plays
    tables: tuple[str, ...] = ("rounds", "players")  # the first has one row per unit
    id_column: str = "round_id"
    policies: tuple[str, ...] = ()  # bot names, the default first
    kernel_modules: tuple[str, ...] = ()  # sim.jit: the modules its engine compiles, callees first
    metrics: tuple[Metric, ...] = ()

    @property
    def workload(self) -> Workload:
        from sim.jit import Workload

        return Workload(f"the {self.title} engine", self.kernel_modules)

    def prepare(self, progress: bool = True) -> None:
        """Compile the engine now if this machine has not compiled it before."""
        from sim.jit import prepare

        prepare(self.workload, progress)

    def chunk_tables(self, rules: Rules, seed: int, start: int, count: int, policies: list[str],
                     drop: tuple[str, ...] = ()) -> dict[str, pl.DataFrame]:
        """Play units ``start .. start+count-1`` and return every table, keyed by name;
        columns named in ``drop`` (a sweep's partition) are left to the path."""
        raise NotImplementedError

    def summarise(self, tables: dict[str, pl.DataFrame], keys: list[str]) -> dict:
        """The summary of a whole dataset, per variant (``keys``: the swept fields)."""
        raise NotImplementedError

    def format_summary(self, summary: dict) -> list[str]:
        """The summary as lines a person reads."""
        raise NotImplementedError

    def chunk_stats(self, target: Target, tables: dict[str, pl.DataFrame]) -> np.ndarray:
        """Sufficient statistics of one chunk for an ``--until-ci`` target."""
        raise NotImplementedError

    def trace_text(self, rules: Rules, seed: int, unit_id: int, policies: list[str]) -> str:
        """One unit, every action with the rule that allows it and the referee's verdict."""
        raise NotImplementedError

    def trace_json(self, rules: Rules, seed: int, unit_id: int, policies: list[str]) -> dict[str, Any]:
        """One unit in the JSON trace format (README, "Traces for machines")."""
        raise NotImplementedError
