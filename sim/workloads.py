"""Every numba workload of the package: the shared ones (dealing, the run table, the
opening solver) and each family's (:attr:`sim.games.family.Family.workloads`), for
``sim compile``, ``sim cache`` and the compile benchmark. Above :mod:`sim.jit` and the
kernels' modules, so that none of them imports another's workloads.
"""

from __future__ import annotations

import functools

from sim.jit import Workload


@functools.cache
def all_workloads() -> tuple[Workload, ...]:
    """Every workload: the shared ones, then each family's, each once."""
    from sim.clusters import CLUSTERS_WORKLOAD
    from sim.deal import DEAL_WORKLOAD
    from sim.games import families
    from sim.solver.api import BATCH_WORKLOAD, OPENING_WORKLOAD
    from sim.solver.runs import TABLE_WORKLOAD

    found = [DEAL_WORKLOAD, TABLE_WORKLOAD, OPENING_WORKLOAD, BATCH_WORKLOAD, CLUSTERS_WORKLOAD]
    for family in families():
        found += [w for w in family.workloads if w not in found]
    return tuple(found)
