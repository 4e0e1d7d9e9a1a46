"""Rummy 101's sections of a report (:func:`sim.report.build_report`): the variants at a
glance, openings, thresholds, penalties, paired comparisons, and the key numbers."""

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
    shown_variants,
    swept_fields,
    typed_value,
)


def report_sections(rep: Report, ds: A.Dataset, prefer: dict) -> None:
    _glance(rep, ds)
    _opening_figures(rep, ds, prefer)
    _threshold_section(rep, ds, prefer)
    _penalty_section(rep, ds, prefer)
    _comparison_section(rep, ds, prefer)


def headlines(ds: A.Dataset, prefer: dict) -> list[str]:
    """The reference variant's key numbers, and what changing each swept field does."""
    lines: list[str] = []
    base = baseline_variant(ds, prefer)
    obt = _where(A.opened_by_turn(ds, max_turn=5), base)
    fin = _where(A.finish_rates(ds), base)
    so = fin.filter(pl.col("finish") == "stock_out").row(0, named=True)
    seat0 = obt.filter((pl.col("seat") == 0) & (pl.col("turn") == 3)).row(0, named=True)
    last = int(obt["seat"].max())
    seatn = obt.filter((pl.col("seat") == last) & (pl.col("turn") == 3)).row(0, named=True)
    lines.append(f"- {ds.path.name}, {_label(base)}: seat 0 has opened by its 3rd turn in "
                 f"{pct(seat0['share'])} {ci_text(seat0['ci_low'], seat0['ci_high'])} of rounds, seat {last} in "
                 f"{pct(seatn['share'])} {ci_text(seatn['ci_low'], seatn['ci_high'])}; "
                 f"{pct(so['share'])} {ci_text(so['ci_low'], so['ci_high'])} of rounds end with the stock "
                 "exhausted.")
    for k in ds.keys:
        levels = list(dict.fromkeys(typed_value(v["partition"][k]) for v in ds.variants))
        if len(levels) < 2:
            continue
        c = A.compare_variants(ds, {k: base[k]}, ["opened_by_3", "stock_out", "mean_penalty"])
        for level in levels:
            if level == base[k]:
                continue
            row = {r["metric"]: r for r in c.filter(pl.col("variant") == _label({**base, k: level}))
                   .iter_rows(named=True)}
            if not row:
                continue

            def pts(m: str, scale: float = 100.0, row=row) -> str:
                r = row[m]
                return (f"{scale * r['diff']:+.1f} [{scale * r['ci_low']:+.1f}, "
                        f"{scale * r['ci_high']:+.1f}]")

            lines.append(f"  - {_label({k: level})} instead of {_label({k: base[k]}).split('=')[1]}: "
                         "players opened by their 3rd turn "
                         f"{pts('opened_by_3')}, stock-outs {pts('stock_out')}, mean penalty "
                         f"{pts('mean_penalty', 1.0)} points.")
    return lines


def _glance(rep: Report, ds: A.Dataset) -> None:
    keys = list(ds.keys)
    length = A.round_length(ds)
    fin = A.finish_rates(ds)
    never = A.never_opened(ds)
    pen = A.penalties(ds)
    gain = A.winner_gain(ds)
    rows = []
    for combo in _combos(length, keys):
        r = _where(length, combo).row(0, named=True)
        so = _where(fin, combo).filter(pl.col("finish") == "stock_out").row(0, named=True)
        jk = _where(fin, combo).filter(pl.col("finish").is_in(["joker", "one_turn_joker"]))
        nv = _where(never, combo).row(0, named=True)
        pe = _where(pen, combo).row(0, named=True)
        gn = _where(gain, combo)
        rows.append({
            "variant": _label(combo), "rounds": r["n"],
            "turns": f"{r['mean']:.1f} {ci_text(r['ci_low'], r['ci_high'], False)}",
            "stock out": f"{pct(so['share'])} {ci_text(so['ci_low'], so['ci_high'])}",
            "joker finish": pct(jk["k"].sum() / r["n"]),
            "never open": f"{pct(nv['share'])} {ci_text(nv['ci_low'], nv['ci_high'])}",
            "mean penalty": f"{pe['mean']:.1f} {ci_text(pe['ci_low'], pe['ci_high'], False)}",
            "winner gain": f"{gn['mean'].item():.1f}" if gn.height else "–",
        })
    rep.add("### The variants at a glance", "",
            "Turns per round (all seats), rounds ending with the stock exhausted (T-END-1), rounds "
            "won by throwing a joker (T-FIN-2), players who never open, the mean penalty of the "
            "players who did not win (minus their score, T-SCORE-2/3) and the winner's mean gain "
            "(T-SCORE-1). Brackets: 95% intervals.", "")
    rep.table(pl.DataFrame(rows), {"rounds": ","})


def _opening_figures(rep: Report, ds: A.Dataset, prefer: dict) -> None:
    keys = list(ds.keys)
    base = baseline_variant(ds, prefer)
    opened_by_turn_section(rep, ds, "1 = their first turn; seat 0 starts with 22 tiles and no draw, T-SET-2",
                           (1, 3, 5), "opened-by-turn", "Share of players opened by their own turn, by seat.")
    kinds = A.opening_kinds(ds)
    took = A.discard_openings(ds)
    rows = []
    for combo in _combos(kinds, keys):
        k = _where(kinds, combo)
        t = _where(took, combo)
        get = dict(zip(k["open_kind"], k["share"], strict=True))
        tk = dict(zip(t["open_kind"], t["share"], strict=True))
        rows.append({"variant": _label(combo), "melds": pct(get.get("melds", 0)),
                     "pairs": pct(get.get("pairs", 0)), "never": pct(get.get("never", 0)),
                     "melds openings with the discard": pct(tk.get("melds", 0)),
                     "pairs openings with the discard": pct(tk.get("pairs", 0))})
    rep.add("How players open (T-OPEN-1, T-OPEN-2), and how many openings take the previous "
            "player's discard into the opening (T-TAKE-2):", "")
    rep.table(pl.DataFrame(rows))
    vals = A.opening_values(ds, "melds", by=keys)
    rep.figure(plots.opening_value_cdf(vals, shown_variants(vals, keys, base)), "opening-values",
               "Cumulative distribution of the points laid down in melds openings.")

def _threshold_section(rep: Report, ds: A.Dataset, prefer: dict) -> None:
    keys = list(ds.keys)
    order = A.threshold_by_order(ds, by=[*keys, "threshold_mode"] if "threshold_mode" not in keys else keys)
    inc = order.filter(pl.col("threshold_mode") == "increasing")
    if inc.height:
        rep.add("### Increasing thresholds", "",
                "In increasing mode each melds opening must beat the previous one (T-THR-2). The "
                "requirement in force for the 1st, 2nd, 3rd... melds opener of a round, with the "
                "value actually laid down (means, 95% intervals):", "")
        inc = inc.with_columns(pl.format("{} [{}, {}]", pl.col("mean").round(1), pl.col("ci_low").round(1),
                                         pl.col("ci_high").round(1)).alias("threshold in force"))
        cols = [c for c in keys if c != "threshold_mode"]
        rep.table(inc.select(*cols, "open_order", "n", "threshold in force", pl.col("mean_value").round(1)),
                  {"n": ","})
        base = {k: v for k, v in baseline_variant(ds, prefer).items() if k in cols}
        fig = plots.threshold_by_order(inc, shown_variants(inc, cols, base, vary="players"))
        rep.figure(fig, "threshold-by-order", "The bar each melds opener faces in increasing mode (T-THR-2), "
                   "with 95% bands, and the mean value it lays down.")
    if "open_points" in keys:
        curve = A.threshold_curve(ds, turn=3)
        rest = [k for k in keys if k != "open_points"]
        fig = plots.threshold_curve(curve, rest)
        rep.add("### The opening threshold", "",
                "Across the `open_points` sweep: the share of players opened by their own third turn "
                "and the mean penalty of the players who did not win, as functions of the threshold.", "")
        rep.figure(fig, "threshold-curve", "Opening by the third turn and penalties against the threshold.")
        rep.table(curve.select(*rest, "open_points", "n",
                               pl.format("{}% [{}, {}]", (pl.col("p_open") * 100).round(1),
                                         (pl.col("p_ci_low") * 100).round(1),
                                         (pl.col("p_ci_high") * 100).round(1)).alias("opened by turn 3"),
                               pl.format("{} [{}, {}]", pl.col("mean_penalty").round(1),
                                         pl.col("penalty_ci_low").round(1),
                                         pl.col("penalty_ci_high").round(1)).alias("mean penalty")),
                  {"n": ","})


def _penalty_section(rep: Report, ds: A.Dataset, prefer: dict) -> None:
    keys = list(ds.keys)
    base = baseline_variant(ds, prefer)
    rep.add("### Penalties", "",
            "What the players who did not win lose, by how they opened: melds lose their rack, "
            "pairs twice it, players who never opened 202 (T-SCORE-2); a joker finish doubles it, a "
            "one-turn finish costs 404 (T-SCORE-3); a stock exhaustion charges every hand (T-END-1). "
            "Means with 95% intervals.", "")
    pen = A.penalties(ds, by=[*keys, "open_kind"])
    pen = pen.with_columns(pl.col("open_kind").cast(pl.String).fill_null("never opened"))
    rows = []
    for combo in _combos(pen, keys):
        row = {"variant": _label(combo)}
        for kind in ("melds", "pairs", "never opened"):
            s = _where(pen, combo).filter(pl.col("open_kind") == kind)
            row[kind] = (f"{s['mean'].item():.1f} {ci_text(s['ci_low'].item(), s['ci_high'].item(), False)}"
                         if s.height else "–")
        rows.append(row)
    rep.table(pl.DataFrame(rows))
    byfin = A.penalties(ds, by=[*keys, "finish"])
    rows = []
    for combo in _combos(byfin, keys):
        row = {"variant": _label(combo)}
        for fin in ("normal", "joker", "one_turn", "stock_out"):
            s = _where(byfin, combo).filter(pl.col("finish").cast(pl.String) == fin)
            row[fin] = f"{s['mean'].item():.1f}" if s.height else "–"
        rows.append(row)
    rep.add("Mean penalty by how the round ended:", "")
    rep.table(pl.DataFrame(rows))
    out = A.outcomes(ds, by=keys)
    fig = plots.outcomes(out, _combos(out, keys))
    rep.figure(fig, "outcomes", "Share of players who win, lose after a melds or a pairs opening, or lose "
               "without opening (every variant; intervals below 0.5 points at these sample sizes).")
    dist = A.penalty_distribution(ds, by=keys)
    fig = plots.penalty_cdf(dist, shown_variants(dist, keys, base, vary="players", most=12))
    rep.figure(fig, "penalties", "Cumulative distribution of the penalties of players who opened and lost: "
               "a pairs opening doubles the rack's value (T-SCORE-2).")
    sc = A.scores(ds, by=[*keys, "seat"] if "players" in keys else [*keys, "players", "seat"])
    rep.add("Score by seat (mean with 95% interval, and quartiles):", "")
    cols = [c for c in sc.columns if c in keys or c in ("players", "seat")]
    rep.table(sc.select(*cols, "n", pl.format("{} [{}, {}]", pl.col("mean").round(1), pl.col("ci_low").round(1),
                                              pl.col("ci_high").round(1)).alias("mean score"),
                        "q25", "median", "q75"), {"n": ","})


REPORT_METRICS = ("opened_by_3", "never_opened", "stock_out", "mean_penalty", "seat0_score", "turns")
FOREST_METRICS = ("opened_by_3", "stock_out", "mean_penalty", "turns")


def _comparison_section(rep: Report, ds: A.Dataset, prefer: dict) -> None:
    swept = swept_fields(ds)
    if not swept:
        return
    frames = []
    for k in swept:
        ref = baseline_variant(ds, prefer)[k]
        c = A.compare_variants(ds, {k: ref}, REPORT_METRICS)
        frames.append(c.with_columns(pl.lit(compared_label(k, ref)).alias("field")))
    comp = pl.concat(frames)
    rep.add("### Paired comparisons", "",
            "Each variant against the reference value of one swept field, the others held equal. The "
            "rounds of a sweep share their shuffled tiles (common random numbers), so every round "
            "gives a paired difference, and the interval of its mean is far tighter than that of two "
            "independent means: the last column gives the paired half-width of the first metric "
            "next to the unpaired one.", "")
    fig = plots.paired_forest(comp, FOREST_METRICS)
    rep.figure(fig, "paired-differences", "Paired differences of key metrics, each variant against the reference "
               "value of one swept field (the others equal), with 95% intervals (often narrower than the dots).")
    def half_widths(sub: pl.DataFrame) -> dict:
        first = sub.filter(pl.col("metric") == REPORT_METRICS[0]).row(0, named=True)
        return {f"{REPORT_METRICS[0]} ± paired / unpaired (points of %)":
                f"{100 * (first['ci_high'] - first['ci_low']) / 2:.2f} / {100 * first['unpaired_half_width']:.2f}"}

    rep.table(paired_table(comp, REPORT_METRICS, half_widths))
    rep.add("Metrics: " + "; ".join(f"`{k}`: {A.metric_texts(ds)[k]}" for k in REPORT_METRICS) + ".", "")


