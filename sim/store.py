"""Parquet files with provenance: every file we write carries the rules JSON, seed,
package version and git commit in its key-value metadata, and lands atomically (a
temporary file renamed into place), so an interrupted write leaves nothing half-done."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl

from sim.errors import DatasetError

META_PREFIX = "sim."


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    """The commit of the checkout the package runs from (``-dirty`` with local changes)."""
    here = Path(__file__).resolve().parent
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=5, check=True).stdout.strip()
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def provenance(kind: str, rules_json: str, seed: int, **extra) -> dict[str, str]:
    """The metadata every file carries: what made it and how to make it again."""
    from sim.version import __version__

    meta = {
        "kind": kind,
        "rules": rules_json,
        "seed": str(seed),
        "version": __version__,
        "git_commit": git_commit(),
        "command": " ".join(["sim", *sys.argv[1:]]) if Path(sys.argv[0]).name == "sim" else "",
    }
    meta.update({k: str(v) for k, v in extra.items()})
    return {META_PREFIX + k: v for k, v in meta.items()}


def check_writable(path: Path) -> None:
    """Fail before any work if ``path`` cannot be written (missing rights, a directory...)."""
    path = Path(path)
    if path.exists() and path.is_dir():
        raise DatasetError(f"output {path} is a directory; give a file name ending in .parquet")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        probe = path.parent / f".{path.name}.{os.getpid()}.probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise DatasetError(f"cannot write to {path.parent}: {e.strerror or e}") from None


def write_parquet(df: pl.DataFrame, path: Path, metadata: dict[str, str]) -> None:
    """Write ``df`` to ``path`` with ``metadata``, atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        df.write_parquet(tmp, metadata=metadata)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def read_metadata(path: Path) -> dict[str, str]:
    """Our metadata of a Parquet file (prefix stripped); a clear error for anything else."""
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"{path}: no such file")
    try:
        raw = pl.read_parquet_metadata(path)
    except Exception as e:  # polars raises several types for damaged files
        raise DatasetError(f"{path}: not a readable Parquet file ({type(e).__name__})") from None
    meta = {k[len(META_PREFIX):]: v for k, v in raw.items() if k.startswith(META_PREFIX)}
    if "kind" not in meta:
        raise DatasetError(f"{path}: a Parquet file without this package's provenance metadata")
    return meta


def nullable(values: np.ndarray, keep: np.ndarray, dtype) -> pl.Series:
    """``values`` as a column of ``dtype``, null where ``keep`` is false."""
    return pl.Series(np.where(keep, values, 0).astype(dtype)).scatter(np.flatnonzero(~keep), None)
