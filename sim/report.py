"""Static reports from datasets: figures (PNG), tables with intervals, the rules and
provenance of every dataset and the commands to reproduce it, as Markdown and HTML.

``build_report(sources, out)`` reads run and sweep directories (``sim run``,
``sim sweep``) and ``sim deal-stats`` files. Each dataset's sections and key numbers are
its family's (``Family.report_sections``, ``Family.headlines``: Rummy 101's in
:mod:`sim.games.rummy101.report`, Rummikub's in :mod:`sim.games.rummikub.report`), built
from the helpers here; they follow what the data vary. The same data give byte-identical
figures and text.

Writing is all or nothing: the report is built in a hidden directory inside ``out`` and
moved into place when complete, so a failure (a full disk, a directory that cannot be
written, Ctrl-C or a SIGTERM) leaves the old report as it was and nothing half written. Nothing is written
through a link inside ``out``, and the HTML carries no markup but what the Markdown's
own syntax makes: raw HTML in titles, directory names, rule values or notes comes out
as text, and links only to the web or to relative paths.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import markdown
import matplotlib.pyplot as plt
import polars as pl
from markdown.treeprocessors import Treeprocessor

from sim import analysis as A
from sim import plots, store
from sim.errors import DatasetError, OutputError
from sim.games import family
from sim.plots import variants as _combos
from sim.store import read_metadata


@contextlib.contextmanager
def _writing(path: Path):
    """An OSError while writing ``path`` (not writable, disk full) as one error naming it."""
    try:
        yield
    except OSError as e:
        raise OutputError(f"cannot write {path}: {e.strerror or e}; give --out a directory you can "
                          "write to, with room for the report") from None


@dataclass
class Report:
    """Markdown being written, and the figures it refers to.

    ``out``: the report's directory, which figure links are relative to; ``stage``: where
    the figures are written until the report is complete (``out`` itself if None)."""

    out: Path
    lines: list[str] = field(default_factory=list)
    figures: int = 0
    tables: int = 0
    stage: Path | None = None

    def add(self, *text: str) -> None:
        self.lines.extend(text)

    def table(self, df: pl.DataFrame, formats: dict[str, str] | None = None) -> None:
        """A Markdown table of ``df`` (``formats``: a column's format spec), followed by a
        link to the same table as CSV (``tables/NN-<section>.csv``) with its intervals and
        percentages as numbers (:func:`csv_frame`)."""
        self.tables += 1
        heading = next((line.lstrip("#").strip() for line in reversed(self.lines) if line.startswith("#")), "table")
        rel = f"tables/{self.tables:02d}-{_slug(heading)}.csv"
        path = (self.stage or self.out) / rel
        with _writing(self.out / rel):
            path.parent.mkdir(parents=True, exist_ok=True)
            csv_frame(df).write_csv(path)
        self._markdown_table(df, formats or {})
        self.lines += [f"[This table as CSV]({rel})", ""]

    def _markdown_table(self, df: pl.DataFrame, formats: dict[str, str]) -> None:
        cols = df.columns
        self.lines.append("| " + " | ".join(cols) + " |")
        self.lines.append("|" + "|".join(" --- " if df[c].dtype == pl.String else " ---: " for c in cols) + "|")
        for row in df.iter_rows(named=True):
            cells = []
            for c in cols:
                v = row[c]
                fmt = formats.get(c)
                cells.append("–" if v is None else (format(v, fmt) if fmt else str(v)))
            self.lines.append("| " + " | ".join(cells) + " |")
        self.lines.append("")

    def figure(self, fig, name: str, caption: str) -> None:
        self.figures += 1
        rel = f"figures/{self.figures:02d}-{name}.png"
        path = (self.stage or self.out) / rel
        try:
            with _writing(self.out / rel):
                path.parent.mkdir(parents=True, exist_ok=True)
                fig.savefig(path, metadata={"Software": None}, bbox_inches="tight")
        finally:
            plt.close(fig)
        self.lines += [f"![{caption}]({rel})", "", f"*Figure {self.figures}. {caption}*", ""]


def _slug(text: str) -> str:
    """A heading as part of a file name: ``seat-advantage``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40].rstrip("-") or "table"


# A cell of a report table that is a number with its interval: ``12.3% [11.9%, 12.7%]``,
# ``+0.42 pts [+0.10, +0.74]``, ``-2.8 [-3.0, -2.6]``.
_NUMBER = r"([+-]?\d[\d,]*(?:\.\d+)?)"
_WITH_INTERVAL = re.compile(rf"^{_NUMBER}(%| pts)? \[{_NUMBER}%?(?: pts)?, {_NUMBER}%?(?: pts)?\]$")
_PLAIN = re.compile(rf"^{_NUMBER}(%)?$")


def csv_frame(df: pl.DataFrame) -> pl.DataFrame:
    """A report table for a spreadsheet: a text column whose every cell is a number with its
    95% interval becomes three number columns (``wins``, ``wins ci_low``, ``wins ci_high``),
    one of plain numbers or percentages a number column; percentages stay in percent (the
    column's name says so), a dash is empty. Other columns are kept as they are."""
    def number(text: str) -> float:
        return float(text.replace(",", ""))

    cols = []
    for name in df.columns:
        col = df[name]
        cells = [c for c in col.to_list() if c not in (None, "–")]
        if col.dtype != pl.String or not cells:
            cols.append(col)
            continue
        # each cell's match (None for an empty cell), once
        spans = [c and c != "–" and _WITH_INTERVAL.match(c) for c in col.to_list()]
        plains = [c and c != "–" and _PLAIN.match(c) for c in col.to_list()]
        if sum(bool(m) for m in spans) == len(cells):
            unit = {"%": " (%)", " pts": " (points of %)"}.get(next(m for m in spans if m).group(2), "")
            cols += [pl.Series(f"{name}{unit}{suffix}", [number(m.group(g)) if m else None for m in spans],
                               dtype=pl.Float64) for suffix, g in (("", 1), (" ci_low", 3), (" ci_high", 4))]
        elif sum(bool(m) for m in plains) == len(cells):
            unit = " (%)" if next(m for m in plains if m).group(2) else ""
            whole = not any("." in c for c in cells)  # counts stay counts
            cols.append(pl.Series(f"{name}{unit}", [number(m.group(1)) if m else None for m in plains],
                                  dtype=pl.Float64).cast(pl.Int64 if whole else pl.Float64))
        else:
            cols.append(col)
    return pl.DataFrame(cols)


def pct(x: float, digits: int = 1) -> str:
    """A share as a percentage: ``12.3%``."""
    return f"{100 * x:.{digits}f}%"


def ci_text(lo: float, hi: float, as_pct: bool = True, digits: int = 1) -> str:
    """A 95% interval as text: ``[11.9%, 12.7%]`` (``as_pct``: of shares) or ``[-0.12, 0.30]``."""
    return f"[{pct(lo, digits)}, {pct(hi, digits)}]" if as_pct else f"[{lo:.{digits}f}, {hi:.{digits}f}]"


def shown_variants(df: pl.DataFrame, keys: list[str], base: dict, vary: str | None = None, most: int = 8) -> list[dict]:
    """The variants a figure shows: all of them if few, else the baseline with ``vary``
    (or the first swept field) taking every value."""
    combos = _combos(df, keys)
    if len(combos) <= most:
        return combos
    vary = vary if vary in keys else keys[0]
    return [c for c in combos if all(c.get(k) == v for k, v in base.items() if k != vary)][:most]


def _text(value) -> str:
    """A rule value as the rules' JSON spells it: ``true``, ``101``."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def paired_text(n: int) -> str:
    """How many units a comparison pairs, marked *few* under :data:`FEW_UNITS`."""
    return f"{n:,}" + (" (few)" if n < FEW_UNITS else "")


def compared_label(field: str, value) -> str:
    """A comparison's name in tables and figures: ``partners vs false``, ``open_points vs 101``."""
    return plots.variant_label({field: value}).replace("=", " vs ", 1)


# A comparison (a row of the at-a-glance screen or of a paired table) resting on fewer
# paired units than this is marked: its intervals are wide enough that its sign may not be
# its effect's.
FEW_UNITS = 2_000


def paired_table(comp: pl.DataFrame, metrics: tuple[str, ...], extra=None) -> pl.DataFrame:
    """The paired differences of :func:`sim.analysis.compare_variants` (with a ``field``
    column: what is compared) as a table, a row per comparison with the units it pairs
    (marked *few* under :data:`FEW_UNITS`: its intervals are wide) and a column per metric,
    ``diff [ci_low, ci_high]``; a difference left null (not comparable) shows as a dash.
    ``extra(rows)``: more cells of a comparison from its rows of ``comp``."""
    table = []
    for r in comp.select("field", "variant").unique(maintain_order=True).iter_rows(named=True):
        sub = comp.filter((pl.col("field") == r["field"]) & (pl.col("variant") == r["variant"]))
        # how many units were paired, so a row resting on few shows it beside its intervals
        row = {"compared": r["field"], "variant": r["variant"], "paired": paired_text(sub["n"].max())}
        for metric in metrics:
            x = sub.filter(pl.col("metric") == metric).row(0, named=True)
            if metric in plots.PERCENT_METRICS:  # shares in points of percentage, as the text quotes them
                row[f"{metric} (points of %)"] = "–" if x["diff"] is None else \
                    f"{100 * x['diff']:+.2f} [{100 * x['ci_low']:+.2f}, {100 * x['ci_high']:+.2f}]"
            else:
                row[metric] = "–" if x["diff"] is None else \
                    f"{x['diff']:+.3f} [{x['ci_low']:+.3f}, {x['ci_high']:+.3f}]"
        table.append({**row, **(extra(sub) if extra else {})})
    return pl.DataFrame(table)


def share_text(r: dict, digits: int = 1) -> str:
    """A share row (``share``, ``ci_low``, ``ci_high``) as ``12.3% [11.9%, 12.7%]``."""
    return f"{pct(r['share'], digits)} {ci_text(r['ci_low'], r['ci_high'], digits=digits)}"


def swept_fields(ds: A.Dataset, skip: tuple[str, ...] = ()) -> list[str]:
    """The variant fields of ``ds`` that take two values or more, but those in ``skip``."""
    return [k for k in ds.keys if k not in skip
            and len({v["partition"][k] for v in ds.variants}) >= 2]


def baseline_variant(ds: A.Dataset, prefer: dict[str, str]) -> dict:
    """The reference variant: the preferred value of every swept field it names (``--baseline``),
    the first value of the others."""
    first = ds.variants[0]["partition"]
    return {k: typed_value(prefer.get(k, v)) for k, v in first.items()}


def typed_value(v: str):
    """A partition value as the data hold it: a number, true or false, or text."""
    if v in ("true", "false"):
        return v == "true"
    return int(v) if v.lstrip("-").isdigit() else v


# --- sections ----------------------------------------------------------------------------------


def opened_by_turn_section(rep: Report, ds: A.Dataset, opening: str, turns: tuple[int, ...],
                           name: str, caption: str) -> None:
    """The "When do players open?" section: the share opened by each own turn by seat, a figure and a
    table of ``turns``, for a round family (``opening``: how its rules open, with rule ids)."""
    from sim.plots import select, variant_label

    keys = list(ds.keys)
    by = keys if "players" in keys else [*keys, "players"]
    obt = A.opened_by_turn(ds, max_turn=10, by=by)
    vary = swept_fields(ds, skip=("players",))
    if vary:  # what the swept rule does to the openings (each seat's curve is in the table below)
        rep.add("### When do players open?", "",
                f"The share of players who have opened by their own *t*-th turn ({opening}), every seat "
                f"together, a line for each value of {', '.join(f'`{k}`' for k in vary)}, with 95% bands.", "")
        rep.figure(plots.opened_by_variant(A.opened_by_turn(ds, max_turn=10, by=by, seats=False), vary), name,
                   caption.replace("by seat", "by " + ", ".join(vary)))
    else:
        rep.add("### When do players open?", "",
                f"The share of players who have opened by their own *t*-th turn ({opening}), by seat, with 95% "
                "Wilson bands.", "")
        rep.figure(plots.opened_by_turn(obt), name, caption)
    wide = []
    for combo in _combos(obt, by):
        sub = select(obt, combo)
        for seat in range(int(combo["players"])):
            s = sub.filter(pl.col("seat") == seat)
            row = {"variant": variant_label(combo), "seat": seat}
            for t in turns:
                row[f"by turn {t}"] = share_text(s.filter(pl.col("turn") == t).row(0, named=True))
            wide.append(row)
    ordinals = {1: "1st", 2: "2nd", 3: "3rd"}
    named = [ordinals.get(t, f"{t}th") for t in turns]
    rep.add(f"Opened by the {', '.join(named[:-1])} and {named[-1]} own turn, every variant and seat:", "")
    rep.table(pl.DataFrame(wide))


def _deal_kinds(files: list[Path]) -> dict:
    """Deal-stats files by the deal that made them (:meth:`sim.games.family.Family.deals`),
    in order; one that no report section reads is refused, naming it."""
    kinds: dict = {}
    for f in files:
        kind = family(json.loads(read_metadata(f)["rules"])["family"]).deals()
        if kind.report is None:
            raise DatasetError(f"{f}: the report has no section for deal-stats of {kind.unit}s yet")
        kinds.setdefault(kind, []).append(f)
    return kinds


def _seat_section(rep: Report, ds: A.Dataset, prefer: dict) -> None:
    """Seat advantage (:func:`sim.analysis.seat_advantage`) of every variant, with the
    edges over the table's mean that a rule change should bring to zero."""
    adv = A.seat_advantage(ds)
    keys = [k for k in adv.columns if k in ds.keys]
    rows = []
    for combo in shown_variants(adv, keys, baseline_variant(ds, prefer)):
        sub = adv.filter(*[pl.col(k) == v for k, v in combo.items()]) if combo else adv
        for r in sub.iter_rows(named=True):
            rows.append({**({"variant": ", ".join(f"{k}={v}" for k, v in combo.items())} if combo else {}),
                         "players": r["players"], "seat": r["seat"],
                         "wins": f"{pct(r['win_share'])} {ci_text(r['win_ci_low'], r['win_ci_high'])}",
                         "win edge": f"{100 * r['win_edge']:+.2f} pts [{100 * r['win_edge_ci_low']:+.2f}, "
                                     f"{100 * r['win_edge_ci_high']:+.2f}]",
                         "mean score": f"{r['mean_score']:+.1f}",
                         "score edge": f"{r['score_edge']:+.2f} [{r['score_edge_ci_low']:+.2f}, "
                                       f"{r['score_edge_ci_high']:+.2f}]"})
    how = ("every deal was played once per seat rotation (`--duplicate`), so the deal's luck cancels "
           "and the intervals are clustered by deal" if ds.duplicate else
           "each round is its own deal; `sim run --duplicate` plays every deal at every seat and "
           "narrows these intervals")
    rep.add("### Seat advantage", "",
            "Each seat's share of rounds won alone and its mean score, and its edge over the table: the "
            f"seat's value minus the mean of all seats in the same round (seat 0 starts). Here {how}.", "")
    rep.table(pl.DataFrame(rows))
    shown = shown_variants(adv, keys, baseline_variant(ds, prefer))
    with_players = keys if "players" in keys else [*keys, "players"]  # a panel per player count
    rep.figure(plots.seat_edges(adv, shown_variants(adv, with_players, baseline_variant(ds, prefer), vary="players")),
               "seat-edges", "Each seat's edge over the table's mean (seat 0 starts): win share in points of % and "
               "score in points, 95% intervals.")
    if len(_combos(adv, keys)) > len(shown):
        # Every variant's starter and last seat: what each rule does to the edge.
        ends = []
        for combo in _combos(adv, keys):
            sub = adv.filter(*[pl.col(k) == v for k, v in combo.items()])
            first, last = sub.row(0, named=True), sub.row(sub.height - 1, named=True)
            ends.append({"variant": ", ".join(f"{k}={v}" for k, v in combo.items()),
                         "starter win edge": f"{100 * first['win_edge']:+.2f} pts "
                                             f"[{100 * first['win_edge_ci_low']:+.2f}, "
                                             f"{100 * first['win_edge_ci_high']:+.2f}]",
                         "starter score edge": f"{first['score_edge']:+.2f} [{first['score_edge_ci_low']:+.2f}, "
                                               f"{first['score_edge_ci_high']:+.2f}]",
                         "last seat score edge": f"{last['score_edge']:+.2f} [{last['score_edge_ci_low']:+.2f}, "
                                                 f"{last['score_edge_ci_high']:+.2f}]"})
        rep.add("The starter's edge and the last seat's in every variant:", "")
        rep.table(pl.DataFrame(ends))


def glance_section(ds: A.Dataset, prefer: dict) -> dict | None:
    """The section :func:`sim.plots.at_a_glance` draws for ``ds``: each swept field moved
    off the baseline alone (every other field at its baseline value), paired on the same
    deals, in the family's :attr:`~sim.games.family.Family.glance_metrics`; None for a
    dataset that sweeps nothing."""
    fields = swept_fields(ds)
    if not fields:
        return None
    metrics = family(ds.family).glance_metrics
    base = baseline_variant(ds, prefer)
    data = A.round_metrics_frame(ds)
    rows, levels = [], {}
    for k in fields:
        comp = A.compare_variants(ds, {k: base[k]}, metrics, data=data)
        for value in dict.fromkeys(typed_value(v["partition"][k]) for v in ds.variants):
            sub = comp.filter(pl.col("variant") == plots.variant_label({**base, k: value}))
            if value == base[k] or sub.height == 0:
                continue
            levels = levels or {r["metric"]: r["baseline"] for r in sub.iter_rows(named=True)}
            rows.append({"label": f"{k}={_text(value)} vs {_text(base[k])}",
                         "n": int(sub["n"].max()),
                         "cells": {r["metric"]: (r["diff"], r["ci_low"], r["ci_high"])
                                   for r in sub.iter_rows(named=True)}})
    policies = ",".join(ds.manifest["policies"])
    return {"dataset": ds.path.name, "title": f"{ds.path.name}, played by {policies}: baseline "
            f"{plots.variant_label(base)}", "base": levels, "rows": rows}


def _glance_section(rep: Report, datasets: list[A.Dataset], prefer: dict) -> None:
    """The report's first screen: every rule of every dataset against its baseline in the few
    metrics a designer decides on (a figure per family), and the numbers as a table."""
    def key(row: dict) -> tuple:
        return row["label"], row["n"], tuple(plots.effect_text(*row["cells"][m]) for m in sorted(row["cells"]))

    by_family: dict[str, list[dict]] = {}
    seen: set = set()
    for ds in datasets:
        if ds.manifest["kind"] in ("tournament", "skill"):
            continue
        sec = glance_section(ds, prefer)
        if sec is None:
            continue
        # Sweeps of one seed that share a baseline repeat its comparisons (every Rummikub house
        # rule's sweep has the players'): a row already shown, to the same figures, is not again.
        sec["rows"] = [row for row in sec["rows"] if key(row) not in seen]
        seen.update(key(row) for row in sec["rows"])
        if sec["rows"]:
            by_family.setdefault(ds.family, []).append(sec)
    if not by_family:
        return
    rep.add("## At a glance", "",
            "Each rule moved off the baseline alone, every other rule held at its baseline value, against the "
            "baseline on the same deals: the paired difference with its 95% interval, shaded blue (up) or orange "
            "(down) where the interval is clear of zero. The bold line over each dataset gives the baseline's own "
            f"values. Rows marked *few* rest on fewer than {FEW_UNITS:,} paired rounds or matches: their "
            "intervals are wide, read them before their sign. The sections below give every variant.", "")
    for name, sections in by_family.items():
        fam = family(name)
        rep.figure(plots.at_a_glance(sections, fam.glance_metrics, FEW_UNITS, fam.units), f"{name}-at-a-glance",
                   f"{fam.title}: what each rule does, paired against the baseline, 95% intervals.")
        table = [{"dataset": sec["dataset"], "rule": row["label"], "paired": paired_text(row["n"]),
                  **{plots.metric_heading(m, plots.GLANCE_NAMES): plots.effect_text(*row["cells"].get(m, (None,) * 3),
                                                                 scale=plots.scale_of(m))
                     for m in fam.glance_metrics}}
                 for sec in sections for row in sec["rows"]]
        rep.add("The same numbers:", "")
        rep.table(pl.DataFrame(table))


def _tournament_section(rep: Report, ds: A.Dataset) -> None:
    """A tournament's standings (:func:`sim.tournament.standings`)."""
    from sim.tournament import standings

    s = standings(ds.path)
    rep.add("### Bot tournament", "",
            f"Every seating of the bots ({s['seatings']}) over the same {s['deals']:,} deals, each played once "
            "per seat rotation; intervals clustered by deal, differences paired on the deals.", "")
    def points(d: dict) -> str:
        return f"{d['estimate']:+.2f} {ci_text(d['ci_low'], d['ci_high'], as_pct=False, digits=2)}"

    rows = []
    for e in s["ranking"]:
        p = s["policies"][e["policy"]]
        w = p["win_share"]
        ahead = ""
        if "separated" in e:
            ahead = points(e["ahead_of_next"]) + ("" if e["separated"] else " (not separated)")
        rows.append({"rank": e["rank"], "policy": e["policy"], "mean score": points(p["mean_score"]),
                     "win share": f"{pct(w['estimate'])} {ci_text(w['ci_low'], w['ci_high'])}",
                     "ahead of the next": ahead})
    rep.table(pl.DataFrame(rows))


def _skill_section(rep: Report, ds: A.Dataset) -> None:
    """A skill run's measures (:func:`sim.skill.skill`): how much playing well is worth."""
    from sim.skill import deals_text, skill

    s = skill(ds)
    rep.add("### Skill and luck", "",
            f"Each bot of the ladder ({', '.join(s['policies'])}) in every seat against {s['field']} in the "
            f"others, on the same {s['deals']:,} duplicate deals. *Relative skill* is how much of the way from "
            f"{s['field']} (0) to the oracle (1, which sees the other hands and the stock) a bot goes (Dreef, Borm "
            "and van der Genugten, 2004); the *variance shares* split a bot's score per "
            f"{family(ds.family).score_unit} into the luck of the dealt hand, the seat, the bot and the rest; "
            "the *critical repetitions* are the deals (each in every seat rotation) a bot needs to be ahead of "
            "the one below it with 95% "
            "probability (Fiedler and Rock, 2009); the *Elo* ratings come from deal-by-deal comparisons, and "
            "the steps count the 75%-win steps from the weakest to the strongest (Robertie). 95% intervals, "
            "clustered by deal.", "")

    def ci(d: dict, digits: int = 2) -> str:
        return f"{d['estimate']:.{digits}f} {ci_text(d['ci_low'], d['ci_high'], as_pct=False, digits=digits)}"

    rep.figure(plots.skill_ladder(s), f"{ds.path.name}-skill",
               "Each bot's mean score against the field, and what a bot's score goes with: 95% intervals.")
    for v in s["variants"]:
        name = ", ".join(f"{k}={x}" for k, x in v["variant"].items()) or "the rules as given"
        elo = v["elo"]["ratings"]
        rows = []
        for p, m in v["policies"].items():
            w = m["win_share"]
            r = v["relative_skill"].get(p)
            rows.append({"bot": p, v["score"]: ci(m["mean_score"]),
                         "win share": f"{pct(w['estimate'])} {ci_text(w['ci_low'], w['ci_high'])}",
                         "relative skill": ci(r, 3) if r else "", "Elo": f"{elo[p]:.0f}"})
        rep.add(f"**{name}**: {v['elo']['steps']:.1f} steps of 75% wins from the weakest bot to the strongest.", "")
        rep.table(pl.DataFrame(rows))
        shares = v["variance"]["intervals"]
        reps = "; ".join(f"{c['b']} over {c['a']}: " + (deals_text(c["estimate"]) if c["estimate"] != float("inf")
                                                        else "never") for c in v["critical_repetitions"])
        rep.add("Variance of a bot's score: " + ", ".join(f"{k.replace('_', ' ')} {_share_text(x)}"
                                                          for k, x in shares.items())
                + f". Deals to be ahead with 95% probability: {reps}.", "")


def _share_text(x: dict) -> str:
    """A share of variance and its interval in percent: two decimals for the small ones (a bot's
    share of a Rummy 101 score is hundredths of a percent)."""
    digits = 2 if x["ci_high"] < 0.01 else 1
    return f"{100 * x['estimate']:.{digits}f}% [{100 * x['ci_low']:.{digits}f}, {100 * x['ci_high']:.{digits}f}]"


def _skill_headlines(ds: A.Dataset) -> list[str]:
    """A skill run's key numbers: each variant's relative skill and the bots' share of a score's variance."""
    from sim.skill import skill

    lines = []
    for v in skill(ds)["variants"]:
        name = family(ds.family).title + (", " + ", ".join(f"{k}={x}" for k, x in v["variant"].items())
                                          if v["variant"] else "")
        rel = "; ".join(f"relative skill of {p} {r['estimate']:.3f} "
                        f"{ci_text(r['ci_low'], r['ci_high'], as_pct=False, digits=3)}"
                        for p, r in v["relative_skill"].items())
        bot = v["variance"]["intervals"]["policy"]
        lines.append(f"- {name}: the bot explains {_share_text(bot)} of a "
                     f"score's variance, the dealt hand {pct(v['variance']['shares'].get('dealt_hand', float('nan')))}"
                     + (f"; {rel}" if rel else "") + f"; {v['elo']['steps']:.1f} steps of 75% wins.")
    return lines


def bot_pairs(datasets: list[A.Dataset]) -> list[tuple[A.Dataset, A.Dataset]]:
    """The pairs of datasets that are one sweep played by two sets of bots
    (:func:`sim.analysis.same_sweep`), each dataset in one pair at most, in the order given."""
    pairs, used = [], set()
    for i, a in enumerate(datasets):
        for b in datasets[i + 1:]:
            if id(a) not in used and id(b) not in used and A.same_sweep(a, b):
                pairs.append((a, b))
                used.update((id(a), id(b)))
    return pairs


def _verdict_mark(verdict: str) -> str:
    return {A.CHANGES_SIGN: "**changes sign**", A.DIFFERS: "*differs*"}.get(verdict, "holds")


def bots_findings(a: A.Dataset, b: A.Dataset, prefer: dict) -> pl.DataFrame:
    """Every swept field's findings (its variants against its reference value, the family's
    :attr:`~sim.games.family.Family.compared_metrics`) as the bots of ``a`` and of ``b``
    play them (:func:`sim.analysis.compare_bots`), with a ``field`` column."""
    base = baseline_variant(a, prefer)
    frames = []
    for k in swept_fields(a, skip=("players",)) or swept_fields(a):
        c = A.compare_bots(a, b, {k: base[k]}, family(a.family).compared_metrics)
        frames.append(c.with_columns(pl.lit(compared_label(k, base[k])).alias("field")))
    return pl.concat(frames)


def bots_section(rep: Report, a: A.Dataset, b: A.Dataset, comp: pl.DataFrame, prefer: dict) -> None:
    """The paired effects of sweep ``a`` beside the same sweep played by other bots (``b``),
    ``comp`` of :func:`bots_findings`, every finding marked: holds, differs beyond the
    interval of the change, or changes sign; for round families the seat edges too
    (:func:`sim.analysis.compare_seat_edges`)."""
    fam = family(a.family)
    names = (",".join(a.manifest["policies"]), ",".join(b.manifest["policies"]))
    metrics = fam.compared_metrics
    base = baseline_variant(a, prefer)
    n = comp["n"].min()
    counts = {v: comp.filter(pl.col("verdict") == v).height for v in (A.HOLDS, A.DIFFERS, A.CHANGES_SIGN)}
    rep.add(f"## Played by other bots: {a.path.name} ({names[0]}) beside {b.path.name} ({names[1]})", "",
            f"The same sweep (the same deals: seed {a.manifest['seed']}) played with every seat **{names[1]}** and "
            f"with every seat **{names[0]}**, on the {fam.units} both played ({n:,} per variant at least). "
            "For each finding, the paired difference it makes as each set of bots plays it, and the change "
            f"from {names[0]} to {names[1]}, itself paired on the {fam.units} and clustered by deal. A finding "
            "*differs* when the change's 95% interval excludes zero, and **changes sign** when both effects' "
            f"intervals exclude zero on opposite sides. Of {comp.height} findings, {counts[A.HOLDS]} hold, "
            f"{counts[A.DIFFERS]} differ beyond their interval and {counts[A.CHANGES_SIGN]} change sign.", "")
    rep.figure(plots.bots_forest(comp, metrics[:4], names), f"{a.family}-bots",
               f"{fam.title}: the paired differences of each rule played by {names[0]} and by {names[1]} bots, 95% "
               "intervals; [marked] rows differ or change sign.")

    def effect(r: dict, side: str, scale: float) -> str:
        return (f"{scale * r[f'{side}_diff']:+.2f} [{scale * r[f'{side}_ci_low']:+.2f}, "
                f"{scale * r[f'{side}_ci_high']:+.2f}]")

    rows = []
    for r in comp.iter_rows(named=True):
        scale = plots.scale_of(r["metric"])
        rows.append({"compared": r["field"], "variant": r["variant"], "metric": r["metric"],
                     names[0]: effect(r, "a", scale), names[1]: effect(r, "b", scale),
                     "change": f"{scale * r['change']:+.2f} [{scale * r['change_ci_low']:+.2f}, "
                               f"{scale * r['change_ci_high']:+.2f}]",
                     "verdict": _verdict_mark(r["verdict"])})
    rep.table(pl.DataFrame(rows))
    rep.add("Shares in points of percentage. Metrics: " + "; ".join(
        f"`{k}`: {A.metric_texts(a)[k]}" for k in metrics) + ".", "")
    _levels_table(rep, a, b, names, metrics, fam.units)
    if fam.unit != "round":
        return
    edges = A.compare_seat_edges(a, b)
    keys = [k for k in a.keys if k in edges.columns]
    shown = shown_variants(edges, keys, base)
    rows = []
    for combo in shown:
        sub = edges.filter(*[pl.col(k) == v for k, v in combo.items()])
        for r in sub.iter_rows(named=True):
            row = {"variant": ", ".join(f"{k}={v}" for k, v in combo.items()), "seat": r["seat"]}
            for edge, scale, label in (("win_edge", 100, "win edge (pts)"), ("score_edge", 1, "score edge")):
                for side, name in (("a", names[0]), ("b", names[1])):
                    row[f"{label}, {name}"] = (f"{scale * r[f'{side}_{edge}']:+.2f} "
                                               f"[{scale * r[f'{side}_{edge}_ci_low']:+.2f}, "
                                               f"{scale * r[f'{side}_{edge}_ci_high']:+.2f}]")
                row[f"{label}: verdict"] = _verdict_mark(r[f"{edge}_verdict"])
            rows.append(row)
    rep.add("Each seat's edges over the table (its win share and score minus the round's mean, seat 0 "
            f"starting) as each set of bots plays the same {fam.units}:", "")
    rep.table(pl.DataFrame(rows))


def _levels_table(rep: Report, a: A.Dataset, b: A.Dataset, names: tuple[str, str], metrics, units: str) -> None:
    """Every variant's metrics as each set of bots plays it (:func:`sim.analysis.bot_levels`),
    two rows a variant: the levels the effects above are differences of."""
    levels = A.bot_levels(a, b, metrics)
    keys = [k for k in a.keys if k in levels.columns]
    rows = []
    for combo in levels.select(keys).unique(maintain_order=True).rows(named=True):
        sub = levels.filter(*[pl.col(k) == v for k, v in combo.items()])
        variant = plots.variant_label(combo)
        for side, name in (("a", names[0]), ("b", names[1])):
            row = {"variant": variant, "bots": name}
            for r in sub.iter_rows(named=True):
                scale = plots.scale_of(r["metric"])
                row[r["metric"]] = (f"{scale * r[f'{side}_mean']:.2f} [{scale * r[f'{side}_ci_low']:.2f}, "
                                    f"{scale * r[f'{side}_ci_high']:.2f}]")
            rows.append(row)
    rep.add(f"Each variant as each set of bots plays it, on the same {units} (the levels the effects above "
            "are differences of; shares in percent, 95% intervals clustered by deal):", "")
    rep.table(pl.DataFrame(rows))


def _data_commits(ds: A.Dataset) -> dict[str, int]:
    """The commits that wrote ``ds``'s chunks (from each file's metadata), with how many each."""
    counts: dict[str, int] = {}
    for f in sorted((ds.path / family(ds.family).tables[0]).rglob("*.parquet")):
        commit = read_metadata(f).get("git_commit", "unknown")
        counts[commit] = counts.get(commit, 0) + 1
    return counts


def _commits_text(counts: dict[str, int]) -> str:
    if len(counts) == 1:
        return f"commit `{next(iter(counts))}`"
    return "commits " + ", ".join(f"`{c}` ({n:,} chunks)" for c, n in counts.items())


def _build_warning(datasets: list[A.Dataset], deal_files: list[Path], commits: dict[Path, dict[str, int]]) -> str:
    """A warning for the top of the report when its numbers cannot be made again from a
    commit: the report or some of its data came from a checkout with local changes."""
    found = []
    built = store.git_commit()
    if built.endswith("-dirty"):
        found.append(f"the report was built from a checkout with local changes (`{built}`)")
    for ds in datasets:
        dirty = sum(n for c, n in commits[ds.path].items() if c.endswith("-dirty"))
        if dirty:
            found.append(f"{dirty:,} of the {sum(commits[ds.path].values()):,} chunks of {ds.path.name} were "
                         "written from a checkout with local changes")
    found += [f"{f.name} was written from a checkout with local changes" for f in deal_files
              if read_metadata(f).get("git_commit", "").endswith("-dirty")]
    if not found:
        return ""
    return ("> **Not reproducible from a commit:** " + "; ".join(found) + ". Commit the code and build the "
            "data and the report again from a clean checkout before publishing it.")


def _provenance_section(rep: Report, datasets: list[A.Dataset], deal_files: list[Path],
                        commits: dict[Path, dict[str, int]]) -> None:
    from sim.version import __version__

    rep.add("## Rules, provenance and how to reproduce", "",
            f"This report was built by package {__version__} at commit `{store.git_commit()}`.", "")
    for ds in datasets:
        f = next((ds.path / family(ds.family).tables[0]).rglob("*.parquet"))
        meta = read_metadata(f)
        m = ds.manifest
        rep.add(f"**{ds.path.name}** — {m['kind']} of {m['rounds']:,} {family(ds.family).units} per variant, "
                f"seed {m['seed']}, "
                f"policies {','.join(m['policies'])}, {len(ds.variants)} variant(s); package "
                f"{meta.get('version')}, {_commits_text(commits[ds.path])}.", "")
        if meta.get("command"):
            rep.add("```sh", meta["command"], "```", "")
        rules = ds.variants[0]["rules"]
        rep.add("Rules of the first variant (the others differ in the swept fields):", "", "```json",
                json.dumps(rules, indent=1, sort_keys=True), "```", "")
    for f in deal_files:
        meta = read_metadata(f)
        rep.add(f"**{f.name}** — deal-stats, {int(meta['samples']):,} racks of {meta['rack_size']} tiles, "
                f"seed {meta['seed']}, rules {json.loads(meta['rules'])['name']}, package {meta.get('version')}, "
                f"commit `{meta.get('git_commit')}`.", "")
        if meta.get("command"):
            rep.add("```sh", meta["command"], "```", "")


# --- the whole report ----------------------------------------------------------------------------


def _classify(sources: list[Path]) -> tuple[list[A.Dataset], list[Path]]:
    datasets, deals = [], []
    for src in sources:
        src = Path(src)
        if src.is_dir():
            # read once: the report asks dozens of questions of the same rows
            datasets.append(A.in_memory(A.open_dataset(src)))
        elif src.suffix == ".parquet":
            if read_metadata(src).get("kind") != "deal-stats":
                raise DatasetError(f"{src}: not a deal-stats table (give run directories as directories)")
            deals.append(src)
        else:
            raise DatasetError(f"{src}: neither a run/sweep directory nor a deal-stats .parquet file")
    return datasets, deals


def build_report(sources: list[str | Path], out: str | Path, title: str | None = None,
                 command: str | None = None, notes: str | Path | None = None,
                 baseline: dict[str, str] | None = None) -> Path:
    """Write ``out/report.md``, ``out/report.html`` and ``out/figures/*.png`` (the old
    report's figures removed); returns the HTML path. All or nothing: an ``out`` that cannot
    hold the report (not a directory, not writable, full, or with a link where the report
    writes) raises :class:`~sim.errors.OutputError` naming it, the old report as it was.

    ``notes``: a Markdown file of commentary placed after the key numbers. ``baseline``:
    the reference value of swept fields (``{"players": "4"}``) for the key numbers, the
    figures and the paired comparisons; the first value of a field otherwise.
    """
    prefer = {k: str(v).lower() for k, v in (baseline or {}).items()}
    out = Path(out)
    datasets, deals = _classify([Path(s) for s in sources])
    notes_text = ""
    if notes is not None:
        try:
            notes_text = Path(notes).read_text(encoding="utf-8")
        except OSError as e:
            raise DatasetError(f"--notes {notes}: {e.strerror or e}") from None
        except UnicodeDecodeError:
            raise DatasetError(f"--notes {notes}: not UTF-8 text; give a Markdown file") from None
    if not datasets and not deals:
        raise DatasetError("no data: give --data with run or sweep directories or deal-stats files")
    if title is None:  # the families of the data
        families = [family(ds.family) for ds in datasets]
        families += [family(json.loads(read_metadata(f)["rules"])["family"]) for f in deals]
        titles = list(dict.fromkeys(f.title for f in families))
        title = f"{' and '.join(titles)} balancing report"
    with _writing(out):  # a stat refused (a parent not searchable) is an error too
        _check_out(out)
    made = _make_dir(out)
    done = False
    # named before it is made, so that an interrupt while it is made still has it removed
    stage = out / f".report-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        try:
            with _terminated_as_interrupt():
                with _writing(out):
                    stage.mkdir()
                rep = Report(out, stage=stage)
                _write_report(rep, datasets, deals, prefer, title, notes_text,
                              command or " ".join(shlex.quote(a) for a in ["sim", *sys.argv[1:]]))
                with _writing(out):  # again: the figures took a while
                    _check_out(out)
                _move_into_place(rep)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
        done = True
    finally:
        if not done:  # leave no directory behind that this call made
            for d in made:
                with contextlib.suppress(OSError):
                    d.rmdir()
    return out / "report.html"


@contextlib.contextmanager
def _terminated_as_interrupt():
    """A SIGTERM (``kill``, a job scheduler's stop) while the report is built ends it as
    Ctrl-C does, so that the half-built report in its hidden directory is removed rather
    than left in ``out`` (in the main thread only: signals are handled there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    stopped = []

    def interrupt(signum, frame):
        stopped.append(signum)
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    except BaseException as e:
        # Raised inside a Python function that polars' Rust code was calling, the interrupt
        # comes out as a Rust panic (pyo3's PanicException; seen once in CI): still a stop.
        if stopped and not isinstance(e, KeyboardInterrupt):
            raise KeyboardInterrupt from e
        raise
    finally:
        signal.signal(signal.SIGTERM, before)


def _write_report(rep: Report, datasets: list[A.Dataset], deals: list[Path], prefer: dict, title: str,
                  notes_text: str, command: str) -> None:
    """The report's figures, ``report.md`` and ``report.html``, into ``rep.stage``."""
    with plt.rc_context(plots.STYLE):
        # A sweep played again by other bots is shown beside the first, not on its own.
        pairs = [(a, b, bots_findings(a, b, prefer)) for a, b in bot_pairs(datasets)]
        shadows = {id(b) for _, b, _ in pairs}
        rep.add(f"# {title}", "")
        commits = {ds.path: _data_commits(ds) for ds in datasets}
        warning = _build_warning(datasets, deals, commits)
        if warning:
            rep.add(warning, "")
        _glance_section(rep, [ds for ds in datasets if id(ds) not in shadows], prefer)
        rep.add("## Key numbers", "", _headlines(datasets, deals, prefer, pairs), "")
        if notes_text:
            rep.add(notes_text.rstrip(), "")
        for kind, files in _deal_kinds(deals).items():
            kind.report(rep, files)
        for ds in datasets:
            if id(ds) in shadows:
                continue
            m = ds.manifest
            what = f"{m['kind']} over {', '.join(ds.keys)}" if ds.keys else f"{m['kind']} of a single variant"
            rep.add(f"## {ds.path.name}: {what}", "",
                    f"{m['rounds']:,} {family(ds.family).units} per variant, {len(ds.variants)} variant(s), "
                    f"seed {m['seed']}, "
                    f"bots: {', '.join(m['policies'])}.", "")
            if m["kind"] == "tournament":
                _tournament_section(rep, ds)
                continue
            if m["kind"] == "skill":
                _skill_section(rep, ds)
                continue
            family(ds.family).report_sections(rep, ds, prefer)
            if family(ds.family).unit == "round":  # a card match's seats are in its family's sections
                _seat_section(rep, ds, prefer)
        for a, b, comp in pairs:
            bots_section(rep, a, b, comp, prefer)
        _provenance_section(rep, datasets, deals, commits)
        rep.add("To regenerate this report from the same data:", "", "```sh", command, "```", "")
    text = "\n".join(rep.lines) + "\n"
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head>\n<body>\n{to_html(text)}\n"
            "</body></html>\n")
    for name, content in (("report.md", text), ("report.html", page)):
        with _writing(rep.out / name):
            (rep.stage / name).write_bytes(content.encode("utf-8"))


# --- writing safely ------------------------------------------------------------------------------


# The report's files beside report.md and report.html: a directory and what it holds.
_ARTEFACTS = {"figures": "*.png", "tables": "*.csv"}


def _check_out(out: Path) -> None:
    """Refuse an ``out`` that is not a directory, and a link (or anything but a file) where the
    report writes inside it: writing or deleting there would reach whatever the link points
    to. ``out`` itself may be a link to a directory: that is where the user chose to write."""
    def refuse(path: Path, what: str) -> None:
        raise OutputError(f"{path}: {what}; the report writes no file through a link or over a "
                          "non-file inside its directory: remove it, or give --out another directory")

    if (out.exists() or out.is_symlink()) and not out.is_dir():
        raise OutputError(f"--out {out}: not a directory; give a directory (new or old) to write "
                          "the report in")
    for name in (*_ARTEFACTS, "report.md", "report.html"):
        path = out / name
        if path.is_symlink():
            refuse(path, "a symbolic link")
        if path.exists() and path.is_dir() != (name in _ARTEFACTS):
            refuse(path, "a file" if name in _ARTEFACTS else "a directory")
    for name, pattern in _ARTEFACTS.items():
        for path in sorted((out / name).glob(pattern)) if (out / name).is_dir() else ():
            if path.is_symlink():
                refuse(path, "a symbolic link")
            if not path.is_file():
                refuse(path, "not a regular file")


def _make_dir(out: Path) -> list[Path]:
    """Make ``out`` and its missing parents; returns those made, deepest first."""
    made, d = [], out
    while not (d.exists() or d.is_symlink()) and d != d.parent:
        made.append(d)
        d = d.parent
    with _writing(out):
        out.mkdir(parents=True, exist_ok=True)
    return made


def _move_into_place(rep: Report) -> None:
    """Move the finished report from ``rep.stage`` into ``rep.out``: the figures and tables, then the
    Markdown and the HTML (each replaced whole, so a link or hard link there is replaced,
    never written through), then the old report's figures and tables that this one has not."""
    made = {}
    for name, pattern in _ARTEFACTS.items():
        there, new = rep.out / name, sorted((rep.stage / name).glob(pattern))
        if new:
            with _writing(there):
                there.mkdir(exist_ok=True)
        for f in new:
            with _writing(there / f.name):
                os.replace(f, there / f.name)
        made[name] = {f.name for f in new}
    for name in ("report.md", "report.html"):
        with _writing(rep.out / name):
            os.replace(rep.stage / name, rep.out / name)
    for name, pattern in _ARTEFACTS.items():
        there = rep.out / name
        for old in sorted(there.glob(pattern)) if there.is_dir() else ():
            if old.name not in made[name]:
                with _writing(old):
                    old.unlink()


class _WebLinksOnly(Treeprocessor):
    """Drop a link or image address that is neither relative nor on the web: a
    ``javascript:`` link (however spelt: cased, entity-encoded, with spaces) runs code."""

    SAFE = frozenset({"http", "https", "ftp", "mailto"})

    def run(self, root) -> None:
        for el in root.iter():
            for attr in ("href", "src"):
                url = el.get(attr)
                if url is None:
                    continue
                # as a browser reads it: entities decoded, controls and spaces dropped
                plain = re.sub(r"[\x00-\x20\x7f]", "", html.unescape(url))
                scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", plain)
                if scheme and scheme.group(1).lower() not in self.SAFE:
                    del el.attrib[attr]


def to_html(text: str) -> str:
    """The report's Markdown as HTML, with no markup but what Markdown's own syntax makes: raw
    HTML (from a title, a directory name, a rule value, the notes) comes out as escaped text,
    and links and images only point to the web or to relative paths. The report writes no
    HTML into its Markdown (figures are Markdown images), so nothing of ours is lost."""
    md = markdown.Markdown(extensions=["tables", "fenced_code", "toc"], extension_configs={"toc": {"toc_depth": "2-3"}})
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    md.treeprocessors.register(_WebLinksOnly(md), "web_links_only", -100)  # after every other
    body = md.convert(text)
    if len(md.toc_tokens) > 1:  # the contents, after the title
        title_end = body.find("</h1>")
        at = title_end + len("</h1>") if title_end >= 0 else 0
        body = f'{body[:at]}\n<details class="contents"><summary>Contents</summary>{md.toc}</details>{body[at:]}'
    return body


def _headlines(datasets: list[A.Dataset], deals: list[Path], prefer: dict,
               pairs: list[tuple[A.Dataset, A.Dataset, pl.DataFrame]]) -> str:
    """The key numbers: the deal, each dataset's reference variant and the bots that played
    it, what changing one swept field does to it (paired differences), and how many of a
    sweep's findings hold when other bots play it."""
    lines = ["95% intervals in brackets; differences are paired, in percentage points for shares.", ""]
    for kind, files in _deal_kinds(deals).items():
        lines += kind.headlines(files)
    shadows = {id(b) for _, b, _ in pairs}
    for ds in datasets:
        if id(ds) in shadows:
            continue
        if ds.manifest["kind"] == "skill":
            lines += _skill_headlines(ds)
        elif ds.manifest["kind"] == "tournament":
            from sim.tournament import standings

            order = [e["policy"] for e in standings(ds.path)["ranking"]]
            lines.append(f"- {ds.path.name}: {family(ds.family).title} bots by mean score, best first: "
                         f"{', '.join(order)}.")
        else:
            lines += family(ds.family).headlines(ds, prefer)
    for a, b, comp in pairs:
        counts = {v: comp.filter(pl.col("verdict") == v).height for v in (A.HOLDS, A.DIFFERS, A.CHANGES_SIGN)}
        lines.append(f"- {a.path.name} played with every seat {','.join(b.manifest['policies'])} instead of "
                     f"{','.join(a.manifest['policies'])} ({b.path.name}): of {comp.height} paired findings, "
                     f"{counts[A.HOLDS]} hold, {counts[A.DIFFERS]} differ beyond their interval and "
                     f"{counts[A.CHANGES_SIGN]} change sign.")
    return "\n".join(lines)


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 64rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.45; color: #222; }
table { border-collapse: collapse; margin: 0.6rem 0 1.4rem; font-size: 0.86rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; }
th { background: #f2f2f2; }
img { max-width: 100%; }
pre { background: #f6f6f6; padding: 0.6rem; overflow-x: auto; font-size: 0.8rem; }
h2 { border-bottom: 2px solid #ddd; padding-bottom: 0.2rem; margin-top: 2.4rem; }
details.contents { background: #f6f6f6; padding: 0.4rem 1rem; margin: 1rem 0; font-size: 0.9rem; }
details.contents summary { cursor: pointer; font-weight: bold; }
details.contents ul { margin: 0.2rem 0; padding-left: 1.2rem; }
blockquote { border-left: 4px solid #c0392b; background: #fdecea; color: #8e1b10; margin: 1rem 0;
             padding: 0.4rem 0.9rem; }
"""
