"""The search and oracle bots against the expert (issue 22), heads-up on duplicate deals:

    python benchmarks/bench_search.py [--preset rummy101-cards] [--deals 2000] [--bots search,oracle]
                                      [--jobs 2] [--seed 2027]

Each bot plays the expert heads-up (``sim.tournament.play``: every deal once per seat rotation,
so ``--deals 1000`` is a 2,000-match tournament) and the line gives its share of the decided
matches (rounds) with its 95% interval, its score over the expert, the wall time and whether
issue 22's goals are met: the search beats the expert (its score's interval clear of zero),
and a 2,000-unit heads-up tournament fits in 30 minutes on 2 cores (the time scaled to 2,000
units). ``search:N`` names a budget (N worlds an option; the family's default otherwise: 24 in card
Rummy 101 and Rummikub, 32 in Rummy 101).
"""

from __future__ import annotations

import argparse
import time

import sim
from sim import tournament
from sim.games import family_of

BUDGET_MINUTES = 30  # a 2,000-unit heads-up tournament, 2 cores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="rummy101-cards")
    ap.add_argument("--deals", type=int, default=2_000, help="duplicate deals (each played in both seatings)")
    ap.add_argument("--bots", default="search,oracle", help="the bots to play against the expert")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2027)
    args = ap.parse_args()
    rules = sim.preset(args.preset).replace(players=2)
    family = family_of(rules)
    family.prepare(progress=True, policies=args.bots.split(","))  # compiling is not timed
    print(f"{family.title}, heads-up against expert, {args.deals:,} duplicate deals, seed {args.seed}, "
          f"{args.jobs} process(es)")
    for bot in args.bots.split(","):
        t0 = time.perf_counter()
        s = tournament.play(rules, (bot, "expert"), args.deals * 2, args.seed, args.jobs, chunk=50)
        seconds = time.perf_counter() - t0
        share = s["policies"][bot]["decided_share"]
        score = s["pairs"][0]["mean_score"]
        beats = score["ci_low"] > 0
        minutes = seconds * 2_000 / (args.deals * 2) / 60
        print(f"  {bot:<10} {share['estimate']:.1%} [{share['ci_low']:.1%}, {share['ci_high']:.1%}] of the decided, "
              f"score over expert {score['estimate']:+.2f} [{score['ci_low']:+.2f}, {score['ci_high']:+.2f}]: "
              f"{'beats it' if beats else 'does NOT beat it'}; {seconds:.0f} s, a 2,000-{family.unit} tournament "
              f"{minutes:.1f} min ({'within' if minutes <= BUDGET_MINUTES else 'OVER'} {BUDGET_MINUTES} min)",
              flush=True)


if __name__ == "__main__":
    main()
