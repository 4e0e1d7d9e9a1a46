"""The interface between a rule family and the shared layers.

A family package (``sim/games/<family>/``) defines one :class:`Family` subclass and an
instance ``FAMILY``. The runner plays chunks through :meth:`Family.chunk_tables`, writes
whatever tables they hold, summarises a run through :meth:`Family.summarise`, measures
``--until-ci`` targets through :attr:`Family.metrics` and :meth:`Family.chunk_stats`, and
the CLI prints traces through :meth:`Family.trace_text` and :meth:`Family.trace_json`.

Nothing here, nor in a family's ``__init__``, imports numba or a kernel: a family's
kernels are imported by the methods that play, and compile only when it plays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sim.precision import Metric

if TYPE_CHECKING:
    import numpy as np
    import polars as pl

    from sim.jit import Workload
    from sim.precision import Target
    from sim.rules import Rules


def policy_codes(policies: list[str] | tuple[str, ...], players: int, known: tuple[str, ...]) -> np.ndarray:
    """Policy names per seat as their indices in ``known`` (a family's bots); one name is
    used for every seat."""
    import numpy as np

    from sim.errors import RulesError

    names = list(policies)
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise RulesError(f"policies: {players} seats need {players} policies, got {len(names)}")
    for n in names:
        if n not in known:
            raise RulesError(f"unknown policy {n!r}; policies: {', '.join(known)}")
    return np.array([known.index(n) for n in names], dtype=np.int64)


def per_variant(tables: dict[str, pl.DataFrame], keys: list[str], summarise_one) -> dict:
    """A run's summary: ``summarise_one(combo, rounds, players)`` for every variant of a
    sweep (``keys``: the swept fields, columns of both tables) or once for a run; the
    players table gains the round's ``winner_seat`` and ``deal_id``."""

    rounds, players = tables["rounds"], tables["players"]
    extra = ["deal_id"] if "deal_id" in rounds.columns else []
    players = players.join(rounds.select("round_id", *keys, "winner_seat", *extra), on=["round_id", *keys],
                           how="left")
    combos = rounds.select(keys).unique().sort(keys).rows(named=True) if keys else [{}]
    variants = []
    for combo in combos:
        variants.append(summarise_one(combo, of_variant(rounds, combo), of_variant(players, combo)))
    return {"rounds": rounds.height, "variants": variants}


def of_variant(df: pl.DataFrame, combo: dict) -> pl.DataFrame:
    """The rows of ``df`` of one variant (``combo``: swept field -> value; empty: all)."""
    import polars as pl

    return df.filter(*[pl.col(k) == v for k, v in combo.items()]) if combo else df


def variant_name(variant: dict) -> str:
    """A variant as people read it: ``players=4, wrap_runs=true``."""
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in variant.items()) or "all rounds"


def variant_key(combo: dict) -> dict:
    return {k: (v if isinstance(v, str | bool) else int(v)) for k, v in combo.items()}


def cluster_of(rounds: pl.DataFrame) -> str:
    """The column that groups a run's dependent samples: ``deal_id`` (a duplicate run's
    rotations share a deal; otherwise one deal per round), or ``round_id`` in data
    written before deals had ids."""
    return "deal_id" if "deal_id" in rounds.columns else "round_id"


def _clustered_rows(rows: pl.DataFrame, rounds: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """Players ``rows`` with their round's cluster column (:func:`cluster_of`), and its name."""
    by = cluster_of(rounds)
    if by not in rows.columns:
        rows = rows.join(rounds.select("round_id", by), on="round_id", how="left")
    return rows, by


def common_stats(target: Target, tables: dict[str, pl.DataFrame]) -> np.ndarray | None:
    """Sufficient statistics (:func:`sim.stats.cluster_stats`, clustered by deal) of one
    chunk for the targets every family with ``rounds`` and ``players`` tables shares
    (opening by turn, wins by seat, scores, turns); None for the others."""
    import polars as pl

    from sim.stats import cluster_stats

    rounds = tables["rounds"]
    players, by = _clustered_rows(tables["players"], rounds)
    m = target.metric
    seated = players if target.seat is None else players.filter(pl.col("seat") == target.seat)
    if m.startswith("p_open_by_turn"):
        return cluster_stats((seated["open_turn"] <= target.turn).fill_null(False).to_numpy(), seated[by].to_numpy())
    if m.startswith("win_seat"):
        return cluster_stats((rounds["winner_seat"] == target.seat).fill_null(False).to_numpy(), rounds[by].to_numpy())
    if m == "mean_turns":
        return cluster_stats(rounds["turns"].cast(pl.Float64).to_numpy(), rounds[by].to_numpy())
    if m.startswith("mean_score"):
        return cluster_stats(seated["score"].cast(pl.Float64).to_numpy(), seated[by].to_numpy())
    return None


# The --until-ci metrics every family with rounds and players tables has (common_stats
# measures them); a family adds its own.
SHARED_METRICS = (
    Metric("p_open_by_turn_T", r"p_open_by_turn_(?P<turn>\d+)",
           "share of players opened by their own T-th turn (all seats)", True),
    Metric("p_open_by_turn_T_seat_S", r"p_open_by_turn_(?P<turn>\d+)_seat_(?P<seat>\d+)", "the same for seat S", True),
    Metric("win_seat_S", r"win_seat_(?P<seat>\d+)", "share of rounds won by seat S alone", True),
    Metric("mean_score", "mean_score", "mean score of all players", False),
    Metric("mean_score_seat_S", r"mean_score_seat_(?P<seat>\d+)", "mean score of seat S", False),
    Metric("mean_turns", "mean_turns", "mean turns per round", False),
)


def losers(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """The players rows of the players who did not win their round alone."""
    players = tables["players"].join(tables["rounds"].select("round_id", "winner_seat"), on="round_id")
    return players.filter(players["winner_seat"].is_null() | (players["winner_seat"] != players["seat"]))


def seat_lines(variant: dict, opened_by: tuple[int, ...], last: tuple[str, str, int]) -> list[str]:
    """A summary's table of seats: wins, opened, opened by each own turn of ``opened_by``,
    mean score, and ``last`` (header, the seat's key, width) of the family's choosing."""
    header, key, width = last
    by_turn = "".join(f"{'by t' + str(t):>8}" for t in opened_by)
    lines = [f"  {'seat':<10}{'wins':>8}{'opened':>8}{by_turn}{'mean score':>12}{header:>{width}}"]
    for seat in variant["seats"]:
        label = f"{seat['seat']}" + (" (starts)" if seat["seat"] == 0 else "")
        turns = "".join(f"{seat['opened_by_turn'][str(t)]['estimate']:>8.1%}" for t in opened_by)
        lines.append(f"  {label:<10}{seat['win']['estimate']:>8.1%}{seat['opened']['estimate']:>8.1%}"
                     f"{turns}{seat['mean_score']['estimate']:>12.1f}{seat[key]:>{width}.1f}")
    return lines


def deal_columns(round_id: np.ndarray, players: int, duplicate: bool) -> dict[str, np.ndarray]:
    """The ``deal_id`` and ``rotation`` columns of rounds ``round_id``: with ``duplicate``
    (``sim run --duplicate``), round ``i`` is rotation ``i % players`` of deal
    ``i // players`` (:func:`sim.deal.deal_round`); otherwise every round is its own deal."""
    import numpy as np

    if not duplicate:
        return {"deal_id": round_id, "rotation": np.zeros(round_id.size, dtype=np.int8)}
    return {"deal_id": round_id // players, "rotation": (round_id % players).astype(np.int8)}


def check_engine_errors(errors: np.ndarray, start: int) -> None:
    """Raise on the first round of a chunk whose engine reported an error (its self-checks)."""
    import numpy as np

    if (errors != 0).any():
        bad = int(np.flatnonzero(errors)[0])
        raise RuntimeError(f"engine error {int(errors[bad])} in round {start + bad}")


def finish_stats(rounds: pl.DataFrame, finish: str) -> np.ndarray:
    """Statistics (:func:`sim.stats.cluster_stats`) of the share of rounds ending as ``finish``."""
    import polars as pl

    from sim.stats import cluster_stats

    by = cluster_of(rounds)
    return cluster_stats((rounds["finish"].cast(pl.String) == finish).to_numpy(), rounds[by].to_numpy())


def player_stats(tables: dict[str, pl.DataFrame], rows: pl.DataFrame, column: str) -> np.ndarray:
    """Statistics (:func:`sim.stats.cluster_stats`, clustered by deal) of a players
    ``column`` over ``rows`` (some players rows of ``tables``)."""
    import polars as pl

    from sim.stats import cluster_stats

    rows, by = _clustered_rows(rows, tables["rounds"])
    return cluster_stats(rows[column].cast(pl.Float64).to_numpy(), rows[by].to_numpy())


class Family:
    """What a rule family supplies to the shared layers: its names, bots, finishes,
    kernels and metrics as attributes, and (by default) the functions of its package's
    modules ``tables``, ``summary``, ``trace`` and ``report``."""

    name: str = ""  # Rules.family
    title: str = ""  # for people
    unit: str = "round"  # what one id of a run plays
    units: str = "rounds"  # its plural
    tables: tuple[str, ...] = ("rounds", "players")  # the first has one row per unit
    id_column: str = "round_id"
    policies: tuple[str, ...] = ()  # bot names, the default first
    finishes: tuple[str, ...] = ()  # how a round may end: the ``finish`` column's values
    kernel_modules: tuple[str, ...] = ()  # sim.jit: the modules its engine compiles, callees first
    uses_run_table: bool = False  # its engine calls the opening solver, which reads the run table
    piece: int | None = None  # the most units one task plays (None: a chunk), so that a run's bar moves often
    metrics: tuple[Metric, ...] = ()

    def describe(self, rules: Rules) -> str:
        """One line on what a rules preset plays, for ``sim presets``."""
        return self.title

    @property
    def workload(self) -> Workload:
        from sim.jit import Workload

        return Workload(f"the {self.title} engine", self.kernel_modules)

    def prepare(self, progress: bool = True, jobs: int | None = None) -> None:
        """Compile the engine now if this machine has not compiled it before (in ``jobs``
        processes, see :func:`sim.jit.prepare`), and build or load the opening solver's run
        table if it uses one: both once, here, before worker processes start."""
        from sim.jit import prepare

        prepare(self.workload, progress, jobs)
        if self.uses_run_table:
            from sim.solver.runs import run_table

            run_table()

    def _module(self, name: str):
        """The family package's module ``name`` (``tables``, ``summary``, ``trace``,
        ``report``), imported on first use: nothing of a family loads before it is used."""
        import importlib

        return importlib.import_module(f"{type(self).__module__}.{name}")

    # What a family supplies, by convention a function of the same name in one of its
    # package's modules (override a method to do otherwise).

    def chunk_tables(self, rules: Rules, seed: int, start: int, count: int, policies: list[str],
                     drop: tuple[str, ...] = (), duplicate: bool = False) -> dict[str, pl.DataFrame]:
        """Play units ``start .. start+count-1`` and return every table, keyed by name;
        columns named in ``drop`` (a sweep's partition) are left to the path;
        ``duplicate``: each deal played once per seat rotation, rounds carrying
        ``deal_id`` and ``rotation`` (:func:`deal_columns`) (``<package>.tables.chunk_tables``)."""
        return self._module("tables").chunk_tables(rules, seed, start, count, policies, drop, duplicate)

    def summarise(self, tables: dict[str, pl.DataFrame], keys: list[str]) -> dict:
        """The summary of a whole dataset, per variant (``keys``: the swept fields)."""
        return self._module("summary").summarise(tables, keys)

    def format_summary(self, summary: dict) -> list[str]:
        """The summary as lines a person reads."""
        return self._module("summary").format_summary(summary)

    def chunk_stats(self, target: Target, tables: dict[str, pl.DataFrame]) -> np.ndarray:
        """Sufficient statistics of one chunk for an ``--until-ci`` target."""
        return self._module("summary").chunk_stats(target, tables)

    def trace_text(self, rules: Rules, seed: int, unit_id: int, policies: list[str],
                   duplicate: bool = False) -> str:
        """One unit, every action with the rule that allows it and the referee's verdict."""
        return self._module("trace").trace_text(rules, seed, unit_id, policies, duplicate)

    def trace_json(self, rules: Rules, seed: int, unit_id: int, policies: list[str],
                   duplicate: bool = False) -> dict[str, Any]:
        """One unit in the JSON trace format (README, "JSON traces")."""
        return self._module("trace").trace_json(rules, seed, unit_id, policies, duplicate)

    def report_sections(self, rep, ds, prefer: dict) -> None:
        """Add the family's sections on dataset ``ds`` to the report ``rep``
        (:class:`sim.report.Report`); ``prefer``: the reference values of swept fields."""
        self._module("report").report_sections(rep, ds, prefer)

    def analysis(self):
        """The family's own analysis module (``<package>.analysis``), or None: questions only
        its datasets answer, found by :mod:`sim.analysis` (its ``__all__``), and for a family
        whose unit is not a round, ``dataset_tables``, ``UNIT_METRICS`` and ``unit_metrics``."""
        import importlib.util

        name = f"{type(self).__module__}.analysis"
        return self._module("analysis") if importlib.util.find_spec(name) else None

    def dataset_tables(self, path, keys: tuple[str, ...]) -> dict[str, pl.LazyFrame]:
        """Lazy scans of a dataset's tables, joined with the facts analyses group by
        (:func:`sim.analysis.open_dataset`; the tile families' is built in there)."""
        return self._module("analysis").dataset_tables(path, keys)

    def headlines(self, ds, prefer: dict) -> list[str]:
        """The key numbers of dataset ``ds``, as Markdown list items."""
        return self._module("report").headlines(ds, prefer)
