"""Runs of many rounds of any family: chunks played in parallel worker processes (joblib)
or on a dask cluster, one Parquet file per chunk and table, resumable, described by a
manifest. The family (:mod:`sim.games`) plays the chunks and names the tables; this
module never names a game.

A run directory holds::

    DIR/manifest.json                        what was asked: rules, rounds, seed, policies
    DIR/<table>/[k=v/...]part-NNNNNNNNNN.parquet  one file per chunk for every table of
                                             the family (Rummy 101: rounds, players)

A sweep is a run with several variants of the rules, each in its own hive partition
(``players=4/threshold_mode=fixed/...``); every variant plays the same round ids with
the same shuffled tiles (common random numbers), so differences between variants are
paired. Round ``i`` depends only on the seed, the rules and the policies: the data are
the same whatever the number of jobs or the chunk size. Rerunning a command skips the
chunks already written, and every file is written atomically.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import math
import os
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numba
import polars as pl
from tqdm.auto import tqdm

from sim import chunks
from sim.errors import DatasetError, RulesError, SimError
from sim.games import family_of, family_of_manifest, rules_from_dict, rules_from_json
from sim.games.family import Family
from sim.parallel import Workers
from sim.precision import Stream, Target, run_until
from sim.rules import Rules
from sim.store import LOCK, check_writable, provenance, read_parquet, write_parquet, write_text, writer_lock

CHUNK_ROUNDS = 10_000
MANIFEST = "manifest.json"
MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class Variant:
    """One rules variant of a run, and the hive partition it lives in (empty for a run)."""

    rules: Rules
    partition: tuple[tuple[str, str], ...] = ()
    rounds: int | None = None  # this variant's rounds, if not the run's (``sim balance`` plays some values more)
    policies: tuple[str, ...] | None = None  # this variant's bots by seat, if not the run's (``sim tournament``)

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
    duplicate: bool = False  # every deal played once per seat rotation (sim.deal.deal_round)

    def __post_init__(self) -> None:
        if not 0 <= self.seed <= MAX_SEED:
            raise SimError(f"--seed must be 0 to 2**63-1 (got {self.seed})")
        if self.rounds < 1 or self.chunk < 1:
            raise SimError("--rounds and --chunk must be at least 1")
        names = {v.rules.family for v in self.variants}
        if len(names) != 1:
            raise RulesError(f"a run plays one family; these variants mix {', '.join(sorted(names))}")
        step = deal_step(self.variants, self.duplicate)
        if self.rounds % step or self.chunk % step:
            # A chunk (and so an --until-ci prefix) must hold whole deals: its rounds are one
            # sample, and intervals cluster them.
            raise SimError(f"--duplicate: --rounds and --chunk must be multiples of {step} (whole deals of "
                           f"every player count), got {self.rounds:,} and {self.chunk:,}")

    @property
    def family(self) -> Family:
        return family_of(self.variants[0].rules)

    def manifest(self) -> dict:
        return {
            "kind": self.kind,
            "family": self.variants[0].rules.family,
            "rounds": self.rounds,
            "seed": self.seed,
            "policies": list(self.policies),
            "chunk": self.chunk,
            "until_ci": self.until.to_text() if self.until else None,
            **({"duplicate": True} if self.duplicate else {}),  # absent: the manifests of earlier runs
            "variants": [{"partition": dict(v.partition), "rules": v.rules.to_dict(),
                          **({"rounds": v.rounds} if v.rounds is not None else {}),
                          **({"policies": list(v.policies)} if v.policies is not None else {})}
                         for v in self.variants],
        }

    def rounds_of(self, v: Variant) -> int:
        return self.rounds if v.rounds is None else v.rounds

    def policies_of(self, v: Variant) -> tuple[str, ...]:
        return self.policies if v.policies is None else v.policies

    def chunks(self) -> Iterator[tuple[int, int, int]]:
        """(variant index, first round, rounds) of every chunk, one at a time (a plan of many
        chunks is not held whole: sim.plan bounds their number)."""
        return ((vi, s, min(self.chunk, self.rounds_of(v) - s))
                for vi, v in enumerate(self.variants) for s in range(0, self.rounds_of(v), self.chunk))


def deal_step(variants: tuple[Variant, ...], duplicate: bool) -> int:
    """The rounds of one deal in every variant: 1, or with ``duplicate`` the least common
    multiple of their player counts (a deal is played once per seat rotation)."""
    return math.lcm(*(v.rules.players for v in variants)) if duplicate else 1


def whole_deals(rounds: int, chunk: int, step: int) -> tuple[int, int]:
    """``rounds`` rounded up and ``chunk`` down (at least one deal) to whole deals of ``step`` rounds."""
    return -(-rounds // step) * step, max(step, chunk - chunk % step)


def seat_policies(policies: tuple[str, ...], players: int) -> list[str]:
    return list(policies) * players if len(policies) == 1 else list(policies)


def _paths(out: Path, tables: tuple[str, ...], variant: Variant, start: int) -> tuple[Path, ...]:
    name = f"part-{start:010d}.parquet"
    return tuple(out / table / variant.subdir / name for table in tables)


def _play_chunk(rules_json: str, seed: int, start: int, count: int, policies: list[str],
                drop: tuple[str, ...], duplicate: bool = False) -> dict[str, pl.DataFrame]:
    """One chunk in a worker (one numba thread: the processes are the parallelism); the
    tables go back to the parent, which writes them, so workers need no shared disk."""
    numba.set_num_threads(1)
    rules = rules_from_json(rules_json)
    family = family_of(rules)
    family.prepare(progress=False, jobs=1, policies=policies)  # a remote worker may have to compile: here, once
    return family.chunk_tables(rules, seed, start, count, policies, drop, duplicate)


def _chunk_meta(spec: RunSpec, v: Variant) -> dict[str, str]:
    return provenance("rounds", v.rules.to_json(), spec.seed, policies=",".join(spec.policies_of(v)),
                      partition=v.subdir, chunk=spec.chunk, duplicate=spec.duplicate)


def _chunk_state(out: Path, spec: RunSpec, vi: int, start: int, count: int, entries: dict[str, dict],
                 say=None) -> bool:
    """Whether every file of a chunk is there and holds what it should (:mod:`sim.chunks`:
    its metadata names this chunk and these settings, its bytes are those the ledger
    recorded or its rows match their digest). A file that is there but wrong is named
    through ``say`` and will be replaced; a short last chunk of a run grown from fewer
    rounds is replayed."""
    family = spec.family
    manifest = spec.manifest()
    done = True
    for table, path in zip(family.tables, _paths(out, family.tables, spec.variants[vi], start), strict=True):
        if not path.exists() and not path.is_symlink():
            done = False
            continue
        rel = path.relative_to(out).as_posix()
        exp = chunks.Expected(table, vi, start, count)
        verdict, why = chunks.check_file(path, exp, manifest, entries.get(rel), family.id_column,
                                         table == family.tables[0], False, chunks.same_rules)
        if verdict == "bad":
            done = False
            if say is not None and not why.startswith("was written for rounds "):
                say(f"replacing {out / rel}: it {why}")
            if path.is_symlink():
                path.unlink()
    return done


def _write_chunk(paths: tuple[Path, ...], meta: dict[str, str], start: int,
                 tables: dict[str, pl.DataFrame], out: Path) -> None:
    chunk_meta = {**meta, "sim.first_round": str(start), "sim.rounds": str(_units(tables))}
    try:
        # The first table last: a chunk counts as done once all its files are there.
        for (name, table), path in reversed(list(zip(tables.items(), paths, strict=True))):
            write_parquet(table, path, {**chunk_meta, "sim.table": name, "sim.digest": chunks.rows_digest(table)})
            chunks.record(out, path)
    except (DatasetError, OSError) as e:
        why = str(e) if isinstance(e, DatasetError) else f"cannot write {paths[0].parent}: {e.strerror or e}"
        raise DatasetError(f"{why}; the chunks written so far are kept in {out}, rerun the same command to "
                           "go on") from None


def _units(tables: dict[str, pl.DataFrame]) -> int:
    """Rounds (or matches) in a chunk: the rows of its first table."""
    return next(iter(tables.values())).height


def _clear_leftovers(out: Path, tables: tuple[str, ...]) -> None:
    """Temporary files of a write that was killed: invisible to readers, removed here."""
    for sub in tables:
        for tmp in (out / sub).rglob(".*.tmp") if (out / sub).exists() else ():
            tmp.unlink(missing_ok=True)


def _tables_of(manifest: dict | None, family: Family) -> tuple[str, ...]:
    """The tables an old manifest's run wrote (its family's), and the new family's."""
    names = list(family.tables)
    try:
        old = family_of(rules_from_dict(manifest["variants"][0]["rules"])).tables
        names += [t for t in old if t not in names]
    except (TypeError, KeyError, IndexError, SimError):
        pass
    return tuple(names)


def _normal(manifest):
    """A manifest with each variant's rules as the present code writes them (rules JSON
    of older datasets holds every family's fields), for comparing settings."""
    if not isinstance(manifest, dict) or not isinstance(manifest.get("variants"), list):
        return manifest
    variants = []
    for v in manifest["variants"]:
        try:
            variants.append({**v, "rules": rules_from_dict(v["rules"]).to_dict()})
        except (SimError, TypeError, KeyError):
            variants.append(v)
    return {**manifest, "variants": variants}


def _grows(old: dict, new: dict) -> bool:
    """Whether manifest ``new`` only adds variants or rounds to ``old`` (``sim balance``
    extends its sweep step by step): every chunk already written stays valid."""
    same = {k: v for k, v in old.items() if k not in ("variants", "rounds")}
    if same != {k: v for k, v in new.items() if k not in ("variants", "rounds")}:
        return False
    now = {json.dumps(v["partition"], sort_keys=True): v for v in new["variants"]}
    for v in old["variants"]:
        got = now.get(json.dumps(v["partition"], sort_keys=True))
        if got is None or got["rules"] != v["rules"]:
            return False
    return True


def _links(out: Path, tables: tuple[str, ...]) -> list[Path]:
    """Links inside a run directory where the run writes: a run never writes through one."""
    found = [p for p in (out / MANIFEST, out / chunks.LEDGER) if p.is_symlink()]
    for table in tables:
        root = out / table
        if root.is_symlink():
            found.append(root)
            continue
        for here, dirs, _files in os.walk(root):
            found += [Path(here) / d for d in dirs if (Path(here) / d).is_symlink()]
    return found


def _remove_strays(out: Path, spec: RunSpec, say) -> None:
    """Files in the tables that no chunk of this run writes (a copy, a leftover of a
    longer run's variants): named and removed, so that no reader counts them."""
    expected = chunks.expected_files(spec.manifest(), spec.family.tables)
    for table in spec.family.tables:
        for path in sorted((out / table).rglob("*.parquet")) if (out / table).is_dir() else ():
            rel = path.relative_to(out).as_posix()
            if chunks.file_key(rel) not in expected:
                say(f"removing {out / rel}: it does not belong to this run (no such chunk in its manifest)")
                path.unlink()


def prepare(out: Path, spec: RunSpec, overwrite: bool, grow: bool = False, say=None) -> None:
    """Check the output directory before any work: writable, no links where the run
    writes, and either new, the same run (resume), the same run with more variants or
    rounds (``grow``) or explicitly overwritten. Files that do not belong to the run are
    removed (``say`` names them)."""
    out = Path(out)
    say = say or (lambda line: None)
    if out.exists() and not out.is_dir():
        raise DatasetError(f"--out {out} is a file; a run writes a directory")
    manifest = out / MANIFEST
    links = _links(out, spec.family.tables) if out.is_dir() else []
    if links:
        raise DatasetError(f"{links[0]} is a link; a run writes only inside its directory, so remove the link "
                           "or choose another --out")
    if manifest.exists():
        try:
            old = _normal(json.loads(manifest.read_text()))
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            old = None
        if old != spec.manifest() and not (grow and isinstance(old, dict) and _grows(old, spec.manifest())):
            if not overwrite:
                raise DatasetError(
                    f"{out} holds a run with other settings ({manifest}); choose another --out "
                    "or pass --overwrite to replace it")
            for sub in _tables_of(old, spec.family):
                shutil.rmtree(out / sub, ignore_errors=True)
            chunks.forget(out)
    elif out.exists() and any(p.name != LOCK for p in out.iterdir()) and not overwrite:
        raise DatasetError(f"{out} is not empty and holds no run manifest; choose another --out")
    check_writable(manifest)
    _clear_leftovers(out, spec.family.tables)
    _remove_strays(out, spec, say)
    write_text(manifest, json.dumps(spec.manifest(), indent=2, sort_keys=True))


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
        scheduler: str | None = None, cluster: str | None = None, grow: bool = False,
        workers: Workers | None = None) -> RunReport:
    """Play every chunk of ``spec`` not yet written into ``out``, on local worker
    processes or a dask cluster (``scheduler`` address, or ``cluster="local[:N]"``), or
    on ``workers`` already started (a tool that runs many times). ``grow``: ``out`` may
    hold the same run with fewer variants or rounds (kept)."""
    out = Path(out)
    first = spec.variants[0]
    family = spec.family
    played = [0]
    report = RunReport(spec, out, 0.0, 0, 0)
    say = functools.partial(tqdm.write, file=sys.stderr)
    with writer_lock(out, spec.kind), (contextlib.nullcontext(workers) if workers
                                       else Workers(jobs, scheduler, cluster)) as workers:
        # a bad cluster fails before anything is written
        prepare(out, spec, overwrite, grow, say)
        report.where = workers.describe()
        # Compile here once, saying so: local workers then load the kernels from the cache.
        family.prepare(progress, policies={p for v in spec.variants for p in spec.policies_of(v)})
        bar = tqdm(total=None if spec.until else sum(map(spec.rounds_of, spec.variants)), unit=family.unit,
                   unit_scale=True, disable=not progress, desc=f"{spec.kind} {first.rules.name}", smoothing=0.05)
        t0 = time.perf_counter()
        try:
            if spec.until is None:
                _run_all(spec, out, workers, bar, played, report, say)
            else:
                _run_until(spec, out, workers, bar, played, report, say)
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
    return (v.rules.to_json(), spec.seed, start, count, seat_policies(spec.policies_of(v), v.rules.players),
            tuple(k for k, _ in v.partition), spec.duplicate)


def _pieces(spec: RunSpec, start: int, count: int) -> list[tuple[int, int]]:
    """A chunk as the tasks that play it: ``(first round, rounds)`` of at most the family's
    ``piece`` rounds (whole deals), so that the bar moves inside a long chunk. Rounds
    depend on their ids alone: the pieces put together are the chunk."""
    piece = spec.family.piece or count
    step = deal_step(spec.variants, spec.duplicate)
    piece = max(step, piece - piece % step)
    return [(s, min(piece, start + count - s)) for s in range(start, start + count, piece)]


def _run_all(spec: RunSpec, out: Path, workers: Workers, bar, played: list[int], report: RunReport,
             say) -> None:
    tasks, where, pending = [], {}, {}
    tables = spec.family.tables
    entries = chunks.ledger(out)
    for vi, start, count in spec.chunks():
        v = spec.variants[vi]
        paths = _paths(out, tables, v, start)
        meta = _chunk_meta(spec, v)
        if _chunk_state(out, spec, vi, start, count, entries, say):
            report.skipped += count
            bar.update(count)
            continue
        pieces = _pieces(spec, start, count)
        pending[start, vi] = (paths, meta, len(pieces), {})
        for s, c in pieces:
            key = chunk_name(v, s, c)
            where[key] = (start, vi, s)
            tasks.append((key, _task_args(spec, v, s, c)))

    def write(key: str, result: dict[str, pl.DataFrame]) -> None:
        start, vi, s = where[key]
        paths, meta, parts, done = pending[start, vi]
        done[s] = result
        bar.update(_units(result))
        if len(done) == parts:
            del pending[start, vi]
            whole = {name: pl.concat([done[p][name] for p in sorted(done)]) for name in result}
            _write_chunk(paths, meta, start, whole, out)
            played[0] += _units(whole)

    workers.run(_play_chunk, tasks, write)


def _run_until(spec: RunSpec, out: Path, workers: Workers, bar, played: list[int], report: RunReport,
               say) -> None:
    target = spec.until
    family = spec.family
    streams = []
    entries = chunks.ledger(out)
    for vi, v in enumerate(spec.variants):
        meta = _chunk_meta(spec, v)

        def stored(start, v=v, vi=vi):
            if not _chunk_state(out, spec, vi, start, min(spec.chunk, spec.rounds - start), entries, say):
                return None
            paths = _paths(out, family.tables, v, start)
            return {name: read_parquet(path) for name, path in zip(family.tables, paths, strict=True)}

        def accept(start, tables, was_stored, v=v, meta=meta):
            if not was_stored:
                _write_chunk(_paths(out, family.tables, v, start), meta, start, tables, out)
                played[0] += _units(tables)
            else:
                report.skipped += _units(tables)

        streams.append(Stream(
            name=v.subdir, chunk=spec.chunk, cap=spec.rounds,
            task=lambda start, v=v: _task_args(spec, v, start, min(spec.chunk, spec.rounds - start)),
            stored=stored, stats=lambda tables: family.chunk_stats(target, tables), accept=accept,
            label=lambda start, v=v: chunk_name(v, start, min(spec.chunk, spec.rounds - start))))
    run_until(streams, workers, _play_chunk, target, 2 * workers.slots,
              on_result=lambda tables: bar.update(_units(tables)))
    for s in streams:
        report.used[s.name or f"all {family.units}"] = s.finished_at
        report.widths[s.name or f"all {family.units}"] = target.width(s.acc)
    # Chunks beyond the prefix kept (from an earlier, longer run) are not part of the data.
    # Only the files there are looked at, not every chunk up to the cap.
    for v, s in zip(spec.variants, streams, strict=True):
        for table in family.tables:
            for path in (out / table / v.subdir).glob("part-*.parquet"):
                key = chunks.file_key(path.relative_to(out).as_posix())
                if key is not None and key[2] >= s.finished_at:
                    path.unlink()


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


def family_of_run(out: Path):
    """The family whose rounds a run directory holds (from its manifest's rules)."""
    return family_of_manifest(read_manifest(out), Path(out) / MANIFEST)


def summarise(out: Path) -> dict:
    """The family's summary of a run or sweep, per variant: its tables handed over as lazy
    scans, of which the summary reads only the columns it uses."""
    family = family_of_run(out)
    keys = list(read_manifest(out)["variants"][0]["partition"])
    tables = {name: scan(out, name) for name in family.tables}
    try:
        return family.summarise(tables, keys)
    except MemoryError:
        raise MemoryError(f"reading the summary of {out}; its data are all written") from None


def format_summary(report: RunReport) -> str:
    s = report.summary
    spec = report.spec
    unit = spec.family.units
    rate = report.played / report.seconds if report.seconds > 0 else float("nan")
    lines = [
        f"{spec.kind}: {s['rounds']:,} {unit} in {report.out} (seed {spec.seed}, policies "
        f"{','.join(spec.policies)}); played now {report.played:,} in {report.seconds:.1f} s"
        + (f" ({rate:,.0f} {unit}/s on {report.where})" if report.played else "")
        + (f", {report.skipped:,} already there" if report.skipped else ""),
    ]
    if spec.until:
        for name, used in report.used.items():
            met = report.widths[name] <= spec.until.halfwidth
            lines.append(f"--until-ci {spec.until.to_text()}: {name} used {used:,} {unit}, "
                         f"half-width {report.widths[name]:.5f}" + ("" if met else f" (cap {spec.rounds:,} reached)"))
    lines += spec.family.format_summary(s)
    return "\n".join(lines)
