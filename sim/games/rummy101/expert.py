"""The ``expert`` bot's judgement (numba): how much a tile is worth keeping, which tile to
throw, when to open with pairs. It reads only the seat's :class:`~.view.View` (its rack,
the table, the pile, what it has not seen), the rules and its row of tuning constants
(:data:`sim.games.rummy101.EXPERT_PARAMS`, ``X_*`` here).

A tile's worth to its rack counts its *outs*: the unseen copies of the tiles that would
complete a run or a set with it and another rack tile (T-MELD-1, T-MELD-2), each weighted
by how many such copies are still unseen, so that a 5 between a 4 whose 6s are both on
the table and nothing else is worth nothing; a tile already in a meld of the rack is worth
most; before opening a meld counts for its points (T-OPEN-1: 101 to reach, and a 12 gets
there faster than a 2), after opening a tile on the rack counts against the player
(T-SCORE-2), so the worth falls with its number. The discard is the tile worth least,
unless the next player, opened, could add it to the table (T-TAKE-3): feeding it is
weighed as a cost.

Before opening, the few tiles worth least are looked at one draw ahead with the exact
solver (:func:`look_ahead`): for each, the rack without it is solved with every unseen
tile it could meld with added, each weighted by its unseen copies, for the chance that the
next draw opens (T-OPEN-1). Before the next player opens, a discard it could open with
(T-TAKE-2) is a cost too: the more unseen tiles could meld with it, and the higher it is,
the likelier (``guard``).
"""

from __future__ import annotations

import numpy as np

from sim.games.family import param_index
from sim.games.rummy101 import EXPERT_PARAMS
from sim.games.rummy101.core import (
    OPEN_MELDS,
    OPEN_NONE,
    PS_OPEN_KIND,
    RP_KEEP,
    RP_PLAYERS,
    SOLVER_ARRAYS,
    SOLVER_SPACE,
    could_meld,
    find_addition,
    melds_upper_bound,
    melds_value,
    points_threshold,
)
from sim.jit import F1, I1, boolean, i64, kernel
from sim.solver.layout import F_FIRST, F_KEY, F_KIND, F_LEN, RUN
from sim.tiles import JOKER, KINDS, NUMBERS

from .view import VIEW

X_MELD = param_index(EXPERT_PARAMS, "meld")
X_NEAR = param_index(EXPERT_PARAMS, "near")
X_FAR = param_index(EXPERT_PARAMS, "far")
X_POINTS_BEFORE = param_index(EXPERT_PARAMS, "points_before")
X_POINTS_AFTER = param_index(EXPERT_PARAMS, "points_after")
X_TWIN = param_index(EXPERT_PARAMS, "twin")
X_BRIDGE = param_index(EXPERT_PARAMS, "bridge")
X_FEED = param_index(EXPERT_PARAMS, "feed")
X_PAIRS_TURN = param_index(EXPERT_PARAMS, "pairs_turn")
X_REACH = param_index(EXPERT_PARAMS, "reach")
X_GUARD = param_index(EXPERT_PARAMS, "guard")
X_LOOK = param_index(EXPERT_PARAMS, "look")
X_JOKER_HOLD = param_index(EXPERT_PARAMS, "joker_hold")
X_NEAR_AFTER = param_index(EXPERT_PARAMS, "near_after")
X_FAR_AFTER = param_index(EXPERT_PARAMS, "far_after")
LOOK_MOST = 8  # the most tiles looked at one draw ahead (the range of ``look``)

COLOURS = 4


@kernel(inline=True)
def _near(rack, unseen, col, num, jokers):
    """``(have, outs)`` of the tile ``col``/``num`` for a meld of three: 1 if the rack holds
    it (or a joker can stand for it), else the unseen copies that would bring it."""
    if num < 1 or num > NUMBERS:
        return 0, 0
    k = col * NUMBERS + num - 1
    if rack[k] > 0:
        return 1, 0
    return 0, unseen[k]


@kernel(VIEW, i64, boolean, F1)
def tile_worth(v, k, opened, tune):
    """How much tile ``k`` (on the rack) is worth keeping (see the module docstring)
    (jit-compiled)."""
    rack, unseen = v.rack, v.unseen
    col = k // NUMBERS
    num = k % NUMBERS + 1
    hidden = max(v.hidden, 1)
    points = 1.0 + (tune[X_POINTS_BEFORE] * num / NUMBERS if not opened else 0.0)
    # before opening a meld counts for its points; after, for the tiles it places
    near = tune[X_NEAR_AFTER] if opened else tune[X_NEAR]
    far = tune[X_FAR_AFTER] if opened else tune[X_FAR]
    worth = 0.0
    # runs of three holding it (T-MELD-1: 1 is low only)
    for first in range(num - 2, num + 1):
        if first < 1 or first + 2 > NUMBERS:
            continue
        have = 0
        one = 0
        both = 1.0
        for m in range(first, first + 3):
            if m == num:
                continue
            h, outs = _near(rack, unseen, col, m, 0)
            have += h
            if h == 0:
                one = outs
                both *= outs
        if have == 2:
            worth += tune[X_MELD] * points
        elif have == 1:
            worth += near * one * points
        else:
            worth += far * both / hidden * points
    # sets of its number (T-MELD-2: different colours)
    have = 0
    outs = 0
    for c in range(COLOURS):
        if c == col:
            continue
        h, o = _near(rack, unseen, c, num, 0)
        have += h
        outs += o
    if have >= 2:
        worth += tune[X_MELD] * points
    elif have == 1:
        worth += near * outs * points
    else:
        worth += far * outs * outs / (2.0 * hidden) * points
    if opened:
        # a table run two short of it: once the tile between is added, it can follow (T-ADD-1)
        for i in range(v.ntable):
            if v.table[i, F_KIND] != RUN or v.table[i, F_KEY] != col:
                continue
            low = v.table[i, F_FIRST]
            high = low + v.table[i, F_LEN] - 1
            if high == num - 2:
                worth += tune[X_BRIDGE] * unseen[col * NUMBERS + num - 2]
            if low == num + 2:
                worth += tune[X_BRIDGE] * unseen[col * NUMBERS + num]
    return worth


@kernel(VIEW, i64)
def partners(v, k):
    """The unseen tiles that could sit in a meld with ``k``: its colour within two, its
    number in the other colours; what a rack the seat cannot see may hold to use it
    (jit-compiled)."""
    col = k // NUMBERS
    num = k % NUMBERS + 1
    n = 0
    for m in range(max(1, num - 2), min(NUMBERS, num + 2) + 1):
        if m != num:
            n += v.unseen[col * NUMBERS + m - 1]
    for c in range(COLOURS):
        if c != col:
            n += v.unseen[c * NUMBERS + num - 1]
    return n


@kernel(inline=True)
def _opens(rack, need, keep, S, space):
    """Whether the rack's melds reach ``need`` (T-OPEN-1), the solver asked only when the
    tiles that fit some meld could reach it."""
    return melds_upper_bound(rack) >= need and melds_value(rack, keep, S, space) >= need


@kernel(VIEW, I1, I1, F1, I1, SOLVER_ARRAYS, SOLVER_SPACE)
def look_ahead(v, cand, rp, tune, out, S, space):
    """For each tile of ``cand`` (kinds, -1 for none), the worth one draw ahead of
    throwing it before opening: the unseen copies of the tiles whose draw brings the rack
    to an opening (T-OPEN-1), into ``out``. Each draw is solved with the whole rack
    first: throwing a tile never raises the best melds, so a draw that opens nothing with
    the whole rack opens nothing without one, and throwing a lone tile that fits no meld
    changes nothing; the exact solver again only for the others (jit-compiled)."""
    rack, unseen = v.rack, v.unseen
    keep = rp[RP_KEEP] == 1
    need = points_threshold(v.g, rp)
    for j in range(cand.shape[0]):
        out[j] = 0
    for u in range(KINDS):
        if unseen[u] == 0:
            continue
        rack[u] += 1
        if could_meld(rack, u) and _opens(rack, need, keep, S, space):
            for j in range(cand.shape[0]):
                d = cand[j]
                if d < 0:
                    continue
                rack[d] -= 1
                opens = True
                if rack[d] > 0 or could_meld(rack, d):
                    opens = _opens(rack, need, keep, S, space)
                rack[d] += 1
                if opens:
                    out[j] += unseen[u]
        rack[u] -= 1


@kernel(VIEW, I1, F1, SOLVER_ARRAYS, SOLVER_SPACE)
def expert_discard(v, rp, tune, S, space):
    """The tile to throw (T-TURN-2): the one worth least to the rack, a tile the next
    player (opened) could add to the table weighed down by ``feed``, before opening the
    few least worth looked at one draw ahead (:func:`look_ahead`); never a joker while
    another tile is left (jit-compiled)."""
    rack = v.rack
    p = v.seat
    nxt = (p + 1) % rp[RP_PLAYERS]
    kind = v.ps[p, PS_OPEN_KIND]
    opened = kind != OPEN_NONE
    pairs_matter = kind != OPEN_MELDS  # T-OPEN-2, T-OPEN-6: pairs open and follow a pairs opening
    feed_watch = v.ps[nxt, PS_OPEN_KIND] != OPEN_NONE
    best = -1
    best_key = 1e300
    looked = min(LOOK_MOST, max(1, int(tune[X_LOOK])))
    cand = np.full(looked, -1, dtype=np.int64)
    cand_key = np.full(looked, 1e300)
    for k in range(KINDS):
        if rack[k] == 0:
            continue
        # throwing one of two copies keeps the other's melds: only the pair is lost
        key = (tune[X_TWIN] if pairs_matter else 0.0) if rack[k] >= 2 else tile_worth(v, k, opened, tune)
        if opened:
            key -= tune[X_POINTS_AFTER] * (k % NUMBERS + 1)  # T-SCORE-2: what it costs if another goes out
        if feed_watch:
            i, _ = find_addition(rack, v.table, v.ntable, nxt, v.ps, k)
            if i >= 0:
                key += tune[X_FEED]
        else:  # the next player may take it only to open with it (T-TAKE-2): a high tile with partners
            key += tune[X_GUARD] * partners(v, k) * (k % NUMBERS + 1) / (NUMBERS * 10.0)
        if key < best_key:
            best_key = key
            best = k
        # the ``look`` least worth, kept sorted
        j = looked - 1
        if key < cand_key[j]:
            while j > 0 and cand_key[j - 1] > key:
                cand_key[j] = cand_key[j - 1]
                cand[j] = cand[j - 1]
                j -= 1
            cand_key[j] = key
            cand[j] = k
    if not opened and tune[X_REACH] > 0:
        opening = np.zeros(looked, dtype=np.int64)
        look_ahead(v, cand, rp, tune, opening, S, space)
        best_key = 1e300
        hidden = max(v.hidden, 1)
        for j in range(looked):
            if cand[j] < 0:
                break
            key = cand_key[j] - tune[X_REACH] * opening[j] / hidden  # the rack left is worth more
            if key < best_key:
                best_key = key
                best = cand[j]
    return JOKER if best < 0 else best


@kernel(VIEW, I1, F1)
def holds_jokers(v, rp, tune):
    """After opening, hold the jokers off new melds and the table for a joker finish
    (T-FIN-2: the last discard a joker doubles every penalty), while every other player
    holds more than ``joker_hold`` tiles: a joker left on the rack when another goes out
    costs 101 (T-VAL-1, T-SCORE-2) (jit-compiled)."""
    fewest = 1 << 30
    for q in range(rp[RP_PLAYERS]):
        if q != v.seat and v.sizes[q] < fewest:
            fewest = v.sizes[q]
    return fewest > tune[X_JOKER_HOLD]

