"""What a Rummikub run is summarised by: how rounds end (a rack emptied, blocked, last
call), their length and the pool left, and by seat the win share, the opening share by
turn, the scores and the value left on losing racks, per variant; and the statistics of
its ``--until-ci`` metrics."""

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

OPENED_BY = (1, 2, 3, 5)  # own turns at which the summary tells the share opened


def summarise(tables: dict[str, pl.DataFrame], keys: list[str]) -> dict:
    """Finishes, length, and by seat wins, openings, scores and racks left, per variant."""
    return per_variant(tables, keys, _variant_summary)


def _variant_summary(combo: dict, rounds: pl.DataFrame, players: pl.DataFrame) -> dict:
    n = rounds.height
    finishes = rounds["finish"].value_counts().sort("finish")
    seats = []
    for (seat,), sub in players.sort("seat").group_by("seat", maintain_order=True):
        won = (sub["winner_seat"] == seat).fill_null(False).to_numpy()
        deal = sub["deal_id"].to_numpy() if "deal_id" in sub.columns else None  # a duplicate deal's rounds together
        lost = sub.filter(~pl.Series(won))
        seats.append({
            "seat": int(seat),
            "win": share(won, deal),
            "opened": share(sub["opened"].to_numpy(), deal),
            "opened_by_turn": {str(t): share((sub["open_turn"] <= t).fill_null(False).to_numpy(), deal)
                               for t in OPENED_BY},
            "mean_score": mean_interval(sub["score"].to_numpy(), deal),
            "mean_rack_value": float(lost["rack_value"].mean()) if lost.height else 0.0,
        })
    return {
        "variant": variant_key(combo),
        "rounds": n,
        "finish": {row["finish"]: row["count"] / n for row in finishes.iter_rows(named=True)},
        "shared_wins": float(rounds["winner_seat"].is_null().mean()),
        "mean_turns": float(rounds["turns"].mean()),
        "mean_pool_left": float(rounds["pool_left"].mean()),
        "seats": seats,
    }


def format_summary(summary: dict) -> list[str]:
    lines = []
    for v in summary["variants"]:
        lines.append("")
        lines.append(f"{variant_name(v['variant'])}: {v['rounds']:,} rounds, {v['mean_turns']:.1f} turns and "
                     f"{v['mean_pool_left']:.1f} pool tiles left on average")
        lines.append("  finish: " + "  ".join(f"{k} {x:.2%}" for k, x in v["finish"].items())
                     + f"   shared wins {v['shared_wins']:.1%}")
        lines += seat_lines(v, OPENED_BY, ("rack left", "mean_rack_value", 11))
        lines.append("  (wins: alone; by tN: share opened by its own N-th turn; rack left: mean value on "
                     "the racks of the rounds not won)")
    return lines


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
