"""Dealt-rack statistics: same seed, same table whatever --jobs and chunking; Parquet with
provenance; summary intervals; a statistical check against an independent count."""

import json

import numpy as np
import polars as pl
import pytest
from scipy import stats as scipy_stats

import sim
from sim import dealstats
from sim.deal import deal_racks
from sim.reference.opening import best_value, most_pairs
from sim.stats import wilson_interval
from sim.store import read_metadata

RULES = sim.preset("rummy101")


def test_same_seed_same_table_whatever_jobs_and_chunks():
    a = dealstats.run_deal_stats(RULES, 22, 3000, seed=9, jobs=1, progress=False, chunk=3000)
    b = dealstats.run_deal_stats(RULES, 22, 3000, seed=9, jobs=2, progress=False, chunk=700)
    assert a.table.equals(b.table)
    c = dealstats.run_deal_stats(RULES, 22, 3000, seed=10, jobs=1, progress=False)
    assert not a.table.equals(c.table)


def test_rows_are_the_solver_on_the_dealt_racks():
    res = dealstats.run_deal_stats(RULES, 21, 40, seed=3, jobs=1, progress=False)
    racks = deal_racks(3, 0, 40, 21)
    assert res.table["value"].to_list() == [best_value(r, RULES) for r in racks]
    assert res.table["pairs"].to_list() == [most_pairs(r, RULES) for r in racks]
    t = res.table
    assert (t["can_open"] == (t["can_open_melds"] | t["can_open_pairs"])).all()
    assert (t["can_open_melds"] == (t["value"] >= 101)).all()
    assert (t["can_open_pairs"] == (t["pairs"] >= 5)).all()


def test_parquet_carries_provenance(tmp_path):
    res = dealstats.run_deal_stats(RULES, 22, 500, seed=4, jobs=1, progress=False)
    out = tmp_path / "d.parquet"
    dealstats.write(res, out)
    meta = read_metadata(out)
    assert sim.Rules.from_json(meta["rules"]) == RULES
    assert (meta["seed"], meta["version"], meta["kind"]) == ("4", sim.__version__, "deal-stats")
    assert meta["git_commit"]
    table, _ = dealstats.load(out)
    assert table.equals(res.table)
    assert not list(tmp_path.glob(".*tmp"))


def test_summary_shares_and_wilson_intervals():
    res = dealstats.run_deal_stats(RULES, 22, 2000, seed=5, jobs=1, progress=False)
    s = res.summary()
    k = int(res.table["can_open"].sum())
    assert s["p_open"]["estimate"] == k / 2000
    ci = scipy_stats.binomtest(k, 2000).proportion_ci(confidence_level=0.95, method="wilson")
    assert s["p_open"]["ci_low"] == pytest.approx(ci.low, abs=1e-12)
    assert s["p_open"]["ci_high"] == pytest.approx(ci.high, abs=1e-12)
    assert s["mean_value"] == pytest.approx(res.table["value"].mean())
    assert sum(s["pairs_distribution"].values()) == pytest.approx(1.0)
    json.dumps(s)


def test_wilson_interval_vectorised_matches_scipy():
    ks, ns = np.array([0, 1, 37, 500, 999]), np.array([10, 10, 100, 1000, 1000])
    lo, hi = wilson_interval(ks, ns)
    for k, n, a, b in zip(ks, ns, lo, hi, strict=True):
        ci = scipy_stats.binomtest(int(k), int(n)).proportion_ci(method="wilson")
        assert (a, b) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_share_of_racks_with_a_joker_matches_the_deal_probability():
    """P(a 21-tile rack holds a joker) = 1 - C(104,21)/C(106,21); the table's jokers column
    must agree within 4 standard errors (fixed seed)."""
    n = 20_000
    res = dealstats.run_deal_stats(RULES, 21, n, seed=11, jobs=1, progress=False)
    p = 1 - (85 / 106) * (84 / 105)
    got = float((res.table["jokers"] > 0).mean())
    assert abs(got - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_bad_settings_are_refused():
    with pytest.raises(sim.RulesError, match=r"rack-size"):
        dealstats.run_deal_stats(RULES, 0, 10, seed=1, progress=False)
    with pytest.raises(sim.RulesError, match="samples"):
        dealstats.run_deal_stats(RULES, 21, 0, seed=1, progress=False)
    with pytest.raises(sim.RulesError, match="seed"):
        dealstats.run_deal_stats(RULES, 21, 10, seed=-1, progress=False)
    with pytest.raises(sim.RulesError, match=r"rack-size: must be 1-52 for rummy101-cards"):
        dealstats.run_deal_stats(sim.preset("rummy101-cards"), 60, 10, seed=1, progress=False)


def test_foreign_file_is_not_overwritten(tmp_path):
    foreign = tmp_path / "mine.parquet"
    pl.DataFrame({"x": [1]}).write_parquet(foreign)
    with pytest.raises(sim.DatasetError, match="not a deal-stats table"):
        dealstats.prepare_output(foreign, overwrite=False)
    assert pl.read_parquet(foreign)["x"].to_list() == [1]
    with pytest.raises(sim.DatasetError, match=r"\.parquet"):
        dealstats.prepare_output(tmp_path / "out.csv", overwrite=False)
    corrupt = tmp_path / "bad.parquet"
    corrupt.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(sim.DatasetError, match=r"bad\.parquet"):
        dealstats.load(corrupt)
