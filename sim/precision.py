"""Adaptive precision (``--until-ci METRIC=HALFWIDTH``): keep playing chunks until the 95%
interval of a metric is at most a given half-width.

Chunks are played in waves but measured in order, and the data kept are the shortest
prefix of chunks whose interval is narrow enough: the same seed and settings give the
same data whatever the number of workers (the chunk size sets the granularity).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.errors import SimError
from sim.stats import CLUSTER_FIELDS, cluster_interval


@dataclass(frozen=True)
class Metric:
    """An ``--until-ci`` metric: its name as the user writes it (``T`` a turn, ``S`` a
    seat), the regular expression that reads it, what it measures, and whether it is a
    share (Wilson interval) or a mean (normal interval)."""

    name: str
    pattern: str
    help: str
    share: bool


DEAL_METRICS = (
    Metric("p_open", "p_open", "share of dealt racks that can open", True),
    Metric("p_melds", "p_melds", "share that can open by melds", True),
    Metric("p_pairs", "p_pairs", "share that can open by pairs", True),
    Metric("mean_value", "mean_value", "mean best melds value", False),
)


@dataclass(frozen=True)
class Target:
    """A metric and the 95% half-width it must reach."""

    metric: str
    halfwidth: float
    share: bool = True  # a share (Wilson interval) or a mean (normal interval), both clustered
    turn: int | None = None
    seat: int | None = None

    def width(self, acc: np.ndarray) -> float:
        """95% half-width from accumulated :func:`sim.stats.cluster_stats` (clusters: the
        rounds, or the deals of a duplicate run, so the players of one round count as
        one sample): a share's Wilson interval on the effective sample size, a mean's
        normal interval, both with the cluster-robust error."""
        if acc[0] < 2:
            return float("inf")
        _, lo, hi = cluster_interval(acc, self.share)
        return float(hi - lo) / 2 if np.isfinite(hi - lo) else float("inf")

    def estimate(self, acc: np.ndarray) -> float:
        return float(acc[2] / acc[1])

    def met(self, acc: np.ndarray) -> bool:
        return self.width(acc) <= self.halfwidth

    def to_text(self) -> str:
        return f"{self.metric}={self.halfwidth:g}"


def metrics_help(metrics: Sequence[Metric]) -> str:
    return "; ".join(f"{m.name}: {m.help}" for m in metrics)


def parse_target(text: str, metrics: Sequence[Metric], players: int | None = None) -> Target:
    """``p_open_by_turn_3=0.001`` -> Target; a clear error names what is wrong."""
    metric, sep, value = text.partition("=")
    metric = metric.strip()
    try:
        width = float(value)
    except ValueError:
        width = float("nan")
    if not sep or not width > 0 or not np.isfinite(width):
        raise SimError(f"--until-ci {text!r}: expected METRIC=HALFWIDTH with a positive half-width, "
                       f"e.g. {metrics[0].name.replace('_T', '_3').replace('_S', '_0')}=0.001")
    for known in metrics:
        m = re.fullmatch(known.pattern, metric)
        if m:
            groups = m.groupdict()
            turn = int(groups["turn"]) if groups.get("turn") else None
            seat = int(groups["seat"]) if groups.get("seat") else None
            if turn is not None and turn < 1:
                raise SimError(f"--until-ci {metric}: turns count from 1")
            if seat is not None and players is not None and seat >= players:
                raise SimError(f"--until-ci {metric}: seats are 0-{players - 1}")
            return Target(metric, width, known.share, turn, seat)
    names = ", ".join(m.name for m in metrics)
    raise SimError(f"--until-ci: unknown metric {metric!r}; metrics: {names}")


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
    acc: np.ndarray = field(default_factory=lambda: np.zeros(CLUSTER_FIELDS))
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
