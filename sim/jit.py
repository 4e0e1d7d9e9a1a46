"""Numba kernels: declared with their argument types, compiled once per machine, cached.

Every jit-compiled function of the package is declared with :func:`kernel` and the
numba types of its arguments. The kernels one job needs form a :class:`Workload` (the
Rummy 101 round engine, the opening solver, ...), and :func:`prepare` readies a workload
before its first use:

- on a machine that compiled it before (a stamp in numba's cache directory says so, for
  these very source files and versions), it does nothing: the entry kernels load from
  numba's cache on their first call, in well under a second;
- otherwise it compiles every kernel of the workload for exactly its declared types,
  callees first, behind a progress bar, and then writes the stamp.

Why declared types: numba compiles a function once for every distinct tuple of argument
types it meets while typing its callers, literal constants and the intermediate types of
type inference included (``f(x, False)`` and ``f(x, flag)`` are two compilations, and a
variable set to ``0`` and then incremented adds a third). Left to itself it compiled the
round engine four to six times over. Compiled once for its declared types and then
closed to new ones, a kernel serves every caller by conversion, and a call with types
it was not declared for fails at once instead of silently compiling again.

Why a stamp: numba checks a cached function against its own source file only, so a
caller cached before one of its callees changed would be loaded stale. A workload whose
source files changed forgets the cached code of all its kernels and compiles them again.

``kernel(..., inline=True)`` marks a small helper or a function with a single caller: it
is inlined into its callers by numba and never compiled on its own, which saves a whole
optimisation and code generation of everything below it.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib
import importlib.util
import os
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numba
from numba import types

# --- the types kernels are declared with ---------------------------------------------------

i64 = types.int64
u64 = types.uint64
boolean = types.boolean


def array(dtype, ndim: int):
    """A C-contiguous array type: every array a kernel takes is C-contiguous."""
    return types.Array(dtype, ndim, "C")


I1, I2, I3, I4 = (array(i64, n) for n in (1, 2, 3, 4))
I8_1, I8_2 = array(types.int8, 1), array(types.int8, 2)
I16_1 = array(types.int16, 1)
I32_2 = array(types.int32, 2)
B1, B2 = array(boolean, 1), array(boolean, 2)
U1 = array(u64, 1)


def tuple_of(*members):
    """The type of a tuple of these member types (numba makes it a UniTuple when they agree)."""
    return types.Tuple(members)


# --- declaring kernels ------------------------------------------------------------------------


@dataclass
class Kernel:
    """A declared kernel: its dispatcher and the argument types it is compiled for."""

    dispatcher: numba.core.dispatcher.Dispatcher
    signature: tuple

    @property
    def name(self) -> str:
        f = self.dispatcher.py_func
        return f"{f.__module__}.{f.__qualname__}"

    def compiled(self) -> bool:
        return self.signature in self.dispatcher.overloads


_KERNELS: dict[str, list[Kernel]] = {}  # by module, in the order of definition


def kernel(*arg_types, parallel: bool = False, inline: bool = False, entry: bool = False, counted: bool = True):
    """Declare a numba kernel taking ``arg_types`` (jit-compiled with ``cache=True``).

    Callees must be defined before their callers, so that a module's kernels compile in
    the order they are written. ``inline=True``: inlined into callers, never compiled
    alone. ``entry=True``: called from Python; the others get no Python wrapper (it
    would unbox every array of their tuple arguments, a large function to compile for
    nothing) and cannot be called from Python. ``counted=False``: a helper that allocates
    nothing is compiled without numba's reference counting, so a call does not count its
    array arguments in and out (atomic operations that cost the table solver a fifth of
    its time).
    """

    def declare(fn):
        if inline:
            return numba.njit(cache=True, inline="always")(fn)
        options = {} if counted else {"_nrt": False}
        dispatcher = numba.njit(cache=True, parallel=parallel, no_cpython_wrapper=not entry,
                                no_cfunc_wrapper=True, **options)(fn)
        _KERNELS.setdefault(fn.__module__, []).append(Kernel(dispatcher, tuple(arg_types)))
        return dispatcher

    return declare


# --- workloads ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """The kernel modules one job needs, callees' modules first."""

    name: str  # what the user is told is being compiled
    modules: tuple[str, ...]

    def kernels(self) -> list[Kernel]:
        for m in self.modules:
            importlib.import_module(m)
        return [k for m in self.modules for k in _KERNELS.get(m, [])]


class CompileWarning(UserWarning):
    """A kernel was compiled more than once, or outside its workload: a compile-time leak."""


_READY: set[str] = set()


def _imports(module: str) -> set[str]:
    """The modules of this package, or of ``module``'s own package, that ``module`` imports
    at its top (read from its source)."""
    tree = ast.parse(Path(importlib.import_module(module).__file__).read_text())
    found = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    packages = ("sim", module.split(".")[0])
    return {m for m in found if m.split(".")[0] in packages and _is_module(m)} - {module}


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # "sim.jit.I1": a name imported from a module, not a module
        return False


@functools.cache
def _fingerprint(module: str) -> str:
    """What a module's compiled kernels depend on: its source, the sources of every module
    of the package it imports, directly or not (callees, and the constants numba freezes
    into the code), and the tool versions."""
    from sim import __version__

    seen, todo = {module}, [module]
    while todo:
        for dep in _imports(todo.pop()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    h = hashlib.sha256(f"rummy-sim {__version__}, numba {numba.__version__}, python {sys.version}".encode())
    for m in sorted(seen):
        h.update(m.encode() + Path(importlib.import_module(m).__file__).read_bytes())
    return h.hexdigest()


def _cache_dirs(kernels: list[Kernel]) -> list[Path]:
    """numba's cache directories of these kernels (next to the code, or the user-wide
    cache when the package directory is read-only)."""
    return list(dict.fromkeys(Path(k.dispatcher.stats.cache_path) for k in kernels))


def _stamp_path(module: str) -> Path | None:
    """A module's stamp lives beside its cached kernels, so that removing that cache
    removes the stamp too (None for a module without kernels)."""
    kernels = _KERNELS.get(module)
    return _cache_dirs(kernels[:1])[0] / f"rummy-sim-{module}.stamp" if kernels else None


def _stale(module: str) -> bool:
    path = _stamp_path(module)
    if path is None:
        return False
    try:
        return path.read_text() != _fingerprint(module)
    except OSError:
        return True


def is_ready(workload: Workload) -> bool:
    """Compiled before on this machine, for these sources: nothing to compile."""
    if workload.name in _READY:
        return True
    workload.kernels()
    return not any(_stale(m) for m in workload.modules)


def _cache_files(kernel: Kernel) -> Iterator[Path]:
    """numba's index and data files of one kernel (``<file>.<qualname>-<line>.py311.nbi``)."""
    f = kernel.dispatcher.py_func
    base = f"{Path(f.__code__.co_filename).stem}.{f.__qualname__}-"
    for path in Path(kernel.dispatcher.stats.cache_path).glob(base + "*"):
        if path.suffix in (".nbi", ".nbc"):
            yield path


def _forget(kernels: list[Kernel]) -> None:
    """Remove these kernels' cached code: code cached against an older version of a
    callee in another file must not be loaded (numba checks only the kernel's own file)."""
    for k in kernels:
        for path in _cache_files(k):
            with contextlib.suppress(OSError):
                path.unlink()


def prepare(workload: Workload, progress: bool = True) -> None:
    """Make ``workload`` ready to run: nothing if its modules were compiled before on this
    machine from these sources, else compile every kernel once, callees first, saying so
    on standard error (with a progress bar when ``progress``)."""
    if workload.name in _READY:
        return
    kernels = workload.kernels()
    stale = {m for m in workload.modules if _stale(m)}
    if stale:
        todo = [k for k in kernels if not k.compiled()]
        _forget([k for k in todo if k.dispatcher.py_func.__module__ in stale])
        if todo:
            _compile(workload, todo, progress)
        for m in stale:
            path = _stamp_path(m)
            with contextlib.suppress(OSError):
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(_fingerprint(m))
                os.replace(tmp, path)
    _READY.add(workload.name)


def _compile(workload: Workload, todo: list[Kernel], progress: bool) -> None:
    from tqdm.auto import tqdm

    where = _cache_dirs(todo[-1:])[0]
    print(f"compiling {workload.name} ({len(todo)} numba kernels): once on this machine, "
          f"then loaded from the cache ({where.parent if where.name == '__pycache__' else where})",
          file=sys.stderr, flush=True)
    before = {id(k): len(k.dispatcher.overloads) for ks in _KERNELS.values() for k in ks}
    t0 = time.perf_counter()
    with tqdm(total=len(todo), unit="kernel", disable=not progress, desc="compiling",
              bar_format="{desc}: {percentage:3.0f}%|{bar}| {n}/{total} kernels [{elapsed}<{remaining}]",
              file=sys.stderr) as bar:
        for k in todo:
            bar.set_postfix_str(k.dispatcher.py_func.__name__, refresh=False)
            k.dispatcher.compile(k.signature)
            # Closed to new types: callers typed later are served by conversion.
            k.dispatcher.disable_compile()
            bar.update()
    if not progress:
        print(f"compiled in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    for ks in _KERNELS.values():
        for k in ks:
            extra = len(k.dispatcher.overloads) - before.get(id(k), 0) - (1 if k in todo else 0)
            if extra > 0:
                warnings.warn(f"{k.name} was compiled {extra} more time(s) than declared while "
                              f"preparing {workload.name}: define it before its callers, list its "
                              "module in the workload, or call it with its declared types",
                              CompileWarning, stacklevel=3)


# --- what the cache holds -------------------------------------------------------------------------


@functools.cache
def all_workloads() -> tuple[Workload, ...]:
    """Every workload of the package (the shared ones and each family's)."""
    from sim.deal import DEAL_WORKLOAD
    from sim.games import families
    from sim.games.cards import HAND_WORKLOAD
    from sim.games.rummikub import TABLE_SOLVER_WORKLOAD
    from sim.solver.api import BATCH_WORKLOAD, OPENING_WORKLOAD
    from sim.solver.runs import TABLE_WORKLOAD

    found = [DEAL_WORKLOAD, TABLE_WORKLOAD, OPENING_WORKLOAD, BATCH_WORKLOAD, TABLE_SOLVER_WORKLOAD, HAND_WORKLOAD]
    for family in families():
        if family.workload not in found:
            found.append(family.workload)
    return tuple(found)


def cache_report() -> list[tuple[Path, int, int]]:
    """Where compiled code lives: ``(directory, files, bytes)`` for every cache directory."""
    rows = []
    for folder in _cache_dirs([k for w in all_workloads() for k in w.kernels()]):
        files = [p for p in folder.glob("*") if p.suffix in (".nbi", ".nbc", ".stamp")] if folder.exists() else []
        rows.append((folder, len(files), sum(p.stat().st_size for p in files)))
    return rows


def clear_cache() -> int:
    """Remove every compiled kernel and stamp of the package; returns the files removed."""
    removed = 0
    kernels = [k for w in all_workloads() for k in w.kernels()]
    for folder in _cache_dirs(kernels):
        for path in folder.glob("rummy-sim-*.stamp"):
            path.unlink(missing_ok=True)
            removed += 1
    for k in kernels:
        for path in _cache_files(k):
            with contextlib.suppress(OSError):
                path.unlink()
                removed += 1
    _READY.clear()
    return removed
