"""The opening solver as round engines carry it: its arrays for the rules in force
(:func:`solver_arrays`) and its scratch, as the argument types of the engines' kernels,
and :func:`best_melds`, the most valuable melds of a rack laid out as meld rows.

Both tile families' engines (Rummy 101, Rummikub) open through this one search.
"""

from __future__ import annotations

import functools

from sim.jit import I1, I2, kernel, tuple_of
from sim.solver.kernel import SOLVER, SPACE, search, value_of
from sim.solver.layout import lay_out
from sim.solver.runs import MOVES, RUN_SPACE
from sim.tiles import MAX_JOKERS

# The solver's arrays as one tuple (see solver_arrays), and the scratch it works in:
# the search's, the layout's and a leaf.
SOLVER_ARRAYS = tuple_of(*SOLVER, *MOVES, I1, I2, I2)
SOLVER_SPACE = tuple_of(SPACE, RUN_SPACE, I1)


@functools.cache
def solver_arrays(g3max: int) -> tuple:
    """The solver's arrays for at most ``g3max`` jokers in a set of three, in the order the
    engines' ``S`` tuple takes them."""
    from sim.solver import runs, sets

    g = sets.set_options(g3max)
    a = runs.automaton(MAX_JOKERS)
    return (g.ptr, g.use, g.jokers, g.tiles, g.from_number, g.min_jokers, runs.run_table(),
            *a.arrays(), *a.moves(), g.nsets, g.set_colours, g.set_jokers)


@kernel(inline=True)
def best_melds(rack, cyclic, S, space, out):
    """The most valuable disjoint melds of ``rack`` (a joker counting as the tile it stands
    for): ``(value, rows)``, the melds in ``out[:rows]`` as meld rows; runs wrap from 13 to
    1 with ``cyclic``."""
    (g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj, run_table, states, tptr, tto, tdj, tk, tnoend,
     mends, mstarts, mgive, nsets, set_colours, set_jokers) = S
    search_space, run_space, leaf = space
    s = search(rack, -1, cyclic, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj, run_table, states,
               tptr, tto, tdj, tk, tnoend, True, leaf, search_space)
    v = value_of(s)
    if v <= 0:
        return 0, 0
    n = lay_out(rack, leaf, -1, cyclic, nsets, set_colours, set_jokers, states, tptr, tto, tdj, tk,
                tnoend, mends, mstarts, mgive, run_table, run_space, out)
    return v, n
