"""Compile time of the numba kernels, from empty caches: each workload alone, and all
of them together, as a first run on a new machine pays them.

    python benchmarks/bench_compile.py [--repeats 3] [--only NAME]

Each measurement copies the ``sim`` package into a temporary directory (so that numba's
caches next to the code are empty and the real ones are left alone), points the run
table's cache at an empty directory, and times ``sim.jit.prepare`` of the workload in a
new Python process. The run table is built once per copy (its time is printed apart).
Figures are medians of ``--repeats`` runs: compile time on this machine varies by 10-20%
from one run to the next.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs in the fresh copy: prepare the named workloads one after the other, print timings.
PROBE = """
import json, sys, time
t0 = time.perf_counter()
from sim import jit
from sim.solver import runs
names = sys.argv[1:]
workloads = {w.name: w for w in jit.all_workloads()}
out = {"import": time.perf_counter() - t0}
t = time.perf_counter()
runs.run_table()
out["run table"] = time.perf_counter() - t
for name in names:
    w = workloads[name]
    t = time.perf_counter()
    jit.prepare(w, progress=False)
    out[name] = time.perf_counter() - t
    out[name + " kernels"] = len(w.kernels())
print(json.dumps(out))
"""


def measure(names: list[str]) -> dict[str, float]:
    """Prepare ``names`` in one new process from empty caches."""
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
        shutil.copytree(ROOT / "sim", Path(tmp) / "sim", ignore=shutil.ignore_patterns("__pycache__"))
        env = {**os.environ, "PYTHONPATH": tmp, "SIM_CACHE_DIR": str(Path(tmp) / "cache")}
        env.pop("NUMBA_CACHE_DIR", None)
        done = subprocess.run([sys.executable, "-c", PROBE, *names], env=env, cwd=tmp, check=True,
                              capture_output=True, text=True)
        return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", help="one workload by name (see the list printed)")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from sim import jit

    names = [w.name for w in jit.all_workloads()]
    if args.only:
        names = [n for n in names if n == args.only]
        if not names:
            raise SystemExit(f"unknown workload {args.only!r}")
    print(f"compile time from empty caches, median of {args.repeats} run(s), python {sys.version.split()[0]}")
    alone: dict[str, list[float]] = {n: [] for n in names}
    kernels: dict[str, int] = {}
    table: list[float] = []
    for _ in range(args.repeats):
        for n in names:
            got = measure([n])
            alone[n].append(got[n])
            kernels[n] = got[n + " kernels"]
            table.append(got["run table"])
    for n in names:
        print(f"  {n:32} {kernels[n]:3} kernels  {statistics.median(alone[n]):6.1f} s   "
              f"(runs: {', '.join(f'{t:.1f}' for t in alone[n])})")
    print(f"  {'the run table (build, once)':32}              {statistics.median(table):6.1f} s")
    if len(names) > 1:
        together = [sum(v for k, v in measure(names).items() if k in names) for _ in range(args.repeats)]
        print(f"  {'all of them, one after the other':32}              {statistics.median(together):6.1f} s   "
              f"(runs: {', '.join(f'{t:.1f}' for t in together)})")


if __name__ == "__main__":
    main()
