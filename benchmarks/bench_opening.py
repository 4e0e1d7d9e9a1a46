"""Throughput of ``sim.opening_values`` on dealt Rummy 101 racks (jokers as dealt), on one
core and on all cores, against the brute-force reference solver in the same process.

    python benchmarks/bench_opening.py [--racks 400000] [--size 22] [--repeats 5]
    python benchmarks/bench_opening.py --preset rummikub --size 14 --wrap-runs

``--preset`` and ``--wrap-runs`` (K-VAR: runs may wrap from 13 to 1) set the rules the racks
are solved under.

Prints racks/s as the median of several runs, the time per rack by number of jokers,
and the ratio to the plain reference solver (``sim.reference.opening``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numba

import sim
from sim.deal import deal_racks
from sim.reference.opening import best_value


def _median_rate(fn, n: int, repeats: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return n / statistics.median(times), times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--racks", type=int, default=400_000)
    ap.add_argument("--size", type=int, default=22)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--reference-racks", type=int, default=30)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--preset", default="rummy101")
    ap.add_argument("--wrap-runs", action="store_true", help="runs may wrap from 13 to 1 (K-VAR)")
    args = ap.parse_args()

    rules = sim.preset(args.preset)
    if args.wrap_runs:
        rules = rules.replace(wrap_runs=True)
    racks = deal_racks(args.seed, 0, args.racks, args.size)
    sim.opening_values(racks[:1000], rules)  # compile and load the run table
    cores = os.cpu_count() or 1
    print(f"{args.racks:,} dealt racks of {args.size} tiles, {rules.name}{', wrap_runs' if args.wrap_runs else ''}, "
          f"{cores} cores, "
          f"median of {args.repeats} runs")

    rates = {}
    for threads in sorted({1, cores}):
        numba.set_num_threads(threads)
        rate, times = _median_rate(lambda: sim.opening_values(racks, rules), args.racks, args.repeats)
        rates[threads] = rate
        print(f"  opening_values, {threads} thread(s): {rate:>12,.0f} racks/s   "
              f"(runs: {', '.join(f'{t:.3f}s' for t in times)})")

    numba.set_num_threads(1)
    jokers = racks[:, 52]
    share = {j: float((jokers == j).mean()) for j in range(3)}
    print("  by jokers in the rack (1 thread):")
    for j in range(3):
        sub = racks[jokers == j][:100_000]
        if len(sub) == 0:
            continue
        rate, _ = _median_rate(lambda sub=sub: sim.opening_values(sub, rules), len(sub), args.repeats)
        print(f"    {j} joker(s): {share[j]:6.1%} of racks, {1e6 / rate:7.2f} us/rack "
              f"-> {share[j] * 1e6 / rate:5.2f} us of the average rack")

    ref = racks[: args.reference_racks]
    t0 = time.perf_counter()
    ref_values = [best_value(r, rules) for r in ref]
    ref_rate = len(ref) / (time.perf_counter() - t0)
    fast = sim.opening_values(ref, rules)
    assert list(fast) == ref_values, "fast solver and reference disagree"
    print(f"  reference solver (pure Python, exhaustive): {ref_rate:,.2f} racks/s "
          f"on {len(ref)} racks (values agree)")
    print(f"  speed-up over the reference, 1 thread: {rates[1] / ref_rate:,.0f}x")


if __name__ == "__main__":
    main()
