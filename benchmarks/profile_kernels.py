"""Where a family's rounds spend their time, kernel by kernel: a ``perf`` profile of one core
playing rounds, each sample put to the numba function it fell in.

    python benchmarks/profile_kernels.py [--preset rummikub] [--players 4] [--rounds 4000]
                                         [--policy greedy] [--set wrap_runs=true] [--top 25]
                                         [--lines]

numba's machine code has no symbols ``perf`` can read, and code loaded from numba's cache
keeps no record of where each function lies. So the rounds are played in a child process
that compiles every kernel itself (an empty cache, one process) and writes the address of
each compiled function; ``perf record`` samples that child, and the samples in JIT code
are counted against the function whose address precedes theirs. The kernels' shares are
of the time in compiled code while the rounds play (compiling is Python and LLVM, not
counted). Needs Linux ``perf`` (Debian's ``linux-perf``) and leave to read the counters
(``kernel.perf_event_paranoid`` at most 2, or root).

``--lines`` also puts the samples to source lines: the child compiles with numba's debug
information (``NUMBA_DEBUGINFO=1``; the machine code is much the same, the compile slower)
and writes each library's object code and where its functions were loaded; each sample's
offset in its function's section is then read by binutils' ``addr2line``. A kernel's
helpers are functions of their own unless declared ``inline=True``, so a line is the
helper's, and a call's cost (its arguments: numba passes an array as seven words) falls on
the caller's line. Function shares alone could not tell the table solver's steps apart
(issue 26: "no step stood out beyond this machine's noise"); by line, the count of stranded
tiles was a fifth of a ``wrap_runs`` search's time.
"""

from __future__ import annotations

import argparse
import bisect
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
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
    objects = []  # with --lines: each library's object code and its functions' addresses
    for kernels in _KERNELS.values():
        for k in kernels:
            for overload in k.dispatcher.overloads.values():
                library = overload.library
                module = getattr(library, "_final_module", None)
                if module is None:
                    continue
                loaded = {}
                for f in module.functions:
                    if f.is_declaration:
                        continue
                    address = library.get_pointer_to_function(f.name)
                    if address:
                        functions.add((address, _short(f.name)))
                        loaded[f.name] = address
                if args.lines and loaded:
                    path = map_path.with_name(f"object{len(objects)}.o")
                    path.write_bytes(library._get_compiled_object())
                    objects.append({"path": str(path), "loaded": loaded})
    map_path.write_text("".join(f"{a:x} {n}\n" for a, n in sorted(functions)))
    if args.lines:
        map_path.with_name("objects.json").write_text(json.dumps(objects))
    print(f"{len(functions)} compiled functions mapped; playing {args.rounds:,} rounds", file=sys.stderr, flush=True)
    play.play_chunk(rules, 7, 10_000, args.rounds, codes)


FAR = 1 << 18  # bytes past a function's start beyond which a sample is not counted as its


def read_samples(perf: str, data: Path) -> tuple[Counter, int]:
    """The samples of ``perf record``'s ``data`` by address, and how many in all (``perf
    script``: ``perf report`` gives each address of unnamed code a share rounded to a
    hundredth of a percent, most of them 0.00)."""
    out = subprocess.run([perf, "script", "-i", str(data), "-F", "ip"], capture_output=True, text=True,
                         check=True).stdout.split()
    return Counter(int(ip, 16) for ip in out), len(out)


def attribute(samples: Counter, total: int, map_path: Path) -> tuple[dict[str, float], float]:
    """Each function's share of the samples in compiled code (percent of all ``total``
    samples), and those samples' share of all."""
    rows = [line.split() for line in map_path.read_text().splitlines()]
    starts = [int(a, 16) for a, _ in rows]
    names = [n for _, n in rows]
    shares: dict[str, float] = defaultdict(float)
    jit = 0.0
    for address, count in samples.items():
        i = bisect.bisect_right(starts, address) - 1
        if i < 0 or address - starts[i] > FAR:
            continue
        percent = 100 * count / total
        jit += percent
        shares[names[i]] += percent
    return shares, jit


def _symbols(path: str) -> list[tuple[str, int, int, str]]:
    """The functions an object file defines: ``(section, offset, size, name)`` (``objdump -t``)."""
    out = subprocess.run(["objdump", "-t", path], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"([0-9a-f]+)\s.*\sF\s(\S+)\s+([0-9a-f]+)\s+(\S+)$", line)
        if m:
            rows.append((m.group(2), int(m.group(1), 16), int(m.group(3), 16), m.group(4)))
    return rows


def attribute_lines(samples: Counter, total: int, objects_path: Path) -> dict[str, float]:
    """Each source line's share of the samples (as :func:`attribute`): a sample's function is
    found among the objects' symbols, placed where its section was loaded, and its offset
    there read by ``addr2line``. Lines are ``path:line (function)``."""
    spans = []  # (start, end, object path, section, section's load address)
    for entry in json.loads(objects_path.read_text()):
        symbols = _symbols(entry["path"])
        # A function defined by several libraries (a helper each links in) is found at one
        # copy's address: where a section was loaded is what most of its functions agree on.
        votes: dict[str, Counter] = defaultdict(Counter)
        for section, offset, _, name in symbols:
            if name in entry["loaded"]:
                votes[section][entry["loaded"][name] - offset] += 1
        bases = {section: counts.most_common(1)[0][0] for section, counts in votes.items()}
        for section, offset, size, _ in symbols:
            if section in bases and size:
                spans.append((bases[section] + offset, bases[section] + offset + size, entry["path"], section,
                              bases[section]))
    spans.sort()
    starts = [span[0] for span in spans]
    wanted: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for address, count in samples.items():
        percent = 100 * count / total
        i = bisect.bisect_right(starts, address) - 1
        if i >= 0 and address < spans[i][1]:
            wanted[(spans[i][2], spans[i][3])].append((address - spans[i][4], percent))
    shares: dict[str, float] = defaultdict(float)
    for (path, section), offsets in wanted.items():
        out = subprocess.run(["addr2line", "-f", "-j", section, "-e", path, *(f"{o:x}" for o, _ in offsets)],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        for (_, percent), function, where in zip(offsets, out[0::2], out[1::2], strict=True):
            shares[f"{where.split(' ')[0]} ({_short(function)})"] += percent
    return shares


def _source(where: str) -> str:
    """The text of the source line ``path:line (function)``, stripped, or ``""``."""
    path, _, number = where.split(" ")[0].rpartition(":")
    try:
        return Path(path).read_text().splitlines()[int(number) - 1].strip()
    except (OSError, ValueError, IndexError):
        return ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="rummikub")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=4000)
    ap.add_argument("--policy", default="greedy")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--lines", action="store_true", help="also each source line's share (debug information)")
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
        if args.lines:
            if shutil.which("addr2line") is None or shutil.which("objdump") is None:
                raise SystemExit("error: --lines needs binutils' addr2line and objdump (Debian: apt install binutils)")
            env["NUMBA_DEBUGINFO"] = "1"
        run = subprocess.run([perf, "record", "-F", "2000", "-o", str(tmp / "perf.data"), sys.executable,
                              __file__, *sys.argv[1:], "--child", str(tmp / "map.txt")], env=env)
        if run.returncode != 0 or not (tmp / "map.txt").exists():
            raise SystemExit(f"error: the profiled run failed (status {run.returncode}); see above")
        samples, total = read_samples(perf, tmp / "perf.data")
        shares, jit = attribute(samples, total, tmp / "map.txt")
        lines = attribute_lines(samples, total, tmp / "objects.json") if args.lines and jit else {}
    if jit == 0:
        raise SystemExit("error: no samples fell in compiled code")
    print(f"{args.rounds:,} rounds of {args.preset} ({args.players} players, {args.policy}"
          f"{', ' + ', '.join(args.set) if args.set else ''}): {jit:.0f}% of the samples in compiled code "
          f"(the rest compiling and Python); each function's share of those:")
    for name, percent in sorted(shares.items(), key=lambda x: -x[1])[:args.top]:
        print(f"  {100 * percent / jit:5.1f}%  {name}")
    if args.lines:
        print("each source line's share (a line not known: the function's entry, exit and spills):")
        for where, percent in sorted(lines.items(), key=lambda x: -x[1])[:args.top]:
            print(f"  {100 * percent / jit:5.1f}%  {where}  {_source(where)[:70]}")


if __name__ == "__main__":
    main()
