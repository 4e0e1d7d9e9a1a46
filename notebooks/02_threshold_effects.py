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
# # Threshold effects
#
# What the opening threshold does to the game. With **fixed** thresholds every opening
# needs 101 points (or 5 pairs); with **increasing** ones each melds opening must beat the
# previous one (T-THR-2), so later openers face a higher bar. This notebook shows, from a
# sweep over `threshold_mode` (and optionally an `open_points` sweep):
#
# - the requirement in force for the 1st, 2nd, 3rd... opener of a round;
# - the share of players who never open, round length and penalties, fixed against
#   increasing;
# - across an `open_points` sweep, the share opened by the third turn and the mean penalty
#   as functions of the threshold.
#
# **How to read it.** Means come with 95% intervals; shares with 95% Wilson intervals.
#
# **Data.** The defaults are the small datasets `make notebook-data` writes into
# `data/notebooks/` in about two minutes (25,000 rounds per variant); the reference data
# (`make reference-report`, 1,000,000 rounds per variant) are in `data/reference/` in the
# same layout. Point the parameters cell at either, or at your own `sim run`/`sim sweep`.

# %% tags=["parameters"]
DATA = "../data/notebooks/variants"  # a sweep with threshold_mode among its fields
THRESHOLDS = "../data/notebooks/thresholds"  # a sweep over open_points, or "" to skip
TURN = 3
MOST_CURVES = 6  # curves one figure shows; the others are named below it

# %%
import polars as pl

from sim import analysis as A
from sim import display as D
from sim import plots

plots.notebook_setup()
ds = A.open_dataset(DATA)
keys = list(ds.keys)
by = keys if "threshold_mode" in keys else [*keys, "threshold_mode"]

# %% [markdown]
# ## The bar each opener faces

# %%
order = A.threshold_by_order(ds, by=by)
inc = order.filter(pl.col("threshold_mode") == "increasing")
D.table(inc, "The bar in force by opening order")

# %%
if inc.height:
    rest = [k for k in by if k != "threshold_mode"]
    shown, left_out = plots.first_variants(inc, rest, MOST_CURVES)
    print(left_out or "Every variant is shown.")
    fig = plots.threshold_by_order(inc, shown)

# %% [markdown]
# ## Who never opens, how long rounds last, what players lose

# %%
D.table(A.never_opened(ds, by=by), "Players who never open")

# %%
D.table(A.round_length(ds, by=by), "Turns per round")

# %%
D.table(A.penalties(ds, by=by), "Penalties of the players who did not win")

# %% [markdown]
# ## The threshold itself
#
# From the `open_points` sweep: a lower bar opens more players early; the penalty of the
# players who did not win moves with it.

# %%
if THRESHOLDS:
    thr = A.open_dataset(THRESHOLDS)
    curve = A.threshold_curve(thr, turn=TURN)
    fig = plots.threshold_curve(curve, [k for k in thr.keys if k != "open_points"])
    display(D.table(curve, "The threshold curve"))
