"""Many racks at once (numba, in parallel): the best melds value and most pairs of every
rack of a batch, for dealt-rack statistics (:mod:`sim.dealstats`) and
:func:`sim.opening_values`.

Apart from :mod:`sim.solver.kernel` so that the round engines, which solve one rack at a
time, do not compile this parallel loop.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from sim.jit import I8_1, I8_2, I16_1, boolean, kernel
from sim.solver.kernel import SOLVER, best_score, most_pairs, new_space, value_of
from sim.tiles import COUNTS_LEN

BLOCK = 256  # racks per scratch space in the parallel loop


@kernel(I8_2, boolean, boolean, *SOLVER, I16_1, I8_1, parallel=True, entry=True)
def opening_values_kernel(racks, keep, cyclic, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj,
                          table, states, tptr, tto, tdj, tk, tnoend, out_value, out_pairs):
    """Best melds value and most pairs of every rack of ``racks`` (N, 53), in parallel
    over blocks of racks (jit-compiled)."""
    n = racks.shape[0]
    for b in prange((n + BLOCK - 1) // BLOCK):
        space = new_space(states.shape[0])
        counts = np.empty(COUNTS_LEN, dtype=np.int64)
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            for k in range(COUNTS_LEN):
                counts[k] = racks[i, k]
            s, _ = best_score(counts, -1, keep, cyclic, g_ptr, g_use, g_jokers, g_tiles, g_from,
                              g_minj, table, states, tptr, tto, tdj, tk, tnoend, space)
            out_value[i] = value_of(s)
            out_pairs[i] = most_pairs(counts, -1, keep)
