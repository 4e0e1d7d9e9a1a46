# ---
# jupyter:
#   jupytext:
#     notebook_metadata_filter: -jupytext.text_representation.jupytext_version,-jupytext.text_representation.format_version
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Variant balancing
#
# Comparing variants of a sweep. Every variant of a sweep plays the same round ids with
# the same shuffled tiles (common random numbers), so for each round the difference of a
# metric between two variants is a *paired* difference. Its mean has a far tighter
# interval than the difference of two independent means, which is what lets small rule
# changes be measured with a modest number of rounds.
#
# Set `BASELINE` to one variant field and its reference value; every other variant is
# compared against it, the other fields held equal.
#
# **Data.** The defaults are the small datasets `make notebook-data` writes into
# `data/notebooks/` in about two minutes (25,000 rounds per variant); the reference data
# (`make reference-report`, 1,000,000 rounds per variant) are in `data/reference/` in the
# same layout. Point the parameters cell at either, or at your own `sim run`/`sim sweep`.

# %% tags=["parameters"]
DATA = "../data/notebooks/variants"
BASELINE = {"threshold_mode": "fixed"}
METRICS = ["opened_by_3", "never_opened", "stock_out", "mean_penalty", "seat0_score", "turns"]
THRESHOLDS = "../data/notebooks/thresholds"  # another sweep to explore at the end, or ""

# %%
import polars as pl

from sim import analysis as A
from sim import display as D
from sim import plots

plots.notebook_setup()
ds = A.open_dataset(DATA)
print("variant fields:", ds.keys, "| metrics:", A.metric_texts(ds))

# %%
comp = A.compare_variants(ds, BASELINE, METRICS)
D.table(D.effects(comp), f"Paired differences against {BASELINE}, 95% intervals")

# %% [markdown]
# ## Paired against unpaired
#
# `ci_high - diff` is the paired half-width; `unpaired_half_width` is what two independent
# runs of the same size would give.

# %%
D.table(comp.select("variant", "metric", (pl.col("ci_high") - pl.col("diff")).alias("paired_half_width"),
                    "unpaired_half_width").with_columns(
    (pl.col("unpaired_half_width") / pl.col("paired_half_width")).alias("ratio")),
    "Interval half-widths: paired against unpaired")

# %%
field = next(iter(BASELINE))
fig = plots.paired_forest(comp.with_columns(pl.lit(f"{field} vs {BASELINE[field]}").alias("field")),
                          tuple(m for m in METRICS if m in ("opened_by_3", "stock_out", "mean_penalty", "turns")))

# %% [markdown]
# ## Explore
#
# Choose the dataset, the field compared and its baseline value, and the metric: the
# figure (that metric's paired differences) and the table (the main metrics) redraw.
# Run headless, this cell draws its defaults.

# %%
D.explorer({name: path for name, path in (("variants", DATA), ("thresholds", THRESHOLDS)) if path},
           metric=METRICS[0], baseline=BASELINE)
