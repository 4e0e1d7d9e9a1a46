"""The Rummikub ``expert`` against another bot on duplicate deals: the share of the decided
rounds it wins and its mean score per round over the other's, with 95% intervals
clustered by deal; and its speed.

    python benchmarks/rummikub_expert.py [--against careful] [--players 2] [--deals 500]
        [--tune '{"danger_tiles": 2}'] [--base '{...}'] [--set wrap_runs=true] [--jobs 1] [--seed 1]

Every deal is played once per seat rotation in every seating of the two bots (with two
players: the expert in seat 0, then in seat 1; with more, the expert in one seat and the
other bot in the rest, each seat in turn), so the deal's luck and the seat's edge cancel.
``--tune``: the expert's constants changed from their defaults (JSON); ``--against
expert`` with ``--base``: the expert against an expert with other constants (the tuned
one against the base), which is how a change of one constant is measured.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import sim


def _seatings(players: int) -> list[tuple[int, ...]]:
    """1 marks the expert's seat: one expert, the other bot in every other seat, the expert at each seat in turn."""
    return [tuple(1 if s == e else 0 for s in range(players)) for e in range(players)]


def _play(args) -> tuple[np.ndarray, np.ndarray, float]:
    """Scores and lone winners of ``count`` duplicate rounds from round ``start`` in one seating."""
    from sim.games.family import expert_tune
    from sim.games.rummikub import EXPERT_PARAMS, engine, play

    rules, seating, against, tune, base, seed, start, count = args
    policies = ["expert" if s else against for s in seating]
    codes = play.policy_codes(policies, rules.players)
    rows = expert_tune(EXPERT_PARAMS, rules.players, [tune if s else base for s in seating])
    t0 = time.perf_counter()
    res = play.play_chunk(rules, seed, start, count, codes, duplicate=True, tune=rows)
    seconds = time.perf_counter() - t0
    assert (res.rounds[:, engine.R_ERROR] == 0).all()
    scores = res.players[:, :, engine.P_SCORE] / engine.SCORE_UNIT
    return scores, res.rounds[:, engine.R_WINNER], seconds


def _interval(values: np.ndarray) -> tuple[float, float]:
    m = values.mean()
    h = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
    return m, h


def measure(rules, against: str, tune: dict, base: dict, deals: int, seed: int, jobs: int,
            chunk_deals: int = 50, start_deal: int = 0) -> dict:
    """The expert's decided-round win share and mean score edge per round over ``against``
    on ``deals`` duplicate deals (see the module docstring)."""
    players = rules.players
    seatings = _seatings(players)
    tasks = []
    for seating in seatings:
        for d in range(start_deal, start_deal + deals, chunk_deals):
            n = min(chunk_deals, start_deal + deals - d)
            tasks.append((rules, seating, against, tune, base, seed, d * players, n * players))
    won = np.zeros(deals)  # per deal: rounds the expert won alone
    lost = np.zeros(deals)  # ... the other bot won alone
    edge = np.zeros(deals)  # ... the expert's score less the mean of the others', summed
    seconds, rounds = 0.0, 0
    with ProcessPoolExecutor(jobs) as pool:
        for task, (scores, winners, secs) in zip(tasks, pool.map(_play, tasks), strict=True):
            seating, start = task[1], task[6]
            e = seating.index(1)
            deal = (start + np.arange(scores.shape[0])) // players - start_deal
            np.add.at(won, deal, winners == e)
            np.add.at(lost, deal, (winners >= 0) & (winners != e))
            others = (scores.sum(axis=1) - scores[:, e]) / (players - 1)
            np.add.at(edge, deal, scores[:, e] - others)
            seconds += secs
            rounds += scores.shape[0]
    per_deal_rounds = len(seatings) * players
    decided = won + lost
    share = won.sum() / decided.sum()
    n = deals
    var = ((won - share * decided) ** 2).sum() / decided.sum() ** 2 * n / (n - 1)
    m, h = _interval(edge / per_deal_rounds)
    return {"against": against, "players": players, "deals": deals, "rounds": rounds,
            "decided": int(decided.sum()), "win_share": share, "win_share_ci": 1.96 * np.sqrt(var),
            "edge": m, "edge_ci": h, "rounds_per_s": rounds / seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", default="careful")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--start-deal", type=int, default=0)
    ap.add_argument("--tune", default="{}")
    ap.add_argument("--base", default="{}")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rules = sim.preset("rummikub").replace(players=args.players)
    for s in args.set:
        k, v = s.split("=", 1)
        rules = rules.replace(**{k: json.loads(v) if v not in ("bound", "free") else v})
    r = measure(rules, args.against, json.loads(args.tune), json.loads(args.base), args.deals, args.seed, args.jobs,
                start_deal=args.start_deal)
    print(f"expert {args.tune} vs {args.against} {args.base if args.against == 'expert' else ''}"
          f"({args.players} players, {r['deals']} deals, {r['rounds']} rounds, {r['decided']} decided): "
          f"wins {100 * r['win_share']:.1f}% +- {100 * r['win_share_ci']:.1f} of the decided rounds, "
          f"score edge {r['edge']:+.2f} +- {r['edge_ci']:.2f} a round; {r['rounds_per_s']:.0f} rounds/s")


if __name__ == "__main__":
    main()
