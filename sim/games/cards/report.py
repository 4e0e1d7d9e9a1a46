"""Card Rummy 101's sections of a report (:func:`sim.report.build_report`): the variants at
a glance, who wins a match by seat, team and first dealer, what going rummy is worth, the
points of a hand, coming back from behind, the paired effect of every swept rule
(``target``, ``decks``, ``partners``, the deal size), and the key numbers."""

from __future__ import annotations

import polars as pl

from sim import analysis as A
from sim import plots
from sim.games.cards.analysis import UNIT_METRICS
from sim.plots import select as _where
from sim.plots import variant_label as _label
from sim.plots import variants as _combos
from sim.report import (
    Report,
    baseline_variant,
    ci_text,
    compared_label,
    paired_table,
    pct,
    share_text,
    shown_variants,
    swept_fields,
)

COMPARED = ("hands", "wash_share", "rummy_share", "mean_points", "first_dealer_win", "margin")
# Win shares of a seat and of a team are not one quantity: partners are compared without them.
SIDE_METRICS = ("first_dealer_win", "seat0_win")
FOREST = ("hands", "wash_share", "mean_points", "first_dealer_win")
DEFICITS = (10, 25, 50, 75, 100, 150, 200)


def _mean(r: dict, name: str, digits: int = 2) -> str:
    return f"{r[name]:.{digits}f} {ci_text(r[f'{name}_ci_low'], r[f'{name}_ci_high'], False, digits)}"


def _group(ds: A.Dataset) -> list[str]:
    return [*ds.keys, *[c for c in ("players", "partners") if c not in ds.keys]]


def report_sections(rep: Report, ds: A.Dataset, prefer: dict) -> None:
    group = _group(ds)
    base = baseline_variant(ds, prefer)
    # --- at a glance
    length = A.hands_per_match(ds, by=group)
    fin = A.hand_finishes(ds, by=group)
    worth = A.rummy_worth(ds, by=group)
    rows = []
    for combo in _combos(length, group):
        m = _where(length, combo).row(0, named=True)
        f = _where(fin, combo)
        wash = f.filter(pl.col("finish") == "wash")
        w = _where(worth, combo).row(0, named=True)
        rows.append({"variant": _label(combo), "matches": m["matches"], "hands a match": _mean(m, "hands"),
                     "median, 90th": f"{m['hands_p50']:.0f}, {m['hands_p90']:.0f}",
                     "hands washed": share_text(wash.row(0, named=True)) if wash.height else "0%",
                     "scored hands gone rummy": f"{pct(w['rummy_share'], 2)} "
                     + ci_text(w["rummy_share_ci_low"], w["rummy_share_ci_high"], digits=2),
                     "points a scored hand": _mean(w, "points", 1),
                     "final totals": f"{m['winner_total']:.0f} vs {m['runner_up_total']:.0f}"})
    rep.add("### The variants at a glance", "",
            "Hands a match (washes included, C-WASH-1; the median and 90th percentile after), the share "
            "of hands washed out, the share of scored hands won by going rummy (C-SCORE-2), the mean "
            "points of a scored hand, and the mean final totals of the winner and the runner-up "
            "(C-MATCH-1). Brackets: 95% intervals, a match's hands clustered.", "")
    rep.table(pl.DataFrame(rows), {"matches": ","})
    # --- who wins
    wins = A.match_wins(ds, by=group)
    dealer = A.first_dealer_wins(ds, by=group)
    rows = []
    for combo in _combos(wins, group):
        row = {"variant": _label(combo)}
        for r in _where(wins, combo).iter_rows(named=True):
            row[f"{'team' if combo['partners'] else 'seat'} {r['side']}"] = share_text(r)
        rows.append(row)
    for combo, row in zip(_combos(wins, group), rows, strict=True):
        for r in _where(dealer, combo).iter_rows(named=True):
            row[f"dealer +{r['position']}"] = share_text(r)
    rep.add("### Who wins a match", "",
            "The share of matches each seat wins (with partners each team, team 0 being seats 0 and 2, "
            "C-TEAM-1), and by position from the seat that dealt first (dealer +0; +1 plays first, "
            "C-SET-2; the first deal goes round the seats from match to match). Equal seats would win "
            "1/players each.", "")
    names = sorted({c for r in rows for c in r if c != "variant"}, key=lambda c: (c.startswith("dealer"), c))
    rep.table(pl.DataFrame([{"variant": r["variant"], **{c: r.get(c, "–") for c in names}} for r in rows]))
    # --- rummy
    rows = []
    for combo in _combos(worth, group):
        w = _where(worth, combo).row(0, named=True)
        rows.append({"variant": _label(combo), "scored hands": w["hands"],
                     "gone rummy": f"{pct(w['rummy_share'], 2)} "
                                   f"{ci_text(w['rummy_share_ci_low'], w['rummy_share_ci_high'], digits=2)}",
                     "points of a rummy hand": "–" if w["rummy_points"] is None else _mean(w, "rummy_points", 1),
                     "points of a plain out": _mean(w, "out_points", 1),
                     "share of all points": pct(w["points_from_rummy"] or 0.0, 2)})
    rep.add("### What going rummy is worth", "",
            "Going out in one turn with nothing melded before doubles the hand (C-SCORE-2; the "
            "`rummy_factor` field). The greedy bot lays melds down as soon as it can and rarely goes "
            "rummy; the careful bot holds its melds to try.", "")
    rep.table(pl.DataFrame(rows), {"scored hands": ","})
    # --- points of a hand
    pts = A.points_per_hand(ds, by=group, width=5)
    rep.add("### The points of a hand", "",
            "What a scored hand is worth to the player going out (C-SCORE-1: the cards left in the "
            "others' hands, or the two opponents' with partners): the cumulative share worth at most x "
            "points, with 95% bands.", "")
    rep.figure(plots.cumulative(pts, "points", shown_variants(pts, group, base, vary="players"), "points of the hand",
                                "scored hands (%)", "Card Rummy 101: the points of a hand (cumulative, 95% bands)"),
               "cards-points", "Card Rummy 101: cumulative distribution of a scored hand's points.")
    # --- comebacks
    back = A.comeback(ds, DEFICITS, by=group)
    rep.add("### Coming back from behind", "",
            "Of the seats (teams) that trailed the leader by at least N points after some hand, the share "
            "that won the match anyway, with 95% bands (the figure leaves out deficits fewer than 30 "
            "trailed by).", "")
    shown = back.filter(pl.col("n") >= 30)
    # a panel per target (a longer match forgives more), a line per player count
    panels = "target" if "target" in group and shown["target"].n_unique() > 1 else None
    combos = [c for c in _combos(shown, group)
              if all(c.get(k) == v for k, v in base.items() if k not in ("players", panels))]
    rep.figure(plots.share_curve(shown, "deficit", combos, "points behind the leader after some hand (at least)",
                                 "went on to win the match (%)", "Card Rummy 101: coming back from behind",
                                 panels=panels),
               "cards-comeback", "Card Rummy 101: the chance to win after trailing by N points"
               + (", a panel per target." if panels else "."))
    rows = []
    for combo in _combos(back, group):
        row = {"variant": _label(combo)}
        for d in DEFICITS:
            r = _where(back, combo).filter(pl.col("deficit") == d)
            row[f"{d} behind"] = share_text(r.row(0, named=True)) if r.height else "–"
        rows.append(row)
    rep.table(pl.DataFrame(rows))
    # --- rules
    # Player counts are compared in the tables above: their seats' shares differ by design.
    swept = swept_fields(ds, skip=("players",))
    if not swept:
        return
    frames = [A.compare_variants(ds, {k: base[k]}, COMPARED)
              .with_columns(pl.lit(compared_label(k, base[k])).alias("field")) for k in swept]
    comp = pl.concat(frames).with_columns(  # a partners variant's side shares: not comparable
        *[pl.when(pl.col("variant").str.contains("partners=true") & pl.col("metric").is_in(SIDE_METRICS))
          .then(None).otherwise(pl.col(c)).alias(c) for c in ("diff", "ci_low", "ci_high")])
    rep.add("### What each rule changes", "",
            "Each variant against the reference value of one swept field, the others held equal: the "
            "same match ids deal the same cards hand by hand, so the differences are paired by match, "
            "with 95% intervals.", "")
    rep.figure(plots.paired_forest(comp, FOREST), "cards-rules",
               "Card Rummy 101: paired differences against the reference variant, 95% intervals.")
    rep.table(paired_table(comp, COMPARED))
    rep.add("Metrics: " + "; ".join(f"`{k}`: {UNIT_METRICS[k]}" for k in COMPARED) + ".", "")


def headlines(ds: A.Dataset, prefer: dict) -> list[str]:
    """Each variant's match length, washes and seat spread, and each swept field's effect."""
    group = _group(ds)
    length = A.hands_per_match(ds, by=group)
    wins = A.match_wins(ds, by=group)
    fin = A.hand_finishes(ds, by=group)
    base = baseline_variant(ds, prefer)
    lines = []
    for combo in _combos(length, group):
        m = _where(length, combo).row(0, named=True)
        w = _where(wins, combo).sort("share")
        wash = _where(fin, combo).filter(pl.col("finish") == "wash")
        lo, hi = w.row(0, named=True), w.row(w.height - 1, named=True)
        side = "team" if combo["partners"] else "seat"
        lines.append(f"- {ds.path.name}, card Rummy 101, {_label(combo)}: {_mean(m, 'hands')} hands a match, "
                     f"{share_text(wash.row(0, named=True)) if wash.height else '0%'} of hands washed; match wins "
                     f"from {side} {lo['side']} {share_text(lo)} to {side} {hi['side']} {share_text(hi)}.")
    for k in swept_fields(ds, skip=("players",)):
        c = A.compare_variants(ds, {k: base[k]}, ["hands", "first_dealer_win"])
        for r in c.filter(pl.col("metric") == "hands").iter_rows(named=True):
            d = c.filter((pl.col("variant") == r["variant"]) & (pl.col("metric") == "first_dealer_win")).row(
                0, named=True)
            dealer = ("" if "partners=true" in r["variant"] else
                      f", the first dealer's match wins {100 * d['diff']:+.1f} [{100 * d['ci_low']:+.1f}, "
                      f"{100 * d['ci_high']:+.1f}] points")
            lines.append(f"  - {r['variant']} against {k}={str(base[k]).lower()}: hands a match {r['diff']:+.2f} "
                         f"[{r['ci_low']:+.2f}, {r['ci_high']:+.2f}]{dealer}.")
    return lines
