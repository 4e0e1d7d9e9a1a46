"""The ``expert`` Rummikub bot (numba): its opening and its table play, decided from the
seat's view only (:mod:`.view`), the rules and the seat's row of tuning constants
(``tune``, :data:`sim.games.rummikub.EXPERT_PARAMS`, read here by name).

The idea: **hold everything back and go out in one play.** A player may always draw
instead of playing (K-PLAY-1, revised), and the table solver can rebuild the whole table
around a rack: the more tiles a rack holds, the likelier all of them fit at once. So:

- **go out** whenever the whole rack can be placed (K-END-1): a search for that play
  alone, cut at the first rack tile left over (``best_play``'s ``least``), so that it
  costs little when there is none;
- **danger**: when an opponent's rack is down to ``danger_tiles`` tiles, or the rack's
  value times the chance that an opponent of that rack size goes out on its next turn
  (:data:`OUT_CHANCE`) reaches ``danger_loss`` points, or (three players or more,
  :data:`POOL_DANGER_PLAYERS`) the pool is down to ``danger_pool`` tiles (rack sizes and
  the pool are public), what is held is likely to be
  paid for (K-END-1, K-END-2): play the most value the table solver finds, jokers
  included (a rack joker at the joker penalty, what it would cost);
- **otherwise hold back and draw**: a tile held is still there to go out with, and the
  table gets nothing the opponents could rebuild with (their racks stay stuck);
- **open** at the first turn the bar is reached (K-OPEN-1), without the jokers when the
  other tiles reach it (``open_jokers``), laying only the melds with the fewest tiles that
  reach the bar (``open_lean``), the others kept, unless an opponent is in danger of going
  out or the melds empty the rack.

Measured on duplicate deals against ``careful`` (benchmarks/rummikub_expert.py, seed 1),
holding back beat every partial rule: with two players a bot that holds everything won
94-99.8% of the rounds, one that plays what is worth 60 points or more 58%, 30 points 54%,
careful's own rule (10 points) 50%; playing a move that leaves one or two tiles (to go out
next turn) 36% and 29%. With four players (one expert, three careful) hoarding won 60-68%
of the rounds against 26-30% for the partial rules. The danger rules trade wins for
points: an opponent at one tile (four players) costs the expert wins (67.7% to 61.4%) and
gains it score (+26.6 to +32.6 a round over the others).
"""

from __future__ import annotations

import numpy as np

from sim.games.family import param_index
from sim.games.rummikub import EXPERT_PARAMS
from sim.games.rummikub.state import RP_BOUND, RP_G3MAX, RP_JOKER_PENALTY, RP_LOCKED, RP_WRAP, rack_value
from sim.games.rummikub.tablesolver import BUDGET, OVER_BUDGET
from sim.games.rummikub.tableturn import best_play, tile_weight
from sim.games.rummikub.view import NOTHING, VIEW
from sim.jit import F1, I1, I2, i64, kernel
from sim.solver.arrays import best_melds
from sim.solver.layout import F_FIRST, F_KEY, F_KIND, F_LEN, SET
from sim.tiles import COUNTS_LEN, JOKER, NUMBERS

X_DANGER_TILES = param_index(EXPERT_PARAMS, "danger_tiles")
X_DANGER_POOL = param_index(EXPERT_PARAMS, "danger_pool")
X_DANGER_LOSS = param_index(EXPERT_PARAMS, "danger_loss")
X_OPEN_LEAN = param_index(EXPERT_PARAMS, "open_lean")
X_OPEN_JOKERS = param_index(EXPERT_PARAMS, "open_jokers")

# A solve of the expert's visits at most this many positions. With racks of 20 to 40 tiles
# held back a few positions take the exact search minutes (wrap_runs above all: one turn
# of 195 s, four players, seed 1, round 7); the bound keeps every solve within the 2**16
# positions the solver remembers at first (no memory to grow). Measured over 200 rounds of
# four and of two experts (seed 1): 3 and 8 rounds play otherwise than with exact solves,
# and they play 2.5 and 1.7 times faster; a bound of 10,000 changed 19 and 43 rounds.
SOLVE_BUDGET = 40_000
MAX_LEAN_ROWS = 10  # opening melds searched for the leanest subset (2**10 subsets at most; a rack holds 4 or 5)


@kernel(inline=True)
def rack_weight(rack, joker_value):
    """The whole rack's weight in the table solver's value terms (``tile_weight``, objective 0)."""
    w = np.int64(0)
    for k in range(COUNTS_LEN):
        if rack[k] > 0:
            w += rack[k] * tile_weight(k, 0, joker_value)
    return w


# The chance that a player holding n tiles (index n, up to 9; more: the last) goes out on
# its turn, measured over 150 four-player rounds of careful and of greedy players (seed 11,
# about 1,700 turns each; the two bots agree within a few points): what a rack size says.
OUT_CHANCE = np.array([1.0, 0.25, 0.15, 0.10, 0.07, 0.05, 0.04, 0.03, 0.015, 0.01])


# The pool's danger (``danger_pool``) holds from this many players up. Heads-up, an expert
# that places what it can when the pool runs dry feeds the other one, which then goes out:
# one that holds wins 92.7% of the decided rounds against one that places, +45.8 points a
# round (150 duplicate deals, seed 1); against careful it changes nothing measurable
# (99.5% and 99.6%). With three and four players placing is the better answer to holding
# (+188 and +329 points a round over experts that hold, 80 and 60 deals).
POOL_DANGER_PLAYERS = 3


@kernel(inline=True)
def in_danger(v, rp, tune):
    """An opponent about to go out (``danger_tiles``), a rack too costly for the chance that
    one does (``danger_loss``), or the pool running dry (``danger_pool``)."""
    chance = 0.0
    for q in range(v.players):
        if q != v.seat and v.open_turns[q] > 0:
            if v.rack_sizes[q] <= tune[X_DANGER_TILES]:
                return True
            chance += OUT_CHANCE[min(v.rack_sizes[q], OUT_CHANCE.shape[0] - 1)]
    if chance * rack_value(v.rack, rp[RP_JOKER_PENALTY]) >= tune[X_DANGER_LOSS]:
        return True
    return v.players >= POOL_DANGER_PLAYERS and v.pool <= tune[X_DANGER_POOL]


@kernel(inline=True)
def meld_value(row):
    """A meld row's points, a joker counting as the tile it stands for (K-OPEN-2)."""
    if row[F_KIND] == SET:
        return row[F_KEY] * row[F_LEN]
    v = 0
    for q in range(row[F_LEN]):
        v += (row[F_FIRST] - 1 + q) % NUMBERS + 1  # runs wrap from 13 to 1 (K-VAR wrap_runs)
    return v


@kernel(inline=True)
def opening_melds(rack, bar, keep_jokers, cyclic, S, space, rows):
    """The most valuable melds of ``rack`` (K-OPEN-1/2): ``(value, melds)`` in ``rows``;
    with ``keep_jokers`` the most valuable without the rack's jokers if those reach ``bar``
    (every bot opens through this one call: ``careful`` keeping its jokers, ``expert`` as
    :func:`keeps_jokers_to_open` says)."""
    value, n = 0, 0
    if keep_jokers and rack[JOKER] > 0:
        saved = rack[JOKER]
        rack[JOKER] = 0
        value, n = best_melds(rack, cyclic, S, space, rows)
        rack[JOKER] = saved
    if n == 0 or value < bar:
        value, n = best_melds(rack, cyclic, S, space, rows)
    return value, n


@kernel(inline=True)
def keeps_jokers_to_open(tune):
    """The expert opens without its jokers when the other tiles reach the bar (``open_jokers`` 0)."""
    return tune[X_OPEN_JOKERS] < 0.5


@kernel(VIEW, I1, F1, I2, i64, i64)
def expert_open(v, rp, tune, rows, value, n):
    """The expert's opening (K-OPEN-1/2) from the melds :func:`opening_melds` found in
    ``rows`` (``n`` of them, ``value`` points): ``(value, melds)``, the melds it lays moved
    to the first rows. With ``open_lean`` the fewest tiles that reach the bar, the most
    value among those, unless it is in danger or the melds empty the rack (jit-compiled)."""
    tiles = 0
    for i in range(n):
        tiles += rows[i, F_LEN]
    left = -tiles
    for k in range(COUNTS_LEN):
        left += v.rack[k]
    if tune[X_OPEN_LEAN] < 0.5 or left == 0 or n > MAX_LEAN_ROWS or in_danger(v, rp, tune):
        return value, n
    best_mask, best_tiles, best_value = (1 << n) - 1, tiles, value
    for mask in range(1, 1 << n):
        t, s = 0, 0
        for i in range(n):
            if (mask >> i) & 1:
                t += rows[i, F_LEN]
                s += meld_value(rows[i])
        if s >= v.bar and (t < best_tiles or (t == best_tiles and s > best_value)):
            best_mask, best_tiles, best_value = mask, t, s
    m = 0
    for i in range(n):
        if (best_mask >> i) & 1:
            for f in range(rows.shape[1]):
                rows[m, f] = rows[i, f]
            m += 1
    return best_value, m


@kernel(inline=True)
def _most(v, rp, ts, work):
    """The most value the table solver finds, jokers included (K-PLAY-1, K-JOKER-1/2)."""
    penalty, g3max, cyclic = rp[RP_JOKER_PENALTY], rp[RP_G3MAX], rp[RP_WRAP] == 1
    locked, bound = rp[RP_LOCKED] == 1, rp[RP_BOUND] == 1
    w, n = best_play(v.rack, v.table, v.ntable, 0, penalty, g3max, cyclic, locked, bound, ts, work, True, v.must, 0)
    return w, n, w == 0 and ts[OVER_BUDGET] == 0


@kernel(inline=True)
def _going_out(rack, table, ntable, must, rp, ts, work):
    """K-END-1: the play that places the whole rack, if there is one (weight 0: none), a
    search cut at the first rack tile left over."""
    penalty, g3max, cyclic = rp[RP_JOKER_PENALTY], rp[RP_G3MAX], rp[RP_WRAP] == 1
    locked, bound = rp[RP_LOCKED] == 1, rp[RP_BOUND] == 1
    return best_play(rack, table, ntable, 0, penalty, g3max, cyclic, locked, bound, ts, work, True, must,
                     rack_weight(rack, penalty) - 1)


@kernel(inline=True)
def can_go_out(rack, table, ntable, rp, ts, work):
    """Whether the whole rack can be placed on the table (K-END-1), as far as the expert's
    budget of :data:`SOLVE_BUDGET` positions sees (the search's worlds)."""
    ts[BUDGET] = SOLVE_BUDGET
    ts[OVER_BUDGET] = 0
    w, _ = _going_out(rack, table, ntable, -1, rp, ts, work)
    ts[BUDGET] = 0
    return w != 0


@kernel(inline=True)
def _decide(v, rp, tune, ts, work):
    """:func:`expert_play` within the search budget."""
    w, n = _going_out(v.rack, v.table, v.ntable, v.must, rp, ts, work)  # K-END-1: the whole rack at once
    if w != 0:
        return w, n, False
    if in_danger(v, rp, tune):
        return _most(v, rp, ts, work)
    return np.int64(0), 0, False  # K-PLAY-1: hold everything back, draw


@kernel(inline=True)
def expert_play(v, rp, tune, ts, work, most):
    """The expert's table play after opening (K-PLAY-1): ``(weight, rows, nothing)`` as
    :func:`.tableturn.best_play` gives them (weight 0: draw), ``nothing`` True when it
    knows no play exists; with ``most`` the play it makes in danger, whatever the danger
    (the search's other choice, :mod:`.search`). Each solve visits at most
    :data:`SOLVE_BUDGET` positions (a play not found by then is not made). Inlined into
    the engine's one caller."""
    if v.must == NOTHING:
        return np.int64(0), 0, True
    ts[BUDGET] = SOLVE_BUDGET
    ts[OVER_BUDGET] = 0
    if most:
        w, n, nothing = _most(v, rp, ts, work)
    else:
        w, n, nothing = _decide(v, rp, tune, ts, work)
    ts[BUDGET] = 0  # the other bots' solves are exact
    return w, n, nothing
