"""What a Rummy 101 run is summarised by: win and opening shares by seat, scores,
penalties and finish kinds per variant; and the statistics of its ``--until-ci`` metrics."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.precision import Target
from sim.stats import mean_interval, share

OPENED_BY = (1, 3, 5)  # own turns at which the summary tells the share opened


def summarise(tables: dict[str, pl.DataFrame], keys: list[str]) -> dict:
    """Win share and opening share by seat, mean penalty, finish kinds, per variant."""
    rounds, players = tables["rounds"], tables["players"]
    # The variants of a sweep differ in their partition columns, present in both tables.
    players = players.join(rounds.select("round_id", *keys, "winner_seat"), on=["round_id", *keys], how="left")
    combos = rounds.select(keys).unique().sort(keys).rows(named=True) if keys else [{}]
    variants = []
    for combo in combos:
        match = [pl.col(k) == v for k, v in combo.items()]
        r = rounds.filter(*match) if match else rounds
        p = players.filter(*match) if match else players
        variants.append(_variant_summary(combo, r, p))
    return {"rounds": rounds.height, "variants": variants}


def _variant_summary(combo: dict, rounds: pl.DataFrame, players: pl.DataFrame) -> dict:
    n = rounds.height
    finishes = rounds["finish"].value_counts().sort("finish")
    seats = []
    for (seat,), sub in players.sort("seat").group_by("seat", maintain_order=True):
        won = (sub["winner_seat"] == seat).fill_null(False).to_numpy()
        losses = -sub.filter(~pl.Series(won))["score"]
        seats.append({
            "seat": int(seat),
            "win": share(won),
            "opened": share(sub["opened"].to_numpy()),
            "opened_by_turn": {str(t): share((sub["open_turn"] <= t).fill_null(False).to_numpy())
                               for t in OPENED_BY},
            "mean_score": mean_interval(sub["score"].to_numpy()),
            "mean_penalty": float(losses.mean()) if losses.len() else 0.0,
        })
    return {
        "variant": {k: (v if isinstance(v, str | bool) else int(v)) for k, v in combo.items()},
        "rounds": n,
        "finish": {row["finish"]: row["count"] / n for row in finishes.iter_rows(named=True)},
        "mean_turns": float(rounds["turns"].mean()),
        "seats": seats,
    }


def format_summary(summary: dict) -> list[str]:
    lines = []
    for v in summary["variants"]:
        name = ", ".join(f"{k}={str(val).lower() if isinstance(val, bool) else val}"
                         for k, val in v["variant"].items()) or "all rounds"
        lines.append("")
        lines.append(f"{name}: {v['rounds']:,} rounds, {v['mean_turns']:.1f} turns on average")
        lines.append("  finish: " + "  ".join(f"{k} {x:.1%}" for k, x in v["finish"].items()))
        by_turn = "".join(f"{'by t' + str(t):>8}" for t in OPENED_BY)
        lines.append(f"  {'seat':<10}{'wins':>8}{'opened':>8}{by_turn}{'mean score':>12}{'mean penalty':>14}")
        for seat in v["seats"]:
            label = f"{seat['seat']}" + (" (starts)" if seat["seat"] == 0 else "")
            turns = "".join(f"{seat['opened_by_turn'][str(t)]['estimate']:>8.1%}" for t in OPENED_BY)
            lines.append(f"  {label:<10}{seat['win']['estimate']:>8.1%}{seat['opened']['estimate']:>8.1%}"
                         f"{turns}{seat['mean_score']['estimate']:>12.1f}{seat['mean_penalty']:>14.1f}")
        lines.append("  (by tN: share opened by its own N-th turn; mean penalty: over rounds not won)")
    return lines


def chunk_stats(target: Target, tables: dict[str, pl.DataFrame]) -> np.ndarray:
    """Sufficient statistics of one chunk of rounds for ``target``: (successes, trials, 0)
    for a share, (count, sum, sum of squares) for a mean."""
    rounds, players = tables["rounds"], tables["players"]
    m = target.metric
    if m.startswith("p_open_by_turn"):
        p = players if target.seat is None else players.filter(pl.col("seat") == target.seat)
        k = int((p["open_turn"] <= target.turn).fill_null(False).sum())
        return np.array([k, p.height, 0], dtype=float)
    if m.startswith("win_seat"):
        return np.array([int((rounds["winner_seat"] == target.seat).fill_null(False).sum()), rounds.height, 0], float)
    if m == "stock_out":
        return np.array([int((rounds["finish"].cast(pl.String) == "stock_out").sum()), rounds.height, 0], float)
    if m == "mean_turns":
        values = rounds["turns"].cast(pl.Float64).to_numpy()
    elif m == "mean_penalty":
        won = players.join(rounds.select("round_id", "winner_seat"), on="round_id")
        won = won.filter(won["winner_seat"].is_null() | (won["winner_seat"] != won["seat"]))
        values = (-won["score"]).cast(pl.Float64).to_numpy()
    else:
        p = players if target.seat is None else players.filter(pl.col("seat") == target.seat)
        values = p["score"].cast(pl.Float64).to_numpy()
    return np.array([values.size, values.sum(), (values * values).sum()], dtype=float)
