"""The figures of the reports and notebooks, from the tables of :mod:`sim.analysis`.

Every function returns a matplotlib Figure with a title, labelled axes with units and
95% bands; ``STYLE`` (a ``plt.rc_context`` dict) gives them readable fonts.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from sim.stats import wilson_interval

STYLE = {
    "figure.figsize": (8.0, 4.6),
    "figure.dpi": 110,
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "legend.fontsize": 9.5,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.hashsalt": "rummy-sim",
}
SEAT_COLOURS = ("#1b6ca8", "#d1495b", "#edae49", "#00798c")
OUTCOMES = ("won", "lost, opened with melds", "lost, opened with pairs", "lost, never opened")
OUTCOME_COLOURS = ("#2a9d8f", "#8ab17d", "#e9c46a", "#e76f51")
PERCENT_METRICS = ("opened_by_3", "stock_out", "never_opened", "joker_finish", "pool_empty", "seat0_win",
                   "seat0_edge", "wash_share", "rummy_share", "first_dealer_win", "first_dealer_edge")
UNITS = {"turns": "turns", "hands": "hands"}  # of paired differences not in points


def scale_of(metric: str) -> int:
    """What a metric's values are multiplied by as people read them: 100 for a share (its
    differences in points of %), 1 for the rest."""
    return 100 if metric in PERCENT_METRICS else 1


def legend_below(fig, axes, ncols: int = 3, fontsize: float | None = 8.5) -> None:
    """One legend for the figure, under its panels, so that no legend sits over a curve:
    every distinct label of ``axes`` once."""
    entries: dict = {}
    for ax in np.ravel(axes):
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    if entries:
        fig.set_layout_engine("constrained")
        fig.legend(entries.values(), entries.keys(), loc="outside lower center", ncols=min(ncols, len(entries)),
                   fontsize=fontsize)


# A cumulative figure's axis ends where this share of every line is reached: a long thin tail
# (a card hand's points run to 400, nearly all under 150) would squeeze the curves to the left.
AXIS_END = 0.995


def _axis_end(values: np.ndarray, shares: np.ndarray) -> float:
    """The first value where a cumulative share reaches :data:`AXIS_END`."""
    reached = np.nonzero(shares >= AXIS_END)[0]
    return float(values[reached[0]] if reached.size else values[-1])


def variant_label(combo: dict) -> str:
    """``players=4, threshold_mode=fixed``; ``all rounds`` for no fields."""
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in combo.items()) or "all rounds"


def variants(df: pl.DataFrame, keys: list[str]) -> list[dict]:
    """The distinct values of ``keys`` in ``df``, sorted, as dicts."""
    return df.select(keys).unique().sort(keys).rows(named=True) if keys else [{}]


def first_variants(df: pl.DataFrame, keys: list[str], most: int) -> tuple[list[dict], str]:
    """The first ``most`` variants of ``df`` for a figure that cannot show more, and a
    sentence naming the ones left out (empty when none is)."""
    combos = variants(df, keys)
    if len(combos) <= most:
        return combos, ""
    left = "; ".join(variant_label(c) for c in combos[most:])
    return combos[:most], f"The figure shows {most} of {len(combos)} variants; left out: {left}."


def select(df: pl.DataFrame, combo: dict) -> pl.DataFrame:
    """The rows of one variant."""
    return df.filter(*[pl.col(k) == v for k, v in combo.items()]) if combo else df


def opened_by_turn(obt: pl.DataFrame, others: dict | None = None):
    """Share of players opened by their own turn, one panel per player count, a line per
    seat; ``obt`` from :func:`sim.analysis.opened_by_turn`, ``others`` fixes the other fields."""
    others = others or {}
    counts = sorted(obt["players"].unique().to_list())
    fig, axes = plt.subplots(1, len(counts), sharey=True, figsize=(4.2 * len(counts) + 0.8, 4.3), squeeze=False)
    for ax, n in zip(axes[0], counts, strict=True):
        sub = select(obt, {**others, "players": n})
        for seat in range(n):
            s = sub.filter(pl.col("seat") == seat).sort("turn")
            c = SEAT_COLOURS[seat]
            ax.plot(s["turn"], 100 * s["share"], marker="o", ms=3, color=c,
                    label=f"seat {seat}" + (" (starts)" if seat == 0 else ""))
            ax.fill_between(s["turn"], 100 * s["ci_low"], 100 * s["ci_high"], color=c, alpha=0.2)
        ax.set_title(f"{n} players")
        ax.set_xlabel("own turn (1 = first)")
        ax.set_xticks(range(1, int(obt["turn"].max()) + 1))
    axes[0][0].set_ylabel("players opened by then (%)")
    axes[0][0].set_ylim(0, 100)
    legend_below(fig, axes)
    fig.suptitle("Share of players opened by their own turn, with 95% bands")
    return fig


def opened_by_variant(obt: pl.DataFrame, vary: list[str]):
    """Share of players opened by their own turn, every seat together, one panel per player
    count and a line per value of the ``vary`` fields: what a rule does to the openings.
    ``obt`` from :func:`sim.analysis.opened_by_turn` with ``seats=False``."""
    counts = sorted(obt["players"].unique().to_list())
    fig, axes = plt.subplots(1, len(counts), sharey=True, figsize=(4.2 * len(counts) + 0.8, 4.3), squeeze=False)
    for ax, n in zip(axes[0], counts, strict=True):
        sub = select(obt, {"players": n})
        for combo in variants(sub, vary):
            s = select(sub, combo).sort("turn")
            line, = ax.plot(s["turn"], 100 * s["share"], marker="o", ms=3, label=variant_label(combo))
            ax.fill_between(s["turn"], 100 * s["ci_low"], 100 * s["ci_high"], color=line.get_color(), alpha=0.2)
        ax.set_title(f"{n} players")
        ax.set_xlabel("own turn (1 = first)")
        ax.set_xticks(range(1, int(obt["turn"].max()) + 1))
    axes[0][0].set_ylabel("players opened by then (%)")
    axes[0][0].set_ylim(0, 100)
    legend_below(fig, axes)
    fig.suptitle("Share of players opened by their own turn (all seats), with 95% bands")
    return fig


def opening_value_cdf(vals: pl.DataFrame, combos: list[dict]):
    """Cumulative distribution of melds opening values; ``vals`` from
    :func:`sim.analysis.opening_values`."""
    fig, ax = plt.subplots()
    for combo in combos:
        s = select(vals, combo).sort("open_value")
        k = s["k"].cum_sum().to_numpy()
        n = s["n"].to_numpy()
        lo, hi = wilson_interval(k, n)
        ax.step(s["open_value"], 100 * k / n, where="post", label=variant_label(combo), lw=1.3)
        ax.fill_between(s["open_value"], 100 * lo, 100 * hi, step="post", alpha=0.2)
    ax.set_xlabel("points laid down in the melds opening")
    ax.set_ylabel("melds openings worth at most that (%)")
    ax.set_xlim(98, 170)
    ax.set_ylim(0, 100)
    ax.set_title("How big are melds openings? (cumulative, 95% bands)")
    legend_below(fig, ax)
    return fig


def cumulative(df: pl.DataFrame, value: str, combos: list[dict], xlabel: str, ylabel: str, title: str):
    """Cumulative distributions of ``value`` (rows with ``k`` of ``n``), a line per variant
    of ``combos``, with 95% Wilson bands."""
    fig, ax = plt.subplots()
    ends = []
    for combo in combos:
        s = select(df, combo).sort(value)
        k = s["k"].cum_sum().to_numpy()
        n = s["n"].to_numpy()
        lo, hi = wilson_interval(k, n)
        ax.step(s[value], 100 * k / n, where="post", label=variant_label(combo), lw=1.3)
        ax.fill_between(s[value], 100 * lo, 100 * hi, step="post", alpha=0.2)
        ends.append(_axis_end(s[value].to_numpy(), k / n))
    ax.set_xlim(right=max(ends))
    ax.set_xlabel(f"{xlabel} (the axis ends where {100 * AXIS_END:g}% of every line is)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 100)
    ax.set_title(title)
    legend_below(fig, ax)
    return fig


def share_curve(df: pl.DataFrame, x: str, combos: list[dict], xlabel: str, ylabel: str, title: str,
                panels: str | None = None):
    """A share (``share``, ``ci_low``, ``ci_high``) against ``x``, a line per variant of
    ``combos``, with its 95% band; ``panels``: a field whose every value gets a panel of
    its own (the lines there: the variants of ``combos`` with that value)."""
    values = list(dict.fromkeys(c[panels] for c in combos)) if panels else [None]
    fig, axes = plt.subplots(1, len(values), figsize=(4.6 * len(values) + 0.8, 4.6), sharey=True, squeeze=False)
    colours = {}
    for ax, value in zip(axes[0], values, strict=True):
        for combo in [c for c in combos if panels is None or c[panels] == value]:
            name = variant_label({k: v for k, v in combo.items() if k != panels})
            s = select(df, combo).sort(x)
            line = ax.plot(s[x], 100 * s["share"], marker="o", label=name, color=colours.get(name))[0]
            colours[name] = line.get_color()
            ax.fill_between(s[x], 100 * s["ci_low"], 100 * s["ci_high"], alpha=0.2, color=line.get_color())
        ax.set_xlabel(xlabel)
        if panels:
            ax.set_title(variant_label({panels: value}))
    axes[0][0].set_ylabel(ylabel)
    axes[0][0].set_ylim(bottom=0)
    fig.suptitle(title)
    legend_below(fig, axes)
    return fig


def threshold_by_order(inc: pl.DataFrame, combos: list[dict]):
    """Increasing mode: the requirement in force and the value laid by opening order;
    ``inc`` from :func:`sim.analysis.threshold_by_order` (increasing variants)."""
    fig, ax = plt.subplots()
    for combo in combos:
        s = select(inc, combo).sort("open_order")
        line = ax.plot(s["open_order"], s["mean"], marker="o", label=variant_label(combo))[0]
        ax.fill_between(s["open_order"], s["ci_low"], s["ci_high"], alpha=0.2, color=line.get_color())
        ax.plot(s["open_order"], s["mean_value"], ls=":", marker=".", color=line.get_color())
    ax.set_xlabel("order of the melds opening in the round (1 = first opener)")
    ax.set_ylabel("points")
    ax.set_xticks(range(1, int(inc["open_order"].max()) + 1))
    ax.set_title("Increasing mode: requirement in force (solid) and value laid (dotted)")
    legend_below(fig, ax)
    return fig


def threshold_curve(curve: pl.DataFrame, rest: list[str]):
    """P(opened by turn t) and mean penalty against ``open_points``; ``curve`` from
    :func:`sim.analysis.threshold_curve`, one line per value of the ``rest`` fields."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4.3))
    for combo in variants(curve, rest):
        s = select(curve, combo).sort("open_points")
        lab = variant_label(combo) if combo else None
        a1.plot(s["open_points"], 100 * s["p_open"], marker="o", label=lab)
        a1.fill_between(s["open_points"], 100 * s["p_ci_low"], 100 * s["p_ci_high"], alpha=0.2)
        a2.plot(s["open_points"], s["mean_penalty"], marker="o", label=lab)
        a2.fill_between(s["open_points"], s["penalty_ci_low"], s["penalty_ci_high"], alpha=0.2)
    a1.set_xlabel("opening threshold (points)")
    a1.set_ylabel("players opened by own turn 3 (%)")
    a1.set_title("Opening by the 3rd turn")
    a2.set_xlabel("opening threshold (points)")
    a2.set_ylabel("mean penalty of non-winners (points)")
    a2.set_title("Penalties")
    if rest:
        legend_below(fig, a1)
    fig.suptitle("The opening threshold (open_points), with 95% bands")
    return fig


def outcomes(out: pl.DataFrame, combos: list[dict]):
    """Stacked shares of won / lost after melds / after pairs / never opened; ``out``
    from :func:`sim.analysis.outcomes`."""
    fig, ax = plt.subplots(figsize=(8.0, 0.42 * len(combos) + 1.6))
    left = np.zeros(len(combos))
    for name, colour in zip(OUTCOMES, OUTCOME_COLOURS, strict=True):
        vals = np.array([select(out, c).filter(pl.col("outcome") == name)["share"].sum() for c in combos])
        ax.barh(range(len(combos)), 100 * vals, left=100 * left, color=colour, label=name)
        left += vals
    ax.set_yticks(range(len(combos)), [variant_label(c) for c in combos], fontsize=8.5)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of players (%)")
    ax.set_title("What a round brings a player")
    ax.legend(ncols=2, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18 if len(combos) < 6 else -0.08))
    return fig


def penalty_cdf(dist: pl.DataFrame, combos: list[dict]):
    """Cumulative penalties of losing openers, melds (solid) vs pairs (dashed), one panel
    per variant of ``combos`` (every one of them); ``dist`` from
    :func:`sim.analysis.penalty_distribution`."""
    cols = min(3, len(combos))
    rows = -(-len(combos) // cols)
    fig, axes = plt.subplots(rows, cols, sharex=True, sharey=True, squeeze=False, layout="constrained",
                             figsize=(3.6 * cols + 0.6, 2.7 * rows + 1.2))
    for ax in axes.flat[len(combos):]:
        ax.set_visible(False)
    ends = []
    for ax, combo in zip(axes.flat, combos, strict=False):
        for kind, style in (("melds", "-"), ("pairs", "--")):
            s = select(dist, combo).filter(pl.col("open_kind") == kind).sort("penalty")
            if s.height == 0:
                continue
            k = s["k"].cum_sum().to_numpy()
            n = s["n"].to_numpy()
            lo, hi = wilson_interval(k, n)
            ax.step(s["penalty"], 100 * k / n, where="post", ls=style, color="#1b6ca8", label=f"opened with {kind}")
            ax.fill_between(s["penalty"], 100 * lo, 100 * hi, step="post", alpha=0.15, color="#1b6ca8")
            ends.append(_axis_end(s["penalty"].to_numpy(), k / n))
        ax.set_ylim(0, 100)
        ax.set_title(variant_label(combo), fontsize=8)
    for ax in axes.flat:
        ax.set_xlim(0, max(ends, default=900))
    for ax in axes[-1]:
        ax.set_xlabel(f"penalty (points; the axis ends where {100 * AXIS_END:g}% are)", fontsize=9)
    for ax in axes[:, 0]:
        ax.set_ylabel("losing openers (%)", fontsize=9)
    legend_below(fig, axes, ncols=2, fontsize=None)  # one entry per kind, whichever panel has it
    fig.suptitle("Penalties after an opening: share paying at most x points (cumulative, 95% bands)")
    return fig


def seat_edges(adv: pl.DataFrame, combos: list[dict]):
    """Who a seat favours: each seat's win edge (points of %) and score edge (points) over the
    table's mean with 95% intervals, a column per player count, a marker per variant of
    ``combos`` (rows of :func:`sim.analysis.seat_advantage`); seat 0 starts."""
    counts = sorted({int(c["players"]) for c in combos})
    fig, axes = plt.subplots(2, len(counts), figsize=(3.2 * len(counts) + 1.4, 6.0), squeeze=False,
                             sharey="row", layout="constrained")
    others = list(dict.fromkeys(variant_label({k: v for k, v in c.items() if k != "players"}) for c in combos))
    colours = {name: plt.cm.tab10(i % 10) for i, name in enumerate(others)}
    for col, players in enumerate(counts):
        mine = [c for c in combos if int(c["players"]) == players]
        for i, combo in enumerate(mine):
            sub = select(adv, combo).sort("seat")
            name = variant_label({k: v for k, v in combo.items() if k != "players"})
            x = sub["seat"].to_numpy() + (i - (len(mine) - 1) / 2) * 0.12
            for row, (value, scale) in enumerate((("win_edge", 100), ("score_edge", 1))):
                v = scale * sub[value].to_numpy()
                err = [v - scale * sub[f"{value}_ci_low"].to_numpy(), scale * sub[f"{value}_ci_high"].to_numpy() - v]
                axes[row, col].errorbar(x, v, yerr=err, fmt="o", ms=4, capsize=2.5, color=colours[name],
                                        label=name if row == 0 else None)
        for row in range(2):
            ax = axes[row, col]
            ax.axhline(0, color="#888", lw=0.8)
            ax.set_xticks(range(players))
            ax.set_xlim(-0.5, players - 0.5)
            ax.set_xlabel("seat (0 starts)" if row == 1 else "")
        axes[0, col].set_title(f"{players} players")
    axes[0, 0].set_ylabel("win edge (points of %)")
    axes[1, 0].set_ylabel("score edge (points)")
    if others != ["all rounds"]:  # one unnamed variant needs no legend
        legend_below(fig, axes[0])
    fig.suptitle("Who a seat favours: its edge over the table's mean, 95% intervals")
    return fig


SHARE_PARTS = (("dealt_hand", "the dealt hand", "#1b6ca8"), ("deal_id", "the deal", "#1b6ca8"),
               ("seat", "the seat", "#edae49"), ("policy", "the bot", "#d1495b"), ("residual", "the rest", "#bbbbbb"))


def skill_ladder(s: dict, most: int = 8):
    """How much playing well is worth (a ``sim skill`` run, :func:`sim.skill.skill`): each bot's
    mean score per variant with its 95% interval, weakest bot first (left), and the shares of a
    bot's score variance that go with the dealt hand, the seat, the bot and the rest (right), a
    row per variant (the first ``most``)."""
    variants = s["variants"][:most]
    bots = s["policies"]
    names = [variant_label(v["variant"]) if v["variant"] else "the rules as given" for v in variants]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 1.6 + 0.45 * max(len(variants), 4)),
                                      layout="constrained", gridspec_kw={"width_ratios": [1.2, 1]})
    width = 0.8 / len(variants)
    for i, (v, name) in enumerate(zip(variants, names, strict=True)):
        x = np.arange(len(bots)) + (i - (len(variants) - 1) / 2) * width
        m = [v["policies"][b]["mean_score"] for b in bots]
        y = np.array([d["estimate"] for d in m])
        err = [y - np.array([d["ci_low"] for d in m]), np.array([d["ci_high"] for d in m]) - y]
        left.errorbar(x, y, yerr=err, fmt="o", ms=4, capsize=2.5, color=plt.cm.tab10(i % 10), label=name)
    left.set_xticks(range(len(bots)), bots)
    left.set_ylabel(variants[0]["score"] if variants else "mean score")
    left.set_title(f"each bot against {s['field']} in the other seats")
    for row, v in enumerate(variants):
        start = 0.0
        for key, label, colour in SHARE_PARTS:
            share = v["variance"]["shares"].get(key)
            if share is None:
                continue
            right.barh(row, 100 * share, left=start, color=colour, label=label if row == 0 else None)
            if share > 0.06:
                right.text(start + 50 * share, row, f"{100 * share:.0f}%", ha="center", va="center", fontsize=8)
            start += 100 * share
    right.set_yticks(range(len(variants)), names)
    right.invert_yaxis()
    right.set_xlim(0, 100)
    right.set_xlabel("share of a bot's score variance (%)")
    right.set_title("what a score goes with")
    right.legend(loc="lower center", bbox_to_anchor=(0.5, 1.08), ncols=4, fontsize=8, frameon=False)
    if len(variants) > 1:
        left.legend(fontsize=8)
    fig.suptitle(f"{s['family']}: how much playing well is worth, 95% intervals")
    return fig


def _digits(half: float, most: int = 3) -> int:
    """Decimals that show an interval of half-width ``half`` to a quarter of it or finer, at most ``most``."""
    if not np.isfinite(half) or half <= 0:
        return 2
    return int(np.clip(-np.floor(np.log10(half / 2)), 0, most))


def effect_text(diff: float, low: float, high: float, scale: float = 1.0, most: int = 3) -> str:
    """A difference and its interval with the decimals the interval warrants (at most
    ``most``): ``+2.3 [+1.1, +3.5]``."""
    if diff is None or not np.isfinite(diff):
        return "–"
    d = _digits(scale * (high - low) / 2, most)
    return f"{scale * diff:+.{d}f} [{scale * low:+.{d}f}, {scale * high:+.{d}f}]"


def level_text(value: float, metric: str) -> str:
    """A baseline's value of ``metric`` in the unit its effects are in: ``55.7%``, ``40.1``."""
    if value is None or not np.isfinite(value):
        return "–"
    if metric.endswith("_edge"):  # an edge over an even split is itself in points of %
        return f"{100 * value:+.1f} pts"
    return f"{100 * value:.1f}%" if metric in PERCENT_METRICS else f"{value:.1f}"


def unit_of(metric: str) -> str:
    """The unit of a metric's differences: ``points of %`` for a share."""
    return "points of %" if metric in PERCENT_METRICS else UNITS.get(metric, "points")


def metric_heading(metric: str, names: dict[str, str] | None = None) -> str:
    """A metric's name (``names``' if given) with the unit of its differences:
    ``opened by 3 (points of %)``."""
    return f"{(names or {}).get(metric, metric.replace('_', ' '))} ({unit_of(metric)})"


# The glance metrics (sim.games.family.Family.glance_metrics) as a designer names them.
GLANCE_NAMES = {"turns": "turns a round", "opened_by_3": "opened by turn 3", "never_opened": "never opened",
                "mean_penalty": "a loser's penalty", "seat0_edge": "starter's win edge", "hands": "hands a match",
                "wash_share": "hands washed", "rummy_share": "hands won rummy", "mean_points": "points a hand",
                "first_dealer_edge": "first dealer's win edge", "pool_empty": "pool runs out"}


GLANCE_UP, GLANCE_DOWN, GLANCE_FEW = "#cfe3f4", "#f9dcc4", "#eeeeee"


def at_a_glance(sections: list[dict], metrics: tuple[str, ...], few: int, unit: str):
    """Every rule change of a report against its baseline, on one screen: a row per change,
    a column per metric, each cell the paired difference with its 95% interval, shaded blue
    (up) or orange (down) when the interval is clear of zero and left white when it is not;
    a row resting on fewer than ``few`` paired ``unit`` is greyed and marked. A section per
    dataset, headed by its baseline's values. ``sections``: ``{"title", "base": {metric:
    value}, "rows": [{"label", "n", "cells": {metric: (diff, low, high)}}]}``."""
    lines = sum(2 + len(s["rows"]) for s in sections)
    label_w, cell_w, row_h = 3.2, 2.0, 0.32
    fig = plt.figure(figsize=(label_w + cell_w * len(metrics), row_h * (lines + 1.6)))
    ax = fig.add_axes((0, 0, 1, 1))
    width = label_w + cell_w * len(metrics)
    ax.set_xlim(0, width)
    ax.set_ylim(lines + 1.6, 0)
    ax.axis("off")
    xs = [label_w + cell_w * (i + 0.5) for i in range(len(metrics))]
    for x, metric in zip(xs, metrics, strict=True):
        ax.text(x, 0.8, metric_heading(metric, GLANCE_NAMES).replace(" (", "\n("), ha="center", va="center",
                fontsize=10, weight="bold")
    y = 1.6
    for sec in sections:
        ax.add_patch(plt.Rectangle((0, y), width, 2, color="#f2f2f2", lw=0))
        ax.text(0.08, y + 0.5, sec["title"], va="center", fontsize=10, weight="bold")
        y += 1
        ax.text(0.2, y + 0.5, "the baseline's values", va="center", fontsize=10)
        for x, metric in zip(xs, metrics, strict=True):
            ax.text(x, y + 0.5, level_text(sec["base"].get(metric), metric), ha="center", va="center",
                    fontsize=10, weight="bold")
        y += 1
        for row in sec["rows"]:
            thin = row["n"] < few
            label = row["label"] + (f"  (few: {row['n']:,} {unit})" if thin else "")
            ax.text(0.2, y + 0.5, label, va="center", fontsize=10, color="#777" if thin else "#222")
            for x, metric in zip(xs, metrics, strict=True):
                diff, low, high = row["cells"].get(metric, (None, None, None))
                scale = scale_of(metric)
                clear = diff is not None and np.isfinite(diff) and (low > 0 or high < 0)
                colour = GLANCE_FEW if thin else (GLANCE_UP if clear and diff > 0 else
                                                  GLANCE_DOWN if clear else "white")
                ax.add_patch(plt.Rectangle((x - cell_w / 2 + 0.03, y + 0.04), cell_w - 0.06, 0.92, color=colour,
                                           lw=0))
                ax.text(x, y + 0.5, effect_text(diff, low, high, scale, most=2), ha="center", va="center",
                        fontsize=9.5, color="#222" if clear and not thin else "#777")
            y += 1
    return fig


def _forest(comp: pl.DataFrame, metrics: tuple[str, ...], row_height: float):
    """The frame of a forest plot of paired differences: a panel per metric side by side,
    each on its own scale (so that every interval shows), a row per comparison of ``comp``
    (with a ``field`` column), labelled once on the left. Returns the figure, the row
    labels and per panel ``(axes, metric, its rows of comp in row order, y positions,
    scale)``: 100 for shares."""
    rows = comp.select("field", "variant").unique(maintain_order=True)
    labels = [f"{r['variant']} ({r['field']})" for r in rows.iter_rows(named=True)]
    panel = 2.1 if len(metrics) > 1 else 4.8  # one metric alone (a notebook's explorer) gets room
    fig, axes = plt.subplots(1, len(metrics), figsize=(panel * len(metrics) + 3.2, row_height * len(labels) + 1.6),
                             squeeze=False, sharey=True, layout="constrained")
    panels = []
    for ax, metric in zip(axes[0], metrics, strict=True):
        m = rows.join(comp.filter(pl.col("metric") == metric), on=["field", "variant"], how="left")
        scale = scale_of(metric)
        ax.axvline(0, color="#888", lw=0.8)
        ax.set_title(metric_heading(metric).replace(" (", "\n("), fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        panels.append((ax, metric, m, np.arange(m.height), scale))
    axes[0, 0].set_yticks(np.arange(len(labels)), labels, fontsize=8)
    axes[0, 0].invert_yaxis()
    return fig, labels, panels


def paired_forest(comp: pl.DataFrame, metrics: tuple[str, ...], tips: bool = False):
    """Paired differences with 95% intervals, a panel per metric (side by side), a row per
    comparison, the intervals clear of zero in colour; ``comp`` from
    :func:`sim.analysis.compare_variants` with a ``field`` column. With ``tips``, each
    point names its row, difference, interval and paired units when the pointer rests on
    it in the SVG of :func:`svg_with_tips` (a notebook's explorer)."""
    fig, labels, panels = _forest(comp, metrics, 0.24)
    for ax, metric, m, y, scale in panels:
        d, low, high = (m[c].to_numpy().astype(float) for c in ("diff", "ci_low", "ci_high"))
        clear = (low > 0) | (high < 0)
        for mask, colour in ((clear, "#1b6ca8"), (~clear, "#999999")):
            err = [scale * (d - low)[mask], scale * (high - d)[mask]]
            ax.errorbar(scale * d[mask], y[mask], xerr=err, fmt="o", ms=3, capsize=2, elinewidth=1.4,
                        color=colour)
        if tips:
            shown = np.isfinite(d)  # a row without a difference (null or NaN) has no point to name
            texts = [f"{label}: {effect_text(r['diff'], r['ci_low'], r['ci_high'], scale)} "
                     f"{unit_of(metric)}, {r['n']:,} paired"
                     for label, r, ok in zip(labels, m.iter_rows(named=True), shown, strict=True) if ok]
            tip_targets(ax, scale * d[shown], y[shown], texts)
    fig.suptitle("Paired differences against the reference value of each swept field, 95% intervals "
                 "(blue: clear of zero)")
    return fig


# The group id that marks a tip target: the tip's text follows it (see tip_targets).
_TIP = "tip:"


def tip_targets(ax, xs, ys, texts) -> None:
    """Invisible targets over the points ``(xs, ys)`` of ``ax``, each naming its ``texts``
    when the pointer rests on it in the SVG of :func:`svg_with_tips` (a browser's tooltip);
    a PNG shows nothing of them. The text rides in the target's group id, so the figure
    keeps no other state."""
    for x, y, text in zip(xs, ys, texts, strict=True):
        ax.plot([x], [y], "o", ms=11, alpha=0, gid=_TIP + text)


def svg_with_tips(fig) -> str:
    """``fig`` as SVG text to set inline in a page (an ``<img>`` would take no pointer):
    every target of :func:`tip_targets` gets its text as an SVG ``<title>``, the tooltip
    browsers show on hover. Its ids are unique to this drawing, so that several figures
    share a page; text stays text."""
    import io
    import uuid
    import xml.etree.ElementTree as ET

    svg = "http://www.w3.org/2000/svg"
    ET.register_namespace("", svg)
    ET.register_namespace("xlink", "http://www.w3.org/1999/xlink")
    out = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": uuid.uuid4().hex}):
        fig.savefig(out, format="svg", bbox_inches="tight")
    root = ET.fromstring(out.getvalue())
    for group in root.iter(f"{{{svg}}}g"):
        name = group.get("id", "")
        if name.startswith(_TIP):
            title = ET.Element(f"{{{svg}}}title")
            title.text = name[len(_TIP):]
            group.insert(0, title)
            del group.attrib["id"]
            group.set("class", "tip")
    return ET.tostring(root, encoding="unicode")


def bots_forest(comp: pl.DataFrame, metrics: tuple[str, ...], names: tuple[str, str]):
    """The same paired differences played by two sets of bots, side by side: a panel per
    metric, a row per comparison, each bot's difference with its 95% interval, the rows
    whose verdict is not ``holds`` marked; ``comp`` from :func:`sim.analysis.compare_bots`
    with a ``field`` column, ``names`` the two bots as people read them."""
    fig, labels, panels = _forest(comp, metrics, 0.3)
    for ax, _, m, y, scale in panels:
        for side, offset, colour, name in (("a", -0.15, "#888888", names[0]), ("b", 0.15, "#d1495b", names[1])):
            d = m[f"{side}_diff"].to_numpy()
            err = [scale * (d - m[f"{side}_ci_low"].to_numpy()), scale * (m[f"{side}_ci_high"].to_numpy() - d)]
            ax.errorbar(scale * d, y + offset, xerr=err, fmt="o", ms=3.5, capsize=2.5, color=colour, label=name)
    marks = [f"{lab}  [{v}]" if v != "holds" else lab for lab, v in zip(labels, panels[0][2]["verdict"], strict=True)]
    panels[0][0].set_yticks(panels[0][3], marks, fontsize=8)
    legend_below(fig, panels[0][0], ncols=2, fontsize=None)
    fig.suptitle("The same paired differences played by two sets of bots, 95% intervals; [marked]: the finding "
                 "differs or changes sign")
    return fig


def notebook_setup() -> None:
    """Readable figures and untruncated tables in a notebook."""
    plt.rcParams.update(STYLE)
    pl.Config.set_fmt_str_lengths(120)
    pl.Config.set_tbl_width_chars(250)
    pl.Config.set_tbl_rows(40)
