"""Where a family's rounds spend their time, kernel by kernel: a ``perf`` profile of one core
playing rounds, each sample put to the numba function it fell in.

    python benchmarks/profile_kernels.py [--preset rummikub] [--players 4] [--rounds 4000]
                                         [--policy greedy] [--set wrap_runs=true] [--top 25]

numba's machine code has no symbols ``perf`` can read, and code loaded from numba's cache
keeps no record of where each function lies. So the rounds are played in a child process
that compiles every kernel itself (an empty cache, one process) and writes the address of
each compiled function; ``perf record`` samples that child, and the samples in JIT code
are counted against the function whose address precedes theirs. The kernels' shares are
of the time in compiled code while the rounds play (compiling is Python and LLVM, not
counted). Needs Linux ``perf`` (Debian's ``linux-perf``) and leave to read the counters
(``kernel.perf_event_paranoid`` at most 2, or root).
"""

from __future__ import annotations

import argparse
import bisect
import importlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path


def _short(name: str) -> str:
    """``sim.games.rummikub.tablesolver._search`` from numba's mangled name (its leading
    ``<length><identifier>`` parts), or the name as it is."""
    s = name[2:] if name.startswith("_Z") else name
    s = s[1:] if s.startswith("N") else s
    s = s[len("7cpython"):] if s.startswith("7cpython") else s
    parts = []
    while s and s[0].isdigit():
        digits = re.match(r"\d+", s).group()
        n = int(digits)
        s = s[len(digits):]
        parts.append(s[:n])
        s = s[n:]
    return ".".join(parts) if parts else name


def child(args: argparse.Namespace, map_path: Path) -> None:
    """Compile the family's kernels here, write each function's address, play the rounds."""
    import sim
    from sim.jit import _KERNELS

    settings = dict(item.partition("=")[::2] for item in args.set)
    rules = sim.preset(args.preset).with_settings(settings, players=args.players)  # as `sim run --set` reads them
    family = sim.games.family_of(rules)
    play = importlib.import_module(f"{type(family).__module__}.play")
    codes = play.policy_codes([args.policy], args.players)
    play.play_chunk(rules, 1, 0, 5, codes)  # compile (the cache is empty: in this process)
    functions = set()
    for kernels in _KERNELS.values():
        for k in kernels:
            for overload in k.dispatcher.overloads.values():
                library = overload.library
                module = getattr(library, "_final_module", None)
                if module is None:
                    continue
                for f in module.functions:
                    if f.is_declaration:
                        continue
                    address = library.get_pointer_to_function(f.name)
                    if address:
                        functions.add((address, _short(f.name)))
    map_path.write_text("".join(f"{a:x} {n}\n" for a, n in sorted(functions)))
    print(f"{len(functions)} compiled functions mapped; playing {args.rounds:,} rounds", file=sys.stderr, flush=True)
    play.play_chunk(rules, 7, 10_000, args.rounds, codes)


FAR = 1 << 18  # bytes past a function's start beyond which a sample is not counted as its


def attribute(report: str, map_path: Path) -> tuple[dict[str, float], float]:
    """Each function's share of the samples in compiled code (``perf report`` lines of
    ``percent`` and ``address``), and those samples' share of all."""
    rows = [line.split() for line in map_path.read_text().splitlines()]
    starts = [int(a, 16) for a, _ in rows]
    names = [n for _, n in rows]
    shares: dict[str, float] = defaultdict(float)
    jit = 0.0
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+0x([0-9a-f]+)", line)
        if not m:
            continue
        percent, address = float(m.group(1)), int(m.group(2), 16)
        i = bisect.bisect_right(starts, address) - 1
        if i < 0 or address - starts[i] > FAR:
            continue
        jit += percent
        shares[names[i]] += percent
    return shares, jit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="rummikub")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=4000)
    ap.add_argument("--policy", default="greedy")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--child", metavar="MAP", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args, Path(args.child))
        return
    perf = shutil.which("perf")
    if perf is None:
        raise SystemExit("error: perf is not installed (Debian: apt install linux-perf)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp / "numba"), "SIM_COMPILE_JOBS": "1"}
        run = subprocess.run([perf, "record", "-F", "2000", "-o", str(tmp / "perf.data"), sys.executable,
                              __file__, *sys.argv[1:], "--child", str(tmp / "map.txt")], env=env)
        if run.returncode != 0 or not (tmp / "map.txt").exists():
            raise SystemExit(f"error: the profiled run failed (status {run.returncode}); see above")
        report = subprocess.run([perf, "report", "-i", str(tmp / "perf.data"), "--no-children", "--sort", "symbol",
                                 "--stdio"], capture_output=True, text=True, check=True).stdout
        shares, jit = attribute(report, tmp / "map.txt")
    if jit == 0:
        raise SystemExit("error: no samples fell in compiled code")
    print(f"{args.rounds:,} rounds of {args.preset} ({args.players} players, {args.policy}"
          f"{', ' + ', '.join(args.set) if args.set else ''}): {jit:.0f}% of the samples in compiled code "
          f"(the rest compiling and Python); each function's share of those:")
    for name, percent in sorted(shares.items(), key=lambda x: -x[1])[:args.top]:
        print(f"  {100 * percent / jit:5.1f}%  {name}")


if __name__ == "__main__":
    main()
