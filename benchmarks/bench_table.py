"""Time per solve of the Rummikub table solver (``sim.table_play``'s kernel) on positions
taken from played rounds, and side by side with the MILP solver ``rummikub-solver``.

    python benchmarks/bench_table.py [--rounds 40] [--seed 2026] [--reference 300]
    python benchmarks/bench_table.py --house-rules 20000 [--repeats 3] [--rule wrap_runs] [--slowest 10]
    python benchmarks/bench_table.py --every-cut 20000 [--cap 262144]
    python benchmarks/bench_table.py --known-best 20000 [--rule wrap_runs]

Positions: every turn of an opened player in ``--rounds`` greedy rounds of 2 to 4 players
(each opens with its best opening from the rack, then places the most value the table
solver finds, or draws; table jokers bound to their tiles, K-JOKER-2), the table and the
rack before the play; kept when the table holds 10 to 80 tiles and the rack 1 to 25 (the
range of the issue). They are cached in ``data/bench/`` by seed and round count. The
kernel is timed alone (no Python face), the fastest of ``--repeats`` calls per position,
on one core; printed: median, 90th and 99th percentiles, mean, and the same by table
size. Each position is solved twice: with the table's jokers bound to their tiles (the
default ``joker_moves=bound``: one solve, no joker freed) and free (``joker_moves=free``,
the reading before the K-JOKER-2 revision); and the whole turn with ``bound`` (every
choice of jokers freed that the rack allows, :mod:`sim.games.rummikub.tableturn`).

With ``--reference N`` (``pip install -e ".[bench]"``), the first N positions are solved
by ``rummikub-solver`` too (its default MILP back end), both with the *tiles* objective:
its value objective sums an outer product, which scales the tile count, so it does not
maximise value (measured: 20 of 400 positions below the best value). Its jokers are free,
so it is compared with the free solve (the same question, the same answer expected) and,
for the record, with the bound one. Printed: the medians on those positions, the ratios
of the medians, and any disagreement with the free solve.

With ``--house-rules N``: N positions of each house rule that changes what the solver is
asked (:data:`HOUSE_RULES`, or those named by ``--rule``), each from greedy rounds played
under that rule, the solve and the whole turn timed and reported per rule; ``--slowest K``
adds where the slowest solves' time goes (positions visited, memo entries, the cost of
a position, what a perfect lower bound would leave: the solve told the answer) and the K
slowest positions themselves.

With ``--every-cut N``: N positions of ``wrap_runs`` rounds solved at each cut of the circle
of numbers and each direction, to see how far a better choice could bring the tail
(positions visited).

With ``--known-best N``: N positions of each house rule (the standard game and ``wrap_runs``,
or those named by ``--rule``) solved as the solver does, told the answer (the positions
visited that no order of the options and no first guess at the best play could save) and
proving alone that no play beats the best.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

import sim
from sim.games.rummikub.tableplay import Solver, read_table, table_counts
from sim.solver.layout import MELD_FIELDS, meld_row
from sim.tiles import COUNTS_LEN, Rack, parse_rack

RULES = sim.preset("rummikub")
# The house rules that change what the table solver is asked (K-VAR, K-JOKER-2), each
# timed on positions of its own rounds. ``easing_open`` and ``last_call`` change when a
# player opens or when the round ends, not the solve: easing is played by the loop below,
# last call is not.
HOUSE_RULES = {
    "standard": {},
    "wrap_runs": {"wrap_runs": True},
    "locked_jokers": {"locked_jokers": True},
    "joker_moves=free": {"joker_moves": "free"},
    "easing_open": {"easing_open": True, "open_points": 50},
    "joker_penalty=25": {"joker_penalty": 25},
}


def play_rounds(rounds: int, seed: int, rules=None, wanted: int = 0) -> list[dict]:
    """The positions met by greedy players in ``rounds`` rounds (table, rack, players),
    or in as many rounds as give ``wanted`` positions."""
    rules = rules or RULES
    rng = np.random.default_rng(seed)
    positions = []
    played = 0
    while played < rounds or len(positions) < wanted:
        played += 1
        players = int(rng.integers(2, 5))
        tiles = rng.permutation(np.repeat(np.arange(COUNTS_LEN), 2))
        racks = [np.bincount(tiles[14 * s:14 * s + 14], minlength=COUNTS_LEN) for s in range(players)]
        pool = list(tiles[14 * players:])
        table: list = []
        opened = [False] * players
        passes = turn = 0
        while passes < players:
            s = turn % players
            turn += 1
            moved = False
            if not opened[s]:
                bar = rules.open_points
                if rules.easing_open:  # K-VAR easing: the bar falls every few turns of the player's
                    own = (turn - 1) // players  # the player's turns before this one
                    bar = max(rules.easing_floor, bar - rules.easing_step * (own // rules.easing_every))
                opening = sim.best_opening(Rack.from_counts(racks[s]), rules)
                if opening.value >= bar:
                    opened[s] = moved = True
                    table += list(opening.melds)
                    racks[s] = np.asarray(opening.left.counts)
            else:
                positions.append({"table": [str(m) for m in table], "rack": str(Rack.from_counts(racks[s])),
                                  "players": players})
                play = sim.table_play(Rack.from_counts(racks[s]), table, rules)
                if play.can_play:
                    moved = True
                    table = list(play.melds)
                    racks[s] = racks[s] - np.asarray(play.played.counts)
            if racks[s].sum() == 0:
                break
            if moved:
                passes = 0
            elif pool:
                racks[s][pool.pop()] += 1
            else:
                passes += 1
    return positions


def load_positions(rounds: int, seed: int, rules=None, wanted: int = 0, name: str = "") -> list[dict]:
    rules = rules or RULES
    tag = f"w{wanted}" if wanted else f"r{rounds}"
    label = f"-{name.replace('=', '-')}" if name else ""
    path = Path("data/bench") / f"rummikub-positions{label}-{tag}-s{seed}-{rules.joker_moves}.json"
    if path.exists():
        return json.loads(path.read_text())
    what = f"{wanted:,} positions" if wanted else f"{rounds} rounds"
    print(f"playing greedy rounds for {what} {('of ' + name) if name else ''} (cached in {path}) ...", flush=True)
    positions = play_rounds(rounds, seed, rules, wanted)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(positions))
    tmp.replace(path)
    return positions


def time_kernel(positions: list[dict], objective: int, repeats: int, bound: bool,
                rules=None, searched: list | None = None) -> tuple[list[float], list[int]]:
    """The solver alone: ``bound``, the table's jokers pinned to their tiles; else free.
    ``searched`` gets each solve's positions visited (by every cut it tried, with
    wrap-around runs) and memo entries (its last cut's)."""
    from sim.games.rummikub.tablesolver import STATS, VISITED_ALL

    rules = rules or RULES
    solver = Solver()
    times, tiles = [], []
    for p in positions:
        melds = read_table(p["table"], rules)
        t, pins = table_counts(melds, bound=True) if bound else (table_counts(melds), None)
        r = np.asarray(parse_rack(p["rack"]).counts, dtype=np.int64)
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            solver.run(t, r, rules, objective, pins=pins)
            best = min(best, time.perf_counter() - t0)
        times.append(best * 1e6)
        tiles.append(int(solver.placed.sum()))
        if searched is not None:
            searched.append((int(solver.space[VISITED_ALL]), int(solver.space[STATS])))
    return times, tiles


def time_turn(positions: list[dict], repeats: int, rules=None) -> list[float]:
    """One turn's table play (bound jokers: every choice of jokers freed the rack allows)."""
    rules = rules or RULES
    solver = Solver()
    times = []
    for p in positions:
        melds = read_table(p["table"], rules)
        rows = np.array([meld_row(m) for m in melds], dtype=np.int64).reshape(len(melds), MELD_FIELDS)
        r = np.asarray(parse_rack(p["rack"]).counts, dtype=np.int64)
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            solver.play(r, rows, rules, 0)
            best = min(best, time.perf_counter() - t0)
        times.append(best * 1e6)
    return times


def time_public(positions: list[dict], repeats: int) -> tuple[list[float], float]:
    """``sim.table_play`` called as a user calls it, the table and the rack as text (the
    fastest of ``repeats`` calls per position), and ``sim.table_plays`` on all of them at
    once (arrays in, arrays out), per position, the fastest of ``repeats`` calls."""
    from sim.solver.layout import meld_row

    texts = [("; ".join(p["table"]), p["rack"]) for p in positions]
    times = []
    for table, rack in texts:
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            sim.table_play(rack, table)
            best = min(best, time.perf_counter() - t0)
        times.append(best * 1e6)
    size = max(len(p["table"]) for p in positions)
    tables = np.zeros((len(positions), size, MELD_FIELDS), dtype=np.int64)
    for i, p in enumerate(positions):
        for m, meld in enumerate(read_table(p["table"], RULES)):
            tables[i, m] = meld_row(meld)
    racks = np.array([parse_rack(p["rack"]).counts for p in positions], dtype=np.int64)
    batch = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        sim.table_plays(racks, tables)
        batch = min(batch, time.perf_counter() - t0)
    return times, batch / len(positions) * 1e6


def describe(times: list[float]) -> str:
    a = np.asarray(times)
    return (f"median {np.median(a):7.1f} us   p90 {np.percentile(a, 90):8.1f}   p99 {np.percentile(a, 99):8.1f}   "
            f"mean {a.mean():7.1f}   max {a.max():9.1f}")


def reference(positions: list[dict], repeats: int) -> tuple[list[float], list[int]]:
    from rummikub_solver import RuleSet, SolverMode

    rs = RuleSet(numbers=13, repeats=2, colours=4, jokers=2, min_len=3, min_initial_value=30)
    joker = rs.tiles[-1]
    colour = {"R": 0, "B": 1, "K": 2, "Y": 3}

    def tile(token: str):
        return joker if token.startswith("J") else rs.tiles[colour[token[0]] * 13 + int(token[1:]) - 1]

    times, tiles = [], []
    for i, p in enumerate(positions):
        state = rs.new_game()
        state.add_table(*[tile(t) for m in p["table"] for t in m.split()])
        state.add_rack(*[tile(t) for t in p["rack"].split()])
        state.initial = False  # opened: the table may be rebuilt
        if i == 0:
            rs.solve(state, SolverMode.TILE_COUNT)  # the first solve builds the model
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            answer = rs.solve(state, SolverMode.TILE_COUNT)
            best = min(best, time.perf_counter() - t0)
        times.append(best * 1e6)
        tiles.append(len(answer.tiles) if answer else 0)
    return times, tiles


def house_rules(wanted: int, seed: int, repeats: int, only: list[str] | None = None, slowest: int = 0) -> None:
    """Each house rule (or those in ``only``) on positions of its own greedy rounds: the
    solve alone (the table's jokers as the rule reads them: bound, pinned; free) and the
    whole turn (every freeing the rack allows, locked melds set aside), value objective,
    every position kept; then, with ``slowest``, where the slowest solves go."""
    sim.table_play("R1", "R2 R3 R4")  # compile or load the kernels
    print(f"{wanted:,} positions per house rule from its own greedy rounds of 2-4 players (seed {seed}), one core, "
          f"fastest of {repeats} calls each; value objective; us (visits: positions visited)")
    print(f"  {'house rule':18s} {'':6s} {'median':>8s} {'p90':>8s} {'p99':>8s} {'mean':>8s} {'max':>10s}")
    report = []
    for name, change in HOUSE_RULES.items():
        if only and name not in only:
            continue
        rules = RULES.replace(**change)
        positions = load_positions(0, seed, rules, wanted, name)[:wanted]
        searched: list = []
        solve, _ = time_kernel(positions, 0, repeats, bound=rules.joker_moves == "bound", rules=rules,
                               searched=searched)
        turn = time_turn(positions, repeats, rules)
        # the positions each solve visited (every cut it tried): counts, which the machine's load does not move
        visited = [v for v, _ in searched]
        for what, times in (("solve", solve), ("turn", turn), ("visits", visited)):
            a = np.asarray(times, dtype=float)
            print(f"  {name if what == 'solve' else '':18s} {what:6s} {np.median(a):8.1f} {np.percentile(a, 90):8.1f} "
                  f"{np.percentile(a, 99):8.1f} {a.mean():8.1f} {a.max():10.1f}", flush=True)
        report.append((name, positions, solve, searched, rules))
    for name, positions, solve, searched, rules in report if slowest else []:
        where_the_time_goes(name, positions, solve, searched, slowest, rules)


def owed_runs(space: np.ndarray) -> tuple[int, int]:
    """The positions a solve's last search remembered (its memo), and how many of them stay
    different once the runs across the cut owed (``wrap_runs``) are left out of their keys:
    how many times over the numbers between are searched, once per choice of those runs."""
    from sim.games.rummikub.tablesolver import _INCOMING, _OWED, remembered_keys

    keys = remembered_keys(space)
    runs = keys[:, 5:7].copy().view(np.uint8).reshape(len(keys), 4, 4)  # per colour, its open runs' ends
    runs[(runs & (_INCOMING | _OWED)) > 0] = 0
    runs = -np.sort(-runs.astype(np.int64), axis=2)  # largest first, as the key stores them
    rest = np.column_stack([keys[:, :5], runs.reshape(len(keys), 16)])
    return len(keys), len(np.unique(rest, axis=0))


def told_the_answer(solver: Solver, counts: np.ndarray, pins: np.ndarray | None, rack: np.ndarray,
                    rules) -> tuple[bool, int, int, int]:
    """The lower bound's share of a solve: positions visited by the solve as it is (the
    table as it stands the floor), told the answer (only plays worth at least the best
    sought: finding it and proving nothing beats it) and proving alone (only plays worth
    more than the best); first, whether there is a play. With none, the three are one solve."""
    from sim.games.rummikub.tablesolver import VISITED_ALL

    best, _ = solver.run(counts, rack, rules, 0, pins=pins)
    visited = int(solver.space[VISITED_ALL])
    if best <= 0:
        return False, visited, visited, visited
    solver.run(counts, rack, rules, 0, pins=pins, floor=best - 1)
    known = int(solver.space[VISITED_ALL])
    solver.run(counts, rack, rules, 0, pins=pins, floor=best)
    return True, visited, known, int(solver.space[VISITED_ALL])


def where_the_time_goes(name: str, positions: list[dict], solve: list[float], searched: list, slowest: int,
                        rules) -> None:
    """The share of all solve time in the slowest 1% of solves, the cost of a position
    visited (us) in the bulk and in the tail, how much of the tail's search a perfect lower
    bound would save (:func:`told_the_answer`), with wrap-around runs the positions
    remembered against those left once the runs across the cut owed are left out
    (:func:`owed_runs`: what a search sharing them would remember), over all solves and
    the tail, and the ``slowest`` solves one by one: whether the tail is many positions
    visited or dear ones, and on what tables, each one's owed runs as above."""
    t = np.asarray(solve)
    visited = np.array([v for v, _ in searched], dtype=float)
    order = np.argsort(t)[::-1]
    tail = order[:max(1, len(t) // 100)]
    per = t / np.maximum(visited, 1)
    print(f"  {name}: the slowest 1% of solves take {t[tail].sum() / t.sum():.0%} of all solve time; positions "
          f"visited, median {np.median(visited):.0f}, in the slowest 1% {np.median(visited[tail]):,.0f}; "
          f"us per position visited, median {np.median(per):.3f}, in the slowest 1% {np.median(per[tail]):.3f}")
    solver = Solver()
    bound = rules.joker_moves == "bound"

    def counted(p):
        melds = read_table(p["table"], rules)
        counts, pins = table_counts(melds, bound=True) if bound else (table_counts(melds), None)
        return counts, pins, np.asarray(parse_rack(p["rack"]).counts, dtype=np.int64)

    looked = order[:max(len(tail), slowest)]  # the tail, and the rows printed below
    told = {i: told_the_answer(solver, *counted(positions[i]), rules) for i in looked}
    told_tail = np.array([told[i] for i in tail], dtype=float)
    print(f"    {told_tail[:, 0].mean():.0%} of the slowest 1% find a play; told the answer (a perfect lower bound) "
          f"they visit {told_tail[:, 2].sum() / told_tail[:, 1].sum():.0%} of their positions, proving it best alone "
          f"{told_tail[:, 3].sum() / told_tail[:, 1].sum():.0%}")
    owed = rules.wrap_runs
    if owed:  # the positions a search across owed runs shared would leave, over every solve and the tail
        kept = np.zeros((len(positions), 2))
        for i, p in enumerate(positions):
            counts, pins, rack = counted(p)
            solver.run(counts, rack, rules, 0, pins=pins)
            kept[i] = owed_runs(solver.space)
        print(f"    the memos remembered {kept[:, 0].sum():,.0f} positions, {kept[:, 1].sum():,.0f} once the runs owed "
              f"are left out of their keys (x{kept[:, 0].sum() / kept[:, 1].sum():.2f}); in the slowest 1% "
              f"x{kept[tail, 0].sum() / kept[tail, 1].sum():.2f}")
    print(f"    {'us':>10s} {'visited':>10s} {'told':>8s} {'proof':>8s} {'memo':>8s} {'owed x' if owed else '':>6s} "
          f"{'table':>6s} {'rack':>5s} {'jokers':>7s}  table / rack")
    for i in order[:slowest]:
        p = positions[i]
        tiles = [x for m in p["table"] for x in m.split()]
        jokers = sum(x.startswith("J") for x in tiles) + sum(x == "J" for x in p["rack"].split())
        _, _, known, proof = told[i]
        apart_x = (f"{kept[i, 0] / kept[i, 1]:.1f}" if kept[i, 1] else "-") if owed else ""
        print(f"    {t[i]:10.0f} {searched[i][0]:10,d} {known:8,d} {proof:8,d} {searched[i][1]:8,d} {apart_x:>6s} "
              f"{len(tiles):6d} {len(p['rack'].split()):5d} {jokers:7d}  {' | '.join(p['table'])} / {p['rack']}")


def every_cut(wanted: int, seed: int, cap: int) -> None:
    """``wanted`` positions of ``wrap_runs`` rounds solved at each of the 26 choices of cut and
    direction (the 13 cuts of the numbers, each searched from 1 up and from 13 down; a search
    given up past ``cap`` positions counts as more than ``cap``): what the best choice for
    every position would visit, against the best cut searched from 1 up, the 13-1 cut alone,
    the solver's first choice alone and the solver (every choice it tried, those it gave up
    included). Positions visited, not time, so the figures do not move with the machine's
    load."""
    from sim.games.rummikub.tablesolver import BUDGET, CUT_LIMIT, OVER_BUDGET, STATS, VISITED_ALL

    rules = RULES.replace(wrap_runs=True)
    positions = load_positions(0, seed, rules, wanted, "wrap_runs")[:wanted]
    sim.table_play("R1", "R2 R3 R4")  # compile or load the kernels
    solver = Solver()
    visited = np.zeros((len(positions), 26))
    first = np.zeros(len(positions))
    tried = np.zeros(len(positions))

    def capped(t, r, pins, cut):
        solver.space[BUDGET], solver.space[OVER_BUDGET] = cap, 0
        solver.run(t, r, rules, 0, pins=pins, cut=cut)
        count = solver.space[STATS + 2] if not solver.space[OVER_BUDGET] else cap + 1
        solver.space[BUDGET] = solver.space[OVER_BUDGET] = 0
        return count

    for i, p in enumerate(positions):
        t, pins = table_counts(read_table(p["table"], rules), bound=True)
        r = np.asarray(parse_rack(p["rack"]).counts, dtype=np.int64)
        solver.run(t, r, rules, 0, pins=pins)
        tried[i] = solver.space[VISITED_ALL]
        limit, solver.space[CUT_LIMIT] = solver.space[CUT_LIMIT], 0  # no cut given up: the first alone
        first[i] = capped(t, r, pins, -1)
        solver.space[CUT_LIMIT] = limit
        for cut in range(26):
            visited[i, cut] = capped(t, r, pins, cut)
    print(f"{len(positions):,} positions of wrap_runs rounds (seed {seed}), positions visited at each of the 26 "
          f"choices of cut and direction (capped at {cap:,})")
    print(f"  {'':44s} {'median':>8s} {'p99':>10s} {'mean':>10s} {'max':>12s}")
    for label, x in (("the best of the 26 choices for each position", visited.min(axis=1)),
                     ("the best cut, from 1 up", visited[:, :13].min(axis=1)),
                     ("the 13-1 cut alone, from 1 up", visited[:, 0]),
                     ("the solver's first choice alone", first),
                     ("the solver, every choice it tried", tried)):
        print(f"  {label:44s} {np.median(x):8.0f} {np.percentile(x, 99):10.0f} {x.mean():10.1f} {x.max():12,.0f}")
    dear = first > 1000
    print(f"  first choice past 1,000 positions: {dear.sum():,} positions ({dear.mean():.1%}); of those, a choice "
          f"finishing within 300: {np.mean(visited[dear].min(axis=1) <= 300):.0%}, the median of their choices "
          f"{np.median(np.median(visited[dear], axis=1)):,.0f}")
    print(f"  positions whose every choice passed the cap: {int(np.sum(visited.min(axis=1) > cap))}")


def known_best(wanted: int, seed: int, only: list[str] | None = None) -> None:
    """What any order of the options or any first guess at the best play could still save,
    on every position rather than the slowest (:func:`told_the_answer`): ``wanted``
    positions of each house rule (or those in ``only``; by default the standard game and
    ``wrap_runs``) solved as the solver does, told the answer (the best play's weight less
    one the floor) and proving alone. Told the answer, a search still proves that nothing
    better stands: its positions visited are the floor of any search that finds plays
    sooner (issue 26). Positions visited, not time."""
    sim.table_play("R1", "R2 R3 R4")  # compile or load the kernels
    solver = Solver()
    print(f"{wanted:,} positions of each house rule's greedy rounds (seed {seed}): positions visited by a solve, "
          f"told the answer, and proving alone")
    print(f"  {'house rule':18s} {'':20s} {'median':>8s} {'p99':>8s} {'mean':>8s} {'max':>10s}")
    for name in only or ["standard", "wrap_runs"]:
        rules = RULES.replace(**HOUSE_RULES[name])
        bound = rules.joker_moves == "bound"
        counts = []
        for p in load_positions(0, seed, rules, wanted, name)[:wanted]:
            melds = read_table(p["table"], rules)
            t, pins = table_counts(melds, bound=True) if bound else (table_counts(melds), None)
            r = np.asarray(parse_rack(p["rack"]).counts, dtype=np.int64)
            counts.append(told_the_answer(solver, t, pins, r, rules)[1:])
        a = np.asarray(counts, dtype=float)
        for k, label in enumerate(("as the solver does", "told the answer", "proving alone")):
            x = a[:, k]
            print(f"  {name if k == 0 else '':18s} {label:20s} {np.median(x):8.0f} {np.percentile(x, 99):8.0f} "
                  f"{x.mean():8.1f} {x.max():10,.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--reference", type=int, default=0, metavar="N",
                    help="also solve the first N positions with rummikub-solver")
    ap.add_argument("--house-rules", type=int, default=0, metavar="N",
                    help="time N positions of each house rule's own rounds (the issue's 20,000), then stop")
    ap.add_argument("--rule", action="append", choices=list(HOUSE_RULES),
                    help="with --house-rules or --known-best: only this house rule (repeat for more)")
    ap.add_argument("--slowest", type=int, default=0, metavar="K",
                    help="with --house-rules: where the slowest solves go, and the K slowest")
    ap.add_argument("--every-cut", type=int, default=0, metavar="N",
                    help="solve N wrap_runs positions at each of the 26 choices of cut and direction, then stop")
    ap.add_argument("--known-best", type=int, default=0, metavar="N",
                    help="positions visited by N positions' solves, and told the answer (the standard game "
                         "and wrap_runs, or each --rule), then stop")
    ap.add_argument("--cap", type=int, default=1 << 18,
                    help="with --every-cut: positions a cut may visit before it is given up")
    args = ap.parse_args()

    import numba

    numba.set_num_threads(1)
    if args.every_cut:
        every_cut(args.every_cut, args.seed, args.cap)
        return
    if args.known_best:
        known_best(args.known_best, args.seed, args.rule)
        return
    if args.house_rules:
        house_rules(args.house_rules, args.seed, args.repeats, args.rule, args.slowest)
        return
    everything = load_positions(args.rounds, args.seed)
    positions = [p for p in everything
                 if 10 <= sum(len(m.split()) for m in p["table"]) <= 80 and 1 <= len(p["rack"].split()) <= 25]
    sim.table_play("R1", "R2 R3 R4")  # compile or load the kernels
    sizes = np.array([sum(len(m.split()) for m in p["table"]) for p in positions])
    racks = np.array([len(p["rack"].split()) for p in positions])
    print(f"{len(positions):,} positions from {args.rounds} greedy rounds (seed {args.seed}): table tiles median "
          f"{np.median(sizes):.0f} (10-80), rack tiles median {np.median(racks):.0f} (1-25); one core, "
          f"fastest of {args.repeats} calls each")
    jokers = np.array([sum(t.startswith("J(") for m in p["table"] for t in m.split()) for p in positions])
    print(f"  positions with a joker on the table: {np.mean(jokers > 0):.0%}")
    value_times, _ = time_kernel(positions, 0, args.repeats, bound=True)
    tiles_times, _ = time_kernel(positions, 1, args.repeats, bound=True)
    free_value, _ = time_kernel(positions, 0, args.repeats, bound=False)
    free_tiles, our_tiles = time_kernel(positions, 1, args.repeats, bound=False)
    turn_times = time_turn(positions, args.repeats)
    print("  joker_moves=bound (the default; one solve, the table's jokers pinned):")
    print(f"    value objective: {describe(value_times)}")
    print(f"    tiles objective: {describe(tiles_times)}")
    for lo, hi in ((10, 30), (31, 50), (51, 80)):
        pick = [t for t, s in zip(value_times, sizes, strict=True) if lo <= s <= hi]
        if pick:
            print(f"      tables of {lo}-{hi} tiles ({len(pick):>4} positions): {describe(pick)}")
    print(f"    the whole turn (jokers freed where the rack can), value: {describe(turn_times)}")
    public, batch = time_public(positions, args.repeats)
    print("  the public call, sim.table_play(rack, table) with both as text, value objective:")
    print(f"    {describe(public)}")
    print(f"    its median {np.median(public) / np.median(value_times):.2f} times the solve's, "
          f"{np.median(public) / np.median(turn_times):.2f} times the whole turn's; sim.table_plays on all "
          f"{len(positions):,} positions at once: {batch:.1f} us a position")
    print("  joker_moves=free (the table's jokers free):")
    print(f"    value objective: {describe(free_value)}")
    print(f"    tiles objective: {describe(free_tiles)}")
    if args.reference:
        n = min(args.reference, len(positions))
        try:
            ref_times, ref_tiles = reference(positions[:n], args.repeats)
        except ImportError:
            print('  rummikub-solver is not installed: pip install -e ".[bench]"')
            return
        ours, bound = free_tiles[:n], tiles_times[:n]
        disagree = [i for i in range(n) if ref_tiles[i] != our_tiles[i]]
        print(f"  rummikub-solver (MILP, free jokers), tiles objective, first {n} positions: {describe(ref_times)}")
        print(f"  sim.table_play from text, same positions (value, bound jokers): {describe(public[:n])}; "
              f"{statistics.median(ref_times) / statistics.median(public[:n]):,.0f}x")
        print(f"  this solver, free jokers, same positions:  {describe(ours)}")
        print(f"  this solver, bound jokers, same positions: {describe(bound)}")
        print(f"  ratio of medians: {statistics.median(ref_times) / statistics.median(ours):,.0f}x free, "
              f"{statistics.median(ref_times) / statistics.median(bound):,.0f}x bound; positions where the tiles "
              f"placed differ from the free solve: {len(disagree)}")


if __name__ == "__main__":
    main()
