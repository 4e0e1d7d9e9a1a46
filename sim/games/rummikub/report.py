"""Rummikub's sections of a report (:func:`sim.report.build_report`): the variants at a
glance, openings by seat and bar, seat advantage, what losing costs, the paired effect of
every swept house rule (K-VAR), and the key numbers."""

from __future__ import annotations

import polars as pl

from sim import analysis as A
from sim import plots
from sim.plots import select as _where
from sim.plots import variant_label as _label
from sim.plots import variants as _combos
from sim.report import (
    Report,
    baseline_variant,
    ci_text,
    compared_label,
    opened_by_turn_section,
    paired_table,
    pct,
    share_text,
    shown_variants,
    swept_fields,
)

COMPARED = ("opened_by_3", "never_opened", "turns", "pool_empty", "mean_penalty", "seat0_win")
FOREST = ("opened_by_3", "turns", "mean_penalty", "seat0_win")


def _mean(r: dict, digits: int = 1) -> str:
    return f"{r['mean']:.{digits}f} {ci_text(r['ci_low'], r['ci_high'], False, digits)}"


def report_sections(rep: Report, ds: A.Dataset, prefer: dict) -> None:
    keys = list(ds.keys)
    base = baseline_variant(ds, prefer)
    by_players = keys if "players" in keys else [*keys, "players"]
    # --- at a glance
    length = A.round_length(ds, by=by_players)
    fin = A.finish_rates(ds, by=by_players)
    never = A.never_opened(ds, by=by_players)
    pen = A.penalties(ds, by=by_players)
    left = ds.rounds.group_by(by_players).agg(pl.col("pool_left").mean()).collect()
    rows = []
    for combo in _combos(length, by_players):
        f = _where(fin, combo)
        empty = f.filter(pl.col("finish").is_in(["blocked", "last_call"]))
        rows.append({
            "variant": _label(combo), "rounds": _where(length, combo)["n"].item(),
            "turns": _mean(_where(length, combo).row(0, named=True)),
            "pool left": f"{_where(left, combo)['pool_left'].item():.1f}",
            "pool empty": pct(empty["k"].sum() / f["n"][0], 2),
            "never open": share_text(_where(never, combo).row(0, named=True)),
            "mean penalty": _mean(_where(pen, combo).row(0, named=True)),
        })
    rep.add("### The variants at a glance", "",
            "Turns per round (all seats), tiles left in the pool at the end, rounds ending with the "
            "pool empty (blocked or last call, K-END-2), players who never open, and the mean "
            "penalty of the players who did not win (minus their score: the value of their rack, "
            "or its difference to the lowest, K-END-1/2). Brackets: 95% intervals.", "")
    rep.table(pl.DataFrame(rows), {"rounds": ","})
    # --- openings
    opened_by_turn_section(rep, ds, "K-OPEN-1: melds from the rack worth the bar; seat 0 starts",
                           (1, 2, 3, 5), "rummikub-opened-by-turn",
                           "Rummikub: share of players opened by their own turn, by seat.")
    # The seats: the shared seat-advantage section (sim.report) follows this family's sections.
    # --- penalties
    dist = A.penalty_values(ds, by=by_players)
    rep.add("### What losing costs", "",
            "The points lost by the players who did not win: the cumulative share losing at most "
            "x points, with 95% bands.", "")
    rep.figure(plots.cumulative(dist, "penalty", shown_variants(dist, by_players, base, vary="players"),
                                "points lost", "players who did not win (%)",
                                "Rummikub: what losing costs (cumulative, 95% bands)"),
               "rummikub-penalties", "Rummikub: cumulative distribution of the points lost.")
    # --- house rules
    swept = swept_fields(ds, skip=("players",))
    if not swept:
        return
    frames = []
    for k in swept:
        c = A.compare_variants(ds, {k: base[k]}, COMPARED)
        frames.append(c.with_columns(pl.lit(compared_label(k, base[k])).alias("field")))
    comp = pl.concat(frames)
    rep.add("### What each house rule changes", "",
            "Each variant against the standard value of one swept house rule, the others held equal "
            "(the same shuffled tiles in both, so the differences are paired), with 95% intervals.", "")
    rep.figure(plots.paired_forest(comp, FOREST), "rummikub-house-rules",
               "Rummikub: paired differences against the standard game, 95% intervals.")
    rep.table(paired_table(comp, COMPARED))
    rep.add("Metrics: " + "; ".join(f"`{k}`: {A.metric_texts(ds)[k]}" for k in COMPARED) + ".", "")


def headlines(ds: A.Dataset, prefer: dict) -> list[str]:
    """The reference variant's opening, seat and end numbers, and each house rule's effect."""
    base = baseline_variant(ds, prefer)
    by_players = list(ds.keys) if "players" in ds.keys else [*ds.keys, "players"]
    obt = _where(A.opened_by_turn(ds, max_turn=3, by=by_players), base)
    wins = _where(A.win_shares(ds, by=by_players), base)
    lines = []
    for combo in _combos(obt, by_players):
        o = _where(obt, combo).filter(pl.col("turn") == 3)
        w = _where(wins, combo)
        first, last = o.row(0, named=True), o.row(o.height - 1, named=True)
        w0, wl = w.row(0, named=True), w.row(w.height - 1, named=True)
        lines.append(f"- {ds.path.name}, Rummikub, {_label(combo)}: seat 0 has opened by its 3rd turn in "
                     f"{share_text(first)} of rounds, seat {last['seat']} in {share_text(last)}; seat 0 wins "
                     f"{share_text(w0)}, seat {wl['seat']} {share_text(wl)}.")
    for k in swept_fields(ds, skip=("players",)):
        c = A.compare_variants(ds, {k: base[k]}, ["opened_by_3", "turns", "mean_penalty"])
        for r in c.filter(pl.col("metric") == "turns").iter_rows(named=True):
            sub = {m["metric"]: m for m in c.filter(pl.col("variant") == r["variant"]).iter_rows(named=True)}
            o, p = sub["opened_by_3"], sub["mean_penalty"]
            lines.append(f"  - {r['variant']} against {k}={str(base[k]).lower()}: turns {r['diff']:+.2f} "
                         f"[{r['ci_low']:+.2f}, {r['ci_high']:+.2f}], opened by the 3rd turn "
                         f"{100 * o['diff']:+.1f} [{100 * o['ci_low']:+.1f}, {100 * o['ci_high']:+.1f}] points, "
                         f"mean penalty {p['diff']:+.1f} [{p['ci_low']:+.1f}, {p['ci_high']:+.1f}].")
    return lines
