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
# # Card Rummy 101: matches to 101
#
# Whole matches of card Rummy 101 (docs/rules.md section C) played hand by hand by bots: how
# many hands a match takes, how often a hand washes out when the stock runs dry (C-WASH-1),
# how often someone goes rummy and what that is worth (C-SCORE-2), who wins by seat and by
# first dealer (C-SET-2), the chance to come back from behind, and the paired effect of
# the match's rules: `target` (C-MATCH-1), `decks` and `partners` (C-SET-1, C-TEAM-1) and
# the deal size.
#
# **Data.** A card sweep: the default is the small one `make notebook-data` writes into
# `data/notebooks/cards` (players 2-4, targets 101 and 500); the reference data
# (`make reference-cards`) are in `data/reference/cards/<sweep>`. Set `BASELINE` to a swept
# field and its reference value.

# %% tags=["parameters"]
DATA = "../data/notebooks/cards"
BASELINE = {"target": 101}

# %%
import polars as pl

from sim import analysis as A
from sim import display as D
from sim import plots

plots.notebook_setup()
ds = A.open_dataset(DATA)
assert ds.family == "rummy101-cards", f"{DATA} holds {ds.family} data; this notebook reads card Rummy 101 sweeps"
by = [*ds.keys, *[c for c in ("players", "partners") if c not in ds.keys]]
print("variant fields:", ds.keys, "| metrics:", A.metrics_of(ds))

# %% [markdown]
# ## How long a match lasts
#
# Hands a match, washes included, with 95% intervals; the median and 90th percentile; the
# final totals of the winner and the runner-up. Only the player going out scores, so a match
# to 101 ends on the first hand that takes somebody past it.

# %%
D.table(A.hands_per_match(ds, by=by), "Hands a match")

# %% [markdown]
# ## How hands end
#
# Out (C-OUT-1), rummy (C-SCORE-2) or wash (C-WASH-1), and the mean points of the hands
# ending that way. With seven cards each and four players only 23 cards are left in the
# stock, and many hands wash out.

# %%
fin = A.hand_finishes(ds, by=by)
D.table(D.compact(fin).pivot(on="finish", index=by, values="share"), "How hands end, 95% intervals")

# %% [markdown]
# ## What going rummy is worth
#
# Among the hands someone went out of: the share gone rummy, the points of a rummy hand and
# of a plain one, and the share of all points that came from rummy hands.

# %%
D.table(A.rummy_worth(ds, by=by), "What going rummy is worth")

# %% [markdown]
# ## The points of a hand
#
# The cards left in the other hands (C-SCORE-1; with partners only the two opponents',
# C-TEAM-1): the cumulative share of scored hands worth at most x points.

# %%
pts = A.points_per_hand(ds, by=by, width=5)
fig = plots.cumulative(pts, "points", plots.variants(pts, by), "points of the hand", "scored hands (%)",
                       "The points of a hand (cumulative, 95% bands)")

# %% [markdown]
# ## Who wins a match
#
# By seat (with partners, by team: team 0 is seats 0 and 2), and by position from the first
# dealer: match `m` is first dealt by seat `m % players`, and the deal moves one seat left
# every hand (C-SET-2), so position 1 plays first in the first hand.

# %%
D.table(A.match_wins(ds, by=by).with_columns(
    (pl.col("share") * pl.when(pl.col("partners")).then(2).otherwise(pl.col("players"))).alias("share x sides")),
    "Matches won by seat (team); share x sides: 1 for an even table")

# %%
D.table(D.compact(A.first_dealer_wins(ds, by=by)).pivot(on="position", index=by, values="share")
        .rename(lambda c: f"dealer +{c}" if c.isdigit() else c), "Matches won by position from the first dealer")

# %% [markdown]
# ## Coming back from behind
#
# Of the seats (teams) that trailed the leader by at least N points after some hand, the
# share that won the match anyway.

# %%
back = A.comeback(ds, (10, 25, 50, 75, 100, 150), by=by)
fig = plots.share_curve(back.filter(pl.col("n") >= 30), "deficit", plots.variants(back, by),
                        "points behind the leader after some hand (at least)", "went on to win (%)",
                        "Coming back from behind, 95% bands")

# %% [markdown]
# ## What the rule changes
#
# The same match id deals the same cards hand by hand in every variant of a sweep, so each
# match gives a paired difference against the baseline, the other fields held equal.

# %%
metrics = ["hands", "wash_share", "rummy_share", "mean_points", "first_dealer_win", "margin"]
comp = A.compare_variants(ds, BASELINE, metrics)
D.table(D.effects(comp), f"Paired differences against {BASELINE}, 95% intervals")

# %%
field = next(iter(BASELINE))
fig = plots.paired_forest(comp.with_columns(pl.lit(f"{field} vs {BASELINE[field]}").alias("field")),
                          ("hands", "wash_share", "mean_points", "first_dealer_win"))

# %% [markdown]
# ## Explore
#
# Choose the dataset, the field compared and its baseline value, and the metric: the
# figure (that metric's paired differences) and the table (the main metrics) redraw.
# Run headless, this cell draws its defaults.

# %%
D.explorer({"cards": DATA}, metric="hands", baseline=BASELINE)
