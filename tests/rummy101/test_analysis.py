"""sim.analysis against answers worked out by hand on a tiny fixed sweep
(tests/analysis_fixture.py), and its errors on damaged or foreign data."""

import polars as pl
import pytest

import sim
from sim import analysis as A
from sim import runner
from sim.errors import DatasetError
from tests import analysis_fixture


@pytest.fixture(scope="module")
def ds(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny")
    analysis_fixture.build(path)
    return A.open_dataset(path)


def pick(df, **where):
    return df.filter(*[pl.col(k) == v for k, v in where.items()])


def test_opened_by_turn(ds):
    df = A.opened_by_turn(ds, max_turn=5)
    seat0 = pick(df, threshold_mode="fixed", seat=0).sort("turn")
    assert seat0["k"].to_list() == [0, 1, 1, 2, 2]  # open turns 2, never, 4
    assert seat0["n"].to_list() == [3] * 5
    seat1 = pick(df, threshold_mode="fixed", seat=1).sort("turn")
    assert seat1["share"].to_list() == pytest.approx([1 / 3, 1 / 3, 2 / 3, 2 / 3, 1.0])
    assert (df["ci_low"] <= df["share"]).all() and (df["share"] <= df["ci_high"]).all()
    # every seat together: the seats' counts added
    pooled = A.opened_by_turn(ds, max_turn=5, seats=False)
    assert "seat" not in pooled.columns
    added = df.group_by("threshold_mode", "players", "turn").agg(pl.col("k").sum(), pl.col("n").sum())
    both = pooled.join(added, on=["threshold_mode", "players", "turn"], suffix="_seats")
    assert both.height == pooled.height
    assert (both["k"] == both["k_seats"]).all() and (both["n"] == both["n_seats"]).all()


def test_opening_kinds_and_discard_openings(ds):
    kinds = pick(A.opening_kinds(ds), threshold_mode="fixed")
    assert dict(zip(kinds["open_kind"], kinds["k"], strict=True)) == {"melds": 4, "pairs": 1, "never": 1}
    assert kinds["n"].unique().to_list() == [6]
    took = pick(A.discard_openings(ds), threshold_mode="fixed")
    assert dict(zip(took["open_kind"], took["share"], strict=True)) == {"melds": 0.25, "pairs": 1.0}


def test_opening_values(ds):
    v = pick(A.opening_values(ds), threshold_mode="increasing")
    assert v["open_value"].to_list() == [105, 107, 130, 131]
    assert v["share"].to_list() == [0.25] * 4


def test_threshold_by_order_in_increasing_mode(ds):
    t = pick(A.threshold_by_order(ds), threshold_mode="increasing")
    assert t["open_order"].to_list() == [1, 2]
    assert t["mean"].to_list() == [101, 118.5]
    assert t["mean_value"].to_list() == [117.5, 119]


def test_never_opened_and_round_length(ds):
    never = A.never_opened(ds)
    assert pick(never, threshold_mode="fixed")["share"].item() == pytest.approx(1 / 6)
    assert pick(never, threshold_mode="increasing")["share"].item() == pytest.approx(2 / 6)
    length = A.round_length(ds)
    assert pick(length, threshold_mode="fixed")["mean"].item() == pytest.approx(62 / 3)
    assert pick(length, threshold_mode="increasing")["median"].item() == 14


def test_penalties_scores_finishes_and_winner_gain(ds):
    pen = pick(A.penalties(ds), threshold_mode="fixed")
    assert pen["n"].item() == 4 and pen["mean"].item() == pytest.approx((40 + 202 + 7 + 30) / 4)
    by_kind = pick(A.penalties(ds, by=["threshold_mode", "open_kind"]), threshold_mode="fixed")
    assert by_kind.sort("open_kind", nulls_last=True)["mean"].to_list() == pytest.approx([18.5, 40, 202])
    fin = pick(A.finish_rates(ds), threshold_mode="fixed")
    assert dict(zip(fin["finish"], fin["k"], strict=True)) == {
        "joker": 1, "normal": 1, "one_turn": 0, "one_turn_joker": 0, "stock_out": 1}
    gain = pick(A.winner_gain(ds), threshold_mode="fixed")
    assert gain["mean"].item() == 151.5 and gain["share_doubled"].item() == 0.5
    sc = pick(A.scores(ds), threshold_mode="increasing", seat=1)
    assert sc["mean"].item() == pytest.approx((-12 - 202 + 101) / 3)
    hist = pick(A.score_histogram(ds, width=100), threshold_mode="fixed")
    # bins are floor(score / 100) * 100
    assert dict(zip(hist["bin"], hist["k"], strict=True)) == {-300: 1, -100: 3, 100: 1, 200: 1}


def test_paired_differences_against_the_baseline(ds):
    c = A.compare_variants(ds, {"threshold_mode": "fixed"})
    assert c["variant"].unique().to_list() == ["threshold_mode=increasing"]
    row = {r["metric"]: r for r in c.iter_rows(named=True)}
    assert row["turns"]["diff"] == pytest.approx(0)  # 0, -2, +2
    assert row["seat0_score"]["diff"] == pytest.approx(7)  # 0, 0, +21
    assert row["never_opened"]["diff"] == pytest.approx(0.5 / 3)
    assert row["joker_finish"]["baseline"] == pytest.approx(1 / 3) and row["joker_finish"]["value"] == 0
    assert all(r["n"] == 3 for r in row.values())
    with pytest.raises(sim.DatasetError, match="unknown metric"):
        A.compare_variants(ds, {"threshold_mode": "fixed"}, ["luck"])
    with pytest.raises(sim.DatasetError, match="must name swept fields"):
        A.compare_variants(ds, {"players": 2})


def test_threshold_curve_on_a_real_sweep(tmp_path):
    from sim import runner

    variants = runner.grid_variants(sim.preset("rummy101"), {"open_points": ["81", "121"]})
    runner.run(runner.RunSpec(variants, 300, 3, ("greedy",), 300, kind="sweep"), tmp_path / "s",
               jobs=1, progress=False)
    curve = A.threshold_curve(A.open_dataset(tmp_path / "s"), turn=3)
    assert curve["open_points"].to_list() == [81, 121]
    p81, p121 = curve["p_open"].to_list()
    assert p81 > p121  # a lower bar opens more players by their third turn
    assert (curve["p_ci_low"] < curve["p_open"]).all()


def test_damaged_or_foreign_data_is_named(tmp_path):
    with pytest.raises(sim.DatasetError, match="manifest"):
        A.open_dataset(tmp_path)
    analysis_fixture.build(tmp_path / "d")
    bad = next((tmp_path / "d" / "players").rglob("*.parquet"))
    bad.write_bytes(b"not parquet at all")
    with pytest.raises(sim.DatasetError, match=bad.name):
        A.open_dataset(tmp_path / "d")
    with pytest.raises(sim.DatasetError, match="deal-stats"):
        A.deal_open_shares([next((tmp_path / "d" / "rounds").rglob("*.parquet"))])


def test_missing_data_and_single_runs_say_what_to_do(tmp_path):
    """A newcomer's first errors name the missing folder and the command that makes it."""
    with pytest.raises(sim.DatasetError, match=r"is not there.*make notebook-data"):
        A.open_dataset(tmp_path / "nothing")
    with pytest.raises(sim.DatasetError, match="sim deal-stats"):
        A.deal_open_shares([tmp_path / "deal-21.parquet"])
    run = tmp_path / "run"
    sim_run = runner.RunSpec((runner.Variant(sim.preset("rummy101").replace(players=2)),), 20, 1, ("greedy",), 20)
    runner.run(sim_run, run, jobs=1, progress=False)
    with pytest.raises(sim.DatasetError, match=r"single run: comparing variants needs a sweep.*sim sweep"):
        A.compare_variants(A.open_dataset(run), {"players": "2"})


def test_rummikub_sweep_answers_with_its_own_finishes_and_metrics(small_data):
    """The analysis helpers serve Rummikub datasets: finishes out/blocked/last_call, win
    shares by seat, and the paired effect of the bar with Rummikub's metrics."""
    ds = A.open_dataset(small_data / "rummikub")
    assert ds.family == "rummikub"
    fin = A.finish_rates(ds)
    assert set(fin["finish"]) == {"out", "blocked", "last_call"}
    assert fin.group_by("players", "open_points").agg(pl.col("share").sum())["share"].round(9).to_list() == [1.0] * 4
    wins = A.win_shares(ds)
    assert wins.filter(pl.col("players") == 2).group_by("open_points").agg(pl.col("share").sum())["share"].max() <= 1
    assert "pool_empty" in A.metrics_of(ds) and "stock_out" not in A.metrics_of(ds)
    comp = A.compare_variants(ds, {"open_points": 30}, ["opened_by_3", "pool_empty"])
    bar50 = comp.filter(pl.col("metric") == "opened_by_3")
    assert (bar50["diff"] < 0).all()  # a higher bar: fewer players opened by their third turn
    with pytest.raises(DatasetError, match="stock_out"):
        A.compare_variants(ds, {"open_points": 30}, ["stock_out"])
