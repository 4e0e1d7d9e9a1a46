"""Time per solve of the Rummikub table solver (``sim.table_play``'s kernel) on positions
taken from played rounds, and side by side with the MILP solver ``rummikub-solver``.

    python benchmarks/bench_table.py [--rounds 40] [--seed 2026] [--reference 300]

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


def play_rounds(rounds: int, seed: int) -> list[dict]:
    """The positions met by greedy players in ``rounds`` rounds (table, rack, players)."""
    rng = np.random.default_rng(seed)
    positions = []
    for _ in range(rounds):
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
                opening = sim.best_opening(Rack.from_counts(racks[s]), RULES)
                if opening.value >= RULES.open_points:
                    opened[s] = moved = True
                    table += list(opening.melds)
                    racks[s] = np.asarray(opening.left.counts)
            else:
                positions.append({"table": [str(m) for m in table], "rack": str(Rack.from_counts(racks[s])),
                                  "players": players})
                play = sim.table_play(Rack.from_counts(racks[s]), table, RULES)
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


def load_positions(rounds: int, seed: int) -> list[dict]:
    path = Path("data/bench") / f"rummikub-positions-r{rounds}-s{seed}-{RULES.joker_moves}.json"
    if path.exists():
        return json.loads(path.read_text())
    print(f"playing {rounds} greedy rounds for positions (cached in {path}) ...", flush=True)
    positions = play_rounds(rounds, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(positions))
    tmp.replace(path)
    return positions


def time_kernel(positions: list[dict], objective: int, repeats: int, bound: bool) -> tuple[list[float], list[int]]:
    """The solver alone: ``bound``, the table's jokers pinned to their tiles; else free."""
    solver = Solver()
    times, tiles = [], []
    for p in positions:
        melds = read_table(p["table"], RULES)
        t, pins = table_counts(melds, bound=True) if bound else (table_counts(melds), None)
        r = np.asarray(parse_rack(p["rack"]).counts, dtype=np.int64)
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            solver.run(t, r, RULES, objective, pins=pins)
            best = min(best, time.perf_counter() - t0)
        times.append(best * 1e6)
        tiles.append(int(solver.placed.sum()))
    return times, tiles


def time_turn(positions: list[dict], repeats: int) -> list[float]:
    """One turn's table play with bound jokers: every choice of jokers freed the rack allows."""
    solver = Solver()
    times = []
    for p in positions:
        melds = read_table(p["table"], RULES)
        rows = np.array([meld_row(m) for m in melds], dtype=np.int64).reshape(len(melds), MELD_FIELDS)
        r = np.asarray(parse_rack(p["rack"]).counts, dtype=np.int64)
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            solver.play(r, rows, RULES, 0)
            best = min(best, time.perf_counter() - t0)
        times.append(best * 1e6)
    return times


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--reference", type=int, default=0, metavar="N",
                    help="also solve the first N positions with rummikub-solver")
    args = ap.parse_args()

    import numba

    numba.set_num_threads(1)
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
        print(f"  this solver, free jokers, same positions:  {describe(ours)}")
        print(f"  this solver, bound jokers, same positions: {describe(bound)}")
        print(f"  ratio of medians: {statistics.median(ref_times) / statistics.median(ours):,.0f}x free, "
              f"{statistics.median(ref_times) / statistics.median(bound):,.0f}x bound; positions where the tiles "
              f"placed differ from the free solve: {len(disagree)}")


if __name__ == "__main__":
    main()
