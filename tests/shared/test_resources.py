"""What a command may ask of the machine: plans refused before any work (disk, caps,
memory), --jobs capped at the cores, worker processes that end with their parent,
summaries that read only the columns they use, and out-of-memory as one line."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import namedtuple
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import sim
from sim import cli, jit, parallel, plan, runner
from sim.games import family_of
from sim.games.family import Family, collect_columns, select_columns

cli_runner = CliRunner()


def run(*args):
    return cli_runner.invoke(cli.app, [str(a) for a in args])


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


# --- plans checked before work starts -------------------------------------------------------


@pytest.mark.parametrize("args, says", [
    (["run", "--rounds", 10**15], ["10^15 rounds would take about 27 PB on disk", "years at a rough",
                                   "--rounds is more than the 10^10 rounds a variant may play",
                                   "10^11 chunks are more than the 1,000,000", "give a larger --chunk",
                                   "the data would not fit in the free space"]),
    (["run", "--rounds", 10**8, "--chunk", 10], ["10^7 chunks are more than the 1,000,000"]),
    (["run", "--preset", "rummy101-cards", "--matches", 10**11], ["--matches is more than the 10^10 matches"]),
    (["tournament", "--policies", "greedy,careful", "--rounds", 10**12], ["14 variants of 10^12 rounds"]),
    (["balance", "--field", "open_points", "--range", "61:141", "--target", "p_open_by_turn_3=0.5",
      "--max-rounds", 10**15], ["up to about", "--max-rounds is more than the 10^10 rounds a value may play",
                                "(give a larger --rounds)"]),
])
def test_a_plan_too_large_is_refused_in_one_line_before_anything_is_written(tmp_path, args, says):
    out = tmp_path / "D"
    t0 = time.perf_counter()
    r = run(*args, "--out", out, "--no-progress")
    assert r.exit_code == 2, r.output
    (line,) = error_lines(r.output)
    for text in says:
        assert text in line, line
    assert f"free in {out})" in line
    assert not out.exists()
    assert time.perf_counter() - t0 < 5  # nothing was listed


def test_deal_stats_of_too_many_racks_is_refused_by_its_memory_and_disk(tmp_path):
    out = tmp_path / "d.parquet"
    r = run("deal-stats", "--samples", 10**15, "--out", out, "--no-progress")
    assert r.exit_code == 2
    (line,) = error_lines(r.output)
    assert line.startswith("error: 10^15 racks would take about 2.6 PB on disk")
    assert "61 PB of memory for its table" in line and "--samples is more than the 10^10 racks" in line
    assert "the memory is more than half of what is available" in line and "--chunk" not in line
    assert not any(tmp_path.iterdir())


def test_a_sweep_grid_of_too_many_variants_is_refused_before_they_are_made(tmp_path):
    values = ",".join(str(v) for v in range(1, 201))
    r = run("sweep", "--grid", f"open_points={values}", "--grid", f"open_pairs={values}", "--out", tmp_path / "s")
    assert r.exit_code == 2
    assert error_lines(r.output) == ["error: --grid makes 40,000 variants, more than the 10,000 a sweep may have; "
                                     "sweep fewer values at once"]


def spec(rounds, chunk=10_000, preset="rummy101", variants=1):
    rules = sim.preset(preset)
    vs = (tuple(runner.Variant(rules, (("v", str(i)),)) for i in range(variants)) if variants > 1
          else (runner.Variant(rules),))
    return runner.RunSpec(vs, rounds, 1, ("greedy",), chunk)


def test_the_plan_counts_chunks_and_tasks_without_listing_them(tmp_path):
    """Rummikub cuts a chunk in pieces of its ``piece`` rounds: every piece a task; the
    bookkeeping is measured by chunk and by task, the disk and rate by the family."""
    rummikub = family_of(sim.preset("rummikub"))
    p = plan.for_run(spec(25_100, preset="rummikub", variants=3), tmp_path, jobs=1)
    assert (p.units, p.per_variant, p.variants, p.chunks) == (75_300, 25_100, 3, 9)
    assert p.tasks == 3 * (2 * 10_000 // rummikub.piece + 5100 // rummikub.piece + 1)
    assert p.tasks == sum(len(runner._pieces(spec(25_100, preset="rummikub"), s, c))
                          for _, s, c in spec(25_100, preset="rummikub", variants=3).chunks())
    assert p.disk == 75_300 * rummikub.costs.disk_per_unit
    assert p.memory == 9 * plan.BYTES_PER_CHUNK + p.tasks * plan.BYTES_PER_TASK
    assert p.seconds == pytest.approx(75_300 / rummikub.costs.units_per_second)
    assert p.what == "3 variants of 25,100 rounds"


def test_a_run_larger_than_the_free_space_is_refused_and_what_a_rerun_finds_counts(tmp_path, monkeypatch):
    Usage = namedtuple("Usage", "total used free")
    monkeypatch.setattr(plan.shutil, "disk_usage", lambda path: Usage(10**9, 0, 1_000_000))
    small = spec(30_000)  # 810 kB of Rummy 101
    plan.check_run(small, tmp_path / "a")
    big = spec(100_000)  # 2.7 MB
    with pytest.raises(plan.PlanError, match=r"2.7 MB on disk \(1 MB free in .*; refused: the data would not fit"):
        plan.check_run(big, tmp_path / "a")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "part.parquet").write_bytes(b"x" * 2_000_000)  # an earlier run's, replaced or kept
    plan.check_run(big, tmp_path / "a")


def test_a_plan_holding_more_than_half_the_available_memory_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(plan, "available_memory", lambda: 100e6)
    plan.check_run(spec(100_000), tmp_path)  # 10 chunks: 35 kB
    with pytest.raises(plan.PlanError, match=r"of memory for the list of its chunks \(100 MB available\); "
                                             r"refused: the memory is more than half"):
        plan.check_run(spec(100_000, chunk=5), tmp_path)  # 20,000 chunks: 70 MB


def test_every_family_states_its_costs():
    for f in sim.games.families():
        c = f.costs
        assert c is not Family.costs, f.name  # measured, not the default
        assert c.disk_per_unit > 0 and c.units_per_second > 0 and c.samples_per_second > 0
        assert c.disk_per_sample > 0 and c.memory_per_sample > c.disk_per_sample


def test_numbers_read_as_people_write_them():
    assert [plan.count(n) for n in (84_000, 10**7, 10**15, 2 * 10**10, 25 * 10**11)] == [
        "84,000", "10^7", "10^15", "2×10^10", "2.5×10^12"]
    assert [plan.size(b) for b in (0, 716e6, 2.69e15, 4.5e3)] == ["0 B", "716 MB", "2.7 PB", "4.5 kB"]
    assert [plan.duration(s) for s in (40, 720, 5 * 3600, 9 * 86400, 2.5e11)] == [
        "40 s", "12 minutes", "5 hours", "9 days", "7,900 years"]


# --- --jobs at most the cores ---------------------------------------------------------------


def test_jobs_above_the_cores_warn_once_and_are_capped_in_every_command(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    r = run("run", "--rounds", 20, "--jobs", 64, "--out", tmp_path / "r", "--no-progress")
    assert r.exit_code == 0, r.output
    assert [line for line in r.output.splitlines() if "warning" in line] == [
        "warning: --jobs 64 is more than the 2 cores; using 2"]
    assert "on 2 local worker process(es)" in r.output
    with parallel.Workers(jobs=64) as w:
        assert (w.jobs, w.slots) == (2, 2)
    with parallel.Workers(jobs=2) as w:
        assert w.jobs == 2
    monkeypatch.setattr(jit, "is_ready", lambda workload: True)
    r = run("compile", "rummikub", "--jobs", 64, "--no-progress")  # compiled already: it says so too
    assert "compiled already" in r.output
    assert "warning: --jobs 64 is more than the 2 cores; using 2" in r.output
    assert jit._jobs(64, [None] * 10) == 2


# --- worker processes end with their parent -------------------------------------------------


def alive(pid: int) -> bool:
    """A process that is running (a zombie waiting for its reaper has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def children(pid: int) -> dict[int, str]:
    found = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2:].split()[1]) == pid and alive(int(d.name)):
            found[int(d.name)] = cmd
    return found


def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


linux_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


@linux_only
def test_the_workers_of_a_run_die_when_it_is_killed(tmp_path):
    """SIGKILL of the parent alone (as the OOM killer does): its loky workers follow it at
    once, instead of holding their memory for minutes."""
    proc = subprocess.Popen([sys.executable, "-c", "from sim.cli import main; main()", "run", "--rounds", "400000",
                             "--chunk", "1000", "--jobs", "2", "--out", str(tmp_path / "k"), "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def workers() -> list[int]:
            return [pid for pid, cmd in children(proc.pid).items() if "LokyProcess" in cmd]

        assert wait_until(lambda: len(workers()) == 2, 120), children(proc.pid)
        started = workers()
        everything = list(children(proc.pid))  # the resource trackers too
    finally:
        proc.kill()
        proc.wait()
    assert set(started) <= set(everything)
    assert wait_until(lambda: not any(map(alive, everything)), 10), [p for p in everything if alive(p)]


@linux_only
def test_a_compile_worker_dies_with_its_parent_even_with_its_input_open():
    """A compile worker busy with a kernel would notice its closed input only minutes later:
    here the input stays open (this test holds it) and the worker still ends with the parent."""
    read, write = os.pipe()
    parent = subprocess.Popen([sys.executable, "-c", (
        "import os, subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'from sim.jit import serve; serve()'], stdin=0,\n"
        "                     env={**os.environ, 'SIM_JIT_PARENT': str(os.getpid())})\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(120)\n")], stdin=read, stdout=subprocess.PIPE, text=True)
    os.close(read)
    try:
        worker = int(parent.stdout.readline())
        assert alive(worker)
    finally:
        parent.kill()
        parent.wait()
    try:
        assert wait_until(lambda: not alive(worker), 10)
    finally:
        os.close(write)
        if alive(worker):
            os.kill(worker, signal.SIGKILL)


def test_die_with_parent_ends_a_process_whose_parent_is_gone_already():
    code = ("import os, sys; from sim.parallel import die_with_parent; die_with_parent(os.getppid() + 10**7); "
            "sys.exit(0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 1


# --- summaries that read only what they use ---------------------------------------------------


@pytest.fixture(scope="module")
def small_runs(tmp_path_factory):
    """A sweep of every family, and a run of one, tiny."""
    root = tmp_path_factory.mktemp("summaries")
    out = {}
    for preset, grid, n in (("rummy101", {"players": ["2", "4"]}, 60), ("rummikub", {"players": ["2", "3"]}, 12),
                            ("rummy101-cards", {"players": ["2", "4"], "target": ["101"]}, 12)):
        variants = runner.grid_variants(sim.preset(preset), grid)
        runner.run(runner.RunSpec(variants, n, 5, ("greedy",), n // 2, kind="sweep"), root / preset, jobs=1,
                   progress=False)
        out[preset] = root / preset
    runner.run(runner.RunSpec((runner.Variant(sim.preset("rummy101")),), 40, 5, ("greedy", "careful", "greedy",
                                                                                  "careful"), 20),
               root / "run", jobs=1, progress=False)
    out["run"] = root / "run"
    return out


@pytest.mark.parametrize("name", ["rummy101", "rummikub", "rummy101-cards", "run"])
def test_the_lazy_summary_is_the_summary_of_the_whole_tables(small_runs, name):
    out = small_runs[name]
    family = runner.family_of_run(out)
    keys = list(runner.read_manifest(out)["variants"][0]["partition"])
    whole = {t: runner.scan(out, t).collect() for t in family.tables}
    eager = family._module("summary").summarise_frames(whole, keys)
    lazy = runner.summarise(out)
    assert json.dumps(lazy, sort_keys=True) == json.dumps(eager, sort_keys=True)
    assert len(lazy["variants"]) == (1 if name == "run" else 2)
    assert family.format_summary(lazy) == family.format_summary(eager)


def test_a_summary_reads_only_the_columns_it_uses(small_runs):
    lf = runner.scan(small_runs["rummy101"], "players")
    wanted = {"players": ("round_id", "score", "no_such_column")}
    got = collect_columns({"players": lf}, wanted, ["players"])
    assert got["players"].columns == ["players", "round_id", "score"]
    assert got["players"].height == lf.select(pl.len()).collect().item()
    projected = re.search(r"PROJECT (\d+)/(\d+) COLUMNS", select_columns({"players": lf}, wanted, ["players"])
                          ["players"].explain())
    assert projected and int(projected[1]) <= 3 < int(projected[2])  # the file's other columns are not read


# --- out of memory ------------------------------------------------------------------------------


def test_out_of_memory_is_one_line_naming_the_command_and_what_to_change(tmp_path, monkeypatch, capsys):
    def no_memory(*args, **kwargs):
        raise MemoryError("reading the summary of D; its data are all written")

    monkeypatch.setattr(runner, "run", no_memory)
    monkeypatch.setattr(sys, "argv", ["sim", "run", "--rounds", "20", "--out", str(tmp_path / "m"), "--no-progress"])
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines() == ["error: out of memory in `sim run` (reading the summary of D; its data are all "
                                "written); use fewer --jobs or a smaller --chunk (or fewer --rounds, --samples)"]
