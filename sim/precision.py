"""Adaptive precision (``--until-ci METRIC=HALFWIDTH``): keep playing chunks until the 95%
interval of a metric is at most a given half-width.

Chunks are played in waves but measured in order, and the data kept are the shortest
prefix of chunks whose interval is narrow enough: the same seed and settings give the
same data whatever the number of workers (the chunk size sets the granularity).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from sim.errors import SimError
from sim.stats import Z95, wilson_interval

RUN_METRICS = {
    "p_open_by_turn_T": "share of players opened by their own T-th turn (all seats)",
    "p_open_by_turn_T_seat_S": "the same for seat S",
    "win_seat_S": "share of rounds won by seat S",
    "stock_out": "share of rounds ending with the stock exhausted",
    "mean_score": "mean score of all players",
    "mean_score_seat_S": "mean score of seat S",
    "mean_penalty": "mean penalty of the players who did not win",
    "mean_turns": "mean turns per round",
}
DEAL_METRICS = {
    "p_open": "share of dealt racks that can open",
    "p_melds": "share that can open by melds",
    "p_pairs": "share that can open by pairs",
    "mean_value": "mean best melds value",
}
_PATTERNS = {
    "run": [r"p_open_by_turn_(?P<turn>\d+)(_seat_(?P<seat>\d+))?", r"win_seat_(?P<seat>\d+)", "stock_out",
            "mean_score", r"mean_score_seat_(?P<seat>\d+)", "mean_penalty", "mean_turns"],
    "deal": ["p_open", "p_melds", "p_pairs", "mean_value"],
}


@dataclass(frozen=True)
class Target:
    """A metric and the 95% half-width it must reach."""

    metric: str
    halfwidth: float
    turn: int | None = None
    seat: int | None = None

    @property
    def is_share(self) -> bool:
        return self.metric.startswith(("p_", "win_", "stock_out"))

    def width(self, acc: np.ndarray) -> float:
        """95% half-width from accumulated statistics: shares (successes, trials, 0) with a
        Wilson interval, means (count, sum, sum of squares) with a normal one."""
        if self.is_share:
            k, n = acc[0], acc[1]
            if n == 0:
                return float("inf")
            lo, hi = wilson_interval(k, n)
            return float(hi - lo) / 2
        n, s, ss = acc
        if n < 2:
            return float("inf")
        var = max((ss - s * s / n) / (n - 1), 0.0)
        return Z95 * float(np.sqrt(var / n))

    def estimate(self, acc: np.ndarray) -> float:
        return float(acc[0] / acc[1]) if self.is_share else float(acc[1] / acc[0])

    def met(self, acc: np.ndarray) -> bool:
        return self.width(acc) <= self.halfwidth

    def to_text(self) -> str:
        return f"{self.metric}={self.halfwidth:g}"


def metrics_help(kind: str) -> str:
    table = RUN_METRICS if kind == "run" else DEAL_METRICS
    return "; ".join(f"{k}: {v}" for k, v in table.items())


def parse_target(text: str, kind: str, players: int | None = None) -> Target:
    """``p_open_by_turn_3=0.001`` -> Target; a clear error names what is wrong."""
    metric, sep, value = text.partition("=")
    metric = metric.strip()
    try:
        width = float(value)
    except ValueError:
        width = float("nan")
    if not sep or not width > 0 or not np.isfinite(width):
        raise SimError(f"--until-ci {text!r}: expected METRIC=HALFWIDTH with a positive half-width, "
                       "e.g. p_open_by_turn_3=0.001")
    for pattern in _PATTERNS[kind]:
        m = re.fullmatch(pattern, metric)
        if m:
            groups = m.groupdict()
            turn = int(groups["turn"]) if groups.get("turn") else None
            seat = int(groups["seat"]) if groups.get("seat") else None
            if turn is not None and turn < 1:
                raise SimError(f"--until-ci {metric}: turns count from 1")
            if seat is not None and players is not None and seat >= players:
                raise SimError(f"--until-ci {metric}: seats are 0-{players - 1}")
            return Target(metric, width, turn, seat)
    known = ", ".join(RUN_METRICS if kind == "run" else DEAL_METRICS)
    raise SimError(f"--until-ci: unknown metric {metric!r}; metrics: {known}")


def round_stats(target: Target, rounds: pl.DataFrame, players: pl.DataFrame) -> np.ndarray:
    """Sufficient statistics of one chunk of rounds for ``target``."""
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


@dataclass
class Stream:
    """One sequence of chunks measured against the target: a variant of a run, or the
    racks of a deal-stats job."""

    name: str
    chunk: int
    cap: int  # the most items (rounds, racks) it may use
    task: Callable[[int], tuple]  # first item -> the arguments of the chunk's task
    stored: Callable[[int], Any]  # first item -> a result already on disk, or None
    stats: Callable[[Any], np.ndarray]
    accept: Callable[[int, Any, bool], None]  # first item, result, already stored
    label: Callable[[int], str] = lambda start: f"from {start}"  # names a chunk in errors
    acc: np.ndarray = field(default_factory=lambda: np.zeros(3))
    next_start: int = 0
    finished_at: int | None = None


def run_until(streams: list[Stream], workers, fn: Callable, target: Target, wave: int,
              on_result: Callable[[Any], None] = lambda result: None) -> None:
    """Play each stream's chunks in waves until its prefix meets ``target`` or its cap."""
    while True:
        open_ = [s for s in streams if s.finished_at is None]
        if not open_:
            return
        per = max(1, wave // len(open_))
        plan: dict[str, list[int]] = {}
        results: dict[str, tuple[Any, bool]] = {}
        tasks = []
        for s in open_:
            starts = [s.next_start + i * s.chunk for i in range(per) if s.next_start + i * s.chunk < s.cap]
            plan[s.name] = starts
            for start in starts:
                key = s.label(start)
                got = s.stored(start)
                if got is not None:
                    results[key] = (got, True)
                else:
                    tasks.append((key, s.task(start)))

        def keep(key: str, result: Any, results: dict = results) -> None:
            results[key] = (result, False)
            on_result(result)

        workers.run(fn, tasks, keep)
        for s in open_:
            for start in plan[s.name]:
                result, stored = results[s.label(start)]
                s.acc += s.stats(result)
                s.accept(start, result, stored)
                s.next_start = min(start + s.chunk, s.cap)
                if target.met(s.acc) or s.next_start >= s.cap:
                    s.finished_at = s.next_start
                    break
