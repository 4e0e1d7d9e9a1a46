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
# # Penalty distributions
#
# What a round costs. The winner gains 101 (202 for a joker or one-turn finish, 404 for
# both); a player who never opened loses 202, one who opened with melds the value of its
# rack (jokers 101), one who opened with pairs twice that (T-SCORE-2); a joker finish
# doubles every penalty (T-SCORE-3); a stock exhaustion charges every hand (T-END-1).
#
# This notebook shows, by variant: what a round brings a player (won / lost after melds /
# after pairs / never opened), the distribution of penalties after an opening, penalties by
# opening kind and by how the round ended, joker-finish and stock-out rates, the winner's
# gain, and the scores by seat.
#
# **Data.** The defaults are the small datasets `make notebook-data` writes into
# `data/notebooks/` in about two minutes (25,000 rounds per variant); the reference data
# (`make reference-report`, 1,000,000 rounds per variant) are in `data/reference/` in the
# same layout. Point the parameters cell at either, or at your own `sim run`/`sim sweep`.

# %% tags=["parameters"]
DATA = "../data/notebooks/variants"
SCORE_BIN = 20

# %%
import polars as pl

from sim import analysis as A
from sim import display as D
from sim import plots

plots.notebook_setup()
ds = A.open_dataset(DATA)
keys = list(ds.keys)

# %%
out = A.outcomes(ds, by=keys)
fig = plots.outcomes(out, plots.variants(out, keys))

# %% [markdown]
# ## Penalties after an opening
#
# One panel per variant. Solid: opened with melds; dashed: with pairs. The pairs curves
# sit to the right: a pairs opening doubles the rack's value.

# %%
dist = A.penalty_distribution(ds, by=keys)
fig = plots.penalty_cdf(dist, plots.variants(dist, keys))

# %%
D.table(A.penalties(ds, by=[*keys, "open_kind"]), "Penalties by how the player opened")

# %%
D.table(A.penalties(ds, by=[*keys, "finish"]), "Penalties by how the round ended")

# %% [markdown]
# ## How rounds end, and what the winner gains

# %%
D.table(A.finish_rates(ds).filter(pl.col("k") > 0), "How rounds end")

# %%
D.table(A.winner_gain(ds), "What the winner gains")

# %% [markdown]
# ## Scores by seat, and their histogram

# %%
D.table(A.scores(ds, by=[*keys, "seat"] if "players" in keys else [*keys, "players", "seat"]), "Scores by seat")

# %%
D.table(A.score_histogram(ds, width=SCORE_BIN).filter(pl.col("share") > 0.001), "Scores, in bins")
