"""What a card Rummy 101 run is summarised by: hands per match, how hands end (out, rummy,
wash), the points of a hand, and by seat (or team) the match win share, the hands won
and the points scored, and by position from the first dealer the match win share, per
variant; and the statistics of its ``--until-ci`` metrics."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.family import collect_columns, of_variant, variant_key, variant_name
from sim.precision import Target
from sim.stats import cluster_stats, clustered

# The columns the summary reads of each table (_variant).
COLUMNS = {
    "matches": ("partners", "players", "winner_team", "winner_seat", "first_dealer", "hands", "winner_total",
                "runner_up_total"),
    "hands": ("match_id", "finish", "winner_seat", "points", "turns"),
    "players": ("match_id", "hand", "seat", "team", "score"),
}


def summarise(tables: dict[str, pl.LazyFrame | pl.DataFrame], keys: list[str]) -> dict:
    """Per variant (``keys``: the swept fields): matches, hands, finishes, seats (lazy
    tables: only the columns it uses are read)."""
    return summarise_frames(collect_columns(tables, COLUMNS, keys), keys)


def summarise_frames(tables: dict[str, pl.DataFrame], keys: list[str]) -> dict:
    """The summary of tables in memory, any columns beyond those it reads ignored."""
    matches = tables["matches"]
    combos = matches.select(keys).unique().sort(keys).rows(named=True) if keys else [{}]
    variants = [_variant(combo, of_variant(matches, combo), of_variant(tables["hands"], combo),
                         of_variant(tables["players"], combo)) for combo in combos]
    return {"rounds": matches.height, "variants": variants}


def _ci(d: dict) -> dict:
    return {k: d[k] for k in ("estimate", "ci_low", "ci_high")}


def _variant(combo: dict, matches: pl.DataFrame, hands: pl.DataFrame, players: pl.DataFrame) -> dict:
    partners = bool(matches["partners"][0])
    n_players = int(matches["players"][0])
    mid = hands["match_id"].to_numpy()
    finish = hands["finish"].cast(pl.String).to_numpy()
    scored = hands.filter(pl.col("finish") != "wash")
    sides = []
    winner = matches["winner_team" if partners else "winner_seat"]
    for side in range(2 if partners else n_players):
        per_hand = (players.filter(pl.col("team" if partners else "seat") == side)
                    .group_by("match_id", "hand").agg(pl.col("score").sum()))
        sides.append({
            "side": side,
            "win": _ci(clustered((winner == side).fill_null(False).to_numpy(), None, share=True)),
            # the share of hands this seat (team) went out of, and its points a hand
            "hands_won": float((hands["winner_seat"] % (2 if partners else n_players) == side).fill_null(False)
                               .mean()),
            "mean_score": _ci(clustered(per_hand["score"].to_numpy(), per_hand["match_id"].to_numpy())),
        })
    # Solo: by position from the first dealer (0: the first dealer, 1: the player who starts the match).
    by_position = []
    if not partners:
        position = (winner.cast(pl.Int16) - matches["first_dealer"]) % n_players
        by_position = [{"position": k, "win": _ci(clustered((position == k).fill_null(False).to_numpy(), None,
                                                            share=True))} for k in range(n_players)]
    return {
        "variant": variant_key(combo),
        "matches": matches.height,
        "partners": partners,
        "mean_hands": _ci(clustered(matches["hands"].to_numpy(), None)),
        "hands": hands.height,
        "finish": {f: _ci(clustered(finish == f, mid, share=True)) for f in ("out", "rummy", "wash")},
        "mean_points": _ci(clustered(scored["points"].to_numpy(), scored["match_id"].to_numpy())),
        "mean_turns": float(scored["turns"].mean()) if scored.height else 0.0,
        "winner_total": float(matches["winner_total"].mean()),
        "runner_up_total": float(matches["runner_up_total"].mean()),
        "sides": sides,
        "by_first_dealer": by_position,
    }


def _pct(d: dict) -> str:
    return f"{d['estimate']:.1%} [{d['ci_low']:.1%}, {d['ci_high']:.1%}]"


def format_summary(summary: dict) -> list[str]:
    lines = []
    for v in summary["variants"]:
        h = v["mean_hands"]
        lines.append("")
        name = variant_name(v["variant"]) if v["variant"] else "all matches"
        lines.append(f"{name}: {v['matches']:,} matches, {v['hands']:,} hands, "
                     f"{h['estimate']:.2f} hands a match [{h['ci_low']:.2f}, {h['ci_high']:.2f}]")
        lines.append("  hands: " + "  ".join(f"{k} {_pct(x)}" for k, x in v["finish"].items())
                     + f";  {v['mean_points']['estimate']:.1f} points a hand won, {v['mean_turns']:.1f} turns")
        lines.append(f"  final totals: winner {v['winner_total']:.1f}, runner-up {v['runner_up_total']:.1f} on average")
        who = "team" if v["partners"] else "seat"
        lines.append(f"  {who:<10}{'matches won':>26}{'hands won':>11}{'points a hand':>15}")
        for s in v["sides"]:
            label = f"{s['side']}" + (" (seats 0, 2)" if v["partners"] and s["side"] == 0 else
                                      " (seats 1, 3)" if v["partners"] else "")
            lines.append(f"  {label:<10}{_pct(s['win']):>26}{s['hands_won']:>11.1%}"
                         f"{s['mean_score']['estimate']:>15.2f}")
        if v["by_first_dealer"]:
            lines.append("  matches won by the seat that dealt first, and the seats after it: "
                         + "  ".join(f"+{p['position']}: {p['win']['estimate']:.1%}" for p in v["by_first_dealer"]))
    return lines


def chunk_stats(target: Target, tables: dict[str, pl.DataFrame]) -> np.ndarray:
    """Sufficient statistics of one chunk of matches for ``target``
    (:func:`sim.stats.cluster_stats`, a match's hands one cluster)."""
    matches, hands = tables["matches"], tables["hands"]
    m = target.metric
    if m.startswith("win_seat"):
        partners = "winner_team" in matches.columns and matches["winner_team"].is_not_null().any()
        winner = matches["winner_team" if partners else "winner_seat"]
        return cluster_stats((winner == target.seat).fill_null(False).to_numpy())
    if m == "mean_hands":
        return cluster_stats(matches["hands"].cast(pl.Float64).to_numpy())
    if m in ("p_wash", "p_rummy"):
        flags = (hands["finish"].cast(pl.String) == m[2:]).to_numpy()
        return cluster_stats(flags, hands["match_id"].to_numpy())
    scored = hands.filter(pl.col("finish") != "wash")  # mean_points
    return cluster_stats(scored["points"].cast(pl.Float64).to_numpy(), scored["match_id"].to_numpy())
