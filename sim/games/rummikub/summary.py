"""What a Rummikub run is summarised by: how rounds end (a rack emptied, blocked, last
call), their length and the pool left, and by seat the win share, the opening share by
turn, the scores and the value left on losing racks, per variant; and the statistics of
its ``--until-ci`` metrics."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.family import RoundSummary, common_stats, finish_stats, losers, player_stats
from sim.precision import Target

SUMMARY = RoundSummary(
    opened_by=(1, 2, 3, 5),
    lost=("mean_rack_value", "rack left", "mean value on the racks of the rounds not won", 11),
    lost_value=lambda lost: lost["rack_value"].mean(),
    extras={"shared_wins": lambda rounds: rounds["winner_seat"].is_null().mean(),
            "mean_pool_left": lambda rounds: rounds["pool_left"].mean()},
    headline=lambda v: f" and {v['mean_pool_left']:.1f} pool tiles left on average",
    finish_note=lambda v: f"   shared wins {v['shared_wins']:.1%}",
    finish_digits=2,
    reads={"rounds": ("pool_left",), "players": ("rack_value",)},
)


def summarise(tables: dict[str, pl.LazyFrame | pl.DataFrame], keys: list[str]) -> dict:
    """Finishes, length, and by seat wins, openings, scores and racks left, per variant
    (lazy tables: only the columns it uses are read)."""
    return SUMMARY.summarise(tables, keys)


def summarise_frames(tables: dict[str, pl.DataFrame], keys: list[str]) -> dict:
    """The summary of tables in memory, any columns beyond those it reads ignored."""
    return SUMMARY.summarise_frames(tables, keys)


def format_summary(summary: dict) -> list[str]:
    return SUMMARY.format(summary)


def chunk_stats(target: Target, tables: dict[str, pl.DataFrame]) -> np.ndarray:
    """Sufficient statistics of one chunk of rounds for ``target``
    (:func:`sim.stats.cluster_stats`, the players of a deal one cluster)."""
    common = common_stats(target, tables)
    if common is not None:
        return common
    if target.metric == "blocked":
        return finish_stats(tables["rounds"], "blocked")
    # mean_rack_value: the players who did not win alone
    return player_stats(tables, losers(tables), "rack_value")
