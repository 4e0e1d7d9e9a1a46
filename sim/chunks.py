"""What a run directory holds, and the proof of it.

A run writes one Parquet file per chunk and table. Each file's metadata says what it
holds (``sim.table``, ``sim.first_round``, ``sim.rounds``, the seed, rules, policies and
partition of its variant) and a digest of its rows (``sim.digest``, :func:`rows_digest`).
The run directory's ledger (``chunks.jsonl``, one line appended per file written) keeps
each file's size, modification time and SHA-256 as written, so that a reader can check a
file in microseconds (the same size and time) or by hashing its bytes, without decoding it.

The manifest says which chunks a run expects (its variants, rounds and chunk size):
:func:`expected_files` lists them. :func:`inspect` compares a directory with that list and
names every file that is missing, damaged, written for another chunk or settings, or does
not belong; resumed runs replay or remove those (``sim.runner``), readers refuse them
(``sim.analysis.open_dataset``), and ``sim verify`` reports them, decoding every file.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from sim.errors import DatasetError, SimError

LEDGER = "chunks.jsonl"
PART = "part-{start:010d}.parquet"


# --- digests -----------------------------------------------------------------------------


def _hash_series(h, s: pl.Series) -> None:
    h.update(f"{s.name}\x00{s.dtype}\x00{s.len()}\x00".encode())
    h.update(np.packbits(s.is_null().to_numpy()).tobytes())
    if s.dtype == pl.String:
        h.update("\x00".join(s.fill_null("").to_list()).encode())
    elif isinstance(s.dtype, pl.List):
        h.update(s.list.len().fill_null(0).to_numpy().astype(np.int64).tobytes())
        inner = s.filter(s.list.len().fill_null(0) > 0).explode()
        _hash_series(h, inner.rename(s.name + "[]"))
    else:  # numbers, booleans, enums (their codes; the categories are in the dtype's text)
        h.update(np.ascontiguousarray(s.to_physical().fill_null(0).to_numpy()).tobytes())


def rows_digest(df: pl.DataFrame) -> str:
    """A SHA-256 of a table's rows (column names, types, values and nulls, in order):
    what a chunk file's metadata records and a check recomputes from the decoded file."""
    h = hashlib.sha256()
    for s in df.get_columns():
        _hash_series(h, s)
    return h.hexdigest()


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


# --- the ledger --------------------------------------------------------------------------


def record(out: Path, path: Path) -> None:
    """Append ``path`` (a file just written into run directory ``out``) to the ledger."""
    st = path.stat()
    line = json.dumps({"file": path.relative_to(out).as_posix(), "size": st.st_size,
                       "mtime_ns": st.st_mtime_ns, "sha256": file_sha256(path)}) + "\n"
    try:
        # One short write in append mode: a line is whole or (killed mid-write) unreadable.
        with open(out / LEDGER, "a", encoding="utf-8") as f:
            f.write(line)
    except OSError as e:
        raise DatasetError(f"cannot write {out / LEDGER}: {e.strerror or e}") from None


def ledger(out: Path) -> dict[str, dict]:
    """The last entry of every file in ``out``'s ledger (a torn last line is skipped)."""
    entries: dict[str, dict] = {}
    try:
        text = (Path(out) / LEDGER).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return entries
    except OSError as e:
        raise DatasetError(f"{Path(out) / LEDGER}: unreadable ({e.strerror or e})") from None
    for line in text.splitlines():
        with contextlib.suppress(json.JSONDecodeError, TypeError, KeyError):
            entry = json.loads(line)
            entries[str(entry["file"])] = entry
    return entries


def forget(out: Path) -> None:
    """Drop the ledger (its run's tables are being replaced)."""
    (Path(out) / LEDGER).unlink(missing_ok=True)


# --- what a manifest expects -------------------------------------------------------------


@dataclass(frozen=True)
class Expected:
    """One file a run expects: its table, variant and rounds."""

    table: str
    variant: int
    first: int
    count: int


def subdir(partition: dict) -> str:
    return "/".join(f"{k}={v}" for k, v in partition.items())


def _partition(text: str) -> frozenset | None:
    """A hive path's ``k=v/k=v`` as a set of pairs (a manifest keeps no order of fields)."""
    pairs = [seg.partition("=") for seg in text.split("/") if seg]
    if any(not sep or not k for k, sep, _ in pairs):
        return None
    return frozenset((k, v) for k, _, v in pairs)


def file_key(rel: str) -> tuple | None:
    """``(table, partition, first round)`` of a chunk file's path in a run directory, or
    None for a path no run writes."""
    parts = rel.split("/")
    name = parts[-1]
    if len(parts) < 2 or not (name.startswith("part-") and name.endswith(".parquet")) \
            or not name[5:-8].isdigit() or PART.format(start=int(name[5:-8])) != name:
        return None
    partition = _partition("/".join(parts[1:-1]))
    return None if partition is None else (parts[0], partition, int(name[5:-8]))


def check_manifest(manifest, where: Path) -> None:
    """Refuse a manifest that is not one a run writes (fields missing or of the wrong
    type, no variants, variants of another family), naming what is wrong."""
    from sim.games import rules_from_dict

    def bad(what: str) -> DatasetError:
        return DatasetError(f"{where}: {what}; not a manifest this package wrote (rerun the command that made it)")

    if not isinstance(manifest, dict):
        raise bad("not a JSON object")
    for key, typ in (("kind", str), ("rounds", int), ("seed", int), ("chunk", int), ("policies", list),
                     ("variants", list)):
        if not isinstance(manifest.get(key), typ) or isinstance(manifest.get(key), bool):
            raise bad(f"{key!r} missing or not a {typ.__name__}")
    if manifest["rounds"] < 1 or manifest["chunk"] < 1:
        raise bad("'rounds' and 'chunk' must be at least 1")
    if not manifest["variants"]:
        raise bad("no variants")
    family = manifest.get("family")
    for i, v in enumerate(manifest["variants"]):
        if not isinstance(v, dict) or not isinstance(v.get("partition"), dict) or not isinstance(v.get("rules"), dict):
            raise bad(f"variant {i} has no partition and rules")
        if not isinstance(v.get("rounds", 1), int) or v.get("rounds", 1) < 1:
            raise bad(f"variant {i}: 'rounds' must be a whole number of at least 1")
        try:
            named = rules_from_dict(v["rules"]).family
        except SimError as e:
            raise bad(f"variant {i}: {e}") from None
        if family is not None and named != family:
            raise bad(f"family {family!r} but variant {i} has rules of {named!r}")


def expected_files(manifest: dict, tables: Iterable[str]) -> dict[tuple, Expected]:
    """Every file of the run ``manifest`` describes, by :func:`file_key`."""
    files = {}
    chunk = manifest["chunk"]
    for vi, v in enumerate(manifest["variants"]):
        rounds = v.get("rounds", manifest["rounds"])
        partition = frozenset((str(k), str(x)) for k, x in v["partition"].items())
        for start in range(0, rounds, chunk):
            for table in tables:
                files[table, partition, start] = Expected(table, vi, start, min(chunk, rounds - start))
    return files


# --- checking ----------------------------------------------------------------------------


@dataclass
class Findings:
    """What :func:`inspect` found in a run directory: each file's verdict."""

    ok: list[str] = field(default_factory=list)
    legacy: list[str] = field(default_factory=list)  # written before digests: checked by metadata and ids
    bad: dict[str, str] = field(default_factory=dict)  # path -> why it cannot be used
    stray: dict[str, str] = field(default_factory=dict)  # path -> why it does not belong
    missing: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.bad or self.stray or self.missing)

    def problems(self, limit: int = 3) -> str:
        items = [f"{p} {why}" for p, why in (*self.bad.items(), *self.stray.items())]
        if self.missing:
            items.append(f"{len(self.missing):,} chunk file(s) missing ({self.missing[0]}"
                         + (", ..." if len(self.missing) > 1 else "") + ")")
        more = f"; and {len(items) - limit} more" if len(items) > limit else ""
        return "; ".join(items[:limit]) + more


def _ids_ok(df: pl.DataFrame, column: str, first: int, count: int, unit_table: bool) -> str | None:
    if column not in df.columns:
        return f"has no {column} column"
    ids = df[column]
    if ids.null_count():
        return f"has null {column} values"
    want = np.arange(first, first + count)
    got = np.sort(ids.to_numpy()) if unit_table else np.unique(ids.to_numpy())
    if got.shape != want.shape or not np.array_equal(got, want):
        lo, hi = (int(ids.min()), int(ids.max())) if ids.len() else (0, -1)
        return f"holds {column} {lo}-{hi} ({ids.len():,} rows), not {first}-{first + count - 1}"
    return None


def check_file(path: Path, exp: Expected, manifest: dict, entry: dict | None, id_column: str,
               unit_table: bool, deep: bool, same_rules) -> tuple[str, str | None]:
    """``("ok" | "legacy" | "bad", why)`` of one expected file. Cheap unless ``deep``: the
    metadata, and the ledger's size and time (or its SHA-256 when they differ); a file the
    ledger does not know, or ``deep``, is decoded and its rows and ids checked."""
    from sim.store import read_metadata

    if path.is_symlink():
        return "bad", "is a link (a run directory holds its own files)"
    try:
        meta = read_metadata(path)
    except DatasetError as e:
        return "bad", "is " + str(e).removeprefix(f"{path}: ")
    v = manifest["variants"][exp.variant]
    want = {"table": exp.table, "first_round": str(exp.first), "rounds": str(exp.count),
            "seed": str(manifest["seed"])}
    for key, value in want.items():
        got = meta.get(key)
        if got is not None and got != value:  # files of older versions lack some keys
            return "bad", f"was written for {key} {got}, not {value}"
    if "partition" in meta and _partition(meta["partition"]) != frozenset(
            (str(k), str(x)) for k, x in v["partition"].items()):
        return "bad", f"was written for the variant {meta['partition'] or 'of a run'}, not {subdir(v['partition'])}"
    if meta.get("kind") != "rounds":
        return "bad", f"is a {meta.get('kind')!r} file, not a chunk of a run"
    policies = ",".join(v.get("policies", manifest["policies"]))
    if meta.get("policies") not in (None, policies):
        return "bad", f"was played by {meta['policies']}, not {policies}"
    if not same_rules(meta.get("rules"), v["rules"]):
        return "bad", "was played under other rules than the manifest's"
    digest = meta.get("digest")
    if not deep and digest is not None and entry is not None:
        st = path.stat()
        if st.st_size == entry.get("size") and st.st_mtime_ns == entry.get("mtime_ns"):
            return "ok", None
        if st.st_size == entry.get("size") and file_sha256(path) == entry.get("sha256"):
            return "ok", None
    try:
        # a file written before digests: its id column is all there is to check, cheaply
        df = pl.read_parquet(path, columns=None if deep or digest is not None else [id_column])
    except pl.exceptions.ColumnNotFoundError:
        return "bad", f"has no {id_column} column"
    except Exception as e:  # polars raises several types for damaged pages
        return "bad", f"cannot be decoded ({type(e).__name__}: {str(e).splitlines()[0][:120]})"
    if digest is not None and rows_digest(df) != digest:
        return "bad", "has rows that differ from the digest written with them (damaged)"
    why = _ids_ok(df, id_column, exp.first, exp.count, unit_table)
    if why:
        return "bad", why
    return ("ok" if digest is not None else "legacy"), None


def inspect(out: Path, manifest: dict, tables: tuple[str, ...], id_column: str, deep: bool = False,
            prefix_ok: bool = False, same_rules=None) -> Findings:
    """Compare run directory ``out`` with what ``manifest`` expects of its ``tables``.
    ``prefix_ok``: missing chunks at the end of a variant are not a problem (``--until-ci``
    keeps a prefix)."""
    out = Path(out)
    same_rules = same_rules or globals()['same_rules']
    expected = expected_files(manifest, tables)
    entries = ledger(out)
    found = Findings()
    present: set[str] = set()
    for table in tables:
        root = out / table
        if root.is_symlink():
            found.stray[table] = "is a link (a run directory holds its own files)"
            continue
        for path in sorted(root.rglob("*.parquet")) if root.is_dir() else ():
            rel = path.relative_to(out).as_posix()
            key = file_key(rel)
            exp = expected.get(key)
            if exp is None:
                found.stray[rel] = "does not belong to this run (no such chunk in its manifest)"
                continue
            present.add(key)
            verdict, why = check_file(path, exp, manifest, entries.get(rel), id_column, table == tables[0], deep,
                                      same_rules)
            if verdict == "bad":
                found.bad[rel] = why
            else:
                (found.ok if verdict == "ok" else found.legacy).append(rel)
    missing = [key for key in expected if key not in present]
    if prefix_ok:
        # A variant's chunks may end early, but not have holes: its first chunk is there and
        # nothing after a missing chunk.
        last: dict[tuple[str, int], int] = {}
        for key in present:
            e = expected[key]
            last[e.table, e.variant] = max(last.get((e.table, e.variant), -1), e.first)
        missing = [key for key in missing
                   if expected[key].first < last.get((expected[key].table, expected[key].variant), 0)
                   or expected[key].first == 0]
    variants = manifest["variants"]
    found.missing = ["/".join(p for p in (e.table, subdir(variants[e.variant]["partition"]),
                                          PART.format(start=e.first)) if p)
                     for e in (expected[key] for key in missing)]
    return found


def same_rules(found: str | None, wanted: dict) -> bool:
    return found is None or _same_rules_text(found, json.dumps(wanted, sort_keys=True))


@functools.lru_cache(maxsize=256)
def _same_rules_text(found: str, wanted: str) -> bool:
    """Whether a file's rules JSON is the manifest's rules (written the same way or not:
    one-class rules JSON of older datasets)."""
    from sim.games import rules_from_dict, rules_from_json

    try:
        return rules_from_json(found) == rules_from_dict(json.loads(wanted))
    except (SimError, TypeError, KeyError, ValueError):
        return False
