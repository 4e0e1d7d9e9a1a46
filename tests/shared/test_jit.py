"""The compile budget (sim.jit): kernels compile once for their declared types, a machine
compiles a workload once and then loads it, code cached against an older callee is
never loaded, the help of the CLI imports no kernel, and a read-only installation caches
in the user's directory. Each case runs in a new Python process with its own caches."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]

# Two modules of kernels, the second calling the first: the smallest workload there is.
CALLEE = '''
from sim.jit import i64, kernel


@kernel(i64)
def base(x):
    return x + {step}
'''
CALLER = '''
from sim.jit import Workload, i64, kernel
from tiny.callee import base

WORKLOAD = Workload("the tiny workload", ("tiny.callee", "tiny.caller"))


@kernel(i64, i64)
def twice(x, flag):
    return base(x) + base(x) * 0 + (base(0) if flag else 0)


@kernel(i64, entry=True)
def entry(x):
    return twice(x, 1) + twice(x, True) + twice(x, 0)
'''
PROBE = '''
import sys, warnings
warnings.simplefilter("error")
from sim import jit
from tiny.caller import WORKLOAD, entry, twice
ready = jit.is_ready(WORKLOAD)
jit.prepare(WORKLOAD, progress=False, jobs=int(sys.argv[1]) if len(sys.argv) > 1 else None)
print("ready" if ready else "compiled", entry(10), len(twice.signatures))
'''


INNER = '''
from sim import jit
from tiny.caller import WORKLOAD, entry, twice
jit.prepare(WORKLOAD, progress=False, jobs=1)
print(entry(10))
try:
    twice(10, 1)
except TypeError as e:
    print(e)
print(entry(10))
'''


def _run(code: str, env: dict, cwd: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture
def tiny(tmp_path):
    pkg = tmp_path / "tiny"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "callee.py").write_text(textwrap.dedent(CALLEE.format(step=1)))
    (pkg / "caller.py").write_text(textwrap.dedent(CALLER))
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "NUMBA_CACHE_DIR": str(tmp_path / "nb")}
    return tmp_path, env


CALLS = '''
from sim import jit
from tiny import caller, callee
kernels = {k.dispatcher.py_func.__name__: k for k in jit.Workload("t", ("tiny.callee", "tiny.caller")).kernels()}
print(*(f"{name}:{','.join(sorted(c.dispatcher.py_func.__name__ for c in jit.callees(k))) or '-'}"
        for name, k in sorted(kernels.items())))
print(*(c.dispatcher.py_func.__name__ for c in jit._below(kernels["entry"])))
'''


def test_a_kernels_callees_are_read_from_its_code(tiny):
    """What a parallel compile waits on: the kernels named in the code, as globals, as a
    module's attributes (callee.base) or through an inlined helper (not compiled alone)."""
    where, env = tiny
    (where / "tiny" / "caller.py").write_text(textwrap.dedent(CALLER) + textwrap.dedent('''
        from tiny import callee


        @kernel(inline=True)
        def helper(x):
            return callee.base(x)


        @kernel(i64)
        def through(x):
            return helper(x) + 1
    '''))
    done = _run(CALLS, env, where)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["base:- entry:twice through:base twice:base", "base twice"]


def test_every_kernel_has_a_measured_compile_time():
    """The compile bar's weights and the parallel schedule (sim/kernel_times.json): a new
    or renamed kernel needs `python benchmarks/bench_compile.py --write-times`."""
    from sim import jit
    from sim.workloads import all_workloads

    names = {k.name for w in all_workloads() for k in w.kernels()}
    missing = sorted(names - set(jit.kernel_seconds()))
    assert not missing, f"no compile time for {missing}: run benchmarks/bench_compile.py --write-times"
    assert all(t > 0 for t in jit.kernel_seconds().values())


def test_the_compile_bar_estimates_the_time_left_from_the_longest_chain_and_the_pace():
    """Weights are seconds on an idle core; the kernels done so far set this machine's pace
    (here half as fast), and what is left is the longest chain or the share of each
    process, whichever is longer."""
    from sim import jit

    pace = jit._Pace()
    assert pace.eta(10.0, 12.0, 2) == "00:10"
    pace.add(2.0, 3.0)
    pace.add(2.0, 5.0)
    assert pace.factor == 2.0
    assert pace.eta(10.0, 12.0, 2) == "00:20"
    assert pace.eta(4.0, 12.0, 2) == "00:12"


@pytest.mark.parametrize("jobs, how", [(1, ""), (2, ", 2 processes")])
def test_a_workload_compiles_once_per_kernel_then_loads(tiny, jobs, how):
    """Here (jobs=1) or in worker processes (jobs=2: each kernel once its callees are in the
    cache, entry after twice after base), every kernel compiles once (a leak is a warning,
    an error here): twice() is called with literal flags and an int and still has one
    signature, or none in this process when workers compiled it. The next run loads all."""
    where, env = tiny
    first = _run(PROBE, env, where, jobs)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["compiled", "35", "1" if jobs == 1 else "0"]
    assert f"compiling the tiny workload (3 numba kernels{how})" in first.stderr
    again = _run(PROBE, env, where, jobs)
    assert again.stdout.split()[:2] == ["ready", "35"] and "compiling" not in again.stderr


KEPT = '''
from sim.jit import i64, kernel
from tiny.callee import base


@kernel(i64, machine_code=True)
def kept(x):
    return base(x) * 2
'''
def test_compile_workers_import_this_package_wherever_the_user_stands(tiny):
    """The user's working directory holds another ``sim`` (a copy's benchmark run from the
    repository): the worker processes still import the package this process runs, so the
    kernels compile in them and load here (before, the workers imported the other one)."""
    where, env = tiny
    stand = where / "elsewhere"
    (stand / "sim").mkdir(parents=True)
    (stand / "sim" / "__init__.py").write_text("raise ImportError('the sim where the user stands')\n")
    (where / "probe.py").write_text(PROBE)  # run as a script: its own directory first on its path
    done = subprocess.run([sys.executable, str(where / "probe.py"), "2"], env=env, cwd=stand, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["compiled", "35", "0"]
    assert "compiling in this process" not in done.stderr


LINKED = '''
from sim import jit
from tiny.caller import WORKLOAD, entry, twice
from tiny.kept import kept
jit.prepare(WORKLOAD, progress=False, jobs=1)
jit.prepare(jit.Workload("kept", ("tiny.callee", "tiny.kept")), progress=False, jobs=1)


def calls_to_base(kernel):
    ir = next(iter(kernel.overloads.values())).library.get_llvm_str()
    return sum(" call " in line and "base" in line for line in ir.splitlines())


def has_machine_code(kernel):  # its functions' names in the object code made of its module
    library = next(iter(kernel.overloads.values())).library
    names = [f.name for f in library.get_defined_functions() if "NumbaEnv" not in f.name]
    return any(name.encode() in library._get_compiled_object() for name in names)


print(jit.LINK_ONLY, calls_to_base(twice), calls_to_base(entry), has_machine_code(twice), has_machine_code(entry),
      has_machine_code(kept), entry(10))
'''


def test_only_an_entry_kernels_module_is_optimised_and_compiled_whole(tiny):
    """twice() is only linked into its callers: its module keeps its calls to base() (no
    module optimisation, which would inline them) and no machine code is made of it;
    entry(), run from Python, is optimised whole, twice() and base() inlined, compiled
    to machine code, and answers as before. kept(), declared ``machine_code=True``, is only
    linked too but keeps its machine code."""
    where, env = tiny
    (where / "tiny" / "kept.py").write_text(textwrap.dedent(KEPT))
    done = _run(LINKED, env, where)
    assert done.returncode == 0, done.stderr
    link_only, in_twice, in_entry, twice_compiled, entry_compiled, kept_compiled, answer = done.stdout.split()
    assert link_only == "True" and int(in_twice) >= 1 and in_entry == "0" and answer == "35"
    assert (twice_compiled, entry_compiled, kept_compiled) == ("False", "True", "True")


@pytest.mark.slow
def test_a_kernel_without_a_python_entry_called_from_python_says_so(tiny):
    """An ``entry=False`` kernel has no Python wrapper: called from Python it jumped into
    nothing and the process died (a segmentation fault). It raises a TypeError naming it
    and saying how to call it instead; kernels still call it as before."""
    cwd, env = tiny
    out = _run(INNER, env, cwd)
    assert out.returncode == 0, out.stderr
    first, message, last = out.stdout.splitlines()
    assert first == last == str(3 * (10 + 1) + 2 * (0 + 1))  # entry: three calls of twice, two with base(0)
    assert message.startswith("tiny.caller.twice is a kernel only other kernels call")
    assert "entry=True" in message


def test_a_changed_callee_recompiles_its_callers(tiny):
    """numba checks a cached kernel against its own file only: without the stamp, entry()
    cached with the old base() would still answer 35 after base() changed."""
    where, env = tiny
    assert _run(PROBE, env, where).stdout.split()[1] == "35"
    (where / "tiny" / "callee.py").write_text(textwrap.dedent(CALLEE.format(step=2)))
    after = _run(PROBE, env, where)
    assert after.returncode == 0, after.stderr
    assert after.stdout.split()[:2] == ["compiled", "40"]


def test_the_help_imports_no_kernel():
    code = textwrap.dedent("""
        import sys
        from sim.cli import main
        for args in (["--help"], ["run", "--help"], ["deal-stats", "--help"], ["presets"]):
            sys.argv = ["sim", *args]
            try:
                main()
            except SystemExit:
                pass
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "llvmlite") or m == "sim.jit"))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.slow
def test_a_read_only_installation_caches_in_the_users_directory(tmp_path):
    """The package installed where nobody may write (a read-only site-packages): numba's
    cache falls back to ~/.cache/numba, and the second run loads what the first compiled.
    As root (who writes anywhere) the copy is made read-only by a read-only bind mount in
    a private mount namespace; otherwise by its permissions."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "sim", site / "sim", ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "SIM_", "XDG_"))}
    env.update(HOME=str(home), PYTHONPATH=str(site))
    code = ("from sim.deal import deal_racks; from sim import jit, deal; "
            "print(deal_racks(1, 0, 2, 22).sum(), jit.is_ready(deal.DEAL_WORKLOAD), deal._deal_racks.stats.cache_path)")
    command = [sys.executable, "-c", code]
    if os.geteuid() == 0:
        if not shutil.which("unshare") or subprocess.run(["unshare", "-m", "true"]).returncode != 0:
            pytest.skip("running as root without mount namespaces: cannot make the package read-only")
        mount = f'mount --bind "{site}" "{site}" && mount -o remount,ro,bind "{site}" && exec "$0" "$@"'
        command = ["unshare", "-m", "sh", "-c", mount, *command]
    else:
        for p in [site, *site.rglob("*")]:
            p.chmod(0o555 if p.is_dir() else 0o444)
    first = subprocess.run(command, env=env, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert first.returncode == 0, first.stderr
    total, ready, cache_path = first.stdout.split()
    assert total == "44" and ready == "True"
    assert cache_path.startswith(str(home / ".cache" / "numba")), cache_path
    assert "compiling dealing" in first.stderr
    second = subprocess.run(command, env=env, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert second.returncode == 0 and "compiling" not in second.stderr, second.stderr
    assert not any(p.name == "__pycache__" for p in site.rglob("*"))
    if os.geteuid() != 0:
        for p in [site, *site.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)


@given(st.dictionaries(st.sampled_from(["nrt", "boundscheck", "debuginfo", "no_cpython_wrapper", "noalias",
                                        "error_model", "release_gil", "enable_ssa"]), st.booleans(), max_size=5),
       st.dictionaries(st.sampled_from(["nrt", "boundscheck", "noalias", "error_model"]), st.booleans(), max_size=3))
def test_numbas_compile_flags_compare_and_hash_as_numba_would(one, other):
    """sim.jit's faster TargetConfig.values/__hash__/__eq__ give numba's own answers (the
    flags key the cache of every overloaded function numba types)."""
    from numba.core.compiler import Flags

    from sim import jit

    assert jit.FAST_FLAGS  # this numba takes the faster methods
    original_values, original_hash = jit.NUMBA_FLAG_METHODS
    a, b, twin = Flags(), Flags(), Flags()
    for flags, settings in ((a, one), (b, other), (twin, one)):
        for name, value in settings.items():
            setattr(flags, name, ("numpy" if value else "python") if name == "error_model" else value)
    assert a.values() == original_values(a) and b.values() == original_values(b)
    assert hash(a) == original_hash(a) and hash(b) == original_hash(b)
    assert (a == b) == (original_values(a) == original_values(b))
    assert a == twin and hash(a) == hash(twin)
