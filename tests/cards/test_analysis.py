"""Card Rummy 101 datasets through sim.analysis and sim report: every answer recomputed
by hand from the three tables (match wins by seat and first dealer, hands a match,
finishes, rummy worth, comebacks, paired rule effects), the report's card sections, and a
damaged card dataset named clearly."""

from collections import defaultdict

import numpy as np
import polars as pl
import pytest

from sim import analysis as A
from sim.errors import DatasetError


@pytest.fixture(scope="module")
def ds(small_data):
    return A.open_dataset(small_data / "cards")


@pytest.fixture(scope="module")
def tables(ds):
    return {name: lf.collect() for name, lf in ds.tables.items()}


def test_the_dataset_has_three_tables_and_matches_as_its_unit(ds, tables):
    assert ds.family == "rummy101-cards" and ds.unit_id == "match_id" and ds.cluster == "match_id"
    assert set(tables) == {"matches", "hands", "players"} and set(ds.keys) == {"players", "target"}
    assert tables["matches"].height == 4 * 60
    assert {"first_dealer", "match_winner_seat", "finish", "points"} <= set(tables["players"].columns)


def test_match_wins_and_first_dealer_wins_by_hand(ds, tables):
    m = tables["matches"]
    wins = A.match_wins(ds)
    by_dealer = A.first_dealer_wins(ds)
    for (players, target), sub in m.group_by("players", "target"):
        w = wins.filter((pl.col("players") == players) & (pl.col("target") == target))
        counts = sub["winner_seat"].value_counts()
        assert dict(zip(w["side"].to_list(), w["k"].to_list(), strict=True)) == dict(counts.iter_rows())
        assert (w["n"] == sub.height).all() and abs(w["share"].sum() - 1) < 1e-9
        pos = ((sub["winner_seat"].cast(pl.Int16) - sub["first_dealer"]) % int(players)).value_counts()
        d = by_dealer.filter((pl.col("players") == players) & (pl.col("target") == target))
        assert dict(zip(d["position"].to_list(), d["k"].to_list(), strict=True)) == dict(pos.iter_rows())
        assert ((d["ci_low"] <= d["share"]) & (d["share"] <= d["ci_high"])).all()


def test_hands_a_match_finishes_and_rummy_worth_by_hand(ds, tables):
    m, h = tables["matches"], tables["hands"]
    length = A.hands_per_match(ds)
    fin = A.hand_finishes(ds)
    worth = A.rummy_worth(ds)
    for (players, target), sub in m.group_by("players", "target"):
        key = (pl.col("players") == players) & (pl.col("target") == target)
        row = length.filter(key).row(0, named=True)
        assert row["matches"] == sub.height and abs(row["hands"] - sub["hands"].mean()) < 1e-9
        assert row["hands_ci_low"] < row["hands"] < row["hands_ci_high"]
        hands = h.filter(key)
        for r in fin.filter(key).iter_rows(named=True):
            mine = hands.filter(pl.col("finish") == r["finish"])
            assert r["k"] == mine.height and r["n"] == hands.height
            assert abs(r["points"] - mine["points"].mean()) < 1e-9
        scored = hands.filter(pl.col("finish") != "wash")
        w = worth.filter(key).row(0, named=True)
        assert w["hands"] == scored.height and abs(w["points"] - scored["points"].mean()) < 1e-9
        assert abs(w["rummy_share"] - (scored["finish"] == "rummy").mean()) < 1e-9


def test_comeback_by_hand(ds, tables):
    """The seats that trailed the leader by 25 or more after some hand, and those of them
    that won, counted in plain Python from the players table."""
    players = tables["players"].sort("match_id", "hand", "seat")
    totals = defaultdict(dict)
    for r in players.iter_rows(named=True):
        totals[(r["players"], r["target"], r["match_id"], r["hand"])][r["seat"]] = r["total"]
    winner = {(r["players"], r["target"], r["match_id"]): r["winner_seat"]
              for r in tables["matches"].iter_rows(named=True)}
    trailed = set()
    for (p, t, match, _), seats in totals.items():
        top = max(seats.values())
        trailed |= {(p, t, match, s) for s, x in seats.items() if top - x >= 25}
    back = A.comeback(ds, (25,)).filter(pl.col("deficit") == 25)
    for r in back.iter_rows(named=True):
        mine = [k for k in trailed if k[:2] == (r["players"], r["target"])]
        assert r["n"] == len(mine)
        assert r["k"] == sum(winner[k[:3]] == k[3] for k in mine)


def test_paired_target_effect_by_hand(ds, tables):
    comp = A.compare_variants(ds, {"target": 101}, ["hands", "first_dealer_win"])
    m = tables["matches"]
    for players in (2, 4):
        a = m.filter((pl.col("players") == players) & (pl.col("target") == 200)).sort("match_id")
        b = m.filter((pl.col("players") == players) & (pl.col("target") == 101)).sort("match_id")
        row = comp.filter((pl.col("variant") == f"players={players}, target=200") & (pl.col("metric") == "hands"))
        d = (a["hands"] - b["hands"]).to_numpy().astype(float)
        assert row["n"].item() == 60 and abs(row["diff"].item() - d.mean()) < 1e-9
        half = 1.959963984540054 * d.std(ddof=1) / np.sqrt(d.size)
        assert abs((row["ci_high"].item() - row["diff"].item()) - half) < 0.02 * half
    with pytest.raises(DatasetError, match="unknown metric"):
        A.compare_variants(ds, {"target": 101}, ["opened_by_3"])


def test_C_WASH_1_paired_effects_over_hands_pool_the_hands_as_the_tables_do(ds, small_data, tmp_path):
    """A match always ends on a scored hand, so a per-match share of washes grows with the
    match's length; the paired effects of the metrics over hands are ratio estimators
    instead: their levels and differences are the pooled figures of the hand tables, and
    their intervals (clustered by match) those of the tables too."""
    import sim
    from sim import runner

    comp = A.compare_variants(ds, {"target": 101}, ["wash_share", "rummy_share", "mean_points"])
    finishes = A.hand_finishes(ds, ["players", "target"])
    worth = A.rummy_worth(ds, ["players", "target"])

    def table(players, target):
        f = finishes.filter((pl.col("players") == players) & (pl.col("target") == target))
        share = {r["finish"]: r["share"] for r in f.iter_rows(named=True)}
        w = worth.filter((pl.col("players") == players) & (pl.col("target") == target)).row(0, named=True)
        return {"wash_share": share.get("wash", 0.0), "rummy_share": share.get("rummy", 0.0),
                "mean_points": w["points"]}

    for players in (2, 4):
        long, short = table(players, 200), table(players, 101)
        for r in comp.filter(pl.col("variant") == f"players={players}, target=200").iter_rows(named=True):
            m = r["metric"]
            assert r["value"] == pytest.approx(long[m]) and r["baseline"] == pytest.approx(short[m])
            assert r["diff"] == pytest.approx(long[m] - short[m])
            assert r["ci_low"] <= r["diff"] <= r["ci_high"]
    # the levels beside another bot's: the pooled mean points with the table's own interval
    variants = runner.grid_variants(sim.preset("rummy101-cards"), {"players": ["2", "4"], "target": ["101", "200"]})
    runner.run(runner.RunSpec(variants, 60, 3, ("careful",), 60, kind="sweep"), tmp_path / "careful", jobs=1,
               progress=False)
    levels = A.bot_levels(ds, A.open_dataset(tmp_path / "careful"), ["mean_points", "wash_share"])
    for r in worth.iter_rows(named=True):
        at = levels.filter((pl.col("players") == r["players"]) & (pl.col("target") == r["target"]))
        points = at.filter(pl.col("metric") == "mean_points").row(0, named=True)
        assert points["n"] == 60 and points["a_mean"] == pytest.approx(r["points"])
        assert (points["a_ci_low"], points["a_ci_high"]) == pytest.approx((r["points_ci_low"], r["points_ci_high"]))


def test_report_has_the_card_sections(small_data, tmp_path):
    from sim.report import build_report

    build_report([small_data / "cards"], tmp_path / "r", baseline={"target": "101"})
    text = (tmp_path / "r" / "report.md").read_text()
    assert text.startswith("# card Rummy 101 balancing report")
    for heading in ("### The variants at a glance", "### Who wins a match", "### What going rummy is worth",
                    "### Coming back from behind", "### What each rule changes"):
        assert heading in text
    assert "60 matches per variant" in text and "card Rummy 101, players=2, target=101" in text
    assert sorted(f.name for f in (tmp_path / "r" / "figures").glob("*.png")) == [
        "01-rummy101-cards-at-a-glance.png", "02-cards-points.png", "03-cards-comeback.png", "04-cards-rules.png"]
    # the comeback figure has a panel per target: the longer match forgives more (issue 23)
    assert "Card Rummy 101: the chance to win after trailing by N points, a panel per target." in text


def test_a_card_dataset_without_its_hands_is_named(small_data, tmp_path):
    import shutil

    shutil.copytree(small_data / "cards", tmp_path / "c")
    shutil.rmtree(tmp_path / "c" / "hands")
    with pytest.raises(DatasetError, match="no hands files"):
        A.open_dataset(tmp_path / "c")
