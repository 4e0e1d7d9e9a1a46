"""Runs that survive anything (issue: beyond one machine): SIGKILL and resume, a worker
that dies, an unwritable or full disk, corrupt files in a dataset, a rerun with other
settings, and adaptive precision (--until-ci) that gives the same data whatever --jobs."""

import errno
import json
import os
import signal
import subprocess
import sys
import time

import polars as pl
import pytest
from typer.testing import CliRunner

import sim
from sim import analysis, runner
from sim.cli import app
from sim.games.rummy101 import FAMILY as RUMMY101
from sim.precision import DEAL_METRICS, parse_target

RULES = sim.preset("rummy101")
SIM = [sys.executable, "-c", "from sim.cli import main; main()"]


def sim_cmd(*args, env=None, **kw):
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([*SIM, *args], capture_output=True, text=True, env=full_env, **kw)


def rows(out, table="rounds"):
    return runner.scan(out, table).collect().sort("round_id", *(["seat"] if table == "players" else []))


def visible_files(out):
    return [p for p in out.rglob("*.parquet") if not p.name.startswith(".")]


@pytest.mark.slow
def test_sigkill_leaves_no_partial_file_and_resume_finishes_exactly(tmp_path):
    out = tmp_path / "k"
    args = ["run", "--rounds", "16000", "--chunk", "400", "--jobs", "2", "--seed", "3", "--out", str(out),
            "--no-progress"]
    proc = subprocess.Popen([*SIM, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    t0 = time.perf_counter()
    while len(visible_files(out)) < 6 and time.perf_counter() - t0 < 240:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_at = len(visible_files(out)) // 2
    for f in visible_files(out):
        pl.read_parquet(f)  # everything a reader can see is whole
    assert killed_at < 40
    resumed = sim_cmd(*args, "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["rounds"] == 16000
    r = rows(out)
    assert r.height == 16000 and r["round_id"].n_unique() == 16000
    assert rows(out, "players").height == 4 * 16000
    assert not [p for p in out.rglob("*.tmp")]
    clean = tmp_path / "clean"
    runner.run(runner.RunSpec((runner.Variant(RULES),), 16000, 3, ("greedy",), 400), clean, jobs=2,
               progress=False)
    assert rows(out, "players").equals(rows(clean, "players"))


@pytest.mark.slow
def test_a_dead_worker_costs_one_retry(tmp_path):
    marker = tmp_path / "died-once"
    out = tmp_path / "w"
    r = sim_cmd("run", "--rounds", "3000", "--chunk", "500", "--jobs", "2", "--out", str(out), "--no-progress",
                env={"SIM_FAULT": f"kill-once:rounds 1000-1499:{marker}"})
    assert r.returncode == 0, r.stderr
    assert marker.exists()  # the worker did die once
    assert rows(out)["round_id"].to_list() == list(range(3000))


@pytest.mark.slow
def test_a_chunk_whose_worker_dies_twice_stops_the_run_naming_it(tmp_path):
    out = tmp_path / "w2"
    r = sim_cmd("run", "--rounds", "3000", "--chunk", "500", "--jobs", "2", "--out", str(out), "--no-progress",
                env={"SIM_FAULT": "kill:rounds 1500-1999"})
    assert r.returncode == 2
    assert "rounds 1500-1999" in r.stderr and "failed twice" in r.stderr and "Traceback" not in r.stderr
    for f in visible_files(out):
        pl.read_parquet(f)
    assert not (out / "rounds" / "part-0000001500.parquet").exists()


def test_unwritable_output_is_refused_before_any_work(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    t0 = time.perf_counter()
    r = CliRunner().invoke(app, ["run", "--rounds", "100000", "--out", str(blocker / "run"), "--no-progress"])
    assert r.exit_code == 2 and "cannot write" in r.output and "Traceback" not in r.output
    assert time.perf_counter() - t0 < 30


def test_a_full_disk_stops_with_the_chunks_written_kept(tmp_path, monkeypatch):
    out = tmp_path / "full"
    real = runner.write_parquet
    calls = {"n": 0}

    def write_until_full(df, path, meta):
        calls["n"] += 1
        if calls["n"] > 4:  # two chunks (two files each) fit, then the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(df, path, meta)

    monkeypatch.setattr(runner, "write_parquet", write_until_full)
    spec = runner.RunSpec((runner.Variant(RULES),), 600, 1, ("greedy",), 100)
    with pytest.raises(sim.DatasetError, match=r"No space left on device.*rerun"):
        runner.run(spec, out, jobs=1, progress=False)
    assert len(visible_files(out)) == 4
    for f in visible_files(out):
        pl.read_parquet(f)
    monkeypatch.setattr(runner, "write_parquet", real)
    again = runner.run(spec, out, jobs=1, progress=False)
    assert again.skipped == 200 and rows(out).height == 600


def test_corrupt_or_foreign_file_in_a_dataset_is_named(tmp_path):
    out = tmp_path / "c"
    runner.run(runner.RunSpec((runner.Variant(RULES),), 300, 1, ("greedy",), 100), out, jobs=1, progress=False)
    victim = out / "players" / "part-0000000100.parquet"
    victim.write_bytes(victim.read_bytes()[:200])
    with pytest.raises(sim.DatasetError, match="part-0000000100"):
        analysis.open_dataset(out)
    r = CliRunner().invoke(app, ["report", "--data", str(out), "--out", str(tmp_path / "rep")])
    assert r.exit_code == 2 and "part-0000000100.parquet" in r.output and "Traceback" not in r.output
    foreign = out / "rounds" / "part-0000000200.parquet"
    pl.DataFrame({"x": [1]}).write_parquet(foreign)
    victim.unlink()
    with pytest.raises(sim.DatasetError, match="part-0000000200"):
        analysis.open_dataset(out)


def test_rerun_with_other_settings_is_refused(tmp_path):
    out = tmp_path / "o"
    cli = CliRunner()
    assert cli.invoke(app, ["run", "--rounds", "200", "--jobs", "1", "--out", str(out), "--no-progress"]).exit_code == 0
    r = cli.invoke(app, ["run", "--rounds", "300", "--jobs", "1", "--out", str(out), "--no-progress"])
    assert r.exit_code == 2 and "other settings" in r.output
    assert rows(out).height == 200


def test_until_ci_stops_at_the_first_prefix_narrow_enough_whatever_jobs(tmp_path):
    target = parse_target("p_open_by_turn_3=0.02", RUMMY101.metrics, 4)
    spec = runner.RunSpec((runner.Variant(RULES),), 20000, 9, ("greedy",), 100, until=target)
    a = runner.run(spec, tmp_path / "a", jobs=1, progress=False)
    b = runner.run(spec, tmp_path / "b", jobs=2, progress=False)
    used = a.used["all rounds"]
    assert used == b.used["all rounds"] and 100 <= used < 20000
    assert rows(tmp_path / "a", "players").equals(rows(tmp_path / "b", "players"))
    players = rows(tmp_path / "a", "players")

    def half_width(p):  # the players of a round are one sample (cluster-robust Wilson interval)
        c = sim.stats.clustered((p["open_turn"] <= 3).fill_null(False).to_numpy(), p["round_id"].to_numpy(), True)
        return (c["ci_high"] - c["ci_low"]) / 2

    assert half_width(players) <= 0.02
    assert half_width(players.filter(pl.col("round_id") < used - 100)) > 0.02  # one chunk less is not enough


def test_until_ci_for_a_mean_and_for_deal_stats(tmp_path):
    target = parse_target("mean_score_seat_0=4", RUMMY101.metrics, 4)
    rep = runner.run(runner.RunSpec((runner.Variant(RULES),), 50000, 2, ("greedy",), 500, until=target),
                     tmp_path / "m", jobs=2, progress=False)
    assert rep.widths["all rounds"] <= 4
    from sim import dealstats

    d = dealstats.run_deal_stats(RULES, 22, 200000, seed=1, jobs=2, progress=False, chunk=1000,
                                 until=parse_target("p_open=0.01", DEAL_METRICS))
    n = d.table.height
    k = int(d.table["can_open"].sum())
    lo, hi = sim.stats.wilson_interval(k, n)
    assert n < 200000 and (hi - lo) / 2 <= 0.01
    e = dealstats.run_deal_stats(RULES, 22, 200000, seed=1, jobs=1, progress=False, chunk=1000,
                                 until=parse_target("p_open=0.01", DEAL_METRICS))
    assert e.table.equals(d.table)


@pytest.mark.slow
def test_until_ci_in_a_sweep_stops_each_variant_on_its_own(tmp_path):
    variants = runner.grid_variants(RULES, {"players": ["2", "4"]})
    target = parse_target("stock_out=0.03", RUMMY101.metrics, 2)
    rep = runner.run(runner.RunSpec(variants, 5000, 6, ("greedy",), 100, kind="sweep", until=target),
                     tmp_path / "s", jobs=2, progress=False)
    assert set(rep.used) == {"players=2", "players=4"}
    r = runner.scan(tmp_path / "s", "rounds").collect()
    for v, used in rep.used.items():
        sub = r.filter(pl.col("players") == int(v.split("=")[1]))
        assert sub.height == used
        k = int((sub["finish"].cast(pl.String) == "stock_out").sum())
        lo, hi = sim.stats.wilson_interval(k, sub.height)
        assert (hi - lo) / 2 <= 0.03
    assert rep.used["players=2"] != rep.used["players=4"]  # a rarer event needs fewer rounds


@pytest.mark.parametrize(("arg", "message"), [
    ("p_open_by_turn_3", "METRIC=HALFWIDTH"),
    ("p_open_by_turn_3=-1", "positive"),
    ("luck=0.1", "unknown metric 'luck'"),
    ("win_seat_7=0.01", "seats are 0-3"),
    ("p_open_by_turn_0=0.1", "turns count from 1"),
])
def test_bad_until_ci_is_one_clear_line(arg, message, tmp_path):
    r = CliRunner().invoke(app, ["run", "--until-ci", arg, "--out", str(tmp_path / "x"), "--no-progress"])
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x").exists()
