"""``sim deal-stats --preset rummy101-cards``: hands dealt uniformly from the deck(s) and
what they can do at once — hold a meld (a meld can go down keeping a discard), go out
(C-OUT-1/2), the points they can meld and the deadwood left (C-SCORE-1 values)."""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
import polars as pl

from sim.deal import STREAM_CARD_DEALS
from sim.dealstats import DealKind
from sim.games.cards import DEAL_METRICS
from sim.games.cards.rules import CardRules
from sim.precision import Target
from sim.rules import Rules
from sim.stats import cluster_stats, mean_interval, share

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)


def _solve_chunk(rules_json: str, seed: int, start: int, count: int, size: int):
    """One chunk of hands in a worker (one numba thread: the processes are the parallelism)."""
    from sim.games.cards import hand as k
    from sim.games.cards.handplay import deal_hands

    numba.set_num_threads(1)
    rules = CardRules.from_json(rules_json)
    hands = deal_hands(seed, start, count, size, rules.decks)
    out = np.zeros((count, 3), dtype=np.int64)
    k.lay_down_batch(hands, out)
    return start, {"melded": out[:, 0], "can_out": out[:, 1].astype(bool), "points": out[:, 2]}


def _columns(cols: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    melded = np.maximum(cols["melded"], 0)  # -1: a one-card hand, nothing to lay down
    return {"melded": melded, "deadwood": cols["points"] - melded, "can_meld": melded > 0,
            "can_out": cols["can_out"]}


def _stats(target: Target, rules: Rules, cols: dict[str, np.ndarray]) -> np.ndarray:
    c = _columns(cols)
    return cluster_stats({"p_meld": c["can_meld"], "p_out": c["can_out"], "mean_melded": c["melded"],
                          "mean_deadwood": c["deadwood"]}[target.metric])


def _table(cols: dict[str, np.ndarray], rules: Rules) -> pl.DataFrame:
    c = _columns(cols)
    return pl.DataFrame({
        "hand_id": np.arange(len(c["melded"]), dtype=np.int64),
        "melded": c["melded"].astype(np.int16),
        "deadwood": c["deadwood"].astype(np.int16),
        "can_meld": c["can_meld"],
        "can_out": c["can_out"],
    })


def _spread(values: np.ndarray) -> dict:
    bins = np.bincount(values // 10) / values.size
    return {"mean": float(values.mean()), "ci": mean_interval(values),
            "quantiles": {f"q{int(q * 100):02d}": float(np.quantile(values, q)) for q in QUANTILES},
            "by_10": {f"{10 * i}-{10 * i + 9}": float(x) for i, x in enumerate(bins) if x > 0}}


def summarise(table: pl.DataFrame, rules: Rules) -> dict:
    """Shares with 95% Wilson intervals, melded points and deadwood spreads."""
    melded, deadwood = table["melded"].to_numpy(), table["deadwood"].to_numpy()
    return {
        "preset": rules.name,
        "hands": table.height,
        "decks": rules.decks,
        "p_meld": share(table["can_meld"].to_numpy()),
        "p_out": share(table["can_out"].to_numpy()),
        "melded": _spread(melded),
        "deadwood": _spread(deadwood),
    }


def format_summary(s: dict, size: int, seed: int, seconds: float, out: Path | None) -> str:
    """The summary as a few readable lines."""
    def row(label, d):
        return f"  {label:<34}{d['estimate']:>8.2%}   [{d['ci_low']:.2%}, {d['ci_high']:.2%}]"

    def spread(label, d):
        ci = d["ci"]
        return [f"{label}: mean {d['mean']:.2f} [{ci['ci_low']:.2f}, {ci['ci_high']:.2f}]",
                "  quantiles: " + "  ".join(f"{k[1:]}% {v:g}" for k, v in d["quantiles"].items()),
                "  by 10 points: " + "  ".join(f"{k}: {v:.1%}" for k, v in d["by_10"].items())]

    lines = [f"deal-stats  {s['preset']}: {s['hands']:,} hands of {size} cards from {s['decks']} deck(s), "
             f"seed {seed}  ({seconds:.1f} s, {s['hands'] / max(seconds, 1e-9):,.0f} hands/s)", "",
             f"  {'at the deal, keeping a discard':<34}{'share':>8}   95% Wilson interval",
             row("can lay down a meld (C-MELD-1)", s["p_meld"]),
             row("can go out at once (C-OUT-1/2)", s["p_out"]), ""]
    lines += spread("points it can meld", s["melded"])
    lines += spread("deadwood left", s["deadwood"])
    if out is not None:
        lines += ["", f"hands written to {out}"]
    return "\n".join(lines)


def _warm(rules: Rules, seed: int, size: int) -> None:
    from sim.games.cards import hand as k
    from sim.games.cards.handplay import deal_hands

    k.lay_down_batch(deal_hands(seed, 0, 1, size, rules.decks), np.zeros((1, 3), dtype=np.int64))


DEALS = DealKind("hand", DEAL_METRICS, STREAM_CARD_DEALS, _solve_chunk, _table, _stats, summarise, format_summary,
                      lambda rules: 52 * rules.decks, _warm)
