"""The opening solver as round engines carry it: its arrays for the rules in force
(:func:`solver_arrays`) and its scratch, as the argument types of the engines' kernels,
and :func:`best_melds`, the most valuable melds of a rack laid out as meld rows.

Both tile families' engines (Rummy 101, Rummikub) open through this one search.
"""

from __future__ import annotations

import functools
from collections import namedtuple

from sim.jit import I1, I2, kernel, record_of
from sim.solver.kernel import SOLVER, SPACE, search, value_of
from sim.solver.layout import lay_out
from sim.solver.runs import MOVES, RUN_SPACE
from sim.tiles import MAX_JOKERS

# The solver's arrays as one named record (see solver_arrays): the set options (``g_*``),
# the run table, the runs automaton (states, transitions ``t*``, moves ``m*``) and the
# sets for the layout; and the scratch it works in: the search's, the layout's and a leaf.
SolverArrays = namedtuple("SolverArrays", "g_ptr g_use g_jokers g_tiles g_from g_minj run_table states tptr tto "
                                          "tdj tk tnoend mends mstarts mgive nsets set_colours set_jokers")
SOLVER_ARRAYS = record_of(SolverArrays, *SOLVER, *MOVES, I1, I2, I2)
SolverSpace = namedtuple("SolverSpace", "search run leaf")
SOLVER_SPACE = record_of(SolverSpace, SPACE, RUN_SPACE, I1)


@functools.cache
def solver_arrays(g3max: int) -> tuple:
    """The solver's arrays for at most ``g3max`` jokers in a set of three: the engines' ``S``."""
    from sim.solver import runs, sets

    g = sets.set_options(g3max)
    a = runs.automaton(MAX_JOKERS)
    return SolverArrays(g.ptr, g.use, g.jokers, g.tiles, g.from_number, g.min_jokers, runs.run_table(),
                        *a.arrays(), *a.moves(), g.nsets, g.set_colours, g.set_jokers)


@kernel(inline=True)
def best_melds(rack, cyclic, S, space, out):
    """The most valuable disjoint melds of ``rack`` (a joker counting as the tile it stands
    for): ``(value, rows)``, the melds in ``out[:rows]`` as meld rows; runs wrap from 13 to
    1 with ``cyclic``."""
    s = search(rack, -1, cyclic, S.g_ptr, S.g_use, S.g_jokers, S.g_tiles, S.g_from, S.g_minj, S.run_table,
               S.states, S.tptr, S.tto, S.tdj, S.tk, S.tnoend, True, space.leaf, space.search)
    v = value_of(s)
    if v <= 0:
        return 0, 0
    n = lay_out(rack, space.leaf, -1, cyclic, S.nsets, S.set_colours, S.set_jokers, S.states, S.tptr, S.tto,
                S.tdj, S.tk, S.tnoend, S.mends, S.mstarts, S.mgive, S.run_table, space.run, out)
    return v, n
