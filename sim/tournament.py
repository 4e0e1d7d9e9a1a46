"""``sim tournament``: bots against each other on duplicate deals, for any family.

Every seating of the policies (each seat one policy, every policy at least once) plays
the same deals, each deal once per seat rotation (``--duplicate``; a card match's deal is
its sequence of hands): a policy meets every hand at every seat against every mix of
opponents, so the deal's luck and the seat's edge cancel out of the comparison. The units
are one sweep dataset (a variant per seating, partition ``seating=greedy-careful-...``);
:func:`standings` reads it through the family's :meth:`~sim.games.family.Family.seat_results`.

A policy's **mean score** is its players' score per round (card matches: points per
hand), its **win share** the share of its player-units won (alone, or by its team), and
its **share of decided** the same over the units someone won (what a heads-up comparison
reads: of the rounds that had a winner, how many it won). Intervals are clustered by deal
(every seating and rotation of a deal together), and the pairwise differences are paired
on the deals.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import polars as pl

from sim import runner
from sim.errors import DatasetError, SimError
from sim.rules import Rules
from sim.stats import ratio_difference, ratio_interval

KIND = "tournament"


def seatings(policies: tuple[str, ...], players: int) -> list[tuple[str, ...]]:
    """Every assignment of ``policies`` to the seats using each at least once, in order."""
    if len(set(policies)) != len(policies):
        raise SimError(f"--policies {','.join(policies)}: name each policy once")
    if len(policies) < 2:
        raise SimError("--policies: a tournament needs at least two policies, e.g. greedy,careful")
    if len(policies) > players:
        raise SimError(f"--policies: {len(policies)} policies do not fit at {players} seats")
    return [s for s in itertools.product(policies, repeat=players) if set(s) == set(policies)]


def spec(rules: Rules, policies: tuple[str, ...], rounds: int, seed: int, chunk: int) -> runner.RunSpec:
    """The run of a tournament: a variant per seating, duplicate deals, ``rounds`` each
    (rounded up to whole deals)."""
    family = runner.family_of(rules)
    unknown = [p for p in policies if p not in family.policies]
    if unknown:
        raise SimError(f"unknown policy {unknown[0]!r}; {family.title} policies: {', '.join(family.policies)}")
    variants = tuple(runner.Variant(rules, (("seating", "-".join(s)),), policies=s)
                     for s in seatings(policies, rules.players))
    rounds, chunk = runner.whole_deals(rounds, min(chunk, rounds), rules.players)
    # The run's policies are the names compared (every seating has its own seats' bots).
    return runner.RunSpec(variants, rounds, seed, tuple(policies), chunk, kind=KIND, duplicate=True)


def standings(path: str | Path) -> dict:
    """Each policy's mean score, win share and share of decided units, the pairwise
    differences and the ranking of a tournament dataset (see the module docstring and
    :func:`compare`)."""
    from sim.analysis import open_dataset
    from sim.games import family as family_named

    ds = open_dataset(path)
    if ds.manifest.get("kind") != KIND:
        raise DatasetError(f"{path}: a {ds.manifest.get('kind')!r} dataset, not a tournament (sim tournament --out)")
    family = family_named(ds.family)
    policies = list(dict.fromkeys(p for v in ds.variants for p in v.get("policies", [])))  # as first seated
    units = ds.rounds.select(pl.len()).collect().item()
    out = compare(family.seat_results(ds.tables, ds.keys).collect(), policies, family.score_label)
    return {**out, "units": units, "unit": family.unit, "rounds": units, "seatings": len(ds.variants),
            "family": ds.family}


def compare(rows: pl.DataFrame, policies: list[str], score_label: str = "mean score per round") -> dict:
    """The standings of seat results (:meth:`sim.games.family.Family.seat_results`, every
    seating's rows together): per policy ``mean_score`` (its score per ``per``),
    ``win_share``, ``decided_share`` and ``player_units``; ``pairs`` (each pair's
    differences, paired on the deals); ``ranking`` by mean score, saying for each policy
    whether the next is separated (its difference's interval excludes 0) or overlaps."""
    per = (rows.group_by("deal_id", "policy")
           .agg(pl.len().cast(pl.Float64).alias("n"), pl.col("per").sum(), pl.col("score").sum(),
                pl.col("won").sum(), pl.col("decided").sum())
           .pivot(on="policy", index="deal_id", values=["n", "per", "score", "won", "decided"])
           .fill_null(0).sort("deal_id"))
    out: dict = {"policies": {}, "pairs": [], "ranking": [], "deals": per.height, "score": score_label}

    def col(kind: str, p: str) -> np.ndarray:
        return per[f"{kind}_{p}"].cast(pl.Float64).to_numpy()

    # (key, numerator, denominator, a share?) of each measure: ratios over the deals
    measures = (("mean_score", "score", "per", False), ("win_share", "won", "n", True),
                ("decided_share", "won", "decided", True))
    for p in policies:
        out["policies"][p] = {key: _interval(ratio_interval(col(y, p), col(m, p), share))
                              for key, y, m, share in measures}
        out["policies"][p]["player_units"] = int(col("n", p).sum())
    diffs = {}
    for a, b in itertools.combinations(policies, 2):
        d = {"a": a, "b": b, **{key: _interval(ratio_difference(col(y, a), col(m, a), col(y, b), col(m, b)))
                                for key, y, m, _ in measures[:2]}}
        out["pairs"].append(d)
        diffs[(a, b)] = d["mean_score"]
        diffs[(b, a)] = {"estimate": -d["mean_score"]["estimate"], "ci_low": -d["mean_score"]["ci_high"],
                         "ci_high": -d["mean_score"]["ci_low"]}
    order = sorted(policies, key=lambda p: -out["policies"][p]["mean_score"]["estimate"])
    for i, p in enumerate(order):
        entry = {"rank": i + 1, "policy": p, "mean_score": out["policies"][p]["mean_score"]["estimate"]}
        if i + 1 < len(order):
            d = diffs[(p, order[i + 1])]
            entry["ahead_of_next"] = d
            entry["separated"] = bool(d["ci_low"] > 0)
        out["ranking"].append(entry)
    return out


def _seat_rows(rules_json: str, seed: int, start: int, count: int, seating: tuple[str, ...],
               tune: np.ndarray | None) -> pl.DataFrame:
    """One chunk of one seating played in a worker, as seat results."""
    import numba

    from sim.games import family_of, rules_from_json

    numba.set_num_threads(1)  # the processes are the parallelism
    rules = rules_from_json(rules_json)
    family = family_of(rules)
    family.prepare(progress=False, jobs=1)
    tables = family.chunk_tables(rules, seed, start, count, list(seating), duplicate=True, tune=tune)
    return family.seat_results(tables).collect()


def play(rules: Rules, policies: tuple[str, ...], units: int, seed: int, jobs: int | None = None,
         tune: dict[str, dict] | None = None, chunk: int = 200, progress: bool = False,
         keep_rows: bool = False) -> dict:
    """A tournament played in memory, nothing written: every seating of ``policies`` over
    the same ``units`` duplicate deals' rotations (rounded up to whole deals), in ``jobs``
    worker processes; its :func:`compare` standings. ``tune``: a policy's tuning constants
    (``{"expert": {name: value}}``, :func:`sim.games.family.expert_tune`; the defaults
    otherwise), for tuners and benchmarks (``benchmarks/tune_expert.py``). ``keep_rows``: the
    seat results themselves too, under ``"rows"`` (for :mod:`sim.skill`)."""
    from sim.games.family import expert_tune
    from sim.parallel import Workers

    family = runner.family_of(rules)
    unknown = [p for p in policies if p not in family.policies]
    if unknown:
        raise SimError(f"unknown policy {unknown[0]!r}; {family.title} policies: {', '.join(family.policies)}")
    units, chunk = runner.whole_deals(units, min(chunk, units), rules.players)
    tasks = []
    for seating in seatings(tuple(policies), rules.players):
        overrides = [(tune or {}).get(p, {}) for p in seating]
        seat_tune = expert_tune(family.expert_params, rules.players, overrides)
        for start in range(0, units, chunk):
            key = f"{'-'.join(seating)}/{start}"
            tasks.append((key, (rules.to_json(), seed, start, min(chunk, units - start), seating, seat_tune)))
    family.prepare(progress=progress)
    rows: list[pl.DataFrame] = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(tasks), desc=f"tournament {family.name}", unit="chunk")

    def keep(_key: str, df: pl.DataFrame) -> None:
        rows.append(df)
        if bar is not None:
            bar.update()

    with Workers(jobs) as w:
        w.run(_seat_rows, tasks, keep)
    if bar is not None:
        bar.close()
    every = pl.concat(rows)
    out = compare(every, list(policies), family.score_label)
    n = len(seatings(tuple(policies), rules.players))
    if keep_rows:
        out["rows"] = every
    return {**out, "units": units * n, "unit": family.unit, "rounds": units * n, "seatings": n,
            "family": family.name}


def _interval(d: dict) -> dict:
    return {"estimate": float(d["estimate"]), "ci_low": float(d["ci_low"]), "ci_high": float(d["ci_high"])}


def format_standings(s: dict) -> list[str]:
    """The standings as lines a person reads."""
    units = s["unit"] + ("es" if s["unit"].endswith("ch") else "s")
    lines = [f"{s['family']} tournament: {s['units']:,} {units} = {s['deals']:,} deals x every rotation, "
             f"over {s['seatings']} seatings", "",
             f"  {'policy':<10}{s['score']:>32}{'win share':>28}{'of the decided':>28}"]
    for p, v in s["policies"].items():
        m, w, d = v["mean_score"], v["win_share"], v["decided_share"]
        lines.append(f"  {p:<10}{m['estimate']:>12.2f} [{m['ci_low']:8.2f}, {m['ci_high']:8.2f}]"
                     f"{w['estimate']:>10.2%} [{w['ci_low']:.2%}, {w['ci_high']:.2%}]"
                     f"{d['estimate']:>10.2%} [{d['ci_low']:.2%}, {d['ci_high']:.2%}]")
    lines.append("")
    for d in s["pairs"]:
        m, w = d["mean_score"], d["win_share"]
        lines.append(f"  {d['a']} - {d['b']}: score {m['estimate']:+.2f} [{m['ci_low']:+.2f}, {m['ci_high']:+.2f}], "
                     f"win share {w['estimate']:+.2%} [{w['ci_low']:+.2%}, {w['ci_high']:+.2%}] (paired on deals)")
    lines.append("")
    ranks = []
    for e in s["ranking"]:
        text = f"{e['rank']}. {e['policy']}"
        if "separated" in e:
            text += " (ahead of the next, 95%)" if e["separated"] else " (interval overlaps the next: not separated)"
        ranks.append(text)
    lines.append("  ranking by mean score: " + "; ".join(ranks))
    return lines
