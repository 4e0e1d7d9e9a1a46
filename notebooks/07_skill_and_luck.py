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
# # Skill and luck: how much playing well is worth
#
# A `sim skill` run seats each bot of a ladder, weakest first, in every seat against the first
# bot (the field) in the others, on the same duplicate deals: every bot meets the same cards,
# seats and opponents, so the differences between bots are the bots'. From that:
#
# - **relative skill** (Dreef, Borm and van der Genugten, 2004): how much of the way from the
#   beginner (the field, 0) to the `oracle` (1: a player who sees the other hands or racks and
#   the stock or pool; every family has one) a bot goes;
# - the **variance shares** of a bot's score: what goes with the dealt hand, the seat, the bot,
#   and the rest (the draws and the order of play): how much of a result is the player's;
# - the **critical repetitions** (Fiedler and Rock, 2009): the deals, each played in every seat
#   rotation, a bot needs to be ahead of the one below it with 95% probability;
# - the **Elo ladder** from deal-by-deal comparisons, and its span in 75%-win steps (Robertie's
#   complexity number: chess 14, poker 10, backgammon 8).
#
# **Data.** A skill dataset: the default is the small one `make notebook-data` writes into
# `data/notebooks/skill` (heads-up card matches, greedy, expert and the oracle); the reference
# runs (`make reference-skill`: each house rule of each family alone, four players) are in
# `data/reference/skill/<family>/<rule>`.

# %% tags=["parameters"]
DATA = "../data/notebooks/skill"

# %%
from sim import analysis as A
from sim import display as D
from sim import plots
from sim import skill as S

plots.notebook_setup()
ds = A.open_dataset(DATA)
s = A.skill(ds)
t = S.tables(s)
print(f"{s['family']}: ladder {', '.join(s['policies'])} against {s['field']}, {s['deals']:,} deals, "
      f"{len(s['variants'])} rules variant(s)")

# %% [markdown]
# ## Each bot against the field
#
# Its mean score (card matches: points per hand) and win share against the field in the other
# seats, its relative skill when the ladder ends with the oracle, and its Elo rating (the
# weakest at 0).

# %%
D.table(t["bots"], "Each bot against the field, 95% intervals")

# %%
fig = plots.skill_ladder(s)

# %% [markdown]
# ## Skill or luck
#
# The shares of a bot's score variance. A rule that raises the bot's share (and the Elo span)
# moves the game towards skill; one that raises the dealt hand's moves it towards luck.

# %%
D.table(t["variance"], "What a bot's score goes with")

# %% [markdown]
# ## How long until the better player shows
#
# Deals (each in every seat rotation) until each bot is ahead of the one below it with 95%
# probability; none where it is not better on average.

# %%
D.table(t["repetitions"], "Deals until the better bot leads, 95% probability")
