"""Runs of many Rummy 101 rounds: chunks played in parallel worker processes (joblib),
one Parquet file per chunk and table, resumable, described by a manifest.

A run directory holds::

    DIR/manifest.json                      what was asked: rules, rounds, seed, policies
    DIR/rounds/[k=v/...]part-NNNNNN.parquet one row per round
    DIR/players/[k=v/...]part-NNNNNN.parquet one row per player per round

A sweep is a run with several variants of the rules, each in its own hive partition
(``players=4/threshold_mode=fixed/...``); every variant plays the same round ids with
the same shuffled tiles (common random numbers), so differences between variants are
paired. Round ``i`` depends only on the seed, the rules and the policies: the data are
the same whatever the number of jobs or the chunk size. Rerunning a command skips the
chunks already written, and every file is written atomically.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np
import polars as pl
from tqdm.auto import tqdm

from sim.engine import core
from sim.engine import round as rnd
from sim.engine.bots import POLICIES
from sim.engine.play import play_chunk, policy_codes
from sim.errors import DatasetError, RulesError
from sim.parallel import Workers
from sim.precision import Stream, Target, round_stats, run_until
from sim.rules import Rules
from sim.stats import mean_interval, share
from sim.store import check_writable, provenance, read_metadata, write_parquet

CHUNK_ROUNDS = 10_000
MANIFEST = "manifest.json"
FINISH = pl.Enum(list(core.FINISH_NAMES))
OPEN_KIND = pl.Enum(["melds", "pairs"])
POLICY = pl.Enum(list(POLICIES))
SETTINGS = ("players", "threshold_mode", "open_points", "open_pairs", "button_jokers")
OPENED_BY = (1, 3, 5)  # own turns at which the summary tells the share opened


@dataclass(frozen=True)
class Variant:
    """One rules variant of a run, and the hive partition it lives in (empty for a run)."""

    rules: Rules
    partition: tuple[tuple[str, str], ...] = ()

    @property
    def subdir(self) -> str:
        return "/".join(f"{k}={v}" for k, v in self.partition)


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a run's data (not how it is computed)."""

    variants: tuple[Variant, ...]
    rounds: int
    seed: int
    policies: tuple[str, ...]  # one per seat, or one for all
    chunk: int = CHUNK_ROUNDS
    kind: str = "run"
    until: Target | None = None  # with a target, ``rounds`` is the most each variant may use

    def manifest(self) -> dict:
        return {
            "kind": self.kind,
            "rounds": self.rounds,
            "seed": self.seed,
            "policies": list(self.policies),
            "chunk": self.chunk,
            "until_ci": self.until.to_text() if self.until else None,
            "variants": [{"partition": dict(v.partition), "rules": v.rules.to_dict()} for v in self.variants],
        }

    def chunks(self) -> list[tuple[int, int, int]]:
        """(variant index, first round, rounds) of every chunk."""
        return [(vi, s, min(self.chunk, self.rounds - s))
                for vi in range(len(self.variants)) for s in range(0, self.rounds, self.chunk)]


def seat_policies(policies: tuple[str, ...], players: int) -> list[str]:
    return list(policies) * players if len(policies) == 1 else list(policies)


def _paths(out: Path, variant: Variant, start: int) -> tuple[Path, Path]:
    name = f"part-{start:010d}.parquet"
    sub = variant.subdir
    return (out / "rounds" / sub / name, out / "players" / sub / name)


def chunk_tables(rules: Rules, seed: int, start: int, count: int, policies: list[str],
                 drop: tuple[str, ...] = ()) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Play rounds ``start .. start+count-1`` and return the rounds and players tables.
    Columns named in ``drop`` (the hive partition's) are left to the path."""
    codes = policy_codes(policies, rules.players)
    res = play_chunk(rules, seed, start, count, codes)
    r, p = res.rounds, res.players
    if (r[:, rnd.R_ERROR] != 0).any():
        bad = int(np.flatnonzero(r[:, rnd.R_ERROR])[0])
        raise RuntimeError(f"engine error {int(r[bad, rnd.R_ERROR])} in round {start + bad}")
    round_id = np.arange(start, start + count, dtype=np.int64)
    winner = r[:, rnd.R_WINNER]
    rounds = pl.DataFrame({
        "round_id": round_id,
        "players": np.full(count, rules.players, dtype=np.int8),
        "threshold_mode": [rules.threshold_mode] * count,
        "open_points": np.full(count, rules.open_points, dtype=np.int16),
        "open_pairs": np.full(count, rules.open_pairs, dtype=np.int8),
        "button_jokers": np.full(count, rules.button_jokers, dtype=np.int8),
        "policies": [",".join(policies)] * count,
        "finish": pl.Series([core.FINISH_NAMES[i] for i in r[:, rnd.R_FINISH]], dtype=FINISH),
        "winner_seat": _where(winner, winner >= 0, np.int8),  # T-END-1: no winner
        "turns": r[:, rnd.R_TURNS].astype(np.int16),
        "stock_left": r[:, rnd.R_STOCK_LEFT].astype(np.int16),
    })
    n, players = count, rules.players
    kind = p[:, :, rnd.P_OPEN_KIND].reshape(-1)
    opened = kind != core.OPEN_NONE

    def when_opened(col: np.ndarray, dtype) -> pl.Series:
        return _where(col, opened, dtype)

    flat = p.reshape(n * players, rnd.P_LEN)
    players_df = pl.DataFrame({
        "round_id": np.repeat(round_id, players),
        "seat": np.tile(np.arange(players, dtype=np.int8), n),
        "policy": pl.Series(np.tile(np.array(policies), n), dtype=POLICY),
        "opened": opened,
        "open_kind": pl.Series([None, "melds", "pairs"][k] for k in kind).cast(OPEN_KIND),
        "open_turn": when_opened(flat[:, rnd.P_OPEN_TURN], np.int16),
        "open_value": when_opened(flat[:, rnd.P_OPEN_VALUE], np.int16),
        "open_threshold": when_opened(flat[:, rnd.P_OPEN_THRESHOLD], np.int16),
        "open_order": when_opened(flat[:, rnd.P_OPEN_ORDER], np.int8),
        "took_discard": when_opened(flat[:, rnd.P_TOOK_DISCARD], np.bool_),
        "rack_value": flat[:, rnd.P_RACK_VALUE].astype(np.int16),
        "jokers_left": flat[:, rnd.P_JOKERS_LEFT].astype(np.int8),
        "score": flat[:, rnd.P_SCORE].astype(np.int32),
        "turns": flat[:, rnd.P_TURNS].astype(np.int16),
        "button_turn": _where(flat[:, rnd.P_BUTTON_TURN], flat[:, rnd.P_BUTTON_TURN] > 0, np.int16),
    })
    keep_rounds = [c for c in rounds.columns if c not in drop]
    return rounds.select(keep_rounds), players_df


def _where(values: np.ndarray, keep: np.ndarray, dtype) -> pl.Series:
    """``values`` as a column, null where ``keep`` is false."""
    return pl.Series(np.where(keep, values, 0).astype(dtype)).scatter(np.flatnonzero(~keep), None)


def _play_chunk(rules_json: str, seed: int, start: int, count: int, policies: list[str],
                drop: tuple[str, ...]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One chunk in a worker (one numba thread: the processes are the parallelism); the
    tables go back to the parent, which writes them, so workers need no shared disk."""
    numba.set_num_threads(1)
    return chunk_tables(Rules.from_json(rules_json), seed, start, count, policies, drop)


def _chunk_meta(spec: RunSpec, v: Variant) -> dict[str, str]:
    return provenance("rounds", v.rules.to_json(), spec.seed, policies=",".join(spec.policies),
                      partition=v.subdir, chunk=spec.chunk)


def _chunk_done(paths: tuple[Path, Path], meta: dict[str, str]) -> bool:
    """Both files of a chunk are there and were written by these settings."""
    for path in paths:
        if not path.exists():
            return False
        try:
            got = read_metadata(path)
        except DatasetError:
            return False
        if got.get("rules") != meta["sim.rules"] or got.get("seed") != meta["sim.seed"]:
            return False
    return True


def _write_chunk(paths: tuple[Path, Path], meta: dict[str, str], start: int,
                 tables: tuple[pl.DataFrame, pl.DataFrame], out: Path) -> None:
    rounds, players = tables
    chunk_meta = {**meta, "sim.first_round": str(start), "sim.rounds": str(rounds.height)}
    try:
        write_parquet(players, paths[1], {**chunk_meta, "sim.table": "players"})
        write_parquet(rounds, paths[0], {**chunk_meta, "sim.table": "rounds"})
    except OSError as e:
        raise DatasetError(
            f"cannot write {paths[0].parent}: {e.strerror or e}; the chunks written so far are kept "
            f"in {out}, rerun the same command to go on") from None


def _clear_leftovers(out: Path) -> None:
    """Temporary files of a write that was killed: invisible to readers, removed here."""
    for sub in ("rounds", "players"):
        for tmp in (out / sub).rglob(".*.tmp") if (out / sub).exists() else ():
            tmp.unlink(missing_ok=True)


def prepare(out: Path, spec: RunSpec, overwrite: bool) -> None:
    """Check the output directory before any work: writable, and either new, the same
    run (resume) or explicitly overwritten."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise DatasetError(f"--out {out} is a file; a run writes a directory")
    manifest = out / MANIFEST
    if manifest.exists():
        try:
            old = json.loads(manifest.read_text())
        except (OSError, json.JSONDecodeError):
            old = None
        if old != spec.manifest():
            if not overwrite:
                raise DatasetError(
                    f"{out} holds a run with other settings ({manifest}); choose another --out "
                    "or pass --overwrite to replace it")
            for sub in ("rounds", "players"):
                shutil.rmtree(out / sub, ignore_errors=True)
    elif out.exists() and any(out.iterdir()) and not overwrite:
        raise DatasetError(f"{out} is not empty and holds no run manifest; choose another --out")
    check_writable(manifest)
    _clear_leftovers(out)
    tmp = out / f".{MANIFEST}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(spec.manifest(), indent=2, sort_keys=True))
    os.replace(tmp, manifest)


@dataclass
class RunReport:
    spec: RunSpec
    out: Path
    seconds: float
    played: int  # rounds played now (not counting chunks already there)
    skipped: int
    summary: dict = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)  # --until-ci: rounds kept per variant
    widths: dict[str, float] = field(default_factory=dict)
    where: str = ""


def run(spec: RunSpec, out: Path, jobs: int | None = None, progress: bool = True, overwrite: bool = False,
        scheduler: str | None = None, cluster: str | None = None) -> RunReport:
    """Play every chunk of ``spec`` not yet written into ``out``, on local worker
    processes or a dask cluster (``scheduler`` address, or ``cluster="local[:N]"``)."""
    out = Path(out)
    first = spec.variants[0]
    played = [0]
    report = RunReport(spec, out, 0.0, 0, 0)
    with Workers(jobs, scheduler, cluster) as workers:  # a bad cluster fails before anything is written
        prepare(out, spec, overwrite)
        report.where = workers.describe()
        # Compile here once: local workers then load the kernels from numba's cache.
        chunk_tables(first.rules, spec.seed, 0, 1, seat_policies(spec.policies, first.rules.players))
        bar = tqdm(total=None if spec.until else spec.rounds * len(spec.variants), unit="round",
                   unit_scale=True, disable=not progress, desc=f"{spec.kind} {first.rules.name}", smoothing=0.05)
        t0 = time.perf_counter()
        try:
            if spec.until is None:
                _run_all(spec, out, workers, bar, played, report)
            else:
                _run_until(spec, out, workers, bar, played, report)
        finally:
            bar.close()
    report.seconds = time.perf_counter() - t0
    report.played = played[0]
    report.summary = summarise(out)
    return report


def chunk_name(v: Variant, start: int, count: int) -> str:
    """How errors and the fault-injection hook name a chunk: ``rounds 0-9999 of players=4``."""
    return f"rounds {start}-{start + count - 1}" + (f" of {v.subdir}" if v.subdir else "")


def _task_args(spec: RunSpec, v: Variant, start: int, count: int) -> tuple:
    return (v.rules.to_json(), spec.seed, start, count, seat_policies(spec.policies, v.rules.players),
            tuple(k for k, _ in v.partition))


def _run_all(spec: RunSpec, out: Path, workers: Workers, bar, played: list[int], report: RunReport) -> None:
    tasks, where = [], {}
    for vi, start, count in spec.chunks():
        v = spec.variants[vi]
        paths = _paths(out, v, start)
        meta = _chunk_meta(spec, v)
        if _chunk_done(paths, meta):
            report.skipped += count
            bar.update(count)
            continue
        key = chunk_name(v, start, count)
        where[key] = (paths, meta, start)
        tasks.append((key, _task_args(spec, v, start, count)))

    def write(key: str, tables) -> None:
        paths, meta, start = where[key]
        _write_chunk(paths, meta, start, tables, out)
        played[0] += tables[0].height
        bar.update(tables[0].height)

    workers.run(_play_chunk, tasks, write)


def _run_until(spec: RunSpec, out: Path, workers: Workers, bar, played: list[int], report: RunReport) -> None:
    target = spec.until
    streams = []
    for v in spec.variants:
        meta = _chunk_meta(spec, v)

        def stored(start, v=v, meta=meta):
            paths = _paths(out, v, start)
            if not _chunk_done(paths, meta):
                return None
            return pl.read_parquet(paths[0]), pl.read_parquet(paths[1])

        def accept(start, tables, was_stored, v=v, meta=meta):
            if not was_stored:
                _write_chunk(_paths(out, v, start), meta, start, tables, out)
                played[0] += tables[0].height
            else:
                report.skipped += tables[0].height

        streams.append(Stream(
            name=v.subdir, chunk=spec.chunk, cap=spec.rounds,
            task=lambda start, v=v: _task_args(spec, v, start, min(spec.chunk, spec.rounds - start)),
            stored=stored, stats=lambda tables: round_stats(target, *tables), accept=accept,
            label=lambda start, v=v: chunk_name(v, start, min(spec.chunk, spec.rounds - start))))
    run_until(streams, workers, _play_chunk, target, 2 * workers.slots,
              on_result=lambda tables: bar.update(tables[0].height))
    for s in streams:
        report.used[s.name or "all rounds"] = s.finished_at
        report.widths[s.name or "all rounds"] = target.width(s.acc)
    # Chunks beyond the prefix kept (from an earlier, longer run) are not part of the data.
    for v, s in zip(spec.variants, streams, strict=True):
        for start in range(s.finished_at, spec.rounds, spec.chunk):
            for path in _paths(out, v, start):
                path.unlink(missing_ok=True)


def grid_variants(base: Rules, grid: dict[str, list[str]]) -> tuple[Variant, ...]:
    """Every combination of the grid's values as validated rules and a hive partition."""
    for key in grid:
        if key not in base.to_dict():
            raise RulesError(f"--grid {key}: unknown rules field")
        if key in ("name", "family"):
            raise RulesError(f"--grid {key}: not a setting to sweep")
    keys = list(grid)
    variants = []
    for values in itertools.product(*(grid[k] for k in keys)):
        combo = dict(zip(keys, values, strict=True))
        rules = base.with_settings(combo)
        variants.append(Variant(rules, tuple((k, str(getattr(rules, k)).lower()) for k in keys)))
    return tuple(variants)


# --- reading back ------------------------------------------------------------------------


def read_manifest(out: Path) -> dict:
    path = Path(out) / MANIFEST
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise DatasetError(f"{out}: no {MANIFEST}; not a run directory") from None
    except (OSError, json.JSONDecodeError) as e:
        raise DatasetError(f"{path}: unreadable ({e})") from None


def scan(out: Path, table: str) -> pl.LazyFrame:
    """A lazy scan of one table of a run or sweep (hive partitions as columns)."""
    path = Path(out) / table
    if not path.exists():
        raise DatasetError(f"{out}: no {table} table (is it a run directory?)")
    return pl.scan_parquet(str(path / "**" / "*.parquet"), hive_partitioning=True)


def summarise(out: Path) -> dict:
    """Win share and opening share by seat, mean penalty, finish kinds, per variant."""
    rounds = scan(out, "rounds").collect()
    players = scan(out, "players").collect()
    # The variants of a sweep differ in their partition columns, present in both tables.
    keys = list(read_manifest(out)["variants"][0]["partition"])
    players = players.join(rounds.select("round_id", *keys, "winner_seat"), on=["round_id", *keys],
                           how="left")
    combos = rounds.select(keys).unique().sort(keys).rows(named=True) if keys else [{}]
    variants = []
    for combo in combos:
        match = [pl.col(k) == v for k, v in combo.items()]
        r = rounds.filter(*match) if match else rounds
        p = players.filter(*match) if match else players
        variants.append(_variant_summary(combo, r, p))
    return {"rounds": rounds.height, "variants": variants}


def _variant_summary(combo: dict, rounds: pl.DataFrame, players: pl.DataFrame) -> dict:
    n = rounds.height
    finishes = rounds["finish"].value_counts().sort("finish")
    seats = []
    for (seat,), sub in players.sort("seat").group_by("seat", maintain_order=True):
        won = (sub["winner_seat"] == seat).fill_null(False).to_numpy()
        losses = -sub.filter(~pl.Series(won))["score"]
        seats.append({
            "seat": int(seat),
            "win": share(won),
            "opened": share(sub["opened"].to_numpy()),
            "opened_by_turn": {str(t): share((sub["open_turn"] <= t).fill_null(False).to_numpy())
                               for t in OPENED_BY},
            "mean_score": mean_interval(sub["score"].to_numpy()),
            "mean_penalty": float(losses.mean()) if losses.len() else 0.0,
        })
    return {
        "variant": {k: (v if isinstance(v, str) else int(v)) for k, v in combo.items()},
        "rounds": n,
        "finish": {row["finish"]: row["count"] / n for row in finishes.iter_rows(named=True)},
        "mean_turns": float(rounds["turns"].mean()),
        "seats": seats,
    }


def format_summary(report: RunReport) -> str:
    s = report.summary
    spec = report.spec
    rate = report.played / report.seconds if report.seconds > 0 else float("nan")
    lines = [
        f"{spec.kind}: {s['rounds']:,} rounds in {report.out} (seed {spec.seed}, policies "
        f"{','.join(spec.policies)}); played now {report.played:,} in {report.seconds:.1f} s"
        + (f" ({rate:,.0f} rounds/s on {report.where})" if report.played else "")
        + (f", {report.skipped:,} already there" if report.skipped else ""),
    ]
    if spec.until:
        for name, used in report.used.items():
            met = report.widths[name] <= spec.until.halfwidth
            lines.append(f"--until-ci {spec.until.to_text()}: {name or 'all rounds'} used {used:,} rounds, "
                         f"half-width {report.widths[name]:.5f}" + ("" if met else f" (cap {spec.rounds:,} reached)"))
    for v in s["variants"]:
        name = ", ".join(f"{k}={val}" for k, val in v["variant"].items()) or "all rounds"
        lines.append("")
        lines.append(f"{name}: {v['rounds']:,} rounds, {v['mean_turns']:.1f} turns on average")
        lines.append("  finish: " + "  ".join(f"{k} {x:.1%}" for k, x in v["finish"].items()))
        by_turn = "".join(f"{'by t' + str(t):>8}" for t in OPENED_BY)
        lines.append(f"  {'seat':<10}{'wins':>8}{'opened':>8}{by_turn}{'mean score':>12}{'mean penalty':>14}")
        for seat in v["seats"]:
            label = f"{seat['seat']}" + (" (starts)" if seat["seat"] == 0 else "")
            turns = "".join(f"{seat['opened_by_turn'][str(t)]['estimate']:>8.1%}" for t in OPENED_BY)
            lines.append(f"  {label:<10}{seat['win']['estimate']:>8.1%}{seat['opened']['estimate']:>8.1%}"
                         f"{turns}{seat['mean_score']['estimate']:>12.1f}{seat['mean_penalty']:>14.1f}")
        lines.append("  (by tN: share opened by its own N-th turn; mean penalty: over rounds not won)")
    return "\n".join(lines)
