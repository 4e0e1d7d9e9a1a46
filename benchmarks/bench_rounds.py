"""Engine throughput: rounds/s (card Rummy 101: matches/s and hands/s) on one core for 2,
3 and 4 players with each bot, and the time of a full run of many four-player rounds with
all output written.

    python benchmarks/bench_rounds.py [--preset rummy101|rummikub|rummy101-cards] [--rounds 20000]
                                      [--repeats 3] [--players 2,3,4] [--million [N]]

The per-core figures are medians of several runs of a family's chunk in this process (one
numba thread; Rummy 101 ``sim.games.rummy101.play.play_chunk``, Rummikub
``sim.games.rummikub.play.play_chunk``, card matches ``sim.games.cards.play.play_chunk``),
each run on other ids; ``--million`` times ``sim run`` (the runner: joblib workers on
every core, Parquet written) on N four-player rounds (matches), 1,000,000 by default.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numba

import sim
from sim import runner


def per_core(preset: str, players: int, rounds: int, repeats: int, policy: str) -> tuple[float, float]:
    """Units (rounds or matches) per second and, for matches, hands per second (else 0)."""
    rules = sim.preset(preset).replace(players=players)
    family = sim.games.family_of(rules)
    package = type(family).__module__
    play = importlib.import_module(f"{package}.play")
    codes = play.policy_codes([policy], players)
    play.play_chunk(rules, 1, 0, 10, codes)  # compile / load
    times, hands = [], []
    for r in range(repeats):
        t0 = time.perf_counter()
        res = play.play_chunk(rules, 1, r * rounds, rounds, codes)
        times.append(time.perf_counter() - t0)
        hands.append(res.hands.shape[0] / times[-1] if family.unit == "match" else 0.0)
    return rounds / statistics.median(times), statistics.median(hands)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="rummy101")
    ap.add_argument("--players", default="2,3,4")
    ap.add_argument("--rounds", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--million", type=int, nargs="?", const=1_000_000, default=None)
    args = ap.parse_args()
    numba.set_num_threads(1)
    family = sim.games.family_of(sim.preset(args.preset))
    units = family.units
    print(f"{family.title} {units}/s on one core (play_chunk, {args.rounds:,} {units}, median of {args.repeats}):")
    for policy in family.policies:
        for players in (int(x) for x in args.players.split(",")):
            rate, hands = per_core(args.preset, players, args.rounds, args.repeats, policy)
            print(f"  {policy:8} {players} players: {rate:8,.0f} {units}/s"
                  + (f", {hands:9,.0f} hands/s" if hands else ""))
    if args.million:
        out = Path(tempfile.mkdtemp(prefix="bench-rounds-"))
        try:
            chunk = 1_000 if family.unit == "match" else runner.CHUNK_ROUNDS
            spec = runner.RunSpec((runner.Variant(sim.preset(args.preset)),), args.million, 1, ("greedy",), chunk)
            t0 = time.perf_counter()
            report = runner.run(spec, out / "run", jobs=os.cpu_count(), progress=True)
            wall = time.perf_counter() - t0
            size = sum(f.stat().st_size for f in out.rglob("*.parquet")) / 1e6
            print(f"sim run: {args.million:,} four-player {units}, {os.cpu_count()} workers, Parquet written "
                  f"({size:.0f} MB): {wall:.1f} s wall ({report.played / report.seconds:,.0f} {units}/s "
                  "while playing)")
        finally:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
