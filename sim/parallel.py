"""Where chunks of work run: worker processes on this machine (joblib's loky backend) or a
dask cluster (joblib's dask backend), with the same results, the same progress bar, and
a worker that dies costing one retry of the chunk it held.

:class:`Workers` is used as a context manager; ``run`` feeds it tasks in order and hands
every result to a callback in the parent, which does all the writing.

It also owns what every worker process of the package (these and the compile workers of
:mod:`sim.jit`) must obey: no more of them than the cores (:func:`cap_jobs`), and none
outliving the process that started it (:func:`die_with_parent`).
"""

from __future__ import annotations

import atexit
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from joblib import Parallel, delayed, parallel_config

from sim.errors import SimError

CONNECT_TIMEOUT = "20s"  # how long --scheduler may take to answer before the run is refused
FAULT_ENV = "SIM_FAULT"  # fault injection for the resilience tests: "kill:KEY" or "kill-once:KEY:MARKER"


class ChunkFailed(SimError):
    """A chunk whose worker died twice."""


def _worker_died_errors() -> tuple[type[BaseException], ...]:
    from joblib.externals.loky.process_executor import BrokenProcessPool, TerminatedWorkerError

    errors: list[type[BaseException]] = [TerminatedWorkerError, BrokenProcessPool]
    try:
        from distributed.scheduler import KilledWorker

        errors.append(KilledWorker)
    except ImportError:
        pass
    return tuple(errors)


def _maybe_fault(key: str) -> None:
    """Kill this worker if the fault-injection variable names ``key`` (tests only)."""
    spec = os.environ.get(FAULT_ENV, "")
    if not spec:
        return
    parts = spec.split(":")
    if parts[0] == "kill" and len(parts) >= 2 and parts[1] == key:
        os.kill(os.getpid(), signal.SIGKILL)
    if parts[0] == "kill-once" and len(parts) >= 3 and parts[1] == key:
        marker = Path(":".join(parts[2:]))
        if not marker.exists():
            marker.write_text("killed once")
            os.kill(os.getpid(), signal.SIGKILL)


def cores() -> int:
    """The cores this process may run on (its CPU affinity, as ``taskset`` or a container sets it)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cap_jobs(jobs: int | None, warn: bool = True) -> int | None:
    """``--jobs`` at most the cores: more processes than cores play no faster, and each
    holds its own copy of the compiled engines and its chunk's tables (``--jobs 64`` on 2
    cores once started 67 processes and took 7 GB). Says so on standard error (``warn``)."""
    n = cores()
    if jobs is None or jobs <= n:
        return jobs
    if warn:
        print(f"warning: --jobs {jobs} is more than the {n} cores; using {n}", file=sys.stderr, flush=True)
    return n


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int | None = None) -> None:
    """Make this worker process end when its parent does, however the parent ends: killed
    with SIGKILL (by the OOM killer, say), a parent runs no exit hook and its idle workers
    would live on, holding their memory. On Linux the kernel sends this process SIGKILL
    when its parent dies (``prctl(PR_SET_PDEATHSIG)``); elsewhere a thread watches the
    parent's pid. ``parent``: the pid the parent had, to catch a parent that died before
    this call (the process is then already an orphan)."""
    parent = parent or os.getppid()
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:  # the parent is gone already
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="sim-parent-watch").start()


def _watch_parent(parent: int) -> None:
    import time

    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _call(fn: Callable, key: str, args: tuple) -> tuple[str, Any]:
    _maybe_fault(key)
    return key, fn(*args)


def parse_cluster(spec: str) -> int | None:
    """``local`` or ``local:N`` -> N workers (None: one per core)."""
    name, _, count = spec.partition(":")
    if name != "local" or (count and not count.isdigit()) or count == "0":
        raise SimError(f"--cluster {spec!r}: expected local or local:N (N workers on this machine)")
    return int(count) if count else None


def _end_local_workers() -> None:
    """End joblib's local worker processes at once (they are idle)."""
    from joblib.externals.loky import reusable_executor

    executor = getattr(reusable_executor, "_executor", None)  # the one joblib reuses, if started
    if executor is not None:
        executor.shutdown(wait=False, kill_workers=True)


@functools.cache
def _end_local_workers_at_exit() -> None:
    """Kill the idle workers when the interpreter exits. They stay up between runs of one
    process (a notebook, the tests: no new workers for every run), but joblib's own exit
    hook asks them to stop and waits, seconds after the work and its summary are done;
    this hook, registered later, runs first."""
    atexit.register(_end_local_workers)


@dataclass
class Workers:
    """Run tasks on ``jobs`` local processes, on a dask ``scheduler`` address, or on a
    dask LocalCluster (``cluster="local[:N]"``)."""

    jobs: int | None = None
    scheduler: str | None = None
    cluster: str | None = None
    _client: Any = field(default=None, repr=False)
    _local_cluster: Any = field(default=None, repr=False)
    _threads: int = field(default=1, repr=False)

    @property
    def uses_dask(self) -> bool:
        return bool(self.scheduler or self.cluster)

    def __enter__(self) -> Workers:
        import numba

        self._threads = numba.get_num_threads()  # a task run here sets it to 1
        if self.scheduler and self.cluster:
            raise SimError("give either --scheduler or --cluster, not both")
        if self.jobs is not None and self.jobs < 1:
            raise SimError(f"--jobs must be at least 1 (got {self.jobs})")
        if not self.uses_dask:
            self.jobs = cap_jobs(self.jobs)
            _end_local_workers_at_exit()
            return self
        try:
            import dask
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise SimError('dask is not installed: pip install -e ".[cluster]"') from None
        if self.cluster:
            n = parse_cluster(self.cluster) or os.cpu_count() or 1
            # A worker that dies should fail its task at once: the retry is ours (one).
            dask.config.set({"distributed.scheduler.allowed-failures": 0})
            self._local_cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                               host="127.0.0.1", dashboard_address=None)
            self._client = Client(self._local_cluster)
        else:
            try:
                self._client = Client(self.scheduler, timeout=CONNECT_TIMEOUT)
            except OSError as e:
                raise SimError(f"--scheduler {self.scheduler}: cannot connect ({e})") from None
        return self

    def __exit__(self, *exc) -> None:
        import numba

        numba.set_num_threads(self._threads)
        if self._client is not None:
            self._client.close()
        if self._local_cluster is not None:
            self._local_cluster.close()

    @property
    def slots(self) -> int:
        """Tasks that run at once."""
        if self._client is not None:
            return max(1, sum(self._client.nthreads().values()))
        return self.jobs or cores()

    def describe(self) -> str:
        if self.scheduler:
            return f"dask scheduler {self.scheduler}"
        if self.cluster:
            return f"dask LocalCluster ({self.cluster})"
        return f"{self.jobs or cores()} local worker process(es)"

    def _parallel(self) -> Parallel:
        common = {"return_as": "generator_unordered", "batch_size": 1, "pre_dispatch": "n_jobs"}
        if self.uses_dask:
            return Parallel(n_jobs=-1, **common)
        return Parallel(n_jobs=self.jobs or cores(), **common)

    def _context(self):
        if self.uses_dask:
            return parallel_config(backend="dask")
        # Every local worker runs die_with_parent when it starts (loky's initializer, passed
        # through joblib's backend options; the same function and pid each time, so that
        # joblib still reuses its workers from one run to the next).
        return parallel_config(backend="loky", initializer=die_with_parent, initargs=(os.getpid(),))

    def run(self, fn: Callable, tasks: Iterable[tuple[str, tuple]], on_result: Callable[[str, Any], None]) -> None:
        """Call ``fn(*args)`` for every ``(key, args)`` task in worker processes, and
        ``on_result(key, result)`` here as each finishes. A chunk whose worker dies is
        tried again alone; if it dies again the run stops with :class:`ChunkFailed`."""
        died = _worker_died_errors()
        pending = dict(tasks)
        retried: set[str] = set()
        while pending:
            handed: list[str] = []

            def feed(handed: list[str] = handed):
                for key, args in list(pending.items()):
                    handed.append(key)
                    yield delayed(_call)(fn, key, args)

            try:
                with self._context():
                    for key, result in self._parallel()(feed()):
                        del pending[key]
                        on_result(key, result)
            except died:
                # Handed out but not finished: the dead worker's chunk is among these.
                for key in [k for k in handed if k in pending]:
                    if key in retried:
                        raise ChunkFailed(f"chunk {key} failed twice: its worker died") from None
                    retried.add(key)
                    try:
                        with self._context():
                            for k, result in self._parallel()([delayed(_call)(fn, key, pending[key])]):
                                del pending[k]
                                on_result(k, result)
                    except died:
                        raise ChunkFailed(f"chunk {key} failed twice: its worker died") from None
