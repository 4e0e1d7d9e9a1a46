"""One table play of a Rummikub turn (numba): the best play of a rack onto the table as
the engine and :func:`sim.table_play` both make it, the jokers already on the table
handled as the rules in force say (K-JOKER-1/2, ``joker_moves``, ``locked_jokers``), the
table itself rebuilt by the exact solver of :mod:`.table`.

How each table joker enters the solve:

- ``joker_moves=free`` (the reading before the K-JOKER-2 revision): a joker on the table
  may stand for any tile after any rearrangement, so it is one more free joker of the
  table;
- ``joker_moves=bound`` (the default): a joker stays bound to the tile it stands for
  (it is that tile for the solve, a *pinned* copy, :mod:`.table`), unless a rack tile
  frees it this turn: the exact tile, or for a joker in a group of three a tile of the
  colour the group lacks. The freeing tile is then placed like a table tile and the
  freed joker is a free joker of the table, to be placed again this turn;
- ``locked_jokers``: a meld holding a joker is set aside as it is, except that each of
  its jokers may be freed as above (the exact tile only with ``free``). With ``bound``,
  a meld whose jokers are all freed is then an ordinary meld (its tiles and the freeing
  tiles join the table); with ``free`` it stays as it is with the tile in the joker's
  place, as before.

Every choice of which jokers to free, and with which tile, the rack allows is one solve
(at most nine: two jokers, two tiles each); the best is kept, the first found on ties.
"""

from __future__ import annotations

import numpy as np

from sim.games.rummikub.tablesolver import PRIMARY, SPACE, solve
from sim.jit import I1, I2, boolean, copy_row, copy_rows, i64, kernel, tuple_of
from sim.solver.layout import F_COLOURS, F_FIRST, F_JOKERS, F_KEY, F_KIND, F_LEN, SET
from sim.tiles import JOKER, KINDS, NUMBERS

# Work arrays of one play (made in Python by tablecall.buffer_views): the table's loose tiles (the melds that may be
# rebuilt), the same for one choice of freeing, the rack searched, the tiles placed, the
# bound jokers by tile, the solver's melds, the best play's melds, its rack tiles and its
# freed jokers (``[count, tile, by, tile, by]``), and the table rebuilt.
WORK = tuple_of(I1, I1, I1, I1, I1, I2, I2, I1, I1, I2)
MAX_SPOTS = 4  # table jokers looked at (the set holds two)
FREED_LEN = 1 + 2 * MAX_SPOTS


@kernel(inline=True)
def row_tiles(row, counts, sign):
    """Add (``sign`` 1) or take away (-1) the tiles of a meld row to ``counts``, a joker
    at JOKER."""
    if row[F_KIND] == SET:
        for c in range(4):
            if (row[F_COLOURS] >> c) & 1:
                if (row[F_JOKERS] >> c) & 1:
                    counts[JOKER] += sign
                else:
                    counts[c * NUMBERS + row[F_KEY] - 1] += sign
    else:
        for q in range(row[F_LEN]):
            n = (row[F_FIRST] - 1 + q) % NUMBERS + 1  # runs wrap from 13 to 1 (K-VAR wrap_runs)
            if (row[F_JOKERS] >> (n - 1)) & 1:
                counts[JOKER] += sign
            else:
                counts[row[F_KEY] * NUMBERS + n - 1] += sign


@kernel(I1, I1, i64, counted=False)
def add_row(row, counts, sign):
    """:func:`row_tiles`, compiled once for the callers that are not inlined (jit-compiled)."""
    row_tiles(row, counts, sign)


@kernel(i64, i64, i64)
def tile_weight(k, objective, joker_value):
    """A placed rack tile's weight in the solver's terms (:func:`.table.solve`) (jit-compiled)."""
    v = joker_value if k == JOKER else k % NUMBERS + 1
    return PRIMARY * v + 1 if objective == 0 else PRIMARY + v


@kernel(I1)
def jokers_in_row(row):
    """The jokers of a meld row (jit-compiled)."""
    n = 0
    for b in range(NUMBERS):
        n += (row[F_JOKERS] >> b) & 1
    return n


@kernel(i64, i64, I1, I1, counted=False)
def _choice(combo, spots, spot_alt, choice):
    """Choice ``combo`` of freeings as a digit per joker (0: not freed, 1: by its tile, 2:
    by the colour its group of three lacks) into ``choice`` (jit-compiled)."""
    for s in range(spots):
        radix = 3 if spot_alt[s] >= 0 else 2
        choice[s] = combo % radix
        combo //= radix


@kernel(i64, i64, I1, I1, counted=False)
def _all_freed(i, spots, spot_row, choice):
    """Whether the choice frees every joker of table row ``i`` (jit-compiled)."""
    for s in range(spots):
        if spot_row[s] == i and choice[s] == 0:
            return False
    return True


@kernel(I1, I2, i64, i64, i64, i64, boolean, boolean, boolean, SPACE, WORK, boolean, i64, i64)
def best_play(rack, table, ntable, objective, joker_value, g3max, cyclic, locked, bound, ts, work, use_jokers,
              must, least):
    """The best play of ``rack`` onto the ``ntable`` meld rows of ``table``: ``(weight,
    rows)``, the weight ``PRIMARY * primary + secondary`` (objective 0: value, a rack
    joker at ``joker_value``; 1: tiles; 0 for no play, -2 when the solver's memory is too
    small), the rebuilt table in the ``rows`` first rows of ``work``'s last array, the
    rack tiles placed and the jokers freed in the two before it. ``locked``:
    ``locked_jokers``; ``bound``: ``joker_moves=bound``. ``use_jokers`` False keeps the
    rack's jokers back. ``must`` (a kind, or -1): only plays placing that rack tile are
    sought (the caller knows no other play exists). ``least``: only plays weighing more
    are sought (0: any play; a rack's whole weight less one: only a play that places
    every rack tile, a search cut at the first tile left over) (jit-compiled)."""
    base, loose, r, placed, pins, out, best_rows, best_placed, freed, new_table = work
    spot_kind = np.empty(MAX_SPOTS, dtype=np.int64)  # the tile a joker stands for
    spot_alt = np.empty(MAX_SPOTS, dtype=np.int64)  # another tile that frees it, or -1
    spot_row = np.empty(MAX_SPOTS, dtype=np.int64)
    spot_bit = np.empty(MAX_SPOTS, dtype=np.int64)
    frozen = np.zeros(MAX_SPOTS, dtype=np.int64)  # the joker's meld is locked
    choice = np.zeros(MAX_SPOTS, dtype=np.int64)
    spots = 0
    base[:] = 0
    for i in range(ntable):
        locked_row = locked and table[i, F_JOKERS] != 0
        if not locked_row:
            add_row(table[i], base, 1)
            if not bound:
                continue  # free jokers: the table's jokers at JOKER
            base[JOKER] -= jokers_in_row(table[i])  # bound: each joker pinned, or freed
        for b in range(NUMBERS):
            if (table[i, F_JOKERS] >> b) & 1 and spots < MAX_SPOTS:
                spot_alt[spots] = -1
                if table[i, F_KIND] == SET:  # bit b: the colour the joker stands for
                    spot_kind[spots] = b * NUMBERS + table[i, F_KEY] - 1
                    if bound and table[i, F_LEN] == 3:  # K-JOKER-2: or the colour the group lacks
                        for c in range(4):
                            if not (table[i, F_COLOURS] >> c) & 1:
                                spot_alt[spots] = c * NUMBERS + table[i, F_KEY] - 1
                else:  # bit b: the number b + 1
                    spot_kind[spots] = table[i, F_KEY] * NUMBERS + b
                spot_row[spots] = i
                spot_bit[spots] = b
                frozen[spots] = locked_row
                spots += 1
    best = np.int64(least)
    best_combo = -1
    best_n = 0
    if must == JOKER and not use_jokers:
        return np.int64(0), 0
    combos = 1
    for s in range(spots):
        combos *= 3 if spot_alt[s] >= 0 else 2
    for combo in range(combos):
        _choice(combo, spots, spot_alt, choice)
        copy_row(r, rack)
        if not use_jokers:
            r[JOKER] = 0
        copy_row(loose, base)
        pins[:] = 0
        extra = np.int64(0)
        forcing = must
        for s in range(spots):
            if choice[s] == 0:
                if bound and not frozen[s]:
                    pins[spot_kind[s]] += 1  # it stays bound to its tile
                continue
            u = spot_kind[s] if choice[s] == 1 else spot_alt[s]
            r[u] -= 1
            extra += tile_weight(u, objective, joker_value)
            loose[JOKER] += 1  # K-JOKER-1/2: the freed joker is placed again this turn
            if u == forcing:
                forcing = -1  # the freeing places that tile
            if bound and (not frozen[s] or _all_freed(spot_row[s], spots, spot_row, choice)):
                loose[u] += 1  # the freeing tile takes the joker's place, a table tile now
        if bound and locked:  # a locked meld whose jokers are all freed is an ordinary meld
            for i in range(ntable):
                if table[i, F_JOKERS] != 0 and _all_freed(i, spots, spot_row, choice):
                    add_row(table[i], loose, 1)
                    loose[JOKER] -= jokers_in_row(table[i])
        ok = True
        for k in range(KINDS):
            if r[k] < 0:
                ok = False
        if not ok:
            continue
        extra_must = np.int64(0)
        if forcing >= 0:  # the tile goes in like a table tile: placed, whatever else is
            r[forcing] -= 1
            loose[forcing] += 1
            extra_must = tile_weight(forcing, objective, joker_value)
        # Only a play beating the best so far matters: its weight is the floor (the table as
        # it stands beats nothing for the first choice; later ones, freed tiles aside).
        floor = np.int64(0) if combo == 0 and must < 0 and best == 0 else max(np.int64(-1), best - extra - extra_must)
        w, n = solve(loose, pins, r, objective, joker_value, g3max, cyclic, floor, -1, ts, out, placed)
        if w == -2:
            return np.int64(-2), 0
        if w < 0 or n < 0:
            continue
        w += extra_must
        if forcing >= 0:
            placed[forcing] += 1
        if w + extra > best:
            best = w + extra
            best_combo = combo
            best_n = n
            copy_rows(best_rows[:n], out[:n])
            copy_row(best_placed, placed)
    freed[:] = 0
    if best_combo < 0:
        return np.int64(0), 0
    # The freeing tiles are rack tiles placed; the rebuilt table: the locked melds that
    # stay (a freed joker's place now its tile), then the solver's melds.
    _choice(best_combo, spots, spot_alt, choice)
    m = 0
    for s in range(spots):
        if choice[s] > 0:
            u = spot_kind[s] if choice[s] == 1 else spot_alt[s]
            best_placed[u] += 1
            freed[1 + 2 * freed[0]] = spot_kind[s]
            freed[2 + 2 * freed[0]] = u
            freed[0] += 1
    for i in range(ntable):
        if not (locked and table[i, F_JOKERS] != 0) or (bound and _all_freed(i, spots, spot_row, choice)):
            continue
        copy_row(new_table[m], table[i])
        for s in range(spots):
            if choice[s] > 0 and spot_row[s] == i:
                new_table[m, F_JOKERS] &= ~(np.int64(1) << spot_bit[s])
                if choice[s] == 2:  # a group's joker freed by the colour it lacked: that colour now
                    new_table[m, F_COLOURS] &= ~(np.int64(1) << spot_bit[s])
                    new_table[m, F_COLOURS] |= np.int64(1) << (spot_alt[s] // NUMBERS)
        m += 1
    copy_rows(new_table[m:m + best_n], best_rows[:best_n])
    return best, m + best_n
