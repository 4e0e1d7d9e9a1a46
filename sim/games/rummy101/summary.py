"""What a Rummy 101 run is summarised by: win and opening shares by seat, scores,
penalties and finish kinds per variant; and the statistics of its ``--until-ci`` metrics."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.family import (
    common_stats,
    finish_stats,
    losers,
    per_variant,
    player_stats,
    seat_lines,
    variant_key,
    variant_name,
)
from sim.precision import Target
from sim.stats import mean_interval, share

OPENED_BY = (1, 3, 5)  # own turns at which the summary tells the share opened


def summarise(tables: dict[str, pl.DataFrame], keys: list[str]) -> dict:
    """Win share and opening share by seat, mean penalty, finish kinds, per variant."""
    return per_variant(tables, keys, _variant_summary)


def _variant_summary(combo: dict, rounds: pl.DataFrame, players: pl.DataFrame) -> dict:
    n = rounds.height
    finishes = rounds["finish"].value_counts().sort("finish")
    seats = []
    for (seat,), sub in players.sort("seat").group_by("seat", maintain_order=True):
        won = (sub["winner_seat"] == seat).fill_null(False).to_numpy()
        deal = sub["deal_id"].to_numpy() if "deal_id" in sub.columns else None  # a duplicate deal's rounds together
        losses = -sub.filter(~pl.Series(won))["score"]
        seats.append({
            "seat": int(seat),
            "win": share(won, deal),
            "opened": share(sub["opened"].to_numpy(), deal),
            "opened_by_turn": {str(t): share((sub["open_turn"] <= t).fill_null(False).to_numpy(), deal)
                               for t in OPENED_BY},
            "mean_score": mean_interval(sub["score"].to_numpy(), deal),
            "mean_penalty": float(losses.mean()) if losses.len() else 0.0,
        })
    return {
        "variant": variant_key(combo),
        "rounds": n,
        "finish": {row["finish"]: row["count"] / n for row in finishes.iter_rows(named=True)},
        "mean_turns": float(rounds["turns"].mean()),
        "seats": seats,
    }


def format_summary(summary: dict) -> list[str]:
    lines = []
    for v in summary["variants"]:
        name = variant_name(v["variant"])
        lines.append("")
        lines.append(f"{name}: {v['rounds']:,} rounds, {v['mean_turns']:.1f} turns on average")
        lines.append("  finish: " + "  ".join(f"{k} {x:.1%}" for k, x in v["finish"].items()))
        lines += seat_lines(v, OPENED_BY, ("mean penalty", "mean_penalty", 14))
        lines.append("  (by tN: share opened by its own N-th turn; mean penalty: over rounds not won)")
    return lines


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
