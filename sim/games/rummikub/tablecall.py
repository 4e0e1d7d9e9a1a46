"""The table play's entry from Python (:func:`sim.table_play`): :func:`.tableturn.best_play`
with its work arrays passed one by one. A module of its own so that the round engine,
which calls ``best_play`` from numba, does not compile it."""

from __future__ import annotations

from sim.games.rummikub.tablesolver import SPACE
from sim.games.rummikub.tableturn import best_play
from sim.jit import I1, I2, boolean, i64, kernel


@kernel(I1, I2, i64, i64, i64, i64, boolean, boolean, boolean, SPACE, I1, I1, I1, I1, I1, I2, I2, I1, I1, I2,
        entry=True)
def play(rack, table, ntable, objective, joker_value, g3max, cyclic, locked, bound, ts, base, loose, r, placed,
         pins, out, best_rows, best_placed, freed, new_table):
    """:func:`.tableturn.best_play` called from Python (``sim.table_play``), for every rack
    tile (``use_jokers``) and no tile it must place, its work arrays passed one by one
    (:data:`.tableturn.WORK`, :func:`.tableturn.new_work`) (jit-compiled)."""
    return best_play(rack, table, ntable, objective, joker_value, g3max, cyclic, locked, bound, ts,
                     (base, loose, r, placed, pins, out, best_rows, best_placed, freed, new_table), True, -1, 0)
