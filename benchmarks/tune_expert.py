"""Tune a family's ``expert`` bot: optuna searches its constants (``Family.expert_params``),
every trial played heads-up on the same duplicate deals against each opponent bot.

    python benchmarks/tune_expert.py --preset rummy101 [--trials 60] [--deals 300] [--players 2]
        [--against greedy,careful] [--objective decided|score] [--only a,b] [--seed 7]
        [--validate 2000] [--jobs 2]

Every trial plays the same ``--deals`` deals once per seat rotation (``sim.tournament.play``:
duplicate deals, common to all trials, so that two trials differ by their constants, not by
their luck) against every bot of ``--against``. The objective is the expert's share of the
decided rounds (matches) won, averaged over the opponents (``--objective decided``), or its
mean score per round (per hand) over the opponent's (``score``). The search (TPE, seeded)
starts from the committed defaults and prints every trial; at the end the best constants
are played again on ``--validate`` fresh deals (another seed) beside the defaults, so that a
value chosen for the luck of the tuning deals shows. ``--only`` tunes some constants, the
others kept at their defaults. The chosen values are committed as the ``Param`` defaults
in the family's ``__init__``, with this command beside them.
"""

from __future__ import annotations

import argparse
import time

import optuna

import sim
from sim import tournament
from sim.games import family_of


def measure(rules, against: list[str], deals: int, seed: int, jobs: int, values: dict) -> dict:
    """The expert heads-up against each of ``against`` on ``deals`` duplicate deals:
    per opponent its share of the decided units and its score over the opponent's."""
    out = {}
    for other in against:
        s = tournament.play(rules, ("expert", other), deals * rules.players, seed, jobs,
                            tune={"expert": values})
        out[other] = {"decided": s["policies"]["expert"]["decided_share"],
                      "score": s["pairs"][0]["mean_score"]}  # the pair (expert, other): expert - other
    return out


def objective_of(result: dict, objective: str) -> float:
    key = "decided" if objective == "decided" else "score"
    return sum(r[key]["estimate"] for r in result.values()) / len(result)


def line(result: dict) -> str:
    return "; ".join(f"vs {o}: won {r['decided']['estimate']:.1%} of decided [{r['decided']['ci_low']:.1%}, "
                     f"{r['decided']['ci_high']:.1%}], score {r['score']['estimate']:+.2f} "
                     f"[{r['score']['ci_low']:+.2f}, {r['score']['ci_high']:+.2f}]" for o, r in result.items())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="rummy101")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--trials", type=int, default=60)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--against", default="greedy,careful")
    ap.add_argument("--objective", choices=("decided", "score"), default="decided")
    ap.add_argument("--only", default="", help="tune these constants only (comma-separated names)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--validate", type=int, default=2000, help="fresh deals the best and the defaults replay")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    rules = sim.preset(args.preset).replace(players=args.players)
    family = family_of(rules)
    params = [p for p in family.expert_params if p.tuned and (not args.only or p.name in args.only.split(","))]
    if not params:
        raise SystemExit(f"{family.title}'s expert has no constants to tune ({args.only or 'none declared'})")
    against = args.against.split(",")
    defaults = {p.name: p.default for p in params}
    print(f"tuning the {family.title} expert: {len(params)} constants, {args.trials} trials of {args.deals} deals "
          f"x {args.players} rotations against {', '.join(against)} (seed {args.seed}), objective {args.objective}")
    for p in params:
        print(f"  {p.name:<24} default {p.default:<8g} range [{p.low:g}, {p.high:g}]  {p.what}")

    def trial(t: optuna.Trial) -> float:
        values = {p.name: (t.suggest_int(p.name, int(p.low), int(p.high)) if p.integer
                           else t.suggest_float(p.name, p.low, p.high)) for p in params}
        t0 = time.perf_counter()
        result = measure(rules, against, args.deals, args.seed, args.jobs, values)
        value = objective_of(result, args.objective)
        shown = ", ".join(f"{k}={v:.4g}" for k, v in values.items())
        print(f"trial {t.number:3d} ({time.perf_counter() - t0:5.1f} s): {value:+.4f}  {shown}\n    {line(result)}",
              flush=True)
        return value

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=args.seed))
    study.enqueue_trial({p.name: (int(p.default) if p.integer else p.default) for p in params})
    study.optimize(trial, n_trials=args.trials)
    best = study.best_params
    print(f"\nbest trial {study.best_trial.number}: {study.best_value:+.4f}")
    for p in params:
        print(f"  {p.name:<24} {best[p.name]:<10.4g} (default {p.default:g})")
    if args.validate:
        fresh = args.seed + 1_000_003
        for name, values in (("defaults", defaults), ("best", best)):
            result = measure(rules, against, args.validate, fresh, args.jobs, values)
            print(f"validation, {name} on {args.validate} fresh deals (seed {fresh}): "
                  f"{objective_of(result, args.objective):+.4f}\n    {line(result)}")


if __name__ == "__main__":
    main()
