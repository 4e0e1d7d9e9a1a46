"""The report's first screen and its downloads (issue 23, part 2): the at-a-glance effects
are the paired differences the data give, computed here the plain way; a seat's edge is
what it wins alone beyond an even split; every table is also a CSV with its intervals as
numbers; the HTML has a table of contents."""

import re

import numpy as np
import polars as pl
import pytest

from sim import analysis as A
from sim.report import FEW_UNITS, build_report, csv_frame


@pytest.fixture(scope="module")
def report(small_data, tmp_path_factory):
    """One report of a Rummy 101 sweep, a card sweep and the same threshold sweep twice (as
    two sweeps of one seed sharing a baseline repeat a comparison)."""
    import shutil

    root = tmp_path_factory.mktemp("glance")
    shutil.copytree(small_data / "thresholds", root / "again")
    build_report([small_data / "variants", small_data / "cards", small_data / "thresholds", root / "again"],
                 root / "r", command="sim report ...",
                 baseline={"players": "4", "threshold_mode": "fixed", "target": "101", "open_points": "91"})
    return root / "r"


def _csv_of(out, heading_slug):
    return pl.read_csv(sorted((out / "tables").glob(f"[0-9][0-9]-{heading_slug}.csv"))[0])


def test_glance_turns_effect_is_the_plain_paired_mean_difference(small_data, report):
    """players=2 against 4 (threshold_mode fixed): the mean over the paired rounds of the
    turns at 2 players minus the turns at 4, as the table prints it (its decimals)."""
    rounds = pl.read_parquet(small_data / "variants" / "rounds", hive_partitioning=True)
    fixed = rounds.filter(pl.col("threshold_mode") == "fixed")
    two = fixed.filter(pl.col("players") == 2).select("round_id", pl.col("turns").alias("t2"))
    four = fixed.filter(pl.col("players") == 4).select("round_id", pl.col("turns").alias("t4"))
    paired = two.join(four, on="round_id")
    expected = float((paired["t2"] - paired["t4"]).mean())
    table = _csv_of(report, "at-a-glance")
    row = table.filter(pl.col("rule") == "players=2 vs 4").row(0, named=True)
    value, low, high = (row[f"turns a round (turns){s}"] for s in ("", " ci_low", " ci_high"))
    # printed to a quarter of the interval's half-width or finer (sim.plots.effect_text)
    assert abs(value - expected) <= (high - low) / 8 + 1e-9
    assert low < value < high
    # 150 rounds a variant: the row is marked as resting on few rounds
    assert FEW_UNITS > 150
    assert "| players=2 vs 4 | 150 (few) |" in (report / "report.md").read_text()


def test_seat0_edge_is_its_wins_beyond_an_even_split(small_data):
    """seat0_edge of a round: 1 if the starter won alone, minus 1/players if anyone did."""
    ds = A.open_dataset(small_data / "variants")
    got = A.round_metrics(ds).select("round_id", *ds.keys, "seat0_edge").collect()
    players = pl.read_parquet(small_data / "variants" / "players", hive_partitioning=True)
    rounds = pl.read_parquet(small_data / "variants" / "rounds", hive_partitioning=True)
    expected = {}
    for r in rounds.iter_rows(named=True):
        n = r["players"]
        winner = r["winner_seat"]
        expected[(r["round_id"], r["players"], r["threshold_mode"])] = \
            (1.0 if winner == 0 else 0.0) - (1.0 / n if winner is not None else 0.0)
    assert players.height > 0 and len(expected) == got.height
    for r in got.iter_rows(named=True):
        assert r["seat0_edge"] == pytest.approx(expected[(r["round_id"], r["players"], r["threshold_mode"])])


def test_first_dealer_edge_is_its_side_wins_beyond_an_even_split(small_data):
    ds = A.open_dataset(small_data / "cards")
    got = A.round_metrics(ds).collect()
    sides = np.where(got["partners"].to_numpy(), 2, got["players"].to_numpy()) if "partners" in got.columns \
        else got["players"].to_numpy()
    assert np.allclose(got["first_dealer_edge"].to_numpy(), got["first_dealer_win"].to_numpy() - 1 / sides)


def test_every_table_has_its_csv_with_intervals_as_numbers(report):
    md = (report / "report.md").read_text()
    links = re.findall(r"\[This table as CSV\]\((tables/[^)]+\.csv)\)", md)
    assert len(links) == md.count("\n| --- ") + md.count("\n| ---: ") >= 10
    assert sorted(p.relative_to(report).as_posix() for p in (report / "tables").glob("*.csv")) == sorted(links)
    for rel in links:
        table = pl.read_csv(report / rel)
        assert table.height > 0
        for low in [c for c in table.columns if c.endswith(" ci_low")]:
            name = low.removesuffix(" ci_low")
            ok = table.filter(pl.col(name).is_not_null())
            assert (ok[low] <= ok[name]).all() and (ok[name] <= ok[f"{name} ci_high"]).all(), (rel, name)


def test_csv_frame_splits_intervals_and_keeps_text():
    df = pl.DataFrame({"variant": ["a", "b"], "wins": ["12.3% [11.9%, 12.7%]", "–"],
                       "edge": ["+0.42 pts [+0.10, +0.74]", "-1.00 pts [-2.00, -0.50]"],
                       "rounds": ["1,000", "20"], "note": ["12 [1, 2] x", "y"]})
    out = csv_frame(df)
    assert out.columns == ["variant", "wins (%)", "wins (%) ci_low", "wins (%) ci_high", "edge (points of %)",
                           "edge (points of %) ci_low", "edge (points of %) ci_high", "rounds", "note"]
    assert out.row(0) == ("a", 12.3, 11.9, 12.7, 0.42, 0.10, 0.74, 1000, "12 [1, 2] x")
    assert out.row(1)[1:4] == (None, None, None) and out["rounds"].dtype == pl.Int64


def test_html_has_contents_linking_every_section(report):
    html = (report / "report.html").read_text()
    contents = html.split('<details class="contents">', 1)[1].split("</details>", 1)[0]
    for anchor in re.findall(r'<h2 id="([^"]+)"', html):
        assert f'href="#{anchor}"' in contents, anchor
    assert html.index("At a glance") < html.index("Key numbers")



def test_a_comparison_two_sweeps_share_is_shown_once(report):
    """The threshold sweep given twice: its rows appear once on the glance screen."""
    table = _csv_of(report, "at-a-glance")
    assert table.filter(pl.col("rule") == "open_points=111 vs 91")["dataset"].to_list() == ["thresholds"]
