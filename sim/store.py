"""Parquet files with provenance: every file we write carries the rules JSON, seed,
package version and git commit in its key-value metadata, and lands atomically (a
temporary file renamed into place), so an interrupted write leaves nothing half-done."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl

from sim.errors import DatasetError

META_PREFIX = "sim."
LOCK = ".lock"  # a directory's one-writer lock (writer_lock)


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    """The commit of the checkout the package runs from (``-dirty`` with local changes to the
    package or its requirements: what makes the data; a report or the README being rewritten
    while a sweep runs does not change a round)."""
    here = Path(__file__).resolve().parent
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", str(here),
                                str(here.parent / "pyproject.toml")], cwd=here,
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
    """Write ``df`` to ``path`` with ``metadata``, atomically; a failure (a full disk, no
    rights) raises :class:`DatasetError` naming the path and leaves nothing behind."""
    path = Path(path)
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        df.write_parquet(tmp, metadata=metadata)
        os.replace(tmp, path)
    except (OSError, pl.exceptions.PolarsError) as e:  # polars reports a full disk as a ComputeError
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise DatasetError(f"cannot write {path}: {_reason(e)}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file renamed into place); a
    failure raises :class:`DatasetError` naming the path and leaves nothing behind."""
    path = Path(path)
    tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise DatasetError(f"cannot write {path}: {_reason(e)}") from None


def _reason(e: BaseException) -> str:
    """An error's reason in one short line."""
    text = getattr(e, "strerror", None) or (str(e).strip().splitlines() or [type(e).__name__])[0]
    return text[:200]


def read_parquet(path: Path, columns: list[str] | None = None) -> pl.DataFrame:
    """A Parquet file read whole (or ``columns`` of it); a damaged file raises
    :class:`DatasetError` naming it."""
    try:
        return pl.read_parquet(path, columns=columns)
    except Exception as e:  # polars raises several types for damaged files
        raise DatasetError(f"{path}: cannot be read ({type(e).__name__}: {_reason(e)}); "
                           "`sim verify` checks the whole directory") from None


@contextlib.contextmanager
def writer_lock(directory: Path, what: str = "run"):
    """Hold the one-writer lock of ``directory`` (created if missing) while the block
    runs: a second writer is refused in one line naming the first. The lock is an
    ``flock`` on ``directory/.lock``, so the kernel releases it when its process dies
    (a stale lock file is simply taken over); the file keeps the holder's pid and command."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise DatasetError(f"--out {directory} is a file; a {what} writes a directory")
    made = not directory.exists()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(directory / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise DatasetError(f"cannot write to {directory}: {_reason(e)}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode(errors="replace").strip() or "another process"
            raise DatasetError(f"{directory} is being written by {holder}; wait for it to end or choose "
                               f"another --out") from None
        os.ftruncate(fd, 0)
        command = " ".join(["sim", *sys.argv[1:]]) if Path(sys.argv[0]).name == "sim" else sys.argv[0]
        os.pwrite(fd, f"pid {os.getpid()} ({what}: {command[:300]})\n".encode(errors="replace"), 0)
        yield
    finally:
        os.close(fd)  # releases the flock
        if made:  # a directory made only for the lock goes again if nothing else was written
            with contextlib.suppress(OSError):
                if [p.name for p in directory.iterdir()] == [LOCK]:
                    (directory / LOCK).unlink()
                    directory.rmdir()


def is_locked(directory: Path) -> str | None:
    """Who holds ``directory``'s writer lock now (its pid and command), or None."""
    path = Path(directory) / LOCK
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return os.pread(fd, 4096, 0).decode(errors="replace").strip() or "another process"
    finally:
        os.close(fd)
    return None


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
