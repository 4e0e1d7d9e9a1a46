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


def test_explorer_figure_names_each_points_value_on_hover(small_data):
    """The explorer's figure is inline SVG whose every point carries its row, difference,
    interval and paired units as an SVG <title> (a browser's tooltip), the numbers of the
    comparison it draws; the tips leave the PNG a report shows as it was."""
    import io
    import xml.etree.ElementTree as ET

    import matplotlib.pyplot as plt

    from sim import plots

    ds = A.open_dataset(small_data / "variants")
    comp = A.compare_variants(ds, {"threshold_mode": "fixed"}, ["opened_by_3"]) \
        .with_columns(pl.lit("threshold_mode vs fixed").alias("field"))
    fig = plots.paired_forest(comp, ("opened_by_3",), tips=True)
    root = ET.fromstring(plots.svg_with_tips(fig))
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert len(titles) == comp.height
    for r in comp.iter_rows(named=True):
        low, high = 100 * r["ci_low"], 100 * r["ci_high"]
        tip = next(t for t in titles if t.startswith(f"{r['variant']} (threshold_mode vs fixed): "))
        diff, interval = tip.split(": ")[1].split(" [")
        assert float(diff) == pytest.approx(100 * r["diff"], abs=(high - low) / 8 + 1e-9)
        bounds = [float(x) for x in interval.split("]")[0].split(", ")]
        assert bounds == pytest.approx([low, high], abs=(high - low) / 8)
        assert tip.endswith(f"points of %, {r['n']:,} paired")
    assert not any(g.get("id", "").startswith("tip:") for g in root.iter())  # the text moved into the title
    pngs = []
    for tips in (False, True):
        fig = plots.paired_forest(comp, ("opened_by_3",), tips=tips)
        out = io.BytesIO()
        fig.savefig(out, format="png")
        plt.close(fig)
        pngs.append(plt.imread(io.BytesIO(out.getvalue())))
    assert (pngs[0] == pngs[1]).all()
