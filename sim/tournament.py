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
from sim.skill import compare

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
    from sim.errors import RulesError
    from sim.games.family import split_policy

    for p in policies:
        try:
            split_policy(p, family.policies)
        except RulesError as e:
            raise SimError(f"{e} ({family.title})") from None
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
    rows = []
    for v in ds.variants:  # seating by seating, so that each seat's bot is named as seated (search:32)
        where = [pl.col(k) == value for k, value in v["partition"].items()]
        tables = {name: t.filter(*where) for name, t in ds.tables.items()}
        rows.append(seat_labels(family.seat_results(tables, ds.keys).collect(), v.get("policies", [])))
    out = compare(pl.concat(rows), policies, family.score_label)
    return {**out, "units": units, "unit": family.unit, "rounds": units, "seatings": len(ds.variants),
            "family": ds.family}


def _seat_rows(rules_json: str, seed: int, start: int, count: int, seating: tuple[str, ...],
               tune: np.ndarray | None) -> pl.DataFrame:
    """One chunk of one seating played in a worker, as seat results."""
    import numba

    from sim.games import family_of, rules_from_json

    numba.set_num_threads(1)  # the processes are the parallelism
    rules = rules_from_json(rules_json)
    family = family_of(rules)
    family.prepare(progress=False, jobs=1, policies=seating)
    tables = family.chunk_tables(rules, seed, start, count, list(seating), duplicate=True, tune=tune)
    return seat_labels(family.seat_results(tables).collect(), seating)


def seat_labels(rows: pl.DataFrame, seating: tuple[str, ...] | list[str]) -> pl.DataFrame:
    """Seat results with each seat's policy as the seating names it: the tables name a
    seat's bot (``search``), the seating its budget too (``search:32``)."""
    return rows.with_columns(policy=pl.col("seat").cast(pl.Int64).replace_strict(
        list(range(len(seating))), list(seating), return_dtype=pl.String))


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
    from sim.errors import RulesError
    from sim.games.family import split_policy

    for p in policies:
        try:
            split_policy(p, family.policies)
        except RulesError as e:
            raise SimError(f"{e} ({family.title})") from None
    units, chunk = runner.whole_deals(units, min(chunk, units), rules.players)
    tasks = []
    for seating in seatings(tuple(policies), rules.players):
        overrides = [(tune or {}).get(p, {}) for p in seating]
        seat_tune = expert_tune(family.expert_params, rules.players, overrides)
        for start in range(0, units, chunk):
            key = f"{'-'.join(seating)}/{start}"
            tasks.append((key, (rules.to_json(), seed, start, min(chunk, units - start), seating, seat_tune)))
    family.prepare(progress=progress, policies=policies)
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
