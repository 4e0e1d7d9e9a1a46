"""Runs on dask.distributed through joblib's dask backend: a LocalCluster of 2 workers on
loopback gives exactly the data of a local run with the same seed."""

import json

import pytest
from typer.testing import CliRunner

import sim
from sim import dealstats, runner
from sim.cli import app

distributed = pytest.importorskip("distributed", reason='needs the cluster extra: pip install -e ".[cluster]"')

RULES = sim.preset("rummy101")


def load(out, table):
    return runner.scan(out, table).collect().sort("round_id", *(["seat"] if table == "players" else []))


@pytest.mark.slow
def test_local_cluster_run_and_sweep_equal_local_runs(tmp_path):
    variants = runner.grid_variants(RULES, {"threshold_mode": ["fixed", "increasing"]})
    spec = runner.RunSpec(variants, 1200, 8, ("greedy",), 300, kind="sweep")
    local = runner.run(spec, tmp_path / "local", jobs=2, progress=False)
    on_dask = runner.run(spec, tmp_path / "dask", cluster="local:2", progress=False)
    assert "dask LocalCluster" in on_dask.where and local.played == on_dask.played == 2400
    for table in ("rounds", "players"):
        assert load(tmp_path / "local", table).equals(load(tmp_path / "dask", table))


@pytest.mark.slow
def test_scheduler_address_and_deal_stats(tmp_path):
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    try:
        r = CliRunner().invoke(app, ["deal-stats", "--samples", "20000", "--seed", "4", "--scheduler",
                                     cluster.scheduler_address, "--out", str(tmp_path / "d.parquet"),
                                     "--json", "--no-progress"])
        assert r.exit_code == 0, r.output
        local = dealstats.run_deal_stats(RULES, 21, 20000, seed=4, jobs=2, progress=False)
        on_dask = json.loads(r.stdout)
        assert on_dask["p_open"]["estimate"] == local.summary()["p_open"]["estimate"]
        import polars as pl

        assert pl.read_parquet(tmp_path / "d.parquet").equals(local.table)
    finally:
        cluster.close()


def test_bad_cluster_options_are_one_clear_line(tmp_path, monkeypatch):
    monkeypatch.setattr("sim.parallel.CONNECT_TIMEOUT", "2s")  # nothing listens there: no need to wait 20 s
    cli = CliRunner()
    r = cli.invoke(app, ["run", "--cluster", "remote", "--rounds", "10", "--out", str(tmp_path / "x"), "--no-progress"])
    assert r.exit_code == 2 and "local or local:N" in r.output
    r = cli.invoke(app, ["run", "--cluster", "local", "--scheduler", "tcp://127.0.0.1:1", "--rounds", "10",
                         "--out", str(tmp_path / "y"), "--no-progress"])
    assert r.exit_code == 2 and "not both" in r.output
    r = cli.invoke(app, ["deal-stats", "--scheduler", "tcp://127.0.0.1:1", "--samples", "10",
                         "--out", str(tmp_path / "z.parquet"), "--no-progress"])
    assert r.exit_code == 2 and "cannot connect" in r.output and "Traceback" not in r.output
