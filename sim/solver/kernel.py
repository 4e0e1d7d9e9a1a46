"""The exact opening search (numba): best melds score of a rack under the rules in force.

A rack's melds are sets, which live at one number, and runs, which live in one colour.
The search walks the numbers where a set is possible and tries every set option there
(:mod:`sim.solver.sets`); what is left of each colour goes to the runs, read from the run
table (:mod:`sim.solver.runs`), and the remaining jokers are shared between the colours
by a small knapsack. Only numbers where some set can be formed branch, so a dealt rack
without jokers has a handful of leaves; each joker adds the numbers where it can complete
a set. With wrap-around runs (K-VAR ``wrap_runs``) a colour that some run could cross
13-1 in has its runs worked out by the wrap-around programme instead of the table.

Scores are ``SCORE_UNIT * value - tiles``. Everything here is jit-compiled; the Python
wrappers that validate input and allocate output live in :mod:`sim.solver.api`.
"""

from __future__ import annotations

import numpy as np

from sim.jit import B2, I1, I2, I3, I4, I32_2, boolean, i64, kernel, tuple_of
from sim.solver.runs import AUTOMATON, NEG, POW3, SCORE_UNIT, TABLE_JOKERS, colour_runs
from sim.tiles import COUNTS_LEN, JOKER, NUMBERS

COLOURS = 4
LEAF_LEN = NUMBERS + COLOURS  # option row per number, then jokers per colour

# Argument types: the set options and the run table with the automaton, in the order of
# ``sim.solver.api._Arrays.args()``, and the scratch space of :func:`new_space`.
SOLVER = (I1, I2, I1, I1, I1, I2, I32_2, *AUTOMATON)
SPACE = tuple_of(I2, I2, I3, I2, B2, I2, I2, I2, I1, I1, I4, I1)


@kernel(i64, entry=True)
def value_of(score):
    """Melds value of a score (0 for an empty opening, -1 where none is possible)."""
    if score <= NEG // 2:
        return -1
    if score <= 0:
        return 0
    return (score + SCORE_UNIT - 1) // SCORE_UNIT


@kernel(i64)
def tiles_of(score):
    """Tiles laid down by a score."""
    return value_of(score) * SCORE_UNIT - score


@kernel(I2, i64, I1, I1)
def _share_jokers(runs, jr, comb, tmp):
    """Best total over colours of ``runs[col, j_col]`` with at most ``jr`` jokers in all."""
    for j in range(jr + 1):
        comb[j] = runs[0, j]
    for col in range(1, COLOURS):
        for j in range(jr + 1):
            best = NEG
            for a in range(j + 1):
                x = comb[a]
                y = runs[col, j - a]
                if x > NEG and y > NEG and x + y > best:
                    best = x + y
            tmp[j] = best
        for j in range(jr + 1):
            comb[j] = tmp[j]
    best = NEG
    for j in range(jr + 1):
        if comb[j] > best:
            best = comb[j]
    return best


@kernel(I2, i64, I1)
def _record_joker_split(runs, jr, leaf):
    """Write into ``leaf`` one split of the jokers over the colours reaching the best total."""
    best = NEG
    for j0 in range(jr + 1):
        for j1 in range(jr + 1 - j0):
            for j2 in range(jr + 1 - j0 - j1):
                for j3 in range(jr + 1 - j0 - j1 - j2):
                    a, b, c, d = runs[0, j0], runs[1, j1], runs[2, j2], runs[3, j3]
                    if a <= NEG or b <= NEG or c <= NEG or d <= NEG:
                        continue
                    if a + b + c + d > best:
                        best = a + b + c + d
                        leaf[NUMBERS + 0] = j0
                        leaf[NUMBERS + 1] = j1
                        leaf[NUMBERS + 2] = j2
                        leaf[NUMBERS + 3] = j3


MAXJ = 4  # jokers the scratch space is sized for (tiles.MAX_JOKERS)


@kernel(i64, entry=True)
def new_space(n_states):
    """Scratch arrays for :func:`search`, allocated once per block of racks (jit-compiled)."""
    return (
        np.zeros((NUMBERS + 1, COLOURS), dtype=np.int64),  # pattern per depth
        np.empty((3, NUMBERS), dtype=np.int64),  # candidates: number, code, jokers needed
        np.full((2, n_states, MAXJ + 1), NEG, dtype=np.int64),  # direct run DP layers
        np.zeros((2, n_states), dtype=np.int64),
        np.zeros((2, n_states), dtype=np.bool_),
        np.empty((8, MAXJ + 1), dtype=np.int64),  # runs per colour (4), comb, tmp, dtmp, spare
        np.empty((COLOURS, MAXJ + 4), dtype=np.int64),  # memo: key (3) and values per colour
        np.empty((5, NUMBERS + 1), dtype=np.int64),  # row, setscore, jokers left, forced, joker sets
        np.empty(NUMBERS, dtype=np.int64),  # counts of one colour
        np.empty(LEAF_LEN, dtype=np.int64),  # leaf (unused unless recording)
        np.zeros((1, 1, 1, 1), dtype=np.int64),  # back-pointers colour_runs does not keep
        np.empty(MAXJ + 1, dtype=np.int64),  # best score with fewer jokers (the bound)
    )


@kernel(i64, i64)
def _may_wrap(pattern, jokers):
    """Whether a run of a colour whose tiles are ``pattern`` (``sum(count[n] * 3**(n-1))``)
    could hold both 13 and 1 with ``jokers`` jokers (K-VAR ``wrap_runs``): each of the two
    numbers without a tile takes a joker. Where none could, the colour's wrap-around runs
    are its runs in a line (jit-compiled)."""
    missing = (1 if pattern % 3 == 0 else 0) + (1 if (pattern // POW3[NUMBERS - 1]) % 3 == 0 else 0)
    return missing <= jokers


@kernel(I1, i64, boolean, *SOLVER, boolean, I1, SPACE)
def _search(counts, forced_kind, cyclic, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj, table,
            states, tptr, tto, tdj, tk, tnoend, record, leaf, space):
    """:func:`search` for one number of jokers, ``space[-1][k]`` holding the best score
    with k < jokers (jit-compiled)."""
    jokers = counts[JOKER]
    pattern, candidates, dp, act, flag, small, memo, stack, counts13, _, nobp, fewer = space
    cand = candidates[0]
    cand_code = candidates[1]
    cand_minj = candidates[2]
    runs = small  # rows 0-3: the runs of each colour
    comb = small[4]
    ctmp = small[5]
    dtmp = small[6]
    memo_key = memo[:, :3]
    memo_val = memo[:, 3:]
    row = stack[0]
    setscore = stack[1]
    jrem = stack[2]
    fdone = stack[3]
    jsets = stack[4]  # score of the options holding jokers taken so far
    for col in range(COLOURS):
        p = 0
        for n in range(NUMBERS):
            p += counts[col * NUMBERS + n] * POW3[n]
        pattern[0, col] = p
    # Numbers where some set can be laid, those needing fewer jokers first: once the
    # jokers are spent the remaining numbers cannot branch and the search goes to the leaf.
    ncand = 0
    for need in range(jokers + 1):
        for n in range(NUMBERS):
            code = 0
            mult = 1
            for col in range(COLOURS):
                code += counts[col * NUMBERS + n] * mult
                mult *= 3
            if g_minj[code, n] == need:
                cand[ncand] = n
                cand_code[ncand] = code
                cand_minj[ncand] = need
                ncand += 1
    forced = forced_kind >= 0
    fcol = forced_kind // NUMBERS if forced else -1
    fnum = forced_kind % NUMBERS if forced else -1

    direct = cyclic or jokers > TABLE_JOKERS or forced
    for col in range(COLOURS):
        memo_key[col, 0] = -1
    fdone[0] = False
    setscore[0] = 0
    jsets[0] = 0
    jrem[0] = jokers
    best = NEG
    d = 0
    if ncand > 0:
        row[0] = g_ptr[cand_code[0]]
    while True:
        if d == ncand or jrem[d] < cand_minj[d]:
            # Leaf: no later number can take a set with the jokers left; what the sets
            # left of each colour goes to runs.
            jr = jrem[d]
            ok = True
            for col in range(COLOURS):
                p = pattern[d, col]
                colour_forced = forced and col == fcol and not fdone[d]
                # The run table serves a wrap-around colour (K-VAR wrap_runs) that no run can
                # cross 13-1 in: its runs are those of the numbers in a line.
                if not direct or (jr <= TABLE_JOKERS and not colour_forced and not (cyclic and _may_wrap(p, jr))):
                    for j in range(jr + 1):
                        runs[col, j] = table[p, j]
                    continue
                fpos = fnum + 1 if colour_forced else 0
                if memo_key[col, 0] == p and memo_key[col, 1] == jr and memo_key[col, 2] == fpos:
                    for j in range(jr + 1):
                        runs[col, j] = memo_val[col, j]
                else:
                    q = p
                    for n in range(NUMBERS):
                        counts13[n] = q % 3
                        q //= 3
                    colour_runs(counts13, jr, fpos, cyclic, states, tptr, tto, tdj, tk,
                                tnoend, dp, act, flag, dtmp, nobp, runs[col])
                    memo_key[col, 0] = p
                    memo_key[col, 1] = jr
                    memo_key[col, 2] = fpos
                    for j in range(jr + 1):
                        memo_val[col, j] = runs[col, j]
                if runs[col, jr] <= NEG // 2:
                    ok = False  # the forced tile fits no run of what is left
            if ok:
                total = setscore[d] + _share_jokers(runs, jr, comb, ctmp)
                if total > best:
                    best = total
                    if record:
                        for n in range(NUMBERS):
                            leaf[n] = -1
                        for i in range(d):
                            leaf[cand[i]] = row[i]
                        _record_joker_split(runs, jr, leaf)
            d -= 1
            if d < 0:
                break
            row[d] += 1
            continue
        n = cand[d]
        end = g_ptr[cand_code[d] + 1]
        r = row[d]
        while r < end and g_jokers[r] <= jrem[d] and g_from[r] > n + 1:
            r += 1  # a set the same tiles beat as a run here (sets.from_number)
        if r >= end or g_jokers[r] > jrem[d]:  # rows come by jokers needed: none left fit
            d -= 1
            if d < 0:
                break
            row[d] += 1
            continue
        row[d] = r
        gain = g_tiles[r] * (SCORE_UNIT * (n + 1) - 1)
        if g_jokers[r] > 0:
            # Bound: these joker sets plus the best lay-down with the jokers left.
            left = jrem[d] - g_jokers[r]
            if jsets[d] + gain + fewer[left] <= best:
                row[d] += 1
                continue
            jsets[d + 1] = jsets[d] + gain
        else:
            jsets[d + 1] = jsets[d]
        for col in range(COLOURS):
            pattern[d + 1, col] = pattern[d, col] - g_use[r, col] * POW3[n]
        setscore[d + 1] = setscore[d] + gain
        jrem[d + 1] = jrem[d] - g_jokers[r]
        fdone[d + 1] = fdone[d] or (forced and n == fnum and g_use[r, fcol] > 0)
        d += 1
        if d < ncand:
            row[d] = g_ptr[cand_code[d]]
    return best


@kernel(I1, i64, boolean, *SOLVER, boolean, I1, SPACE, entry=True)
def search(counts, forced_kind, cyclic, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj, table,
           states, tptr, tto, tdj, tk, tnoend, record, leaf, space):
    """Best melds score of ``counts`` (int64, 53) with no tile set aside (jit-compiled).

    ``forced_kind`` (0-51 or -1) must lie in a meld (T-TAKE-2). With ``record`` the best
    leaf is written to ``leaf``: the option row taken at every number (-1: none) and the
    jokers given to each colour's runs. Returns NEG when no melds hold the forced tile.
    ``space`` comes from :func:`new_space`.

    Jokers are what makes the search branch, so the rack is first solved with 0, 1, ...
    jokers: whatever sets hold jokers, the rest of the lay-down is some lay-down of the
    rack with the jokers left, so it is worth at most the best with that many jokers.
    """
    jokers = counts[JOKER]
    fewer = space[-1]
    for k in range(jokers):
        counts[JOKER] = k
        fewer[k] = _search(counts, -1, cyclic, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj,
                           table, states, tptr, tto, tdj, tk, tnoend, False, leaf, space)
    counts[JOKER] = jokers
    return _search(counts, forced_kind, cyclic, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj,
                   table, states, tptr, tto, tdj, tk, tnoend, record, leaf, space)


@kernel(I1, i64, boolean, boolean, *SOLVER, SPACE, entry=True)
def best_score(counts, forced_kind, keep, cyclic, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj,
               table, states, tptr, tto, tdj, tk, tnoend, space):
    """Best melds score leaving a tile for the discard when ``keep`` (T-OPEN-4).

    Returns ``(score, set_aside)``: ``set_aside`` is the kind left on the rack to make
    room for the discard, or -1 when the best melds already leave a tile (jit-compiled).
    """
    leaf = space[-1]
    s = search(counts, forced_kind, cyclic, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj,
               table, states, tptr, tto, tdj, tk, tnoend, False, leaf, space)
    if not keep or s <= NEG // 2:
        return s, -1
    total = 0
    for k in range(COUNTS_LEN):
        total += counts[k]
    if tiles_of(s) < total:
        return s, -1
    # Every best lay-down empties the rack: the best that sets one tile aside.
    best = NEG
    aside = -1
    for k in range(COUNTS_LEN):
        if counts[k] == 0 or (k == forced_kind and counts[k] == 1):
            continue
        counts[k] -= 1
        s2 = search(counts, forced_kind, cyclic, g_ptr, g_use, g_jokers, g_tiles, g_from, g_minj,
                    table, states, tptr, tto, tdj, tk, tnoend, False, leaf, space)
        counts[k] += 1
        if s2 > best:
            best = s2
            aside = k
    return best, aside


@kernel(I1, i64, boolean, entry=True)
def most_pairs(counts, forced_kind, keep):
    """Most pairs (T-MELD-3): two equal tiles, or one tile and a joker; a tile left for the
    discard when ``keep`` (T-OPEN-4); the forced tile in a pair (T-TAKE-2) (jit-compiled)."""
    doubles = 0
    singles = 0
    total = counts[JOKER]
    for k in range(JOKER):
        doubles += counts[k] // 2
        singles += counts[k] % 2
        total += counts[k]
    # Jokers pair singles first; two spare jokers split a double into two pairs.
    on_singles = min(counts[JOKER], singles)
    pairs = doubles + on_singles + min((counts[JOKER] - on_singles) // 2, doubles)
    if forced_kind >= 0 and counts[forced_kind] == 1 and counts[JOKER] == 0:
        return 0
    if keep and 2 * pairs == total:
        pairs -= 1
    return max(pairs, 0)
