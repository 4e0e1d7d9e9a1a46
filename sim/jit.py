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

Why only entries are optimised whole: numba links the LLVM IR of every callee into each
caller and optimises the caller's module with all of it, so a chain of kernels optimised
the code at its bottom once per level. A kernel without a Python wrapper (``entry=False``)
is never run as compiled, only linked into its callers, so its module skips LLVM's module
optimisation and no machine code is made of its functions (:func:`_link_only_libraries`);
an entry kernel's module is optimised and compiled in full over all the code it runs.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib
import importlib.util
import json
import os
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, ModuleType

import numba
from llvmlite import binding as ll
from numba import types
from numba.core import codegen, targetconfig
from numba.core.registry import CPUDispatcher

# numba's own TargetConfig.values and __hash__, kept for the check below and its test
NUMBA_FLAG_METHODS = getattr(targetconfig.TargetConfig, "_sim_numba_methods",
                             (targetconfig.TargetConfig.values, targetconfig.TargetConfig.__hash__))


def _faster_target_flags() -> bool:
    """Make numba's compile flags compare and hash without rebuilding them option by option.

    Typing a call to one of numba's overloaded functions looks its implementation up in a
    cache keyed by the compile flags (``TargetConfig``), whose ``values()`` builds a dict of
    some 30 options through a property each, for every hash and every comparison: 400,000
    such dicts and about 10% of compiling the Rummikub engine (cProfile, 2026-12-05). The
    same dict comes from the options' defaults updated with the values set, which is what
    the properties read, and the hash (of the sorted option names only) is one per class.
    Checked at import against numba's own methods on fresh and set flags; left alone if
    they disagree (another numba)."""
    cls = targetconfig.TargetConfig
    if getattr(cls, "_sim_fast", False):
        return True
    original_values, original_hash = NUMBA_FLAG_METHODS
    defaults: dict[type, dict] = {}
    names: dict[type, int] = {}

    def values(self):
        kind = type(self)
        d = defaults.get(kind)
        if d is None:
            d = defaults[kind] = {k: o.default for k, o in kind.options.items()}
        out = dict(d)
        out.update(self._values)
        return out

    def __hash__(self):
        kind = type(self)
        h = names.get(kind)
        if h is None:
            h = names[kind] = hash(tuple(sorted(kind.options)))
        return h

    def __eq__(self, other):
        if self is other:
            return True
        if isinstance(other, targetconfig.TargetConfig):
            return values(self) == values(other)
        return NotImplemented

    try:
        from numba.core.compiler import Flags

        probes = [Flags(), Flags()]
        probes[1].nrt = True
        probes[1].boundscheck = True
        agree = all(values(f) == original_values(f) and __hash__(f) == original_hash(f) for f in probes)
    except Exception:  # another numba: keep its own methods
        agree = False
    if agree:
        cls._sim_numba_methods = NUMBA_FLAG_METHODS
        cls.values, cls.__hash__, cls.__eq__, cls._sim_fast = values, __hash__, __eq__, True
    return agree


FAST_FLAGS = _faster_target_flags()

# While a kernel that only other kernels call (``entry=False``) compiles, how the numba
# libraries made meanwhile are finalised (see below): LINKED, or MACHINE_CODE for a kernel
# declared with ``machine_code=True``; ENTRY (0) otherwise.
ENTRY, LINKED, MACHINE_CODE = range(3)
_LINK_ONLY = [ENTRY]


def _link_only_libraries() -> bool:
    """Skip LLVM's module optimisation of the code that is only linked into callers.

    numba finalises every function it compiles: it links in the LLVM IR of every callee,
    optimises the whole module (inlining, then the full -O3 suite) and makes machine code.
    A caller links the callee's IR again and optimises it again, so each level of callers
    optimised everything below it once more. A kernel compiled without a Python wrapper
    (``entry=False``), and the numba helpers compiled for it, are never run as they are:
    only their IR is used, linked into callers whose own module optimisation covers it.
    Their libraries (marked while :func:`_compile_one` compiles such a kernel) keep the
    function-level optimisation numba runs when their IR is added and skip the module's,
    and the machine code made of them holds no function (:func:`_without_functions`): their
    functions run only as linked into an entry, whose machine code has them. An entry
    kernel's module is optimised and compiled in full as before, over all the code it runs.

    A kernel declared with ``machine_code=True`` keeps its machine code. LLVM's code
    generation rewrites the IR it is given in place (its late passes: loop strength
    reduction and the like), and the IR callers link is that rewritten IR: the Rummikub
    table solver's, so rewritten and then optimised again in the engine, plays rounds a
    fifth faster (669 four-player ``greedy`` rounds a second on one core, against 542 to 565
    in four runs without it, 2026-12-05); for the other kernels it is no faster, and only costs compile time.
    Skipping an optimisation never changes what the code computes: a library marked by
    mistake would only run slower (it would have no Python wrapper to be called through
    either: a kernel with ``entry=False`` is never called from Python). Left alone under a
    numba whose code library lacks these methods."""
    lib = getattr(codegen, "CPUCodeLibrary", None)
    methods = ("__init__", "_optimize_final_module", "_finalize_final_module")
    if lib is None or not all(hasattr(lib, m) for m in methods) or not hasattr(ll, "create_new_module_pass_manager"):
        return False
    if getattr(lib, "_sim_link_only", None) is not None:
        return True
    init, optimise, finalise = (getattr(lib, m) for m in methods)

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self._sim_link_only = _LINK_ONLY[0]

    def _optimize_final_module(self):
        if self._sim_link_only == ENTRY:
            optimise(self)

    def _finalize_final_module(self):
        # numba hands the final module to its JIT engine, which makes machine code of every
        # function in it: a second or more of the Rummikub engine's larger kernels, for
        # code that never runs. The engine gets a copy without the functions; the whole
        # module stays the library's, for linking into callers (and for its IR).
        if self._sim_link_only != LINKED:
            return finalise(self)
        whole = self._final_module
        self._final_module = _without_functions(whole, self._codegen._tm)
        try:
            return finalise(self)
        finally:
            self._final_module = whole

    lib.__init__, lib._optimize_final_module, lib._finalize_final_module = (
        __init__, _optimize_final_module, _finalize_final_module)
    lib._sim_link_only = ENTRY
    return True


def _without_functions(module, machine):
    """A copy of the LLVM ``module`` with its functions removed and its global variables
    kept (numba finds each kernel's environment among them by name): every function
    made internal, then LLVM's dead global elimination drops them all."""
    copy = module.clone()
    for fn in copy.functions:
        if not fn.is_declaration:
            fn.linkage = ll.Linkage.internal
    passes = ll.create_new_module_pass_manager()
    passes.add_global_dead_code_eliminate_pass()
    passes.run(copy, ll.create_pass_builder(machine, ll.create_pipeline_tuning_options(speed_level=0)))
    return copy


LINK_ONLY = _link_only_libraries()

# --- the types kernels are declared with ---------------------------------------------------

i64 = types.int64
u64 = types.uint64
f64 = types.float64
boolean = types.boolean


def array(dtype, ndim: int, readonly: bool = False):
    """A C-contiguous array type: every array a kernel takes is C-contiguous. ``readonly``: a
    kernel that only reads it takes a polars column's numpy view as it is (writable arrays too)."""
    return types.Array(dtype, ndim, "C", readonly=readonly)


I1, I2, I3, I4 = (array(i64, n) for n in (1, 2, 3, 4))
I8_1, I8_2 = array(types.int8, 1), array(types.int8, 2)
I16_1 = array(types.int16, 1)
I32_2 = array(types.int32, 2)
B1, B2 = array(boolean, 1), array(boolean, 2)
U1 = array(u64, 1)
F1, F2, F3 = (array(types.float64, n) for n in (1, 2, 3))  # F2: the expert bots' tuning constants (a row a seat)
I1_READ, F2_READ = array(i64, 1, readonly=True), array(types.float64, 2, readonly=True)
U16_READ = array(types.uint16, 1, readonly=True)  # a dataset's variant numbers (sim.analysis.in_memory)
U8_2_READ = array(types.uint8, 2, readonly=True)  # a report's shares, a byte a row (sim.clusters)


def tuple_of(*members):
    """The type of a tuple of these member types (numba makes it a UniTuple when they agree)."""
    return types.Tuple(members)


def record_of(cls, *members):
    """The type of the named tuple class ``cls`` holding these member types: a kernel's
    record of named arrays (``state.hands`` rather than ``state[3]``), as numba types it
    when the record is built in a kernel (a NamedUniTuple when the members agree)."""
    return types.BaseTuple.from_types(members, cls)


# --- declaring kernels ------------------------------------------------------------------------


@dataclass
class Kernel:
    """A declared kernel: its dispatcher and the argument types it is compiled for."""

    dispatcher: numba.core.dispatcher.Dispatcher
    signature: tuple
    machine_code: bool = False  # kept even if only linked (see _link_only_libraries)

    @property
    def name(self) -> str:
        f = self.dispatcher.py_func
        return f"{f.__module__}.{f.__qualname__}"

    def compiled(self) -> bool:
        return self.signature in self.dispatcher.overloads


_KERNELS: dict[str, list[Kernel]] = {}  # by module, in the order of definition


class _InnerDispatcher(CPUDispatcher):
    """The dispatcher of a kernel without a Python entry (``entry=False``): kernels call its
    machine code directly, as ever; a call from Python, which would jump into the wrapper
    it was compiled without and kill the process, raises instead."""

    def __call__(self, *args, **kwargs):
        f = self.py_func
        raise TypeError(f"{f.__module__}.{f.__qualname__} is a kernel only other kernels call: it was declared "
                        f"without a Python entry (sim.jit.kernel(entry=False)); call the entry kernel that uses it, "
                        f"or declare it with entry=True")


def kernel(*arg_types, parallel: bool = False, inline: bool = False, entry: bool = False, counted: bool = True,
           machine_code: bool = False):
    """Declare a numba kernel taking ``arg_types`` (jit-compiled with ``cache=True``).

    Callees must be defined before their callers, so that a module's kernels compile in
    the order they are written. ``inline=True``: inlined into callers, never compiled
    alone. ``entry=True``: called from Python; the others get no Python wrapper (it
    would unbox every array of their tuple arguments, a large function to compile for
    nothing) and cannot be called from Python (such a call raises a TypeError that says
    so). ``counted=False``: a kernel that allocates nothing is compiled without numba's
    reference counting, so a call does not count its array arguments in and out (atomic
    operations that cost the table solver a fifth of its time; and for an engine's
    entry, whose tuples hold dozens of arrays, 8 to 20% of compiling it). The kernels it
    calls count their own. ``machine_code=True``: made into machine code even if only
    linked into callers, who then link the IR LLVM's code generation rewrote (see
    :func:`_link_only_libraries`; the Rummikub table solver's).
    """

    def declare(fn):
        if inline:
            return numba.njit(cache=True, inline="always")(fn)
        options = {} if counted else {"_nrt": False}
        dispatcher = numba.njit(cache=True, parallel=parallel, no_cpython_wrapper=not entry,
                                no_cfunc_wrapper=True, **options)(fn)
        if not entry:
            dispatcher.__class__ = _InnerDispatcher
        _KERNELS.setdefault(fn.__module__, []).append(Kernel(dispatcher, tuple(arg_types), machine_code))
        return dispatcher

    return declare


# --- copying arrays inside kernels -----------------------------------------------------------
#
# Kernels copy arrays with these rather than slice assignment (``a[:n] = b[:n]``): numba
# compiles slice assignment from an array with a shape-mismatch error that formats the
# shapes as text, seconds of compiling in every process and kernel that meets it.


@kernel(inline=True)
def copy_row(dst, src):
    """``dst[:] = src`` for one-dimensional arrays of the same length."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@kernel(inline=True)
def copy_rows(dst, src):
    """``dst[:, :] = src`` for two-dimensional arrays of the same shape."""
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


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
    from sim.version import __version__

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


def prepare(workload: Workload, progress: bool = True, jobs: int | None = None) -> None:
    """Make ``workload`` ready to run: nothing if its modules were compiled before on this
    machine from these sources, else compile every kernel once, callees first, saying so
    on standard error (with a progress bar when ``progress``).

    ``jobs``: worker processes to compile in (each kernel in one of them, as soon as its
    callees are in the cache); ``None`` means one per core for a workload long enough to
    gain from them, or ``$SIM_COMPILE_JOBS``; 1 compiles here, one kernel after another."""
    if workload.name in _READY:
        return
    kernels = workload.kernels()
    stale = {m for m in workload.modules if _stale(m)}
    if stale:
        todo = [k for k in kernels if not k.compiled()]
        _forget([k for k in todo if k.dispatcher.py_func.__module__ in stale])
        if todo:
            _compile(workload, todo, stale, progress, jobs)
        for m in stale:
            path = _stamp_path(m)
            with contextlib.suppress(OSError):
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(_fingerprint(m))
                os.replace(tmp, path)
    _READY.add(workload.name)


# --- compiling ----------------------------------------------------------------------------------

# Seconds each kernel took to compile alone (benchmarks/bench_compile.py --write-times, on
# an idle core): the progress bar's weights and the order of a parallel compile. A kernel
# not listed counts as DEFAULT_SECONDS.
TIMES_FILE = Path(__file__).with_name("kernel_times.json")
DEFAULT_SECONDS = 0.5
PARALLEL_FROM = 10.0  # seconds of compiling (by the weights) worth starting worker processes for
JOBS_ENV = "SIM_COMPILE_JOBS"
COMPILE_SECONDS: dict[str, float] = {}  # what each kernel compiled for this process took, by name


@functools.cache
def kernel_seconds() -> dict[str, float]:
    try:
        return json.loads(TIMES_FILE.read_text())
    except (OSError, ValueError):
        return {}


def _weight(k: Kernel) -> float:
    return kernel_seconds().get(k.name, DEFAULT_SECONDS)


def _code_names(code: CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _code_names(const)
    return names


def callees(k: Kernel) -> list[Kernel]:
    """The declared kernels ``k`` calls: named in its code as a global, as an attribute of
    a module it names, or through inlined helpers (which are not compiled alone)."""
    declared = {id(x.dispatcher): x for ks in _KERNELS.values() for x in ks}
    found: dict[int, Kernel] = {}
    seen = {id(k.dispatcher)}
    todo = [k.dispatcher.py_func]
    while todo:
        fn = todo.pop()
        names = _code_names(fn.__code__)
        named = [fn.__globals__[n] for n in names if n in fn.__globals__]
        named += [getattr(m, n) for m in named if isinstance(m, ModuleType) for n in names if hasattr(m, n)]
        named += [c.cell_contents for c in fn.__closure__ or ()]
        for obj in named:
            if not isinstance(obj, numba.core.dispatcher.Dispatcher) or id(obj) in seen:
                continue
            seen.add(id(obj))
            if id(obj) in declared:
                found[id(obj)] = declared[id(obj)]
            else:  # an inlined helper: its callees are the caller's
                todo.append(obj.py_func)
    return list(found.values())


def _below(k: Kernel) -> list[Kernel]:
    """Every declared kernel under ``k``, callees before their callers."""
    order: list[Kernel] = []
    placed: set[int] = set()

    def visit(x: Kernel) -> None:
        for c in callees(x):
            if id(c) not in placed:
                placed.add(id(c))
                visit(c)
                order.append(c)

    visit(k)
    return order


def _overloads() -> dict[int, int]:
    return {id(k): len(k.dispatcher.overloads) for ks in _KERNELS.values() for k in ks}


def _leaks(before: dict[int, int], compiled: list[Kernel], workload: str) -> list[str]:
    """Kernels compiled more times than asked since ``before``: a compile-time leak."""
    asked = {id(k) for k in compiled}
    found = []
    for ks in _KERNELS.values():
        for k in ks:
            extra = len(k.dispatcher.overloads) - before.get(id(k), 0) - (id(k) in asked)
            if extra > 0:
                found.append(f"{k.name} was compiled {extra} more time(s) than declared while preparing "
                             f"{workload}: define it before its callers, list its module in the workload, "
                             "or call it with its declared types")
    return found


def _compile_one(k: Kernel) -> None:
    if k.dispatcher.targetoptions.get("no_cpython_wrapper"):
        _LINK_ONLY[0] = MACHINE_CODE if k.machine_code else LINKED
    try:
        k.dispatcher.compile(k.signature)
    finally:
        _LINK_ONLY[0] = ENTRY
    # Closed to new types: callers typed later are served by conversion.
    k.dispatcher.disable_compile()


def _compile_in_worker(module: str, index: int, workload: str) -> tuple[float, list[str]]:
    """In a worker process: load the callees of one kernel from the cache (other workers
    wrote them), compile the kernel into the cache; its seconds and any leak."""
    importlib.import_module(module)
    k = _KERNELS[module][index]
    before = _overloads()
    below = [c for c in _below(k) if not c.compiled()]
    for c in below:
        _compile_one(c)
    t0 = time.perf_counter()
    _compile_one(k)
    return time.perf_counter() - t0, _leaks(before, [*below, k], workload)


_ANSWER = "sim.jit: "  # how a worker's answers stand out on its standard output
_PARENT_ENV = "SIM_JIT_PARENT"  # the pid of the process that started a compile worker


def serve() -> None:
    """A compile worker's loop (``python -c "from sim.jit import serve; serve()"``): one
    kernel per line of standard input (``module index workload``), its answer a line.
    It ends with the process that started it, even one killed with SIGKILL: its standard
    input would close only after the kernel in hand, minutes of compiling later."""
    from sim.parallel import die_with_parent

    die_with_parent(int(os.environ.get(_PARENT_ENV, "0")) or None)
    for line in sys.stdin:
        module, index, workload = line.rstrip("\n").split(" ", 2)
        print(_ANSWER + json.dumps(_compile_in_worker(module, int(index), workload)), flush=True)
    # Every answer is out and every kernel in the cache: end at once. Python's own exit
    # (numba's and LLVM's teardown) took most of a second per worker, waited for in turn.
    os._exit(0)


class _Worker:
    """A new Python process that compiles kernels one at a time. Started as a command, not
    forked (numba and tqdm threads) nor spawned (which would run the user's script again)."""

    def __init__(self) -> None:
        import subprocess
        import tempfile

        self.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (open as long as the worker, closed by close)
        path = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
        # -P: the working directory is not put first on the path, so that the worker imports
        # the same package as this process (its path, in order), not a ``sim`` that happens
        # to be where the user stands (a benchmark of a copy run from the repository).
        self.process = subprocess.Popen([sys.executable, "-P", "-c", "from sim.jit import serve; serve()"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                        text=True,
                                        env={**os.environ, "PYTHONPATH": path, _PARENT_ENV: str(os.getpid())})

    def compile(self, module: str, index: int, workload: str) -> tuple[float, list[str]]:
        self.process.stdin.write(f"{module} {index} {workload}\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith(_ANSWER):
                seconds, leaks = json.loads(line[len(_ANSWER):])
                return seconds, leaks
        self.log.seek(0)
        raise RuntimeError(f"a compile worker ended on {module} #{index}: {self.log.read()[-2000:]}")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        self.process.wait()
        self.log.close()


def _jobs(jobs: int | None, todo: list[Kernel]) -> int:
    from sim.parallel import cap_jobs

    jobs = cap_jobs(jobs)
    if jobs is None:
        env = os.environ.get(JOBS_ENV, "")
        if env.isdigit() and int(env) > 0:
            jobs = int(env)
        elif sum(map(_weight, todo)) < PARALLEL_FROM:
            jobs = 1
        else:
            jobs = os.cpu_count() or 1
    return max(1, min(jobs, len(todo)))


def _compile(workload: Workload, todo: list[Kernel], stale: set[str], progress: bool, jobs: int | None) -> None:
    from tqdm.auto import tqdm

    dirs = [d.parent if d.name == "__pycache__" else d for d in _cache_dirs(todo)]
    where = Path(os.path.commonpath(dirs)) if len(dirs) > 1 else dirs[0]
    # Kernels of modules compiled before (another workload's) load from the cache in any
    # process: only the stale ones are work.
    work = [k for k in todo if k.dispatcher.py_func.__module__ in stale]
    jobs = _jobs(jobs, work)
    print(f"compiling {workload.name} ({len(work)} numba kernels"
          + (f", {jobs} processes" if jobs > 1 else "") + "): once on this machine, then loaded from the cache "
          f"({where})", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    with tqdm(total=sum(map(_weight, work)), disable=not progress, desc="compiling", smoothing=0,
              bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}{postfix}]",
              file=sys.stderr) as bar:
        if jobs > 1:
            try:
                leaks = _compile_parallel(workload, work, jobs, bar)
            except (OSError, RuntimeError) as e:  # no processes here, or one failed: compile in this one
                print(f"compiling in this process ({type(e).__name__}: {e})", file=sys.stderr, flush=True)
                jobs = 1
        if jobs == 1:
            before = _overloads()
            pace = _Pace()
            for i, k in enumerate(todo):
                left = sum(_weight(x) for x in todo[i:] if x in work)
                bar.set_postfix_str(f"{pace.eta(left, left, 1)} left, {i}/{len(todo)} kernels, now "
                                    f"{k.dispatcher.py_func.__name__}")
                t = time.perf_counter()
                _compile_one(k)
                COMPILE_SECONDS[k.name] = time.perf_counter() - t
                if k in work:
                    pace.add(_weight(k), COMPILE_SECONDS[k.name])
                    bar.update(_weight(k))
            leaks = _leaks(before, todo, workload.name)
        bar.set_postfix_str(f"{len(work)}/{len(work)} kernels", refresh=False)
        bar.update(max(0.0, bar.total - bar.n))  # the credits of kernels in progress fall short of their weights
    if not progress:
        print(f"compiled in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    for message in leaks:
        warnings.warn(message, CompileWarning, stacklevel=3)


class _Pace:
    """How much slower than its measured weight this machine compiles now (the load): the
    compile bar's estimate of the time left."""

    def __init__(self) -> None:
        self.weights = self.seconds = 0.0

    def add(self, weight: float, seconds: float) -> None:
        self.weights += weight
        self.seconds += seconds

    @property
    def factor(self) -> float:
        return self.seconds / self.weights if self.weights > 0 else 1.0

    def eta(self, chain: float, total: float, jobs: int) -> str:
        from tqdm import tqdm

        return tqdm.format_interval(self.factor * max(chain, total / jobs))


def _compile_parallel(workload: Workload, work: list[Kernel], jobs: int, bar) -> list[str]:
    """Compile ``work`` in ``jobs`` new processes, each kernel once its callees are in the
    cache, the longest chain of compile time first; the bar credits a running kernel with
    its time so far (up to nine tenths of its weight)."""
    import queue
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    place = {id(k): (k.dispatcher.py_func.__module__, _KERNELS[k.dispatcher.py_func.__module__].index(k))
             for k in work}
    waits_on = {id(k): {id(c) for c in _below(k)} & place.keys() for k in work}
    callers: dict[int, list[Kernel]] = {id(k): [] for k in work}
    for k in work:
        for c in waits_on[id(k)]:
            callers[c].append(k)
    rank: dict[int, float] = {}

    def chain(k: Kernel) -> float:  # the compile time from k up to the top of the workload
        if id(k) not in rank:
            rank[id(k)] = _weight(k) + max((chain(c) for c in callers[id(k)]), default=0.0)
        return rank[id(k)]

    left = sorted(work, key=chain, reverse=True)
    done: set[int] = set()
    running: dict = {}
    leaks: list[str] = []
    credit = 0.0
    idle: queue.Queue = queue.Queue()
    workers = [_Worker() for _ in range(jobs)]
    for w in workers:
        idle.put(w)

    def on_a_worker(module: str, index: int) -> tuple[float, list[str]]:
        w = idle.get()
        try:
            return w.compile(module, index, workload.name)
        finally:
            idle.put(w)

    pace = _Pace()
    pool = ThreadPoolExecutor(jobs)  # a thread waits on each worker process
    try:
        while left or running:
            for k in [k for k in left if waits_on[id(k)] <= done][:jobs - len(running)]:
                left.remove(k)
                running[pool.submit(on_a_worker, *place[id(k)])] = (k, time.perf_counter())
            if not running:
                raise RuntimeError("kernels waiting on each other: " + ", ".join(k.name for k in left))
            finished, _ = wait(running, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in finished:
                k, _ = running.pop(future)
                COMPILE_SECONDS[k.name], found = future.result()
                pace.add(_weight(k), COMPILE_SECONDS[k.name])
                leaks += found
                done.add(id(k))
                credit += _weight(k)
            now = time.perf_counter()
            partial = sum(min((now - t) / pace.factor, 0.9 * _weight(k)) for k, t in running.values())
            # What is left: the longest chain of kernels still to compile, or all of them
            # shared by the processes, whichever is longer.
            chains = [chain(k) - min((now - t) / pace.factor, 0.9 * _weight(k)) for k, t in running.values()]
            chains += [chain(k) for k in left]
            total_left = sum(map(_weight, left)) + sum(_weight(k) for k, _ in running.values()) - partial
            on = ", ".join(k.dispatcher.py_func.__name__ for k, _ in running.values())
            bar.set_postfix_str(f"{pace.eta(max(chains, default=0.0), total_left, jobs)} left, {len(done)}/{len(work)} "
                                "kernels" + (f", now {on}" if on else ""), refresh=False)
            bar.update(max(0.0, min(bar.total, credit + partial) - bar.n))
            bar.refresh()  # the clock and the kernels named move even while the share does not
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        for w in workers:
            w.close()
    return leaks


# --- what the cache holds -------------------------------------------------------------------------


def together(name: str, workloads: list[Workload] | tuple[Workload, ...]) -> Workload:
    """One workload of several (their modules in order, each once): compiled as one, its
    kernels share the worker processes with no wait between workloads."""
    return Workload(name, tuple(dict.fromkeys(m for w in workloads for m in w.modules)))


def cache_report(workloads: tuple[Workload, ...]) -> list[tuple[Path, int, int]]:
    """Where the compiled code of ``workloads`` lives (:func:`sim.workloads.all_workloads`:
    the package's): ``(directory, files, bytes)`` for every cache directory."""
    rows = []
    for folder in _cache_dirs([k for w in workloads for k in w.kernels()]):
        files = [p for p in folder.glob("*") if p.suffix in (".nbi", ".nbc", ".stamp")] if folder.exists() else []
        rows.append((folder, len(files), sum(p.stat().st_size for p in files)))
    return rows


def clear_cache(workloads: tuple[Workload, ...]) -> int:
    """Remove every compiled kernel and stamp of ``workloads`` (:func:`sim.workloads.all_workloads`:
    the package's); returns the files removed."""
    removed = 0
    kernels = [k for w in workloads for k in w.kernels()]
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
