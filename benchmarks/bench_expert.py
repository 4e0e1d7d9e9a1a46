"""The expert bots' goals (issue 27), measured on duplicate deals with 95% intervals:

    python benchmarks/bench_expert.py --preset rummy101 [--deals 2000] [--table-deals 500]
                                      [--speed-rounds 2000] [--jobs 2] [--seed 2027]

1. heads-up, ``expert`` against ``greedy`` and against ``careful`` (``sim.tournament.play``:
   every deal once per seat rotation): the expert wins at least 60% of the decided rounds
   (card matches: matches) and its mean score per round (points per hand) is higher, the
   interval clear of zero;
2. four seats, every seating of greedy, careful and expert (``sim tournament --policies
   greedy,careful,expert``): expert first, its differences to both clear of zero;
3. speed on one core, four players, every seat expert (``play_chunk`` in this process, one
   thread, by its CPU time, median of 3): Rummy 101 at least 300 rounds/s, Rummikub 50 rounds/s, card Rummy 101
   2,000 hands/s.

Each line says whether its goal is met. ``--skip`` leaves parts out (``heads-up``, ``table``,
``speed``).
"""

from __future__ import annotations

import argparse
import time

import sim
from sim import tournament
from sim.games import family_of

HEADS_UP_SHARE = 0.60  # of the decided two-player units
GOALS = {"rummy101": ("rounds", 300), "rummikub": ("rounds", 50), "rummy101-cards": ("hands", 2_000)}


def interval(d: dict, pct: bool = False) -> str:
    if pct:
        return f"{d['estimate']:.1%} [{d['ci_low']:.1%}, {d['ci_high']:.1%}]"
    return f"{d['estimate']:+.2f} [{d['ci_low']:+.2f}, {d['ci_high']:+.2f}]"


def verdict(ok: bool) -> str:
    return "goal met" if ok else "GOAL MISSED"


def heads_up(rules, deals: int, seed: int, jobs: int) -> None:
    two = rules.replace(players=2)
    for other in ("greedy", "careful"):
        t0 = time.perf_counter()
        s = tournament.play(two, ("expert", other), deals * 2, seed, jobs, progress=True)
        share, score = s["policies"]["expert"]["decided_share"], s["pairs"][0]["mean_score"]
        ok = share["estimate"] >= HEADS_UP_SHARE and score["ci_low"] > 0
        units = "matches" if s["unit"] == "match" else "rounds"
        print(f"heads-up vs {other:<8} ({deals:,} deals x 2 rotations, {time.perf_counter() - t0:.0f} s): "
              f"expert wins {interval(share, True)} of the decided {units}, {s['score']} {interval(score)} over "
              f"{other}: {verdict(ok)}", flush=True)


def four_seats(rules, deals: int, seed: int, jobs: int) -> None:
    four = rules.replace(players=4)
    t0 = time.perf_counter()
    s = tournament.play(four, ("greedy", "careful", "expert"), deals * 4, seed, jobs, progress=True)
    print(f"four seats, {s['seatings']} seatings x {deals:,} deals x 4 rotations ({time.perf_counter() - t0:.0f} s):")
    for p, v in s["policies"].items():
        print(f"  {p:<8} {s['score']} {interval(v['mean_score'])}, wins {interval(v['win_share'], True)}")
    clear = []
    for d in s["pairs"]:
        if "expert" in (d["a"], d["b"]):
            sign = 1 if d["a"] == "expert" else -1
            lo, hi = sorted((sign * d["mean_score"]["ci_low"], sign * d["mean_score"]["ci_high"]))
            other = d["b"] if d["a"] == "expert" else d["a"]
            print(f"  expert - {other}: {sign * d['mean_score']['estimate']:+.2f} [{lo:+.2f}, {hi:+.2f}]")
            clear.append(lo > 0)
    first = s["ranking"][0]["policy"] == "expert"
    print(f"  ranking: {', '.join(e['policy'] for e in s['ranking'])}: {verdict(first and all(clear))}", flush=True)


def speed(rules, rounds: int) -> None:
    import importlib
    import statistics

    import numba

    numba.set_num_threads(1)
    family = family_of(rules)
    four = rules.replace(players=4)
    play = importlib.import_module(f"{family.package}.play")
    codes = play.policy_codes(["expert"], 4)
    play.play_chunk(four, 1, 0, 4, codes)  # compile or load
    rates, hands = [], []
    for r in range(3):
        # this process's CPU time: one thread plays, so it is the time on one core, whatever
        # else the shared machine runs meanwhile
        t0 = time.process_time()
        res = play.play_chunk(four, 1, 10_000 + r * rounds, rounds, codes)
        dt = time.process_time() - t0
        rates.append(rounds / dt)
        hands.append(res.hands.shape[0] / dt if family.unit == "match" else 0.0)
    what, goal = GOALS[family.name]
    rate = statistics.median(hands if what == "hands" else rates)
    extra = f" ({statistics.median(rates):,.0f} matches/s)" if what == "hands" else ""
    print(f"speed, one core, four players, all expert ({rounds:,} {family.units}, median of 3): {rate:,.0f} "
          f"{what}/s{extra}, goal {goal:,}: {verdict(rate >= goal)}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="rummy101")
    ap.add_argument("--deals", type=int, default=2000, help="heads-up deals against each bot")
    ap.add_argument("--table-deals", type=int, default=500, help="four-seat deals per seating")
    ap.add_argument("--speed-rounds", type=int, default=2000, help="rounds (matches) per speed run")
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--skip", default="")
    args = ap.parse_args()
    rules = sim.preset(args.preset)
    skip = set(args.skip.split(","))
    print(f"{family_of(rules).title}: the expert's goals (seed {args.seed}, {args.jobs} worker processes)")
    if "heads-up" not in skip:
        heads_up(rules, args.deals, args.seed, args.jobs)
    if "table" not in skip:
        four_seats(rules, args.table_deals, args.seed, args.jobs)
    if "speed" not in skip:
        speed(rules, args.speed_rounds)


if __name__ == "__main__":
    main()
