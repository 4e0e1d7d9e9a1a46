"""The notebooks' tables and explorer (sim.display, issue 23 part 3): an estimate and its
interval in one cell, as the numbers say; paired effects one row a variant; the explorer's
controls follow the dataset chosen."""

import polars as pl
import pytest

from sim import analysis as A
from sim import display as D


def test_compact_puts_an_estimate_and_its_interval_in_one_cell():
    df = pl.DataFrame({"players": [4], "k": [1234], "n": [10000], "share": [0.1234], "ci_low": [0.1170],
                       "ci_high": [0.1299], "mean": [3.14159]})
    out = D.compact(df)
    assert out.columns == ["players", "k", "n", "share", "mean"]
    assert out.row(0) == (4, "1,234", "10,000", "12.3% [11.7, 13.0]", "3.1")


def test_compact_signs_differences_and_edges():
    df = pl.DataFrame({"win_edge": [0.0123], "win_edge_ci_low": [-0.002], "win_edge_ci_high": [0.0266]})
    assert D.compact(df)["win_edge"].to_list() == ["+1.2% [-0.2, +2.7]"]


def test_effects_is_one_row_a_variant_in_the_reports_units(small_data):
    ds = A.open_dataset(small_data / "variants")
    comp = A.compare_variants(ds, {"threshold_mode": "fixed"}, ["opened_by_3", "turns"])
    table = D.effects(comp)
    assert table.height == comp["variant"].n_unique() == 2
    assert table.columns == ["variant", "paired", "opened by 3 (points of %)", "turns (turns)"]
    row = comp.filter(pl.col("metric") == "opened_by_3").row(0, named=True)
    cell = table.filter(pl.col("variant") == row["variant"])["opened by 3 (points of %)"].item()
    shown = float(cell.split(" ")[0])
    assert shown == pytest.approx(100 * row["diff"], abs=(100 * (row["ci_high"] - row["ci_low"])) / 8 + 1e-9)
    assert D.table(table, "effects").as_raw_html().count("<tr") >= 3


def test_explorer_controls_follow_the_dataset(small_data):
    pytest.importorskip("ipywidgets")
    box = D.explorer({"variants": small_data / "variants", "cards": small_data / "cards"}, metric="turns",
                     baseline={"threshold_mode": "fixed"})
    (dataset, compared), (baseline, metric) = (row.children for row in box.children[:2])
    assert (dataset.value, compared.value, baseline.value, metric.value) == ("variants", "threshold_mode",
                                                                              "fixed", "turns")
    assert set(compared.options) == {"players", "threshold_mode"}
    dataset.value = "cards"  # another family: its swept fields, its values, its metrics
    assert set(compared.options) == {"players", "target"} and baseline.value in baseline.options
    assert "hands" in metric.options and "turns" not in metric.options
