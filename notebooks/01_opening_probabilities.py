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
# # Opening probabilities
#
# How soon can players open in Rummy 101 with tiles, and how? This notebook reads a run or
# sweep directory (`sim run`, `sim sweep`) and, if given, `sim deal-stats` files, and shows:
#
# - the share of dealt racks that can open at once (by melds, by pairs, either way);
# - the share of players who have opened by their own *t*-th turn, by seat, with 95% Wilson
#   bands: seat 0 starts with 22 tiles and no draw (T-SET-2), the others draw or take the
#   discard first;
# - melds against pairs openings, openings that took the previous player's discard
#   (T-TAKE-2), and the size of melds openings.
#
# **How to read it.** A band is a 95% interval: two seats whose bands do not overlap differ
# by more than chance.
#
# **Data.** The defaults are the small datasets `make notebook-data` writes into
# `data/notebooks/` in about two minutes (25,000 rounds per variant); the reference data
# (`make reference-report`, 1,000,000 rounds per variant) are in `data/reference/` in the
# same layout. Point the parameters cell at either, or at your own `sim run`/`sim sweep`.

# %% tags=["parameters"]
DATA = "../data/notebooks/variants"  # a run or sweep directory
DEAL_FILES = ["../data/notebooks/deal-21.parquet", "../data/notebooks/deal-22.parquet"]
MAX_TURN = 10
MOST_CURVES = 6  # curves one figure shows; the others are named below it

# %%
import polars as pl

from sim import analysis as A
from sim import display as D
from sim import plots

plots.notebook_setup()
ds = A.open_dataset(DATA)
print(f"{DATA}: {ds.manifest['kind']} of {ds.manifest['rounds']:,} rounds per variant, variant fields: {ds.keys}")

# %% [markdown]
# ## Can a dealt rack open at once?

# %%
if DEAL_FILES:
    deal = A.deal_open_shares(DEAL_FILES)
    display(D.table(deal.select("preset", "rack_size", "way", "share", "ci_low", "ci_high", "mean_value"),
                    "Racks that can open as dealt"))

# %% [markdown]
# ## Opened by the own *t*-th turn, by seat
#
# One panel per player count; the other swept fields at their first value.

# %%
keys = list(ds.keys)
obt = A.opened_by_turn(ds, max_turn=MAX_TURN, by=keys if "players" in keys else [*keys, "players"])
first = {k: v for k, v in ds.variants[0]["partition"].items() if k != "players"}
first = {k: (int(v) if v.isdigit() else v) for k, v in first.items()}
fig = plots.opened_by_turn(obt, first)

# %%
columns = list(dict.fromkeys([*keys, "players", "seat", "turn", "share", "ci_low", "ci_high"]))
by_turn = D.compact(obt.filter(pl.col("turn").is_in([1, 3, 5])).select(columns))
D.table(by_turn.pivot(on="turn", index=[c for c in by_turn.columns if c not in ("turn", "share")], values="share")
        .rename(lambda c: f"by turn {c}" if c.isdigit() else c), "Opened by the own turn, 95% intervals")

# %% [markdown]
# ## Melds or pairs, and the discard
#
# `share` is over all players of the variant (`never`: did not open this round); the
# second table is the share of openings that took the previous player's discard.

# %%
D.table(A.opening_kinds(ds), "How players open")

# %%
D.table(A.discard_openings(ds), "Openings that took the discard")

# %% [markdown]
# ## How big are melds openings?
#
# Cumulative: the share of melds openings worth at most *v* points. In increasing mode the
# curve moves right: later openers must beat earlier ones (T-THR-2).

# %%
vals = A.opening_values(ds, "melds", by=keys)
shown, left_out = plots.first_variants(vals, keys, MOST_CURVES)
print(left_out or "Every variant is shown.")
fig = plots.opening_value_cdf(vals, shown)
