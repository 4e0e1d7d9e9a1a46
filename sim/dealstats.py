"""Dealt-rack statistics: how often a rack dealt from the full tile set can open, or a
card hand can meld or go out.

Racks (hands) are dealt uniformly (item ``i`` of a seed depends on nothing else, see
:mod:`sim.deal`), solved in chunks, in parallel worker processes through joblib, and
gathered into one table, one row per rack. What is dealt and measured is a family's
:class:`DealKind`: for the tile games the best melds value, most pairs and whether the
rack opens by melds, by pairs or either way under the rules' thresholds
(:data:`TILE_DEALS`); a family that deals otherwise supplies its own
(:meth:`sim.games.family.Family.deals`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
import polars as pl
from tqdm.auto import tqdm

from sim.deal import STREAM_DEAL_STATS, deal_racks
from sim.errors import DatasetError, RulesError
from sim.games import family_of, rules_from_json
from sim.parallel import Workers
from sim.precision import DEAL_METRICS, Metric, Stream, Target, run_until
from sim.rules import Rules
from sim.solver.api import classify, evaluate_racks
from sim.stats import cluster_stats, mean_interval, share
from sim.store import check_writable, provenance, read_metadata, write_parquet

CHUNK_RACKS = 50_000
KIND = "deal-stats"
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)


@dataclass(frozen=True)
class DealKind:
    """What deal-stats deals and measures for a family: ``solve_chunk(rules_json, seed,
    start, count, size)`` (a module-level function, run in workers) returns ``(start,
    columns)``; ``table`` makes the Parquet table of all the columns; ``stats`` the
    ``--until-ci`` statistics of one chunk's columns; ``summarise`` and ``format`` the
    summary as a dict and as text; ``limit`` the largest rack; ``warm`` compiles in the
    parent before workers start."""

    unit: str
    metrics: tuple[Metric, ...]
    stream: int
    solve_chunk: Callable
    table: Callable[[dict[str, np.ndarray], Rules], pl.DataFrame]
    stats: Callable[[Target, Rules, dict[str, np.ndarray]], np.ndarray]
    summarise: Callable[[pl.DataFrame, Rules], dict]
    format: Callable[[dict, int, int, float, Path | None], str]
    limit: Callable[[Rules], int]
    warm: Callable[[Rules, int, int], None]
    report: Callable | None = None  # (report, files): its section of `sim report`
    headlines: Callable | None = None  # (files) -> its key numbers, Markdown list items


def deal_kind(rules: Rules) -> DealKind:
    """The deal of ``rules``' family (:meth:`sim.games.family.Family.deals`): its own, or
    the tile games' (:data:`TILE_DEALS`)."""
    return family_of(rules).deals()


@dataclass(frozen=True)
class DealStats:
    """The racks' table and the run's settings."""

    table: pl.DataFrame
    rules: Rules
    rack_size: int
    seed: int
    seconds: float

    def summary(self) -> dict:
        return deal_kind(self.rules).summarise(self.table, self.rules)


def _solve_chunk(rules_json: str, seed: int, start: int, count: int, size: int):
    """One chunk of tile racks in a worker: deal, solve (one numba thread: the processes
    are the parallelism), return the columns."""
    numba.set_num_threads(1)
    rules = rules_from_json(rules_json)
    racks = deal_racks(seed, start, count, size, jokers=rules.jokers, stream=STREAM_DEAL_STATS)
    res = evaluate_racks(racks, rules)
    return start, {"value": res["value"], "pairs": res["pairs"], "jokers": racks[:, 52].copy()}


def _deal_stats(target: Target, rules: Rules, cols: dict[str, np.ndarray]) -> np.ndarray:
    if target.metric == "mean_value":
        return cluster_stats(cols["value"])
    flags = classify(cols["value"], cols["pairs"], rules)
    key = {"p_open": "can_open", "p_melds": "can_open_melds", "p_pairs": "can_open_pairs"}[target.metric]
    return cluster_stats(flags[key])


def _tile_table(cols: dict[str, np.ndarray], rules: Rules) -> pl.DataFrame:
    flags = classify(cols["value"], cols["pairs"], rules)
    return pl.DataFrame({
        "rack_id": np.arange(len(cols["value"]), dtype=np.int64),
        "jokers": cols["jokers"].astype(np.int8),
        "value": cols["value"].astype(np.int16),
        "pairs": cols["pairs"].astype(np.int8),
        "can_open_melds": flags["can_open_melds"],
        "can_open_pairs": flags["can_open_pairs"],
        "can_open": flags["can_open"],
    })


def _warm_tiles(rules: Rules, seed: int, size: int) -> None:
    evaluate_racks(deal_racks(seed, 0, 1, size, jokers=rules.jokers), rules)


def run_deal_stats(rules: Rules, rack_size: int, samples: int, seed: int, jobs: int | None = None,
                   progress: bool = True, chunk: int = CHUNK_RACKS, scheduler: str | None = None,
                   cluster: str | None = None, until: Target | None = None) -> DealStats:
    """Deal and solve ``samples`` racks (hands) of ``rack_size`` (with ``until``: as many
    as its target needs, ``samples`` at most); same seed, same table, whatever the workers."""
    kind = deal_kind(rules)
    limit = kind.limit(rules)
    if not 1 <= rack_size <= limit:
        raise RulesError(f"rack-size: must be 1-{limit} for {rules.name} (got {rack_size})")
    if samples < 1:
        raise RulesError(f"samples: must be at least 1 (got {samples})")
    if not 0 <= seed < 2**63:
        raise RulesError(f"seed: must be 0 to 2**63-1 (got {seed})")
    rules_json = rules.to_json()
    kind.warm(rules, seed, rack_size)  # compile here once, so that local workers find it cached
    t0 = time.perf_counter()  # the throughput printed counts dealing and solving, not compiling
    bar = tqdm(total=None if until else samples, unit=kind.unit, unit_scale=True, disable=not progress,
               desc=f"deal-stats {rules.name}", smoothing=0.1)
    chunks: dict[int, dict[str, np.ndarray]] = {}

    def place(result) -> None:
        start, cols = result
        chunks[start] = cols

    def size_of(result) -> int:
        return len(next(iter(result[1].values())))

    def name(start: int) -> str:
        return f"{kind.unit}s {start}-{min(start + chunk, samples) - 1}"

    def args(start: int) -> tuple:
        return (rules_json, seed, start, min(chunk, samples - start), rack_size)

    used = samples
    with Workers(jobs, scheduler, cluster) as workers:
        try:
            if until is None:
                tasks = [(name(s), args(s)) for s in range(0, samples, chunk)]
                workers.run(kind.solve_chunk, tasks,
                            lambda key, result: (place(result), bar.update(size_of(result))))
            else:
                stream = Stream(f"{kind.unit}s", chunk, samples, args, lambda start: None,
                                lambda result: kind.stats(until, rules, result[1]),
                                lambda start, result, stored: place(result), label=name)
                run_until([stream], workers, kind.solve_chunk, until, 2 * workers.slots,
                          on_result=lambda result: bar.update(size_of(result)))
                used = stream.finished_at
        finally:
            bar.close()
    starts = [s for s in sorted(chunks) if s < used]
    try:
        cols = {c: np.concatenate([chunks[s][c] for s in starts])[:used] for c in chunks[starts[0]]}
        table = kind.table(cols, rules)
    except MemoryError:
        raise MemoryError(f"gathering the table of {used:,} {kind.unit}s") from None
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


def report_section(rep, files: list[Path]) -> None:
    """The report's section on tile deal-stats files (:class:`sim.report.Report` ``rep``)."""
    from sim import analysis as A
    df = A.deal_open_shares(files)
    rep.add("## Can a dealt rack open?", "",
            "Racks dealt uniformly from the 106 tiles and solved exactly (`sim deal-stats`): the "
            "share that can open at once by melds (T-OPEN-1), by pairs (T-OPEN-2) or either way, "
            "with 95% Wilson intervals. The starter holds 22 tiles, the others 21.", "")
    wide = (df.with_columns(pl.format("{}% [{}, {}]", (pl.col("share") * 100).round(2),
                                      (pl.col("ci_low") * 100).round(2),
                                      (pl.col("ci_high") * 100).round(2)).alias("cell"))
            .pivot(on="way", index=["preset", "rack_size", "racks", "mean_value"], values="cell")
            .sort("preset", "rack_size"))
    rep.table(wide.select("preset", "rack_size", "racks", "melds", "pairs", "either", "mean_value"),
              {"mean_value": ".1f", "racks": ","})


def headlines(files: list[Path]) -> list[str]:
    """The key numbers of tile deal-stats files."""
    from sim import analysis as A
    from sim.report import ci_text, pct

    d = A.deal_open_shares(files).filter(pl.col("way") == "either")
    return [f"- A dealt rack of {r['rack_size']} tiles ({r['preset']}) can open at once in "
            f"{pct(r['share'], 2)} {ci_text(r['ci_low'], r['ci_high'], digits=2)} of deals."
            for r in d.iter_rows(named=True)]


TILE_DEALS = DealKind("rack", DEAL_METRICS, STREAM_DEAL_STATS, _solve_chunk, _tile_table, _deal_stats,
                      summarise, format_summary,
                      lambda rules: 2 * 52 + rules.jokers, _warm_tiles, report_section, headlines)


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
                      samples=stats.table.height, stream=deal_kind(stats.rules).stream)
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
