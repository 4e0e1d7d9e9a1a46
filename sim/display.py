"""What the notebooks show people: tables they read and controls that redraw a figure.

``table(df)`` turns a frame of :mod:`sim.analysis` into a great_tables table (polars'
``df.style``): an estimate and its 95% interval in one compact cell, shares as
percentages with one decimal, counts with thousands separators, no dtype row.
``effects(comp)`` sets the long rows of :func:`sim.analysis.compare_variants` out as one
row a variant and one column a metric, in the units the reports use. ``explorer(...)``
is a set of ipywidgets (dataset, baseline, metric) whose figure and table redraw when
one changes, the figure inline SVG whose points show their value and interval under the
pointer; run headless (papermill), it draws its defaults once.

Names no game: every family's frames have the same column conventions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl

from sim import analysis as A
from sim import plots
from sim.games import family

# An estimate's column beside ``<prefix>ci_low`` and ``<prefix>ci_high``, in the order looked for.
_ESTIMATES = ("{p}", "{p}share", "{p}mean", "{p}diff", "{p}value")
# Columns that hold shares (0-1), shown as percentages: any name ending in "share", a metric
# the reports give in points of %, and these.
_SHARE_NAMES = ("p_open", "win_edge")


def _is_share(name: str) -> bool:
    return name.endswith("share") or name in _SHARE_NAMES or name in plots.PERCENT_METRICS


def _number(value: float, share: bool, signed: bool = False, digits: int = 1) -> str:
    if value is None:
        return "–"
    sign = "+" if signed else ""
    return f"{100 * value:{sign}.{digits}f}%" if share else f"{value:{sign},.{digits if abs(value) < 1000 else 0}f}"


def _interval_columns(df: pl.DataFrame) -> list[tuple[str, str, str]]:
    """``(estimate, low, high)`` column names of every interval in ``df``."""
    found = []
    for low in [c for c in df.columns if c.endswith("ci_low")]:
        prefix = low[: -len("ci_low")]
        high = f"{prefix}ci_high"
        if high not in df.columns:
            continue
        for pattern in _ESTIMATES:
            name = pattern.format(p=prefix).rstrip("_") if pattern == "{p}" else pattern.format(p=prefix)
            if name and name in df.columns and df[name].dtype.is_numeric():
                found.append((name, low, high))
                break
    return found


def compact(df: pl.DataFrame, percent: Sequence[str] = ()) -> pl.DataFrame:
    """``df`` with each estimate and its interval in one text column (``12.3% [11.9, 12.7]``),
    shares (named so, or in ``percent``) in percent with one decimal, other floats with one,
    counts (integer columns reaching 1,000) with thousands separators; seats, turns and other
    small integers as they are."""
    out = df
    merged = set()
    for est, low, high in _interval_columns(df):
        share = _is_share(est) or est in percent
        signed = est.endswith(("diff", "edge"))
        text = [f"{_number(v, share, signed)} [{_number(lo, share, signed).rstrip('%')}, "
                f"{_number(hi, share, signed).rstrip('%')}]" if v is not None else "–"
                for v, lo, hi in zip(df[est], df[low], df[high], strict=True)]
        out = out.with_columns(pl.Series(est, text))
        merged |= {low, high}
    out = out.drop(merged)
    for name in out.columns:
        col = out[name]
        if col.dtype == pl.String:  # text, or an estimate merged with its interval above
            continue
        if col.dtype.is_float():
            share = _is_share(name) or name in percent
            out = out.with_columns(pl.Series(name, [_number(v, share) for v in col]))
        elif col.dtype.is_integer() and (col.abs().max() or 0) >= 1000:
            out = out.with_columns(pl.Series(name, ["–" if v is None else f"{v:,}" for v in col]))
    return out


def table(df: pl.DataFrame, title: str | None = None, percent: Sequence[str] = ()):
    """``df`` as a great_tables table people read (see :func:`compact`), striped, compact,
    with ``title`` above it."""
    gt = compact(df, percent).style.opt_row_striping().opt_vertical_padding(scale=0.4) \
        .tab_options(table_font_size="13px", column_labels_font_weight="bold")
    return gt.tab_header(title) if title else gt


def effects(comp: pl.DataFrame) -> pl.DataFrame:
    """The rows of :func:`sim.analysis.compare_variants` as one row a variant and one column
    a metric (its unit in the heading: points of % for shares), each cell the paired
    difference with its 95% interval to the decimals the interval warrants, and the rounds
    it pairs."""
    rows = []
    for variant in comp["variant"].unique(maintain_order=True):
        sub = comp.filter(pl.col("variant") == variant)
        row = {"variant": variant, "paired": f"{int(sub['n'].max()):,}"}
        for r in sub.iter_rows(named=True):
            row[plots.metric_heading(r["metric"])] = plots.effect_text(r["diff"], r["ci_low"], r["ci_high"],
                                                                       plots.scale_of(r["metric"]))
        rows.append(row)
    return pl.DataFrame(rows)


def explorer(datasets: Mapping[str, str | Path], metric: str | None = None, baseline: Mapping | None = None):
    """Controls to explore paired effects: the dataset (of ``datasets``, name -> directory),
    the swept field and its baseline value, the metric; below them the paired differences
    of every other variant against the baseline in that metric (a figure whose points name
    their value on hover), then a table of
    it and the family's :attr:`~sim.games.family.Family.glance_metrics`. Defaults: the
    first dataset, its first swept field at ``baseline``'s value (else its first value),
    ``metric`` (else the dataset's first). Returns the widget box: two rows of controls
    (dataset, compared field; baseline value, metric), then the output."""
    import ipywidgets as W
    import matplotlib.pyplot as plt
    from IPython.display import HTML, display

    opened: dict[str, A.Dataset] = {}

    def dataset(name: str) -> A.Dataset:
        if name not in opened:
            opened[name] = A.open_dataset(datasets[name])
        return opened[name]

    names = list(datasets)
    pick = W.Dropdown(options=names, value=names[0], description="dataset")
    field = W.Dropdown(description="compared")
    value = W.Dropdown(description="baseline")
    measure = W.Dropdown(description="metric")
    out = W.Output()

    def fields_of(_=None) -> None:
        ds = dataset(pick.value)
        swept = [k for k in ds.keys if len({v["partition"][k] for v in ds.variants}) > 1]
        want = next((k for k in (baseline or {}) if k in swept), swept[0] if swept else None)
        field.options, field.value = swept, want
        metrics = A.metrics_of(ds)
        measure.options = metrics
        measure.value = metric if metric in metrics else metrics[0]

    def values_of(_=None) -> None:
        ds = dataset(pick.value)
        if field.value is None:
            value.options = []
            return
        seen = list(dict.fromkeys(v["partition"][field.value] for v in ds.variants))
        want = str((baseline or {}).get(field.value, seen[0])).lower()
        value.options, value.value = seen, want if want in seen else seen[0]

    def draw(_=None) -> None:
        out.clear_output(wait=True)
        with out:
            ds = dataset(pick.value)
            if field.value is None or value.value is None or measure.value is None:
                print(f"{pick.value} sweeps no field: nothing to compare")
                return
            # the chosen metric and the few a designer decides on: a table that fits, not fourteen columns
            shown = [m for m in dict.fromkeys([measure.value, *family(ds.family).glance_metrics])
                     if m in A.metrics_of(ds)]
            comp = A.compare_variants(ds, {field.value: value.value}, shown)
            labelled = comp.with_columns(pl.lit(f"{field.value} vs {value.value}").alias("field"))
            fig = plots.paired_forest(labelled, (measure.value,), tips=True)
            # inline SVG, not an image: each point names its value under the pointer
            display(HTML(f'<div class="sim-figure">{plots.svg_with_tips(fig)}</div>'))
            plt.close(fig)
            display(table(effects(comp), f"{pick.value}: every metric against {field.value}={value.value}"))

    resetting = []  # while a control resets the others, their changes draw nothing

    def changed(*steps):
        def handler(_) -> None:
            if resetting:
                return
            resetting.append(True)
            try:
                for step in steps:
                    step()
            finally:
                resetting.clear()
            draw()
        return handler

    fields_of()
    values_of()
    pick.observe(changed(fields_of, values_of), names="value")
    field.observe(changed(values_of), names="value")
    value.observe(changed(), names="value")
    measure.observe(changed(), names="value")
    draw()
    return W.VBox([W.HBox([pick, field]), W.HBox([value, measure]), out])
