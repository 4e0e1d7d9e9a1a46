"""``sim balance``: the value of a numeric rules field at which a metric reaches a target.

The metric is any ``--until-ci`` metric of the family (``p_open_by_turn_3``,
``mean_penalty``, ``stock_out``, ``win_seat_0``, ...), measured on simulated rounds, so
every reading is noisy. The search is a **paired bisection with a confidence test**:

- every value plays the same round ids of the same seed, so all values share their
  shuffled tiles (common random numbers): the measured curve is nearly monotone and
  two neighbouring values are compared on the same deals;
- at each midpoint the metric's 95% interval (cluster-robust, the players of a round
  one sample) is compared with the target. If it lies wholly on one side, the bracket
  halves; if it still holds the target, that value plays twice as many rounds, and
  again, up to ``max_rounds``;
- the search stops when the bracket is ``tolerance`` wide (1: two neighbouring
  integers, the target between them at 95% confidence each side) or when a value's
  interval still holds the target after ``max_rounds`` rounds (the metric there is
  the target within the precision asked).

Why this and not a fitted curve: bisection needs no model of the response (opening
shares against thresholds are steps, not logistic curves), spends rounds only near
the answer, and each decision is a plain test a reader can check in the output. Its
assumption is a monotone response in the range, which the ends' readings check.

The rounds played form one sweep dataset in ``out`` (a variant per value tried, each
with the rounds it needed): rerunning the same command replays the same decisions
from the chunks on disk, and ``sim report --data DIR`` reads it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from sim import runner
from sim.errors import RulesError, SimError
from sim.parallel import Workers
from sim.precision import Target, parse_target
from sim.rules import Rules
from sim.stats import cluster_interval

KIND = "balance"


@dataclass(frozen=True)
class Goal:
    """A target: the metric as the user writes it and the value it should reach."""

    metric: str
    value: float
    target: Target  # the metric parsed (its half-width is unused)

    def to_text(self) -> str:
        return f"{self.metric}={self.value:g}"


def parse_goal(text: str, metrics, players: int) -> Goal:
    """``p_open_by_turn_3=0.667`` -> Goal; a clear error names what is wrong."""
    name, sep, value = text.partition("=")
    try:
        wanted = float(value)
    except ValueError:
        wanted = float("nan")
    if not sep or wanted != wanted:
        raise SimError(f"--target {text!r}: expected METRIC=VALUE, e.g. p_open_by_turn_3=0.667")
    target = parse_target(f"{name.strip()}=1", metrics, players)
    if target.share and not 0 < wanted < 1:
        raise SimError(f"--target {text!r}: {target.metric} is a share; give a value between 0 and 1")
    return Goal(target.metric, wanted, target)


@dataclass(frozen=True)
class Reading:
    """A metric at one value of the field, over its first ``rounds`` rounds."""

    value: int
    rounds: int
    estimate: float
    ci_low: float
    ci_high: float

    def side(self, wanted: float) -> int:
        """+1 if the interval lies above ``wanted``, -1 below, 0 if it holds it."""
        return 1 if self.ci_low > wanted else -1 if self.ci_high < wanted else 0

    def to_dict(self) -> dict:
        return {"value": self.value, "rounds": self.rounds, "estimate": self.estimate, "ci_low": self.ci_low,
                "ci_high": self.ci_high}


@dataclass
class Answer:
    """What the search found for one goal."""

    goal: Goal
    reachable: bool
    value: int | None = None
    reading: Reading | None = None
    neighbours: list[Reading] = field(default_factory=list)
    ends: list[Reading] = field(default_factory=list)
    within_noise: bool = False  # stopped at max_rounds with the target inside the interval
    tried: list[int] = field(default_factory=list)

    def to_dict(self, field_name: str) -> dict:
        def metric(r: Reading | None) -> dict | None:
            return None if r is None else {"estimate": r.estimate, "ci_low": r.ci_low, "ci_high": r.ci_high}

        return {
            "field": field_name, "target": {"metric": self.goal.metric, "value": self.goal.value},
            "reachable": self.reachable, "value": self.value, "metric": metric(self.reading),
            "rounds": self.reading.rounds if self.reading else None, "within_noise": self.within_noise,
            "neighbours": [r.to_dict() for r in self.neighbours], "ends": [r.to_dict() for r in self.ends],
            "tried": self.tried,
        }


def search(read: Callable[[int, int], Reading], goal: Goal, low: int, high: int, rounds: int, max_rounds: int,
           tolerance: int = 1, valid: Callable[[int], bool] = lambda value: True,
           played: Callable[[int], int] | None = None) -> Answer:
    """Paired bisection with a confidence test (module docstring) on any measurement:
    ``read(value, rounds)`` gives the metric at ``value`` over its first ``rounds``
    rounds (common random numbers: more rounds extend the same ones); ``valid`` says
    whether a neighbour value is allowed; ``played(value)`` the rounds it already has."""
    done: dict[int, int] = {}

    def measure(value: int, n: int) -> Reading:
        r = read(value, n)
        done[value] = max(done.get(value, 0), r.rounds)
        return r

    have = played or (lambda value: done.get(value, 0))
    a, b = measure(low, rounds), measure(high, rounds)
    tried = [low, high]
    if not min(a.estimate, b.estimate) <= goal.value <= max(a.estimate, b.estimate):
        return Answer(goal, False, ends=[a, b], tried=tried)
    rising = b.estimate > a.estimate
    lo, hi = low, high

    def answer(value: int, within_noise: bool) -> Answer:
        # The metric at the answer and its neighbours, all on the same rounds (paired).
        others = [v for v in (value - tolerance, value + tolerance) if valid(v)]
        n = max(have(v) for v in (value, *others))
        return Answer(goal, True, value, measure(value, n), [measure(v, n) for v in others], [a, b],
                      within_noise, tried)

    while hi - lo > tolerance:
        m = (lo + hi) // 2
        tried.append(m)
        n = max(rounds, have(m))
        while True:  # more rounds at m while its interval holds the target
            r = measure(m, n)
            if r.side(goal.value) != 0 or n >= max_rounds:
                break
            n = min(2 * n, max_rounds)
        side = r.side(goal.value)
        if side == 0:  # the target is inside the interval after max_rounds: m is the answer
            return answer(m, within_noise=True)
        if (side > 0) == rising:
            hi = m
        else:
            lo = m
    # Two values the tolerance apart with the target between them: the nearer one.
    n = max(have(lo), have(hi))
    ra, rb = measure(lo, n), measure(hi, n)
    return answer(lo if abs(ra.estimate - goal.value) <= abs(rb.estimate - goal.value) else hi, within_noise=False)


class Balance:
    """One search over ``field`` of ``base`` in ``[low, high]``: the sweep it grows in
    ``out`` and the readings it has made."""

    def __init__(self, base: Rules, field_name: str, low: int, high: int, out: Path, seed: int,
                 policies: tuple[str, ...], rounds: int, max_rounds: int, tolerance: int,
                 say: Callable[[str], None] = lambda line: None):
        if field_name not in base.to_dict() or field_name in ("name", "family"):
            raise RulesError(f"--field {field_name!r}: not a rules field of {base.name}")
        current = getattr(base, field_name)
        if isinstance(current, bool) or not isinstance(current, int):
            raise RulesError(f"--field {field_name}: not a numeric field ({field_name}={current!r}); "
                             "balance searches integer fields such as open_points")
        if not low < high:
            raise SimError(f"--range {low}:{high}: the low end must be below the high end")
        if tolerance < 1:
            raise SimError("--tolerance must be at least 1")
        if rounds < 1 or max_rounds < rounds:
            raise SimError(f"--rounds {rounds:,} and --max-rounds {max_rounds:,}: need 1 <= rounds <= max-rounds")
        self.base, self.field, self.low, self.high = base, field_name, low, high
        self.out, self.seed, self.policies = Path(out), seed, policies
        # every reading is whole chunks of ``rounds``: the cap too
        self.rounds, self.max_rounds, self.tolerance = rounds, -(-max_rounds // rounds) * rounds, tolerance
        self.family = runner.family_of(base)
        self.plan: dict[int, int] = {}  # value -> rounds played
        self.variants: dict[int, runner.Variant] = {}
        for v in (low, high):
            self._variant(v)  # a bad value of the range fails before any work
        self.say = say
        self.played = 0
        self.workers: Workers | None = None
        self.overwrite = False  # the first run may replace another run in ``out``
        self.progress = False  # a bar over each batch of rounds (the CLI shows it, --no-progress hides it)
        self._readings: dict[tuple[int, int, str], Reading] = {}
        self._started = False  # the first reading runs the runner (checks out, resumes)

    def _variant(self, value: int) -> runner.Variant:
        if value not in self.variants:
            (v,) = runner.grid_variants(self.base, {self.field: [str(value)]})
            self.variants[value] = v
        return self.variants[value]

    def _spec(self) -> runner.RunSpec:
        values = sorted(self.plan)
        variants = tuple(runner.Variant(self.variants[v].rules, self.variants[v].partition, self.plan[v])
                         for v in values)
        return runner.RunSpec(variants, max(self.plan.values()), self.seed, self.policies, self.rounds, kind=KIND)

    def read(self, value: int, rounds: int, goal: Goal) -> Reading:
        """The goal's metric at ``value`` over its first ``rounds`` rounds, playing what is missing."""
        rounds = -(-rounds // self.rounds) * self.rounds  # whole chunks
        key = (value, rounds, goal.metric)
        if key in self._readings:
            return self._readings[key]
        if self.plan.get(value, 0) < rounds or not self._started:
            self._variant(value)
            self.plan[value] = max(rounds, self.plan.get(value, 0))
            self._started = True
            report = runner.run(self._spec(), self.out, progress=self.progress, grow=True, workers=self.workers,
                                overwrite=self.overwrite)
            self.overwrite = False
            self.played += report.played
        v = self.variants[value]
        tables = {}
        for name in self.family.tables:
            lf = pl.scan_parquet(str(self.out / name / v.subdir / "*.parquet"))
            tables[name] = lf.filter(pl.col(self.family.id_column) < rounds).collect()
        est, lo, hi = cluster_interval(self.family.chunk_stats(goal.target, tables), goal.target.share)
        reading = self._readings[key] = Reading(value, rounds, est, lo, hi)
        self.say(f"  {self.field}={value}: {goal.metric} {est:.4g} [{lo:.4g}, {hi:.4g}] ({rounds:,} "
                 f"{self.family.units})")
        return reading

    def solve(self, goal: Goal) -> Answer:
        """Search the field's value for ``goal`` (see the module docstring)."""
        self.say(f"{goal.to_text()}: searching {self.field} in {self.low}..{self.high}")
        return search(lambda value, rounds: self.read(value, rounds, goal), goal, self.low, self.high, self.rounds,
                      self.max_rounds, self.tolerance, self._valid, lambda value: self.plan.get(value, 0))

    def _valid(self, value: int) -> bool:
        try:
            self._variant(value)
        except RulesError:
            return False
        return True

    def _resume(self) -> None:
        """Take over the values and rounds of an earlier search with these settings in
        ``out`` (its chunks are reused; the manifest only ever grows)."""
        try:
            old = runner.read_manifest(self.out)
        except SimError:
            return
        if self.overwrite or old.get("kind") != KIND:
            return
        plan = {}
        for v in old.get("variants", []):
            part = v.get("partition", {})
            if list(part) != [self.field]:
                return
            plan[int(part[self.field])] = int(v.get("rounds", old["rounds"]))
        self.plan.update(plan)
        for value in plan:
            self._variant(value)

    def run(self, goals: list[Goal], jobs: int | None = None, scheduler: str | None = None,
            cluster: str | None = None) -> tuple[list[Answer], float]:
        """Every goal's answer and the seconds it took, on one pool of workers."""
        t0 = time.perf_counter()
        self._resume()
        with Workers(jobs, scheduler, cluster) as workers:
            self.workers = workers
            try:
                answers = [self.solve(g) for g in goals]
            finally:
                self.workers = None
        return answers, time.perf_counter() - t0


def format_answer(b: Balance, ans: Answer) -> list[str]:
    """One goal's answer as lines a person reads."""
    g = ans.goal
    f = b.field
    units = b.family.units
    if not ans.reachable:
        lo, hi = ans.ends
        return [f"{g.to_text()}: out of reach in {f} {b.low}..{b.high}: {g.metric} is "
                f"{lo.estimate:.4g} [{lo.ci_low:.4g}, {lo.ci_high:.4g}] at {lo.value} and "
                f"{hi.estimate:.4g} [{hi.ci_low:.4g}, {hi.ci_high:.4g}] at {hi.value} ({lo.rounds:,} {units} each)"]
    r = ans.reading
    how = (f"the target is inside its interval after --max-rounds {units}" if ans.within_noise
           else "the target lies between it and a neighbour")
    lines = [f"{g.to_text()}: {f} = {ans.value}  ({g.metric} {r.estimate:.4g} [{r.ci_low:.4g}, {r.ci_high:.4g}] "
             f"over {r.rounds:,} {units}; {how})"]
    for n in ans.neighbours:
        lines.append(f"  neighbour {f}={n.value}: {g.metric} {n.estimate:.4g} [{n.ci_low:.4g}, {n.ci_high:.4g}]")
    lines.append(f"  values tried, in order: {', '.join(map(str, ans.tried))}")
    return lines
