"""Dealt-rack statistics: how often a rack dealt from the full tile set can open.

Racks are dealt uniformly (rack ``i`` of a seed depends on nothing else, see
:mod:`sim.deal`), solved in chunks, in parallel worker processes through joblib, and
gathered into one table: one row per rack with its best melds value, most pairs and
whether it opens by melds, by pairs or either way under the rules' thresholds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
import polars as pl
from tqdm.auto import tqdm

from sim.deal import STREAM_DEAL_STATS, deal_racks
from sim.errors import DatasetError, RulesError
from sim.parallel import Workers
from sim.precision import Stream, Target, run_until
from sim.rules import Rules
from sim.solver.api import classify, evaluate_racks
from sim.stats import cluster_stats, mean_interval, share
from sim.store import check_writable, provenance, read_metadata, write_parquet

CHUNK_RACKS = 50_000
KIND = "deal-stats"
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)


@dataclass(frozen=True)
class DealStats:
    """The racks' table and the run's settings."""

    table: pl.DataFrame
    rules: Rules
    rack_size: int
    seed: int
    seconds: float

    def summary(self) -> dict:
        return summarise(self.table, self.rules)


def _solve_chunk(rules_json: str, seed: int, start: int, count: int, size: int):
    """One chunk in a worker: deal, solve (one numba thread: the processes are the
    parallelism), return the columns."""
    numba.set_num_threads(1)
    rules = Rules.from_json(rules_json)
    racks = deal_racks(seed, start, count, size, jokers=rules.jokers, stream=STREAM_DEAL_STATS)
    res = evaluate_racks(racks, rules)
    return start, res["value"], res["pairs"], racks[:, 52].copy()


def _deal_stats(target: Target, rules: Rules, result) -> np.ndarray:
    _, value, pairs, _ = result
    if target.metric == "mean_value":
        return cluster_stats(value)
    flags = classify(value, pairs, rules)
    key = {"p_open": "can_open", "p_melds": "can_open_melds", "p_pairs": "can_open_pairs"}[target.metric]
    return cluster_stats(flags[key])


def run_deal_stats(rules: Rules, rack_size: int, samples: int, seed: int, jobs: int | None = None,
                   progress: bool = True, chunk: int = CHUNK_RACKS, scheduler: str | None = None,
                   cluster: str | None = None, until: Target | None = None) -> DealStats:
    """Deal and solve ``samples`` racks of ``rack_size`` tiles (with ``until``: as many as
    its target needs, ``samples`` at most); same seed, same table, whatever the workers."""
    if rules.family == "rummy101-cards":
        raise RulesError("deal-stats covers the tile games; card Rummy 101 has no opening threshold")
    limit = 2 * 52 + rules.jokers
    if not 1 <= rack_size <= limit:
        raise RulesError(f"rack-size: must be 1-{limit} for {rules.name} (got {rack_size})")
    if samples < 1:
        raise RulesError(f"samples: must be at least 1 (got {samples})")
    if not 0 <= seed < 2**63:
        raise RulesError(f"seed: must be 0 to 2**63-1 (got {seed})")
    rules_json = rules.to_json()
    value = np.empty(samples, dtype=np.int16)
    pairs = np.empty(samples, dtype=np.int8)
    jokers = np.empty(samples, dtype=np.int8)
    t0 = time.perf_counter()
    # Compile and load the run table here once, so that local workers find both cached on disk.
    evaluate_racks(deal_racks(seed, 0, 1, rack_size, jokers=rules.jokers), rules)
    bar = tqdm(total=None if until else samples, unit="rack", unit_scale=True, disable=not progress,
               desc=f"deal-stats {rules.name}", smoothing=0.1)

    def place(result) -> None:
        start, v, p, j = result
        value[start:start + len(v)] = v
        pairs[start:start + len(v)] = p
        jokers[start:start + len(v)] = j

    def name(start: int) -> str:
        return f"racks {start}-{min(start + chunk, samples) - 1}"

    def args(start: int) -> tuple:
        return (rules_json, seed, start, min(chunk, samples - start), rack_size)

    used = samples
    with Workers(jobs, scheduler, cluster) as workers:
        try:
            if until is None:
                tasks = [(name(s), args(s)) for s in range(0, samples, chunk)]
                workers.run(_solve_chunk, tasks,
                            lambda key, result: (place(result), bar.update(len(result[1]))))
            else:
                stream = Stream("racks", chunk, samples, args, lambda start: None,
                                lambda result: _deal_stats(until, rules, result),
                                lambda start, result, stored: place(result), label=name)
                run_until([stream], workers, _solve_chunk, until, 2 * workers.slots,
                          on_result=lambda result: bar.update(len(result[1])))
                used = stream.finished_at
        finally:
            bar.close()
    value, pairs, jokers = value[:used], pairs[:used], jokers[:used]
    flags = classify(value, pairs, rules)
    table = pl.DataFrame({
        "rack_id": np.arange(used, dtype=np.int64),
        "jokers": jokers,
        "value": value,
        "pairs": pairs,
        "can_open_melds": flags["can_open_melds"],
        "can_open_pairs": flags["can_open_pairs"],
        "can_open": flags["can_open"],
    })
    return DealStats(table, rules, rack_size, seed, time.perf_counter() - t0)


def summarise(table: pl.DataFrame, rules: Rules) -> dict:
    """Opening shares with 95% Wilson intervals, value mean and quantiles, pairs spread."""
    value = table["value"].to_numpy()
    pairs = table["pairs"].to_numpy()
    n = len(value)
    dist = np.bincount(pairs, minlength=1) / n
    by_jokers = {}
    for j, sub in table.group_by("jokers", maintain_order=True):
        by_jokers[str(int(j[0]))] = {"racks": sub.height, "p_open": share(sub["can_open"].to_numpy())}
    return {
        "preset": rules.name,
        "racks": n,
        "open_points": rules.open_points,
        "open_pairs": rules.open_pairs,
        "p_melds": share(table["can_open_melds"].to_numpy()),
        "p_pairs": share(table["can_open_pairs"].to_numpy()),
        "p_open": share(table["can_open"].to_numpy()),
        "mean_value": float(value.mean()),
        "mean_value_ci": mean_interval(value),
        "value_quantiles": {f"q{int(q * 100):02d}": float(np.quantile(value, q)) for q in QUANTILES},
        "pairs_distribution": {str(i): float(x) for i, x in enumerate(dist)},
        "by_jokers": dict(sorted(by_jokers.items())),
    }


def format_summary(s: dict, rack_size: int, seed: int, seconds: float, out: Path | None) -> str:
    """The summary as a few readable lines."""
    def row(label, d):
        return (f"  {label:<26}{d['estimate']:>8.2%}   "
                f"[{d['ci_low']:.2%}, {d['ci_high']:.2%}]")

    lines = [
        f"deal-stats  {s['preset']}: {s['racks']:,} racks of {rack_size} tiles, seed {seed}"
        f"  ({seconds:.1f} s, {s['racks'] / max(seconds, 1e-9):,.0f} racks/s)",
        "",
        f"  {'can open at the deal':<26}{'share':>8}   95% Wilson interval",
        row(f"by melds (>= {s['open_points']} points)", s["p_melds"]),
    ]
    if s["open_pairs"]:
        lines.append(row(f"by pairs (>= {s['open_pairs']} pairs)", s["p_pairs"]))
    lines.append(row("either way", s["p_open"]))
    q = s["value_quantiles"]
    ci = s["mean_value_ci"]
    lines += [
        "",
        f"best melds value: mean {s['mean_value']:.2f} [{ci['ci_low']:.2f}, {ci['ci_high']:.2f}]",
        "  quantiles: " + "  ".join(f"{k[1:]}% {v:g}" for k, v in q.items()),
        "by jokers dealt: " + "  ".join(
            f"{j}: {d['racks'] / s['racks']:.1%} of racks, {d['p_open']['estimate']:.2%} open"
            for j, d in s["by_jokers"].items()),
    ]
    if s["open_pairs"]:
        lines.append("most pairs:  " + "  ".join(
            f"{k}: {v:.2%}" if v >= 5e-5 else f"{k}: <0.01%"
            for k, v in s["pairs_distribution"].items() if v > 0))
    if out is not None:
        lines += ["", f"racks written to {out}"]
    return "\n".join(lines)


def prepare_output(out: Path, overwrite: bool) -> None:
    """Refuse to replace a file that is not an earlier deal-stats table, before any work."""
    out = Path(out)
    if out.suffix != ".parquet":
        raise DatasetError(f"--out {out}: give a file name ending in .parquet")
    if out.exists() and not overwrite:
        try:
            kind = read_metadata(out).get("kind")
        except DatasetError:
            kind = None
        if kind != KIND:
            raise DatasetError(f"{out} exists and is not a deal-stats table; "
                               "choose another --out or pass --overwrite")
    check_writable(out)


def write(stats: DealStats, out: Path) -> None:
    meta = provenance(KIND, stats.rules.to_json(), stats.seed, rack_size=stats.rack_size,
                      samples=stats.table.height, stream=STREAM_DEAL_STATS)
    write_parquet(stats.table, out, meta)


def load(path: Path) -> tuple[pl.DataFrame, dict[str, str]]:
    """A deal-stats table and its provenance, or a clear error naming the file."""
    meta = read_metadata(path)
    if meta.get("kind") != KIND:
        raise DatasetError(f"{path}: a {meta.get('kind')!r} file, not a deal-stats table")
    try:
        return pl.read_parquet(path), meta
    except Exception as e:
        raise DatasetError(f"{path}: cannot be read ({type(e).__name__})") from None
