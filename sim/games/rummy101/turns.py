"""A Rummy 101 round stopped at a decision, and one turn played from there with the trace on
(numba): the information-set property and the worked positions of the bots' tests read a
seat's turn this way (the search's turn too, :func:`search_next_turn`). These entries are a workload of their own
(:data:`sim.games.rummy101.TURN_BY_TURN`), so that ``sim run`` does not compile them:
compiled into the engine's workload they cost it about 3.5 s of 22.4 s from empty caches.
"""

from __future__ import annotations

from sim.games.rummy101.core import G_NEVENTS, G_TRACE, SOLVER_ARRAYS
from sim.games.rummy101.engine import ROUND_SPACE, play_round, play_turn
from sim.games.rummy101.search import SEARCH_SPACE, search_turn
from sim.jit import I1, I2, boolean, i64, kernel


@kernel(I1, I1, I1, SOLVER_ARRAYS, ROUND_SPACE, I2, i64, entry=True)
def play_until(deck, rp, policies, S, rs, events, stop):
    """Deal ``deck`` and play the round's first ``stop`` turns in ``rs`` (untraced), leaving
    its full state there: ``(seat to move, whether it is the first turn, whether the round
    ended before)`` (jit-compiled)."""
    return play_round(deck, rp, policies, S, rs, events, False, stop)


@kernel(i64, boolean, I1, I1, SOLVER_ARRAYS, ROUND_SPACE, I2, entry=True)
def play_next_turn(p, first, deck, rp, S, rs, events):
    """Play seat ``p``'s turn from the state in ``rs`` with the trace on, its actions alone
    in ``events``; returns their number (jit-compiled)."""
    racks, table, ps, g, space, rows, scratch, _, _, tune, seen = rs
    g[G_TRACE] = 1
    g[G_NEVENTS] = 0
    play_turn(p, first, deck, racks, table, ps, g, rp, events, S, space, rows, scratch, tune, seen, -1, -1)
    return g[G_NEVENTS]


@kernel(i64, boolean, I1, I1, SOLVER_ARRAYS, ROUND_SPACE, SEARCH_SPACE, i64, i64, I2, entry=True)
def search_next_turn(p, first, deck, rp, S, rs, sp, seed, round_id, events):
    """Seat ``p``'s turn by the search (:mod:`.search`) from the state in ``rs``, as
    :func:`play_next_turn` (jit-compiled)."""
    g = rs[3]
    g[G_TRACE] = 1
    g[G_NEVENTS] = 0
    search_turn(p, first, deck, rp, S, rs, sp, seed, round_id, events)
    return g[G_NEVENTS]
