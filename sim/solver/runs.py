"""Runs within one colour (T-MELD-1, K-MELD-1, K-VAR ``wrap_runs``): the best value the
runs of one colour can reach from that colour's tiles and a number of jokers.

The runs of one colour are read number by number, 1 to 13, by a small automaton. Its
state is the multiset of runs still open at the current number, each described by its
length so far (1, 2, or 3 and more) and whether it holds a numbered tile yet (T-MELD-4:
a meld holds at least one). At every number the automaton chooses how many open runs
end (only complete ones may), how many go on and how many start; numbered tiles go to
the runs first, jokers fill the rest. Any number of runs may overlap: with jokers a
third copy of a number can be needed (R9 R10 J(R11) beside two R11-R12-R13 runs).

Scores are ``SCORE_UNIT * value - tiles``: the largest value first, then the fewest tiles,
so that the solver can tell when every best opening empties the rack (T-OPEN-4).

:func:`run_table` holds the answer for every one of the 3**13 count patterns of a colour
with 0, 1 or 2 jokers, built once by walking all patterns as a trie and cached on disk;
:func:`colour_runs` computes one pattern directly for more jokers, a forced tile
(T-TAKE-2) or wrap-around runs.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.jit import B1, B2, I1, I2, I3, I4, Workload, boolean, i64, kernel, prepare, tuple_of
from sim.tiles import KINDS, NUMBERS

SCORE_UNIT = 64  # more than the most tiles a rack can hold
NEG = -(1 << 40)  # "unreachable" in the DP arrays (int64)
TABLE_JOKERS = 2  # the cached table covers 0, 1 and 2 jokers in a colour
PATTERNS = 3**NUMBERS
POW3 = np.array([3**i for i in range(NUMBERS)], dtype=np.int64)

# Open-run types: index = (length class - 1) * 2 + has_numbered_tile.
_TYPE_LEN = (1, 1, 2, 2, 3, 3)
_TYPE_REAL = (0, 1, 0, 1, 0, 1)
_COMPLETE = 5  # length 3 or more, holds a numbered tile: may end here


def _type(length: int, real: int) -> int:
    return (min(length, 3) - 1) * 2 + real


_ADVANCE = tuple(_type(_TYPE_LEN[t] + 1, _TYPE_REAL[t]) for t in range(6))


@dataclass(frozen=True)
class RunAutomaton:
    """The automaton for at most ``jmax`` jokers in one colour, as flat arrays for numba.

    Transitions from state ``s`` on ``c`` numbered tiles are ``tptr[3*s + c]`` up to
    ``tptr[3*s + c + 1]``; each goes to ``tto`` using ``tdj`` jokers and leaves ``tk`` runs
    covering the number; ``tnoend`` says no run ended (needed where runs wrap). To rebuild
    the runs, ``mends`` complete runs end before the number, ``mstarts`` start at it, and
    ``mgive[t, i]`` numbered tiles go to jokers-only runs of length class i (1, 2, 3+).
    """

    jmax: int
    states: np.ndarray  # (S, 6) open runs of each type
    tptr: np.ndarray
    tto: np.ndarray
    tdj: np.ndarray
    tk: np.ndarray
    tnoend: np.ndarray
    mends: np.ndarray
    mstarts: np.ndarray
    mgive: np.ndarray

    def arrays(self) -> tuple:
        return (self.states, self.tptr, self.tto, self.tdj, self.tk, self.tnoend)

    def moves(self) -> tuple:
        return (self.mends, self.mstarts, self.mgive)


@functools.cache
def automaton(jmax: int) -> RunAutomaton:
    """Build the run automaton for up to ``jmax`` jokers in one colour (plain Python, once)."""
    cap = 2 + jmax  # two numbered copies plus the jokers: the most runs covering one number
    empty = (0,) * 6
    index = {empty: 0}
    order = [empty]
    rows: list[list[tuple[int, int, int, bool, tuple]]] = []
    i = 0
    while i < len(order):
        s = order[i]
        i += 1
        for c in range(3):
            seen: dict[tuple[tuple[int, ...], int, bool], tuple] = {}
            for ends in range(s[_COMPLETE] + 1):
                cont = list(s)
                cont[_COMPLETE] -= ends
                adv = [0] * 6
                for t in range(6):
                    adv[_ADVANCE[t]] += cont[t]
                going_on = sum(adv)
                # An end and a start at the same number would be one longer run: never both.
                max_starts = cap - going_on if ends == 0 else 0
                for starts in range(max_starts + 1):
                    k = going_on + starts
                    reals = min(k, c)
                    dj = k - reals
                    if dj > jmax:
                        continue
                    base = adv[:]
                    base[0] += starts
                    # Numbered tiles go first to runs that hold none yet; which of those get
                    # them (by length) is a real choice, so all splits are kept.
                    given = min(reals, base[0] + base[2] + base[4])
                    for g0 in range(min(given, base[0]) + 1):
                        for g2 in range(min(given - g0, base[2]) + 1):
                            g4 = given - g0 - g2
                            if g4 > base[4]:
                                continue
                            nxt = base[:]
                            nxt[0] -= g0
                            nxt[1] += g0
                            nxt[2] -= g2
                            nxt[3] += g2
                            nxt[4] -= g4
                            nxt[5] += g4
                            if nxt[0] + 2 * nxt[2] + 3 * nxt[4] > jmax:
                                continue  # jokers-only runs would need more jokers than there are
                            key = (tuple(nxt), dj, ends == 0)
                            if key not in seen:
                                seen[key] = (ends, starts, g0, g2, g4)
            row = []
            for (nxt, dj, noend), move in seen.items():
                if nxt not in index:
                    index[nxt] = len(order)
                    order.append(nxt)
                row.append((index[nxt], dj, sum(nxt), noend, move))
            rows.append(row)
    tptr = np.zeros(len(rows) + 1, dtype=np.int64)
    flat = [t for row in rows for t in row]
    for r, row in enumerate(rows):
        tptr[r + 1] = tptr[r] + len(row)
    return RunAutomaton(
        jmax=jmax,
        states=np.array(order, dtype=np.int64),
        tptr=tptr,
        tto=np.array([t[0] for t in flat], dtype=np.int64),
        tdj=np.array([t[1] for t in flat], dtype=np.int64),
        tk=np.array([t[2] for t in flat], dtype=np.int64),
        tnoend=np.array([t[3] for t in flat], dtype=np.bool_),
        mends=np.array([t[4][0] for t in flat], dtype=np.int64),
        mstarts=np.array([t[4][1] for t in flat], dtype=np.int64),
        mgive=np.array([t[4][2:] for t in flat], dtype=np.int64).reshape(-1, 3),
    )


# --- numba kernels -------------------------------------------------------------------------

# Argument types: the automaton's transition arrays (states, tptr, tto, tdj, tk, tnoend),
# its move arrays (mends, mstarts, mgive), and the scratch of :func:`best_runs`.
AUTOMATON = (I2, I1, I1, I1, I1, B1)
MOVES = (I1, I1, I2)
RUN_SPACE = tuple_of(I3, I2, B2, I4, I1, I1, I1, I2, I2, I1, I1)


@kernel(I2, I1, i64, B1)
def _clear(dp, act, nact, flag):
    """Reset the active rows of one DP layer (jit-compiled)."""
    for i in range(nact):
        s = act[i]
        dp[s, :] = NEG
        flag[s] = False


@kernel(I2, I1, i64, i64, i64, i64, i64, boolean, *AUTOMATON[1:], I2, I1, B1, I4, boolean)
def _step(dp_in, act_in, nact_in, c, pos, jmax, forced, no_end, tptr, tto, tdj, tk, tnoend,
          dp_out, act_out, flag_out, bp, trace):
    """Advance the DP by number ``pos`` holding ``c`` numbered tiles (jit-compiled).

    ``dp_out`` must be clear. ``forced == pos`` demands a run through this number;
    ``no_end`` forbids runs ending here. With ``trace``, ``bp[pos, to, j]`` records the
    (state, jokers, transition) each best entry came from. Returns the active count.
    """
    nout = 0
    gain_per_run = SCORE_UNIT * pos - 1
    for ii in range(nact_in):
        s = act_in[ii]
        for t in range(tptr[3 * s + c], tptr[3 * s + c + 1]):
            if no_end and not tnoend[t]:
                continue
            k = tk[t]
            if pos == forced and k == 0:
                continue
            to = tto[t]
            dj = tdj[t]
            gain = k * gain_per_run
            for j in range(jmax - dj + 1):
                v = dp_in[s, j]
                if v == NEG:
                    continue
                nv = v + gain
                j2 = j + dj
                if nv > dp_out[to, j2]:
                    dp_out[to, j2] = nv
                    if not flag_out[to]:
                        flag_out[to] = True
                        act_out[nout] = to
                        nout += 1
                    if trace:
                        bp[pos, to, j2, 0] = s
                        bp[pos, to, j2, 1] = j
                        bp[pos, to, j2, 2] = t
    return nout


@kernel(I2, i64, i64)
def _accepts(states, final, s0):
    """Runs still open after 13 may end there, except the ones that wrap round to ``s0``."""
    for t in range(5):
        if states[final, t] != states[s0, t]:
            return False
    return states[final, 5] >= states[s0, 5]


@kernel(I1, i64, i64, i64, boolean, *AUTOMATON, I3, I2, B2, I1, I4, boolean)
def _runs_from(counts13, jmax, forced, s0, cyclic, states, tptr, tto, tdj, tk, tnoend,
               dp, act, flag, out_best, bp, trace):
    """Best score with exactly j jokers for every j, from start state ``s0`` (jit-compiled).

    ``dp`` is (2, S, jmax+1) scratch, cleared on return; ``out_best[j]`` receives the best
    score using exactly j jokers (NEG if none), and with ``trace`` the final state per j
    is written to ``bp[0, 0, j, 0]``.
    """
    nact0 = 1
    act[0, 0] = s0
    flag[0, s0] = True
    dp[0, s0, 0] = 0
    cur = 0
    nact = nact0
    for pos in range(1, NUMBERS + 1):
        nxt = 1 - cur
        nout = _step(dp[cur], act[cur], nact, counts13[pos - 1], pos, jmax, forced,
                     cyclic and pos == 1, tptr, tto, tdj, tk, tnoend,
                     dp[nxt], act[nxt], flag[nxt], bp, trace)
        _clear(dp[cur], act[cur], nact, flag[cur])
        cur = nxt
        nact = nout
    for j in range(jmax + 1):
        out_best[j] = NEG
    for ii in range(nact):
        f = act[cur, ii]
        if not _accepts(states, f, s0):
            continue
        for j in range(jmax + 1):
            v = dp[cur, f, j]
            if v > out_best[j]:
                out_best[j] = v
                if trace:
                    bp[0, 0, j, 0] = f
    _clear(dp[cur], act[cur], nact, flag[cur])


@kernel(I1, i64, i64, boolean, *AUTOMATON, I3, I2, B2, I1, I4, I1, entry=True)
def colour_runs(counts13, jmax, forced, cyclic, states, tptr, tto, tdj, tk, tnoend,
                dp, act, flag, tmp, unused_bp, out):
    """Best run score of one colour with at most j jokers, j = 0..jmax (jit-compiled).

    ``counts13[n-1]`` is the number of tiles of number n (0-2); ``forced`` (1-13, or 0)
    names a number whose tile must sit in a run; ``cyclic`` lets runs wrap 13 -> 1.
    ``out[j]`` receives the score, NEG where no runs meet the demand. Returns the start
    state of the best wrap-around answer (0 when runs do not wrap). ``unused_bp``: any
    4-d array (back-pointers are not kept here; the caller's scratch saves an allocation).
    """
    for j in range(jmax + 1):
        out[j] = NEG
    best_start = 0
    top = NEG
    # Without wrapping, runs start from nothing open; with it, from every multiset of
    # runs that could be crossing from 13 to 1 (they must come back as open after 13).
    last = states.shape[0] if cyclic else 1
    for s0 in range(last):
        size = 0
        for t in range(6):
            size += states[s0, t]
        if size > counts13[0] + jmax or size > counts13[NUMBERS - 1] + jmax:
            continue
        _runs_from(counts13, jmax, forced, s0, cyclic, states, tptr, tto, tdj, tk, tnoend,
                   dp, act, flag, tmp, unused_bp, False)
        for j in range(jmax + 1):
            if tmp[j] > out[j]:
                out[j] = tmp[j]
            if tmp[j] > top:
                top = tmp[j]
                best_start = s0
    for j in range(1, jmax + 1):  # "at most j jokers"
        if out[j - 1] > out[j]:
            out[j] = out[j - 1]
    return best_start


@kernel(*AUTOMATON, i64, I2, entry=True)
def _build_table(states, tptr, tto, tdj, tk, tnoend, jmax, table):
    """Fill ``table[pattern, j]`` for every colour pattern by a depth-first walk (jit-compiled).

    The pattern of a colour is ``sum(count[n] * 3**(n-1))``. Patterns sharing their first
    numbers share the DP layers of those numbers, so each of the ~2.4 million trie nodes
    costs one DP step.
    """
    n_states = states.shape[0]
    dp = np.full((NUMBERS + 1, n_states, jmax + 1), NEG, dtype=np.int64)
    act = np.zeros((NUMBERS + 1, n_states), dtype=np.int64)
    flag = np.zeros((NUMBERS + 1, n_states), dtype=np.bool_)
    nact = np.zeros(NUMBERS + 1, dtype=np.int64)
    choice = np.zeros(NUMBERS + 1, dtype=np.int64)
    code = np.zeros(NUMBERS + 1, dtype=np.int64)
    bp = np.zeros((1, 1, 1, 1), dtype=np.int64)
    best = np.empty(jmax + 1, dtype=np.int64)
    dp[0, 0, 0] = 0
    act[0, 0] = 0
    flag[0, 0] = True
    nact[0] = 1
    d = 1
    choice[1] = 0
    while True:
        _clear(dp[d], act[d], nact[d], flag[d])
        nact[d] = _step(dp[d - 1], act[d - 1], nact[d - 1], choice[d], d, jmax, 0, False,
                        tptr, tto, tdj, tk, tnoend, dp[d], act[d], flag[d], bp, False)
        code[d] = code[d - 1] + choice[d] * 3 ** (d - 1)
        if d < NUMBERS:
            d += 1
            choice[d] = 0
            continue
        for j in range(jmax + 1):
            best[j] = NEG
        for ii in range(nact[d]):
            f = act[d, ii]
            if not _accepts(states, f, 0):
                continue
            for j in range(jmax + 1):
                if dp[d, f, j] > best[j]:
                    best[j] = dp[d, f, j]
        for j in range(jmax + 1):
            if j > 0 and best[j - 1] > best[j]:
                best[j] = best[j - 1]
            table[code[d], j] = best[j]
        while d >= 1 and choice[d] == 2:
            d -= 1
        if d == 0:
            break
        choice[d] += 1


@kernel(inline=True)
def _trace_runs(counts13, jmax, forced, s0, cyclic, jokers, states, tptr, tto, tdj, tk,
                tnoend, dp, act, flag, bp, best, out_moves):
    """Re-run the DP from ``s0`` keeping back-pointers; write the transition taken at every
    number into ``out_moves[1..13]`` for the best score with at most ``jokers`` jokers.
    Returns that score (jit-compiled)."""
    _runs_from(counts13, jmax, forced, s0, cyclic, states, tptr, tto, tdj, tk, tnoend,
               dp, act, flag, best, bp, True)
    jbest = -1
    for j in range(jokers + 1):
        if best[j] > NEG and (jbest < 0 or best[j] > best[jbest]):
            jbest = j
    if jbest < 0:
        return NEG
    s = bp[0, 0, jbest, 0]
    j = jbest
    for pos in range(NUMBERS, 0, -1):
        out_moves[pos] = bp[pos, s, j, 2]
        s, j = bp[pos, s, j, 0], bp[pos, s, j, 1]
    return best[jbest]


# --- Python side ------------------------------------------------------------------------


def _cache_dir() -> Path:
    base = os.environ.get("SIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rummy-sim"
    )
    return Path(base)


TABLE_VERSION = 2


def table_path() -> Path:
    """Where the run table is kept."""
    return _cache_dir() / f"run_table_v{TABLE_VERSION}.npy"


@functools.lru_cache(maxsize=1)
def run_table() -> np.ndarray:
    """``table[pattern, j]``: best run score of a colour pattern with at most j jokers, j=0..2.

    Built on first use (a few seconds) and kept in ``$SIM_CACHE_DIR`` (default
    ``~/.cache/rummy-sim``) so later processes load it in milliseconds.
    """
    path = table_path()
    if path.exists():
        try:
            table = np.load(path)
            if table.shape == (PATTERNS, TABLE_JOKERS + 1) and table.dtype == np.int32:
                return table
        except (OSError, ValueError):
            pass  # a damaged cache file is rebuilt below
    table = build_run_table()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            np.save(f, table)
        os.replace(tmp, path)
    except OSError:
        pass  # no writable cache: keep the table in memory only
    return table


TABLE_WORKLOAD = Workload("the run table", ("sim.solver.runs",))


def build_run_table() -> np.ndarray:
    prepare(TABLE_WORKLOAD)
    print(f"building the opening solver's run table (once: kept in {_cache_dir()})", file=sys.stderr, flush=True)
    a = automaton(TABLE_JOKERS)
    table = np.empty((PATTERNS, TABLE_JOKERS + 1), dtype=np.int64)
    _build_table(a.states, a.tptr, a.tto, a.tdj, a.tk, a.tnoend, TABLE_JOKERS, table)
    return table.astype(np.int32)


MAX_RUNS = 32  # runs one colour can hold, with room for wrapped pieces


REPLAY_ROWS = 13  # rows of _replay_runs' scratch, each a vector over runs (or cells)
REPLAY_CELLS = 8 * NUMBERS  # the tiles of the chains of wrapped runs one colour can hold


@kernel(I1, I1, i64, boolean, I2, *MOVES, I2, I2)
def _replay_runs(counts13, moves, s0, cyclic, states, mends, mstarts, mgive, work, out):
    """Turn the transitions taken at every number into runs (jit-compiled).

    ``out[i] = (first number, length, joker mask)``, the mask holding bit n-1 where a
    joker stands for number n; a wrapped run's numbers go on from 13 to 1. Returns the
    number of runs. Runs crossing 13 -> 1 start as heads carrying their tail's type and
    are glued behind an open tail of that type after 13. ``work`` is scratch of
    ``(REPLAY_ROWS, REPLAY_CELLS)``: one row per vector below (flags as 0 and 1).
    """
    work[:, :] = 0
    start = work[0]
    stop = work[1]
    length = work[2]  # length class so far (capped at 3 when > 3)
    real = work[3]
    jmask = work[4]
    is_open = work[5]
    head = work[6]  # wrap: the type of the tail it follows
    head[:] = -1
    got = work[7]  # runs given a numbered tile at this number
    n = 0
    if cyclic:
        for t in range(6):
            for _ in range(states[s0, t]):
                start[n] = 1
                length[n] = (t // 2) + 1
                real[n] = t % 2 == 1
                head[n] = t
                is_open[n] = True
                n += 1
    for pos in range(1, NUMBERS + 1):
        m = moves[pos]
        ends = mends[m]
        for i in range(n):
            if ends > 0 and is_open[i] and length[i] >= 3 and real[i]:
                is_open[i] = False
                stop[i] = pos - 1
                ends -= 1
        for _ in range(mstarts[m]):
            start[n] = pos
            length[n] = 0
            real[n] = False
            is_open[n] = True
            n += 1
        k = 0
        for i in range(n):
            if is_open[i]:
                length[i] += 1
                k += 1
        reals = min(k, counts13[pos - 1])
        give0 = mgive[m, 0]
        give1 = mgive[m, 1]
        give2 = mgive[m, 2]
        got[:n] = False
        for i in range(n):
            if is_open[i] and not real[i] and reals > 0:
                cls = min(length[i], 3) - 1
                if cls == 0 and give0 > 0:
                    give0 -= 1
                elif cls == 1 and give1 > 0:
                    give1 -= 1
                elif cls == 2 and give2 > 0:
                    give2 -= 1
                else:
                    continue
                got[i] = True
                reals -= 1
        for i in range(n):
            if is_open[i] and real[i] and not got[i] and reals > 0:
                got[i] = True
                reals -= 1
        for i in range(n):
            if is_open[i]:
                if got[i]:
                    real[i] = True
                else:
                    jmask[i] |= 1 << (pos - 1)
    for i in range(n):
        if is_open[i]:
            stop[i] = NUMBERS
    count = 0
    if not cyclic:
        for i in range(n):
            out[count, 0] = start[i]
            out[count, 1] = stop[i] - start[i] + 1
            out[count, 2] = jmask[i]
            count += 1
        return count
    # Glue each head behind a tail of its type still open after 13, then lay out the chains
    # that start at an ordinary run, cutting any longer than 13 (K-MELD-1).
    follower = work[8]
    follower[:] = -1
    taken = work[9]
    placed = work[10]
    cells = work[11]
    jcells = work[12]
    for h in range(n):
        if head[h] < 0:
            continue
        pick = -1
        for r in range(n):
            if r == h or taken[r] or not is_open[r] or follower[r] >= 0:
                continue
            t = (min(length[r], 3) - 1) * 2 + (1 if real[r] else 0)
            if t == head[h] and (pick < 0 or (head[pick] >= 0 and head[r] < 0)):
                pick = r
        if pick >= 0:
            follower[pick] = h
            taken[pick] = True
    for i in range(n):
        if head[i] >= 0:
            continue
        c = 0
        r = i
        while r >= 0:
            placed[r] = True
            for num in range(start[r], stop[r] + 1):
                cells[c] = num
                jcells[c] = (jmask[r] >> (num - 1)) & 1 == 1
                c += 1
            r = follower[r]
            if r >= 0 and placed[r]:
                break
        first = 0
        while c - first > 0:
            piece = c - first
            if piece > NUMBERS:
                piece = NUMBERS if c - first - NUMBERS >= 3 else c - first - 3
            mask = 0
            for q in range(first, first + piece):
                if jcells[q]:
                    mask |= 1 << (cells[q] - 1)
            out[count, 0] = cells[first]
            out[count, 1] = piece
            out[count, 2] = mask
            count += 1
            first += piece
    for i in range(n):
        if head[i] >= 0 and not placed[i]:
            out[count, 0] = start[i]
            out[count, 1] = stop[i] - start[i] + 1
            out[count, 2] = jmask[i]
            count += 1
    return count


RUN_SPACE_JOKERS = 4


@kernel(i64, entry=True)
def new_run_space(n_states):
    """Scratch for :func:`best_runs`: DP layers, back-pointers and small buffers."""
    return (
        np.full((2, n_states, RUN_SPACE_JOKERS + 1), NEG, dtype=np.int64),
        np.zeros((2, n_states), dtype=np.int64),
        np.zeros((2, n_states), dtype=np.bool_),
        np.zeros((NUMBERS + 1, n_states, RUN_SPACE_JOKERS + 1, 3), dtype=np.int64),
        np.empty(RUN_SPACE_JOKERS + 1, dtype=np.int64),
        np.empty(RUN_SPACE_JOKERS + 1, dtype=np.int64),
        np.empty(NUMBERS + 1, dtype=np.int64),
        np.zeros((REPLAY_ROWS, REPLAY_CELLS), dtype=np.int64),  # _replay_runs
        np.zeros((MAX_RUNS, 3), dtype=np.int64),  # runs of one colour (sim.solver.layout)
        np.zeros(KINDS, dtype=np.int64),  # tiles left (sim.solver.layout)
        np.zeros(NUMBERS, dtype=np.int64),  # counts of one colour (sim.solver.layout)
    )


@kernel(inline=True)
def best_runs(counts13, jokers, forced, cyclic, states, tptr, tto, tdj, tk, tnoend, mends,
              mstarts, mgive, space, out):
    """The runs behind the best score of one colour with at most ``jokers`` jokers, into
    ``out`` as in :func:`_replay_runs`; returns ``(count, score)``, score NEG if no runs
    meet the demand. ``space`` comes from :func:`new_run_space` (jit-compiled)."""
    dp, act, flag, bp, tmp, best, moves, work, _, _, _ = space
    s0 = 0  # runs that do not wrap start from nothing open
    if cyclic:
        s0 = colour_runs(counts13, jokers, forced, cyclic, states, tptr, tto, tdj, tk, tnoend,
                         dp, act, flag, tmp, bp, best)
    score = _trace_runs(counts13, jokers, forced, s0, cyclic, jokers, states, tptr, tto, tdj,
                        tk, tnoend, dp, act, flag, bp, tmp, moves)
    if score == NEG:
        return 0, NEG
    return _replay_runs(counts13, moves, s0, cyclic, states, mends, mstarts, mgive, work, out), score
