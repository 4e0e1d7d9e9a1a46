"""What a Rummy 101 run is summarised by: win and opening shares by seat, scores,
penalties and finish kinds per variant; and the statistics of its ``--until-ci`` metrics."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.family import RoundSummary, common_stats, finish_stats, losers, player_stats
from sim.precision import Target

SUMMARY = RoundSummary(
    opened_by=(1, 3, 5),
    lost=("mean_penalty", "mean penalty", "over rounds not won", 14),
    lost_value=lambda lost: -lost["score"].mean(),
)


def summarise(tables: dict[str, pl.LazyFrame | pl.DataFrame], keys: list[str]) -> dict:
    """Win share and opening share by seat, mean penalty, finish kinds, per variant (lazy
    tables: only the columns it uses are read)."""
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
    if target.metric == "stock_out":
        return finish_stats(tables["rounds"], "stock_out")
    # mean_penalty
    return player_stats(tables, losers(tables).with_columns((-pl.col("score")).alias("penalty")), "penalty")
