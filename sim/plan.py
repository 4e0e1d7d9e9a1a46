"""The plan of a command, checked before any work starts: what ``sim run``, ``sweep``,
``balance``, ``tournament`` and ``deal-stats`` would ask of this machine, from their sizes
alone, and a refusal in one line when it cannot be given.

A plan estimates the disk its data would take (the family's bytes a unit,
:class:`sim.games.family.Costs`), the time (the family's rough rate a worker process, times
the processes) and the memory the parent would hold for it (a run's bookkeeping of its
chunks and tasks, or the table deal-stats gathers), and refuses with :class:`PlanError`
when

- one variant would play more than :data:`MAX_UNITS` units, or a sweep have more than
  :data:`MAX_VARIANTS` variants, a run more than :data:`MAX_CHUNKS` chunks or
  :data:`MAX_TASKS` tasks: caps far above any real use (10^10 rounds are a month of one
  core at the fastest family's rate, 500 times the reference report's), which keep a
  mistyped size from building its list of chunks for minutes before playing anything;
- the data would not fit in the free space of the output's file system (less what a
  rerun finds there already);
- the memory would be more than half of what the machine has available now.

The time is said, never refused: a long run may be what was asked.
"""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sim.errors import SimError
from sim.parallel import cap_jobs, cores, parse_cluster

if TYPE_CHECKING:
    from sim.balance import Balance
    from sim.games.family import Family
    from sim.rules import Rules
    from sim.runner import RunSpec

MAX_UNITS = 10**10  # rounds (matches, racks) of one variant
MAX_VARIANTS = 10**4  # variants of a sweep
MAX_CHUNKS = 10**6  # chunks of a run (a file per table each) or of deal-stats
MAX_TASKS = 10**7  # tasks handed to the workers (a family with a ``piece`` cuts a chunk in several)
MEMORY_SHARE = 0.5  # of the memory available now, the most a plan may hold: the workers need the rest

# The parent's bookkeeping of a run before it plays (runner._run_all: the chunk list, its
# files, metadata and tasks), measured with tracemalloc around runner._run_all with a
# stand-in for the workers: 3,370 bytes a chunk of 20,000 one-task chunks (the same at
# chunks of 1 round), 895 bytes a task of 80,000 pieces of 250 rounds in 2,000 chunks;
# the rules JSON of each task is most of it.
BYTES_PER_CHUNK = 2_600
BYTES_PER_TASK = 900


class PlanError(SimError):
    """A command asking more than this machine, or any real use, can give."""


@dataclass(frozen=True)
class Plan:
    """What a command would ask: its units in all and at most in one variant, its chunks
    and tasks, and the estimates; :meth:`problems` says what is refused."""

    what: str  # the work as people read it: "10^15 rounds", "84 variants of 10,000 rounds"
    unit: str  # its plural: rounds, matches, racks, hands
    flag: str  # the option that sets its size: --rounds, --samples, --max-rounds
    units: int  # in all
    per_variant: int  # the most of one variant
    variants: int
    chunks: int
    tasks: int
    disk: float  # bytes
    memory: float  # bytes the parent holds
    memory_for: str  # what for
    rate: float  # units a second of one worker process (rough)
    processes: int | None  # None: a dask scheduler's, unknown
    out: Path
    most: bool = False  # --until-ci, sim balance: these are the most it may use
    scope: str = "a variant may play"  # what MAX_UNITS bounds
    chunk_flag: str | None = "--chunk"  # the option that sets the chunk size, if any

    @property
    def seconds(self) -> float:
        return self.units / (self.rate * (self.processes or 1))

    def problems(self, free: float | None, available: float | None) -> list[str]:
        found = []
        if self.per_variant > MAX_UNITS:
            found.append(f"{self.flag} is more than the {count(MAX_UNITS)} {self.unit} {self.scope}")
        if self.variants > MAX_VARIANTS:
            found.append(f"{self.variants:,} variants are more than the {MAX_VARIANTS:,} a sweep may have")
        if self.chunks > MAX_CHUNKS:
            found.append(f"{count(self.chunks)} chunks are more than the {count(MAX_CHUNKS)} a run may have"
                         + (f" (give a larger {self.chunk_flag})" if self.chunk_flag else ""))
        elif self.tasks > MAX_TASKS:
            found.append(f"{count(self.tasks)} tasks are more than the {count(MAX_TASKS)} a run may hand out")
        if free is not None and self.disk > free:
            found.append("the data would not fit in the free space")
        if available is not None and self.memory > MEMORY_SHARE * available:
            found.append("the memory is more than half of what is available")
        return found

    def describe(self, free: float | None, available: float | None) -> str:
        """The estimates in one phrase: disk (and free space), time, memory."""
        upto = "up to " if self.most else ""
        where = f" ({size(free)} free in {self.out})" if free is not None else ""
        if self.processes:
            pace = (f"at a rough {self.rate * self.processes:,.0f} {self.unit}/s on {self.processes} "
                    f"process{'es' if self.processes > 1 else ''}")
        else:
            pace = f"of one process's work at a rough {self.rate:,.0f} {self.unit}/s"
        memory = (f", and {size(self.memory)} of memory for {self.memory_for}"
                  + (f" ({size(available)} available)" if available is not None else "")) if self.memory else ""
        return (f"{self.what} would take {upto}about {size(self.disk)} on disk{where}, about "
                f"{duration(self.seconds)} {pace}{memory}")


def check(plan: Plan) -> Plan:
    """Refuse ``plan`` (:class:`PlanError`, one line: the estimates and every reason) if
    it asks too much; the free space and the memory are read only when they could matter."""
    free = free_space(plan.out, plan.disk)
    available = available_memory() if plan.memory else None
    problems = plan.problems(free, available)
    if problems:
        raise PlanError(f"{plan.describe(free, available)}; refused: {', '.join(problems)}")
    return plan


def free_space(out: Path, need: float) -> float | None:
    """The free bytes of the file system ``out`` would be on, plus what ``out`` holds
    already (a rerun replaces or keeps it); None if unknown."""
    place = Path(out).absolute()
    while not place.exists() and place != place.parent:
        place = place.parent
    try:
        free = shutil.disk_usage(place).free
    except OSError:
        return None
    if need > free and Path(out).exists():  # only then worth walking a large dataset
        target = Path(out)
        files = [target] if target.is_file() else (p for p in target.rglob("*") if p.is_file())
        free += sum(p.stat().st_size for p in files)
    return float(free)


def available_memory() -> float | None:
    """The memory this process could be given now: what the machine has available
    (``MemAvailable``), or less under a limit of its address space (``ulimit -v``, less
    what it maps already); None if unknown."""
    found = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(float(line.split()[1]) * 1024)
    except OSError:
        pass
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit != resource.RLIM_INFINITY:
            mapped = 0.0
            for line in Path("/proc/self/status").read_text().splitlines():
                if line.startswith("VmSize:"):
                    mapped = float(line.split()[1]) * 1024
            found.append(max(0.0, limit - mapped))
    except (ImportError, OSError, ValueError):
        pass
    return min(found) if found else None


def _processes(jobs: int | None, scheduler: str | None, cluster: str | None) -> int | None:
    if scheduler:
        return None
    if cluster:
        return parse_cluster(cluster) or cores()
    return cap_jobs(jobs, warn=False) or cores()


# --- the commands' plans ------------------------------------------------------------------


def check_variants(n: int) -> None:
    """A sweep's grid before its variants are made (each is validated rules)."""
    if n > MAX_VARIANTS:
        raise PlanError(f"--grid makes {n:,} variants, more than the {MAX_VARIANTS:,} a sweep may have; "
                        "sweep fewer values at once")


def _tasks_of(rounds: int, chunk: int, piece: int) -> int:
    """The tasks of one variant's ``rounds`` in chunks of ``chunk``, each cut in pieces of ``piece``."""
    full, rest = divmod(rounds, chunk)
    return full * math.ceil(chunk / piece) + (math.ceil(rest / piece) if rest else 0)


def for_run(spec: RunSpec, out: Path, jobs: int | None = None, scheduler: str | None = None,
            cluster: str | None = None) -> Plan:
    """The plan of a run, sweep or tournament (``runner.run(spec, out, ...)``), from its
    sizes alone: nothing is listed."""
    from sim.runner import deal_step

    family = spec.family
    sizes = [spec.rounds_of(v) for v in spec.variants]
    step = deal_step(spec.variants, spec.duplicate)
    piece = family.piece or spec.chunk
    piece = max(step, piece - piece % step)
    chunks = sum(-(-n // spec.chunk) for n in sizes)
    tasks = sum(_tasks_of(n, spec.chunk, piece) for n in sizes)
    units = sum(sizes)
    n = len(spec.variants)
    what = f"{count(units)} {family.units}" if n == 1 else f"{n:,} variants of {count(max(sizes))} {family.units}"
    # --until-ci plays in waves: no list of every chunk is made
    memory = 0 if spec.until else chunks * BYTES_PER_CHUNK + tasks * BYTES_PER_TASK
    return Plan(what=what, unit=family.units, flag="--matches" if family.unit == "match" else "--rounds",
                 per_variant=max(sizes), variants=n, chunks=chunks, tasks=tasks, units=units,
                 disk=units * family.costs.disk_per_unit, memory=memory, memory_for="the list of its chunks",
                 rate=family.costs.units_per_second, processes=_processes(jobs, scheduler, cluster), out=Path(out),
                 most=spec.until is not None)


def check_run(spec: RunSpec, out: Path, jobs: int | None = None, scheduler: str | None = None,
              cluster: str | None = None) -> Plan:
    """:func:`for_run`, refused if it asks too much (:func:`check`)."""
    return check(for_run(spec, out, jobs, scheduler, cluster))


def check_deal_stats(rules: Rules, samples: int, out: Path, chunk: int, jobs: int | None = None,
                     scheduler: str | None = None, cluster: str | None = None, until: bool = False) -> Plan:
    """The plan of ``sim deal-stats``: its table is gathered in the parent's memory, then written."""
    from sim.games import family_of

    family: Family = family_of(rules)
    costs = family.costs
    unit = "hands" if family.unit == "match" else "racks"
    chunks = -(-samples // chunk)
    return check(Plan(what=f"{count(samples)} {unit}", unit=unit, flag="--samples", per_variant=samples, variants=1,
                       chunks=chunks, tasks=chunks, units=samples, disk=samples * costs.disk_per_sample,
                       memory=samples * costs.memory_per_sample, memory_for="its table",
                       rate=costs.samples_per_second, processes=_processes(jobs, scheduler, cluster),
                       out=Path(out), most=until, scope="one deal-stats may deal", chunk_flag=None))


def check_balance(search: Balance, goals: int, jobs: int | None = None, scheduler: str | None = None,
                  cluster: str | None = None) -> Plan:
    """The plan of ``sim balance``: at most, each goal plays its two ends, a value a
    halving of the range and the answer's two neighbours, each up to ``--max-rounds``
    (in chunks of ``--rounds``)."""
    family = search.family
    halvings = max(1, math.ceil(math.log2(max(2, (search.high - search.low) / search.tolerance))))
    values = min(search.high - search.low + 1, goals * (halvings + 4))
    per_value = search.max_rounds
    units = values * per_value
    chunks = values * -(-per_value // search.rounds)
    piece = family.piece or search.rounds
    tasks = values * _tasks_of(per_value, search.rounds, min(piece, search.rounds))
    return check(Plan(what=f"{values:,} values of {count(per_value)} {family.units}", unit=family.units,
                       flag="--max-rounds", per_variant=per_value, variants=values, chunks=chunks, tasks=tasks,
                       units=units, disk=units * family.costs.disk_per_unit,
                       memory=chunks * BYTES_PER_CHUNK + tasks * BYTES_PER_TASK, memory_for="the list of its chunks",
                       rate=family.costs.units_per_second, processes=_processes(jobs, scheduler, cluster),
                       out=search.out, most=True, scope="a value may play", chunk_flag="--rounds"))


# --- numbers as people read them ------------------------------------------------------------


def count(n: int) -> str:
    """``84,000``, ``10^15``, ``2.5×10^11``: commas up to millions, powers of ten beyond."""
    if n < 10**7:
        return f"{n:,}"
    e = len(str(n)) - 1
    m = n / 10**e
    if n == 10**e:
        return f"10^{e}"
    return f"{m:.0f}×10^{e}" if n % 10**e == 0 else f"{m:.1f}×10^{e}"


def size(b: float) -> str:
    """Bytes with two or three significant digits: ``716 MB``, ``2.7 PB``."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB"):
        if b < 999.5 or unit == "ZB":
            return f"{b:.2g} {unit}" if b < 9.95 else f"{b:.0f} {unit}"
        b /= 1000
    raise AssertionError("unreachable")


def duration(seconds: float) -> str:
    """``40 s``, ``12 minutes``, ``5 hours``, ``9 days``, ``7,900 years``."""
    for limit, div, unit in ((90, 1, "s"), (90 * 60, 60, "minutes"), (48 * 3600, 3600, "hours"),
                             (730 * 86400, 86400, "days")):
        if seconds < limit:
            return f"{seconds / div:.0f} {unit}"
    years = seconds / (365.25 * 86400)
    digits = max(0, len(f"{years:.0f}") - 2)  # two significant digits
    return f"{round(years, -digits):,.0f} years"
