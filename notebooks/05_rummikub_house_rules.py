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
# # Rummikub house rules
#
# Whole Rummikub rounds played by bots that solve every table exactly (docs/rules.md section K),
# and what the house rules change: how long rounds last, when players manage their first
# meld of 30 points (K-OPEN-1), who is favoured by seat, how often the pool runs dry
# (K-END-2), what losing costs, and the paired effect of each swept house rule (K-VAR:
# `open_points`, `joker_penalty`, `wrap_runs`, `locked_jokers`, `easing_open`, `last_call`)
# or reading of table jokers (`joker_moves`: bound to their tile or free, K-JOKER-2).
#
# **Data.** A Rummikub sweep: the default is the small one `make notebook-data` writes into
# `data/notebooks/rummikub` (players 2-4, bar 30 or 50); the reference data
# (`make reference-rummikub`) are one sweep per house rule in `data/reference/rummikub/<rule>`.
# Set `BASELINE` to the swept house rule and its standard value.

# %% tags=["parameters"]
DATA = "../data/notebooks/rummikub"
BASELINE = {"open_points": 30}

# %%
import polars as pl

from sim import analysis as A
from sim import display as D
from sim import plots

plots.notebook_setup()
ds = A.open_dataset(DATA)
assert ds.family == "rummikub", f"{DATA} holds {ds.family} rounds; this notebook reads Rummikub sweeps"
by = list(ds.keys) if "players" in ds.keys else [*ds.keys, "players"]
print("variant fields:", ds.keys, "| metrics:", A.metrics_of(ds))

# %% [markdown]
# ## How rounds end and how long they last
#
# Turns per round (all seats together, 95% intervals) and how rounds end: a rack emptied
# (`out`, K-END-1), the pool empty and a full round of passes (`blocked`, K-END-2), or the
# extra turns of `last_call`. With bots that place the most they can every turn, the pool
# seldom runs dry.

# %%
D.table(A.round_length(ds, by=by).join(
    A.finish_rates(ds, by=by).filter(pl.col("finish") == "out").select(*by, pl.col("share").alias("out_share")),
    on=by), "Turns per round and rounds won by going out")

# %% [markdown]
# ## When do players open?
#
# The share of players who have opened by their own turn, by seat, with 95% Wilson bands.

# %%
obt = A.opened_by_turn(ds, max_turn=8, by=by)
others = {k: v for k, v in BASELINE.items() if k != "players"}
fig = plots.opened_by_turn(obt, others)

# %%
D.table(D.compact(obt.filter(pl.col("turn").is_in([1, 3, 5]))).pivot(on="turn", index=[*by, "seat"], values="share")
        .rename(lambda c: f"by turn {c}" if c.isdigit() else c), "Opened by the own turn, 95% intervals")

# %% [markdown]
# ## Seat advantage
#
# The share of rounds each seat wins alone (a win shared by tied racks counts for no seat).
# With equal seats it would be one over the number of players.

# %%
wins = A.win_shares(ds, by=by)
D.table(wins.with_columns((pl.col("share") * pl.col("players").cast(pl.Float64)).alias("share x players")),
        "Rounds won by seat (share x players: 1 for an even table)")

# %% [markdown]
# ## What losing costs
#
# The points lost by the players who did not win: the value of their rack (a joker at the
# joker penalty, K-END-1), or its difference to the lowest rack (K-END-2).

# %%
dist = A.penalty_values(ds, by=by)
fig = plots.cumulative(dist, "penalty", plots.variants(dist, by), "points lost", "players who did not win (%)",
                       "What losing costs (cumulative, 95% bands)")

# %%
D.table(A.penalties(ds, by=by), "What losing costs")

# %% [markdown]
# ## What the house rule changes
#
# Every round of a sweep is played with the same shuffled tiles in every variant (common
# random numbers), so each round gives a paired difference against the standard game, the
# other fields held equal; the intervals are far tighter than two independent runs give.

# %%
metrics = ["opened_by_3", "never_opened", "turns", "pool_empty", "mean_penalty", "seat0_win"]
comp = A.compare_variants(ds, BASELINE, metrics)
D.table(D.effects(comp), f"Paired differences against {BASELINE}, 95% intervals")

# %%
field = next(iter(BASELINE))
fig = plots.paired_forest(comp.with_columns(pl.lit(f"{field} vs {BASELINE[field]}").alias("field")),
                          ("opened_by_3", "turns", "mean_penalty", "seat0_win"))

# %% [markdown]
# ## Explore
#
# Choose the dataset, the field compared and its baseline value, and the metric: the
# figure (that metric's paired differences) and the table (the main metrics) redraw.
# Run headless, this cell draws its defaults.

# %%
D.explorer({"rummikub": DATA}, metric="opened_by_3", baseline=BASELINE)
