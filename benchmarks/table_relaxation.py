"""What the linear relaxation of a table solve would prove on the dearest ``wrap_runs``
solves, and what it costs: the measurements behind the README's "what a linear relaxation
would prove" (measured and not kept, issue 26).

    python benchmarks/table_relaxation.py [--rule wrap_runs] [--seed 2026] [--from 256]

On the bench's positions (``benchmarks/bench_table.py --house-rules``, cached in
``data/bench/``, played first if missing), the solves that visit ``--from`` positions or more:

1. the relaxation's bound (every group and every run of three to five as a column, each rack
   copy optional, every table tile covered; SciPy's HiGHS) against the best play's weight;
2. asked per rack tile (the most copies of it any fractional table places, for each copy the
   best play leaves on the rack): the copies it proves unplaceable, and the positions a
   solve visits with them set aside;
3. a dense simplex in numba for those questions, started from the table as it stands (its
   melds pivoted into the first basis, the artificial columns held at zero), every answer
   checked against HiGHS, timed per position (positions with no free joker);
4. the 99th percentile of positions visited replayed with the tests made after the first
   ``--from`` positions and the search then run without the copies they prove unplaceable,
   the tests' time counted at ``--per`` us a position visited.
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np
from bench_table import HOUSE_RULES, load_positions
from scipy.optimize import linprog

import sim
from sim.games.rummikub.tableplay import Solver, read_table, table_counts
from sim.games.rummikub.tablesolver import VISITED_ALL
from sim.tiles import parse_meld, parse_rack

N = 13
KINDS = 52


def meld_columns(cyclic: bool) -> np.ndarray:
    """Every group (three or four colours) and every run of three to five (across 13-1 with
    ``cyclic``): the kinds of each, -1 padded. Longer runs are two or more of these."""
    melds = []
    for n in range(N):
        melds += [[c * N + n for c in range(4) if c != drop] for drop in range(4)]
        melds.append([c * N + n for c in range(4)])
    for c in range(4):
        for s in range(N):
            melds += [[c * N + (s + q) % N for q in range(length)] for length in (3, 4, 5)
                      if cyclic or s + length <= N]
    out = np.full((len(melds), 5), -1, dtype=np.int64)
    for i, m in enumerate(melds):
        out[i, :len(m)] = m
    return out


def highs(columns: np.ndarray, f: np.ndarray, o: np.ndarray, jokers: tuple[int, int],
          weights: np.ndarray) -> float:
    """The relaxation's most weight of rack copies placed (``weights`` per kind, then the
    rack's jokers'): table counts ``f``, rack counts ``o``, ``jokers`` (table, rack);
    -1 when no fractional table holds the table's tiles."""
    m = len(columns)
    a = np.zeros((KINDS, m))
    for i, col in enumerate(columns):
        for k in col[col >= 0]:
            a[k, i] += 1
    nv = m + 2 * KINDS + 1  # melds, rack copies placed, jokers standing in, rack jokers placed
    eq = np.zeros((KINDS + 1, nv))
    eq[:KINDS, :m] = a
    eq[:KINDS, m:m + KINDS] = -np.eye(KINDS)
    eq[:KINDS, m + KINDS:m + 2 * KINDS] = -np.eye(KINDS)
    eq[KINDS, m + KINDS:m + 2 * KINDS] = 1
    eq[KINDS, -1] = -1
    rhs = np.append(f.astype(float), jokers[0])
    cost = np.zeros(nv)
    cost[m:m + KINDS] = -weights[:KINDS]
    cost[-1] = -weights[KINDS]
    bounds = [(0, None)] * m + [(0, o[k]) for k in range(KINDS)] + [(0, None)] * KINDS + [(0, jokers[1])]
    r = linprog(cost, A_eq=eq, b_eq=rhs, bounds=bounds, method="highs")
    return -r.fun if r.status == 0 else -1.0


@numba.njit(cache=True)
def _pivot(t, rows, width, lv, e, basis):
    p = t[lv, e]
    for c in range(width):
        t[lv, c] /= p
    for r in range(rows + 1):
        if r != lv and t[r, e] != 0.0:
            x = t[r, e]
            for c in range(width):
                t[r, c] -= x * t[lv, c]
    basis[lv] = e


@numba.njit(cache=True)
def _optimise(t, rows, width, n, basis):
    """Dantzig's rule; an artificial column never enters, and one still basic (at zero) leaves
    as soon as the entering column touches its row, so that it stays at zero. Returns the
    pivots made."""
    pivots = 0
    while True:
        e = -1
        most = -1e-9
        for c in range(n):
            if t[rows, c] < most:
                most = t[rows, c]
                e = c
        if e < 0:
            return pivots
        lv = -1
        best = 1e300
        for r in range(rows):
            a = t[r, e]
            if basis[r] >= n and abs(a) > 1e-9:
                lv = r
                break
            if a > 1e-9 and t[r, width - 1] / a < best - 1e-12:
                best = t[r, width - 1] / a
                lv = r
        _pivot(t, rows, width, lv, e, basis)
        pivots += 1


@numba.njit(cache=True)
def most_copies(f, o, asked, columns, start, t):
    """The relaxation's most copies of each kind in ``asked`` (no free joker), from a basis
    holding the table as it stands (``start``: its melds' columns); returns the answers and
    the pivots made (scratch tableau ``t``)."""
    row_of = np.full(KINDS, -1, np.int64)
    m = 0
    for q in range(KINDS):
        if f[q] + o[q] > 0:
            row_of[q] = m
            m += 1
    col_of = np.full(columns.shape[0], -1, np.int64)
    nm = 0
    for i in range(columns.shape[0]):
        ok = True
        for j in range(5):
            if columns[i, j] >= 0 and row_of[columns[i, j]] < 0:
                ok = False
        if ok:
            col_of[i] = nm
            nm += 1
    rack = np.nonzero(o)[0]
    nr = rack.shape[0]
    rows = m + nr  # a row per kind in play, then p + slack = o per rack kind
    n = nm + 2 * nr  # melds, copies placed, their slacks; then one artificial per row
    width = n + rows + 1
    tab = t[:rows + 1, :width]
    tab[:, :] = 0.0
    for i in range(columns.shape[0]):
        if col_of[i] >= 0:
            for j in range(5):
                if columns[i, j] >= 0:
                    tab[row_of[columns[i, j]], col_of[i]] += 1.0
    for q in range(KINDS):
        if row_of[q] >= 0:
            tab[row_of[q], width - 1] = f[q]
    basis = np.empty(rows, np.int64)
    for r in range(rows):
        tab[r, n + r] = 1.0
        basis[r] = n + r
    for i in range(nr):
        tab[row_of[rack[i]], nm + i] = -1.0
        tab[m + i, nm + i] = 1.0
        tab[m + i, nm + nr + i] = 1.0
        tab[m + i, width - 1] = o[rack[i]]
        _pivot(tab, rows, width, m + i, nm + nr + i, basis)
    pivots = nr
    for s in range(start.shape[0]):  # the table's melds into the basis, where independent
        c = col_of[start[s]]
        if c < 0 or (basis == c).any():
            continue
        for r in range(rows):
            if basis[r] >= n and abs(tab[r, c]) > 1e-9:
                _pivot(tab, rows, width, r, c, basis)
                pivots += 1
                break
    answers = np.full(asked.shape[0], np.nan)
    for r in range(rows):
        if tab[r, width - 1] < -1e-9 or (basis[r] >= n and abs(tab[r, width - 1]) > 1e-9):
            return answers, -1  # the table's melds gave no table: not met on real positions
    for a in range(asked.shape[0]):
        tab[rows, :] = 0.0
        for i in range(nr):
            if rack[i] == asked[a]:
                tab[rows, nm + i] = -1.0
        for r in range(rows):
            x = tab[rows, basis[r]]
            if x != 0.0:
                for c in range(width):
                    tab[rows, c] -= x * tab[r, c]
        pivots += _optimise(tab, rows, width, n, basis)
        answers[a] = tab[rows, width - 1]
    return answers, pivots


def table_columns(table: list[str], index: dict) -> np.ndarray:
    """The columns of the table as it stands: each meld, a run longer than five as pieces of
    three to five."""
    out = []
    for text in table:
        meld = parse_meld(text)
        kinds = list(meld.tiles)
        if meld.kind == "run" and len(kinds) > 5:
            sizes, left = [], len(kinds)
            while left:
                take = 5 if left >= 8 or left == 5 else 4 if left in (4, 7) else 3
                sizes.append(take)
                left -= take
            at = 0
            for size in sizes:
                out.append(index[tuple(sorted(kinds[at:at + size]))])
                at += size
        else:
            out.append(index[tuple(sorted(kinds))])
    return np.array(out, dtype=np.int64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rule", default="wrap_runs", choices=["standard", "wrap_runs"])
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--from", dest="dear", type=int, default=256, help="positions visited that make a solve dear")
    ap.add_argument("--per", type=float, default=0.37, help="us a position visited, to replay the tests' time")
    args = ap.parse_args()
    sim.table_play("R1", "R2 R3 R4")  # compile or load the solver
    rules = sim.preset("rummikub").replace(**HOUSE_RULES[args.rule])
    positions = load_positions(0, args.seed, rules, 20000, args.rule)[:20000]
    columns = meld_columns(rules.wrap_runs)
    index = {tuple(sorted(int(k) for k in col if k >= 0)): i for i, col in enumerate(columns)}
    weights = np.array([1024 * (k % N + 1) + 1 for k in range(KINDS)] + [1024 * rules.joker_penalty + 1], float)
    solver = Solver()
    scratch = np.zeros((160, 640))
    visited = np.zeros(len(positions))
    tight, dear, cut_on, before, after, lp_us, lp_pivots, wrong = 0, 0, 0, [], [], [], [], 0
    replay = {}
    for i, p in enumerate(positions):
        table, pins = table_counts(read_table(p["table"], rules), bound=True)
        rack = np.asarray(parse_rack(p["rack"]).counts, dtype=np.int64)
        best, _ = solver.run(table, rack, rules, 0, pins=pins)
        visited[i] = solver.space[VISITED_ALL]
        if visited[i] < args.dear:
            continue
        dear += 1
        f = table[:KINDS] + pins[:KINDS]
        o = rack[:KINDS].copy()
        bound = highs(columns, f, o, (int(table[KINDS]), int(rack[KINDS])), weights)
        tight += int(np.floor(bound + 1e-6) <= max(best, 0))
        left = np.nonzero(rack[:KINDS] > solver.placed[:KINDS])[0]
        fewer = rack.copy()
        for k in left:
            most = highs(columns, f, o, (int(table[KINDS]), int(rack[KINDS])), np.eye(KINDS + 1)[k])
            fewer[k] = min(rack[k], max(0, int(np.floor(most + 1e-7))))
        again, _ = solver.run(table, fewer, rules, 0, pins=pins)
        assert again == best, (i, again, best)  # copies no fractional table places: the same best
        cut_on += int((fewer < rack).any())
        before.append(visited[i])
        after.append(solver.space[VISITED_ALL])
        if table[KINDS] + rack[KINDS] == 0 and len(left):
            start = table_columns(p["table"], index)
            most_copies(f, o, left, columns, start, scratch)  # compile, warm
            t0 = time.perf_counter()
            answers, pivots = most_copies(f, o, left, columns, start, scratch)
            lp_us.append((time.perf_counter() - t0) * 1e6)
            lp_pivots.append(pivots)
            for k, a in zip(left, answers, strict=True):
                wrong += int(abs(a - highs(columns, f, o, (0, 0), np.eye(KINDS + 1)[k])) > 1e-6)
            replay[i] = args.dear + lp_us[-1] / args.per + after[-1]
    print(f"{args.rule}, seed {args.seed}: {dear:,} of {len(positions):,} solves visit {args.dear} positions or more")
    print(f"  the relaxation's bound is the best play's weight on {tight / dear:.0%} of them")
    print(f"  per rack tile it proves copies unplaceable on {cut_on / dear:.0%}; positions visited without them: "
          f"median {np.median(after):.0f} against {np.median(before):.0f}")
    print(f"  the simplex from the table as it stands ({len(lp_us):,} positions with no free joker): "
          f"median {np.median(lp_us):.0f} us, 90th percentile {np.percentile(lp_us, 90):.0f} us, "
          f"{np.median(lp_pivots):.0f} pivots; answers unlike HiGHS's: {wrong}")
    replayed = visited.copy()
    for i, v in replay.items():
        replayed[i] = v
    print(f"  positions visited, 99th percentile: {np.percentile(visited, 99):,.0f} today; with the tests after "
          f"{args.dear} and {args.per} us a position: {np.percentile(replayed, 99):,.0f}")


if __name__ == "__main__":
    main()
