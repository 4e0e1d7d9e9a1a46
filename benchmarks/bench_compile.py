"""Compile time of the numba kernels, from empty caches: each workload alone, the three
families' engines together (what a newcomer who plays each family once waits for), and all
of them together, as a first run on a new machine pays them.

    python benchmarks/bench_compile.py [--repeats 3] [--only NAME] [--jobs N]
    python benchmarks/bench_compile.py --write-times

Workloads compile the way a run does: in worker processes, one per core (``--jobs``:
``SIM_COMPILE_JOBS``; 1 compiles in the one process). ``--write-times`` compiles every
kernel alone, callees first, in one process, and writes the seconds of each to
``sim/kernel_times.json``: the weights of the compile bar and of the parallel schedule.

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

# Runs in the fresh copy: prepare the named workloads one after the other ("table": build
# the opening solver's run table), print the time of each step and in all.
PROBE = """
import json, sys, time
t0 = time.perf_counter()
from sim import jit
from sim.solver import runs
from sim.workloads import all_workloads
workloads = {w.name: w for w in all_workloads()}
out = {}
for name in sys.argv[1:]:
    t = time.perf_counter()
    if name == "table":
        runs.run_table()
    elif name == "everything":
        jit.prepare(jit.together("everything", list(workloads.values())), progress=False)
    elif name == "engines":
        engines = [w for w in workloads.values() if w.name.endswith(" engine")]
        jit.prepare(jit.together("the three engines", engines), progress=False)
        out["engines kernels"] = len(jit.together("the three engines", engines).kernels())
    elif name == "times":
        for w in workloads.values():
            jit.prepare(w, progress=False, jobs=1)
        # at least 0.01 s: a kernel compiled in under 5 ms still weighs in the schedule and the bar
        out["times"] = {k: max(0.01, round(v, 2)) for k, v in sorted(jit.COMPILE_SECONDS.items())}
        continue
    else:
        jit.prepare(workloads[name], progress=False)
        out[name + " kernels"] = len(workloads[name].kernels())
    out[name] = time.perf_counter() - t
out["total"] = time.perf_counter() - t0
print(json.dumps(out))
"""


def measure(steps: list[str], jobs: int | None = None) -> dict:
    """Run ``steps`` in one new process on a copy of the package with empty caches."""
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
        shutil.copytree(ROOT / "sim", Path(tmp) / "sim", ignore=shutil.ignore_patterns("__pycache__"))
        env = {**os.environ, "PYTHONPATH": tmp, "SIM_CACHE_DIR": str(Path(tmp) / "cache")}
        env.pop("NUMBA_CACHE_DIR", None)
        env.pop("SIM_COMPILE_JOBS", None)
        if jobs:
            env["SIM_COMPILE_JOBS"] = str(jobs)
        done = subprocess.run([sys.executable, "-c", PROBE, *steps], env=env, cwd=tmp, check=True,
                              capture_output=True, text=True)
        return json.loads(done.stdout.strip().splitlines()[-1])


def _line(label: str, times: list[float], kernels: int | None = None) -> str:
    runs = ", ".join(f"{t:.1f}" for t in times)
    count = f"{kernels:3} kernels" if kernels is not None else " " * 11
    return f"  {label:44} {count} {statistics.median(times):6.1f} s   (runs: {runs})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", help="one workload by name (see the list printed)")
    ap.add_argument("--jobs", type=int, help="processes to compile in [default: one per core]")
    ap.add_argument("--write-times", action="store_true", help="write every kernel's compile time (see above)")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from sim import jit
    from sim.workloads import all_workloads

    if args.write_times:
        times = measure(["times"])["times"]
        jit.TIMES_FILE.write_text(json.dumps(times, indent=1) + "\n")
        print(f"wrote {jit.TIMES_FILE}: {len(times)} kernels, {sum(times.values()):.1f} s in all, one after the other")
        return

    names = [w.name for w in all_workloads() if w.name != "the run table"]
    engine = next(w.name for w in all_workloads() if "Rummy 101" in w.name)
    # rows of several workloads compiled in one process, by label: what they compile
    combined = {"what `sim run` needs: engine and run table": [engine, "table"],
                "the three families' engines and the table": ["engines", "table"],
                "everything, as sim compile does, and the table": ["everything", "table"]}
    if args.only:
        names = [n for n in names if n == args.only]
        combined = {label: steps for label, steps in combined.items() if label == args.only}
        if not names and not combined:
            raise SystemExit(f"unknown workload {args.only!r}")
    print(f"compile time from empty caches, median of {args.repeats} run(s), python {sys.version.split()[0]}, "
          f"{args.jobs or os.cpu_count()} process(es) on {os.cpu_count()} core(s)")
    singles = ["table", *names] if not args.only or names else []
    rows: dict[str, list[float]] = {n: [] for n in [*singles, *combined]}
    kernels: dict[str, int] = {}
    for _ in range(args.repeats):
        for n in singles:
            got = measure([n], args.jobs)
            rows[n].append(got[n])
            kernels[n] = got.get(n + " kernels")
        for label, steps in combined.items():
            rows[label].append(measure(steps, args.jobs)["total"])
    if singles:
        print(_line("the run table: its kernels, then the build", rows["table"]))
    for n in names:
        print(_line(n, rows[n], kernels[n]))
    for label in combined:
        print(_line(label, rows[label]))

if __name__ == "__main__":
    main()
