"""Answers from the datasets of every round family (openings by turn, round length,
scores and penalties, finishes, seats) and variant comparisons of any family.

Every question function takes a :class:`Dataset` (a run or sweep directory, see
:func:`open_dataset`; read into memory once by :func:`in_memory` for many questions, as a
report asks) or deal-stats files, works on polars lazy frames and returns a
polars DataFrame whose columns its docstring lists. Shares come with 95% Wilson
intervals (``ci_low``, ``ci_high``), means with 95% normal intervals. Metrics pooled over
several players of a round (or, in a ``--duplicate`` run, over the rounds of a deal) get
cluster-robust intervals (:func:`sim.stats.cluster_interval`): those samples are not
independent.

``by`` names the columns to group by: the variant columns of a sweep (``ds.keys``, such
as ``players``, ``threshold_mode``, ``open_points``, ``button_jokers``) and, on the
players table, ``seat``, ``policy``, ``open_kind`` and the round's ``finish``.

A family's own questions live in its package (``sim/games/<family>/analysis.py``, listed in
its ``__all__``) and are reached here too (``sim.analysis.threshold_curve``); they build on
the public helpers of this module: :func:`group_columns`, :func:`wilson_shares`,
:func:`normal_means`, :func:`clustered_intervals`, :func:`clustered_intervals_many`,
:func:`category_shares` and :func:`with_intervals`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from sim import chunks
from sim.clusters import cluster_sums, dense_codes, stretch_sums
from sim.errors import DatasetError
from sim.games import family_of_manifest, rules_from_dict, rules_from_json
from sim.rules import Rules
from sim.stats import Z95, cluster_codes, cluster_interval, cluster_se, cluster_stats, wilson_interval
from sim.store import is_locked, read_metadata

MAKE_DATA = ("Make data with `sim run --out DIR` or `sim sweep --grid FIELD=V1,V2 --out DIR`; "
             "`make notebook-data` writes the notebooks' small defaults (data/notebooks, about two minutes) "
             "and `make reference-report` the full reference data (data/reference, about 45 minutes).")
# Round facts copied onto the players rows where present.
ROUND_FACTS = ("stock_left", "pool_left", "table_tiles", "deal_id", "rotation")
# A dataset in memory (in_memory) numbers its variants in a column of its own, so that the
# clustered statistics need not read the variant columns' values row by row.
VARIANT = "_variant"


@dataclass(frozen=True)
class Dataset:
    """A run or sweep directory: its manifest, variant columns and two lazy tables.

    ``players`` is joined with the round's columns (``finish``, ``winner_seat``,
    ``round_turns``, ``stock_left`` and the settings), so every question about players can be
    grouped by round facts too.
    """

    path: Path
    manifest: dict
    keys: tuple[str, ...]
    rounds: pl.LazyFrame  # one row per unit: rounds, or card Rummy 101's matches
    players: pl.LazyFrame
    unit_id: str = "round_id"  # the id column of a unit (card matches: match_id)
    tables: dict[str, pl.LazyFrame] = field(default_factory=dict)  # every table by name (cards: hands too)
    # Tables read once and kept (round_metrics_frame): a report asks the same of them many times.
    memo: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    # In memory, a variant at a time and each variant's rounds in order (in_memory): the
    # clustered statistics then find a cluster's rows side by side (_cluster_runs).
    ordered: bool = False

    @property
    def variants(self) -> list[dict]:
        return self.manifest["variants"]

    @property
    def family(self) -> str:
        """The rule family of the dataset's rounds (``rummy101``, ``rummikub``)."""
        return self.manifest.get("family") or self.variants[0]["rules"]["family"]

    def rules(self) -> list[Rules]:
        return [rules_from_dict(v["rules"]) for v in self.variants]

    @property
    def duplicate(self) -> bool:
        """Whether every deal was played once per seat rotation (``sim run --duplicate``)."""
        return bool(self.manifest.get("duplicate", False))

    @property
    def cluster(self) -> str:
        """The column grouping dependent samples: ``deal_id`` (the rounds of a deal in a
        duplicate run; otherwise one round each), ``round_id`` in older data, and
        ``match_id`` for card matches (a match's hands and players together; the matches
        of one deal together in a duplicate run)."""
        if self.unit_id != "round_id":
            return "deal_id" if self.duplicate else self.unit_id
        return "deal_id" if "deal_id" in self.rounds.collect_schema().names() else "round_id"


def check_dataset(path: Path, manifest: dict, family, deep: bool = False) -> chunks.Findings:
    """What ``path`` holds against what its manifest expects (:func:`sim.chunks.inspect`):
    any file missing, damaged or out of place, raises
    :class:`~sim.errors.DatasetError` naming it."""
    for table in family.tables:
        if not next((path / table).rglob("*.parquet"), None):
            raise DatasetError(f"{path}: no {table} files (is it a run or sweep directory?)")
    found = chunks.inspect(path, manifest, family.tables, family.id_column, deep=deep,
                           prefix_ok=bool(manifest.get("until_ci")))
    if not found.clean:
        raise DatasetError(f"{path}: {found.problems()}. `sim verify {path}` lists every problem; rerunning the "
                           "command that wrote it replaces those files")
    return found


def open_dataset(path: str | Path) -> Dataset:
    """Open a run or sweep directory written by ``sim run`` / ``sim sweep``.

    Raises :class:`~sim.errors.DatasetError` naming the file when a manifest or Parquet
    file is missing, damaged or not one of ours.
    """
    path = Path(path)
    manifest_path = path / "manifest.json"
    holder = is_locked(path)
    if holder:
        raise DatasetError(f"{path} is being written by {holder}; open it when that run has ended")
    try:
        manifest = json.loads(manifest_path.read_text())
    except FileNotFoundError:
        what = "is not there" if not path.exists() else "holds no manifest.json: it is not a run or sweep directory"
        raise DatasetError(f"{path} {what}. {MAKE_DATA}") from None
    except (OSError, json.JSONDecodeError) as e:
        raise DatasetError(f"{manifest_path}: unreadable ({e})") from None
    chunks.check_manifest(manifest, manifest_path)
    keys = tuple(manifest["variants"][0]["partition"])
    family = family_of_manifest(manifest, manifest_path)
    check_dataset(path, manifest, family)
    if family.unit != "round":  # a family with tables of its own (card matches) opens them its way
        tables = family.dataset_tables(path, keys)
        return Dataset(path, manifest, keys, tables[family.tables[0]], tables["players"], family.id_column, tables)
    rounds, players = _scan(path, "rounds"), _scan(path, "players")
    players = players.join(rounds.select(_round_columns(rounds, keys, family)), on=["round_id", *keys], how="left")
    return Dataset(path, manifest, keys, rounds, players, tables={"rounds": rounds, "players": players})


def _scan(path: Path, table: str) -> pl.LazyFrame:
    """A table of a run or sweep directory, its variant columns read from the directories."""
    return pl.scan_parquet(str(path / table / "**" / "*.parquet"), hive_partitioning=True)


def _round_columns(rounds: pl.LazyFrame, keys: Sequence[str], family) -> list:
    """The columns of the rounds table copied onto its players rows (see :class:`Dataset`)."""
    present = rounds.collect_schema().names()
    settings = family.rules_class.field_names()  # the rules columns of the rounds table, where present
    return ["round_id", *keys, "finish", "winner_seat", pl.col("turns").alias("round_turns"),
            *[c for c in (*ROUND_FACTS, "winners", *settings) if c not in keys and c in present]]


def in_memory(ds: Dataset) -> Dataset:
    """``ds`` with its rounds and players tables read into memory once (about 100 bytes a
    player row: 3.4 GB for the 12 million rounds of the reference's ``variants`` sweep), for
    a caller asking many questions of the same rows, as a report does: each question then
    reads no file and joins nothing again.

    The rows come a variant at a time, in the order of the manifest, and within a variant
    in the order played (each round's players together, rounds in the order of their ids):
    :func:`sim.clusters.cluster_sums` counts on it. Card matches keep their scans (their tables are
    their family's)."""
    if ds.unit_id != "round_id":
        return ds
    cols = _round_columns(ds.rounds, ds.keys, family_of_manifest(ds.manifest, ds.path / "manifest.json"))
    schema = ds.rounds.collect_schema()
    rounds, players = [], []
    for i, v in enumerate(ds.variants or [{"partition": {}}]):
        match = [pl.col(k) == _literal(v["partition"][k], schema[k]) for k in ds.keys]
        number = pl.lit(i, dtype=pl.UInt16).alias(VARIANT)
        r = (ds.rounds.filter(*match) if match else ds.rounds).with_columns(number).collect()
        p = _scan(ds.path, "players")
        p = (p.filter(*match) if match else p).with_columns(number).collect()
        rounds.append(r)
        players.append(_with_rounds(p, r.select(cols), ds.keys))
    # in the order played, as written (a dataset that is not keeps to the slower paths)
    ordered = all(t["round_id"].is_sorted() for t in (*rounds, *players))
    # one chunk a column: a question's numpy view of a column is then no copy (the reference report
    # 1:32-1:37 against 1:42, and less memory at its peak: 12.8 against 13.4 GB)
    r, p = pl.concat(rounds, rechunk=True).lazy(), pl.concat(players, rechunk=True).lazy()
    return Dataset(ds.path, ds.manifest, ds.keys, r, p, tables={"rounds": r, "players": p}, ordered=ordered)


def _with_rounds(players: pl.DataFrame, rounds: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """A variant's ``players`` with their round's columns of ``rounds`` (a left join on the round
    id, the players' order kept): taken by position where both are sorted by round id as
    written and every player's round is there, which is three times quicker than joining."""
    rid, pid = rounds["round_id"].to_numpy(), players["round_id"].to_numpy()
    shared = set(players.columns) & set(rounds.columns) - {"round_id", *keys}  # a join would suffix them
    if not shared and rid.size and pid.size and np.all(rid[1:] > rid[:-1]):
        # Every round with players, in order: a player's round is its stretch's number (a sum
        # of where the id steps up), quicker than seeking each id
        step = np.empty(pid.size, dtype=np.int64)
        step[0] = 0
        np.greater(pid[1:], pid[:-1], out=step[1:])
        at = np.cumsum(step, out=step)
        if int(at[-1]) + 1 == rid.size and np.array_equal(rid[at], pid):
            return players.hstack(rounds.drop("round_id", *keys)[at])
        if np.all(pid[1:] >= pid[:-1]):  # some rounds without players
            at = np.searchsorted(rid, pid)
            if np.array_equal(rid[np.minimum(at, rid.size - 1)], pid):
                return players.hstack(rounds.drop("round_id", *keys)[at])
    return players.join(rounds, on=["round_id", *keys], how="left", maintain_order="left")


def skill(ds: Dataset) -> dict:
    """A skill run's measures (``sim skill``; :func:`sim.skill.skill`): each bot's standing,
    relative skill, the variance shares of a score, the critical repetitions and the Elo
    ladder, per rules variant."""
    from sim.skill import skill as measure

    return measure(ds)


def won_or_shared(ds: Dataset) -> pl.Expr:
    """Whether a player row of ``ds`` is among its round's winners, tied ones included
    (:func:`sim.games.family.won_or_shared`, K-END-2)."""
    from sim.games.family import won_or_shared as won

    return won("winners" in ds.players.collect_schema().names())


def wilson_shares(df: pl.DataFrame, k: str = "k", n: str = "n") -> pl.DataFrame:
    """``df`` with ``share`` (``k`` of ``n``) and its 95% Wilson interval (``ci_low``, ``ci_high``)."""
    lo, hi = wilson_interval(df[k].to_numpy(), df[n].to_numpy())
    return df.with_columns(
        (pl.col(k) / pl.col(n)).alias("share"), pl.Series("ci_low", lo), pl.Series("ci_high", hi)
    )


def normal_means(df: pl.DataFrame, mean: str = "mean", sd: str = "sd", n: str = "n") -> pl.DataFrame:
    """``df`` with the 95% normal interval of ``mean`` (from ``sd`` and ``n``) as ``ci_low``, ``ci_high``."""
    half = Z95 * pl.col(sd) / pl.col(n).sqrt()
    return df.with_columns((pl.col(mean) - half).alias("ci_low"), (pl.col(mean) + half).alias("ci_high"))


def clustered_intervals(ds: Dataset, lf: pl.LazyFrame, group: Sequence[str], value: pl.Expr, share: bool,
                        prefix: str = "") -> pl.DataFrame:
    """Cluster-robust 95% intervals of the mean of ``value`` (a share when ``share``) per
    ``group`` of ``lf``, the samples of one cluster (:attr:`Dataset.cluster`: a round's
    players, a duplicate deal's rounds) taken together; null values are left out.
    Columns: ``*group``, ``{prefix}ci_low``, ``{prefix}ci_high``."""
    return clustered_intervals_many(ds, lf, group, {prefix: (value, share)})


def clustered_intervals_many(ds: Dataset, lf: pl.LazyFrame, group: Sequence[str],
                             values: dict[str, tuple[pl.Expr, bool]]) -> pl.DataFrame:
    """:func:`clustered_intervals` for several values in one pass over the data: ``values`` maps a
    column prefix to ``(value, share)``."""
    group = list(group)
    cluster = ds.cluster
    names = {prefix: f"_v{n}" for n, prefix in enumerate(values)}
    if _one_row_per_cluster(ds, lf, group):
        # Every cluster holds one row of a group: the sums of the rows are the cluster sums.
        per = lf.select(*group, *[e.cast(pl.Float64).alias(names[p]) for p, (e, _) in values.items()])
        aggs = []
        for v in names.values():
            x = pl.col(v)
            aggs += [x.count().alias(f"{v}_n"), x.sum().alias(f"{v}_sy"), (x * x).sum().alias(f"{v}_syy"),
                     x.sum().alias(f"{v}_sym"), x.count().alias(f"{v}_smm"), x.count().alias(f"{v}_g")]
        return _intervals((per.group_by(*group).agg(*aggs) if group else per.select(*aggs)).collect(), group,
                          values, names)
    if cluster not in lf.collect_schema().names():
        lf = lf.join(ds.rounds.select(ds.unit_id, *ds.keys, cluster), on=[ds.unit_id, *ds.keys], how="left",
                     maintain_order="left")
    runs = _cluster_runs(ds, lf, group, {names[p]: e for p, (e, _) in values.items()})
    sums = runs.moments(list(names.values())) if runs is not None else None
    if sums is not None:
        return _intervals(sums, group, values, names)
    sums = [a for v in names.values()
            for a in (pl.col(v).sum().alias(f"{v}_y"), pl.col(v).count().cast(pl.Float64).alias(f"{v}_m"))]
    per = _per_cluster(ds, lf.select(*group, cluster, *[e.cast(pl.Float64).alias(names[p])
                                                        for p, (e, _) in values.items()]),
                       group, lambda x, by: x.group_by(*by, cluster).agg(*sums))
    aggs = [pl.len().alias("_g")]
    for v in names.values():
        y, m = pl.col(f"{v}_y"), pl.col(f"{v}_m")
        aggs += [m.sum().alias(f"{v}_n"), y.sum().alias(f"{v}_sy"), (y * y).sum().alias(f"{v}_syy"),
                 (y * m).sum().alias(f"{v}_sym"), (m * m).sum().alias(f"{v}_smm"),
                 (m > 0).sum().alias(f"{v}_g")]
    return _intervals((per.group_by(*group).agg(*aggs) if group else per.select(*aggs)).collect(), group,
                      values, names)


def _codes(df: pl.DataFrame, lead: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """A small integer from 0 for each row's combination of ``df``'s columns (after ``lead``,
    small integers of each row already: a variant's number), and each combination's first
    row; None when the combinations could be too many to count in an array."""
    code = np.zeros(df.height, dtype=np.int64) if lead is None else lead.astype(np.int64)
    size = 1 if lead is None else int(lead.max(initial=0)) + 1
    for name in df.columns:
        col = df[name]
        if not (col.dtype.is_integer() or col.dtype in (pl.Boolean, pl.String, pl.Categorical)
                or isinstance(col.dtype, pl.Enum)):
            return None
        if col.dtype == pl.String:
            col = _string_codes(col)
        col = col.to_physical()
        if col.dtype == pl.Boolean:
            col = col.cast(pl.UInt8)
        low, high = col.min(), col.max()
        if low is None:  # nulls only
            low = high = 0
        span = int(high) - int(low) + 2  # the last for null
        if size * span > 1 << 24:
            return None
        if int(high) >= np.iinfo(np.int64).max:  # no room for the null's code
            return None
        # in place: a new array of the rows' length for each step costs more than the step
        code *= span
        if col.null_count() or col.dtype == pl.UInt64:  # numpy adds no uint64 to int64 in place
            col = col.cast(pl.Int64).fill_null(int(high) + 1)
        code += col.to_numpy()
        code -= int(low)
        size *= span
    return dense_codes(code, size)


def _string_codes(col: pl.Series) -> pl.Series:
    """A text column as integers, equal texts alike: by its stretches of equal values where few
    (a variant's name over its millions of rows), else hashed (a category)."""
    if col.len() == 0:
        return col.cast(pl.Categorical)
    stretch = col.rle_id()
    if int(stretch[-1]) > col.len() // 64:
        return col.cast(pl.Categorical)
    starts = np.flatnonzero(np.r_[True, np.diff(stretch.to_numpy()) != 0])
    return col.gather(starts).cast(pl.Categorical).to_physical().gather(stretch)


@dataclass
class _Runs:
    """The rows of a query, a cluster's rows side by side: each row's cluster id and variant
    number, its group's code (``group``, the combinations in ``groups``) and the columns of
    ``data``, for :func:`sim.clusters.cluster_sums`, which adds a question's cluster
    statistics up in one pass over the rows, where a polars grouping by cluster hashed every
    cluster (a reference sweep has 12 million)."""

    cluster: np.ndarray
    variant: np.ndarray
    group: np.ndarray | None  # None: grouped by variant alone, each variant's group in ``variant_group``
    groups: pl.DataFrame
    data: pl.DataFrame
    variant_group: np.ndarray | None = None

    def moments(self, names: list[str]) -> pl.DataFrame | None:
        """Each group's cluster statistics of each column of ``names`` (nulls left out), as
        :func:`clustered_intervals_many` names them (``{name}_n``, ``_sy``, ``_syy``, ``_sym``,
        ``_smm``, ``_g``); None when a cluster's rows are not side by side after all."""
        # The flags (a boolean column, no nulls: most of a report's values) a byte a row, the
        # others as floats (nulls as NaN), a few values a pass: a fresh array of the rows' length
        # costs a question its copying and the kernel's zeroing of its pages
        flags = [n for n in names if self.data.schema[n] == pl.Boolean and not self.data[n].null_count()]
        rest = [n for n in names if n not in flags]
        found = {}
        for kind, chosen, per in ((np.uint8, flags, 8), (np.float64, rest, 4)):
            for at in range(0, len(chosen), per):
                part = chosen[at:at + per]
                x = np.empty((len(part), self.data.height), dtype=kind)
                for row, name in zip(x, part, strict=True):
                    col = self.data[name]  # copied once
                    row[:] = (col.cast(pl.Float64) if col.null_count() else col).to_numpy()
                sums = cluster_sums(self.cluster, self.variant, self.group, np.arange(self.groups.height), x,
                                    self.variant_group)
                if sums is None:
                    return None
                found.update({name: (sums[0][v], sums[1][v]) for v, name in enumerate(part)})
        return self.groups.with_columns(
            pl.Series(f"{name}_{s}", found[name][j][i])
            for name in names
            for s, j, i in (("n", 1, 1), ("sy", 0, 0), ("syy", 0, 1), ("sym", 0, 2), ("smm", 1, 2), ("g", 1, 0)))

    def category_moments(self, category: str, sums: list[str]) -> pl.DataFrame | None:
        """Each group's categories with their cluster statistics, as :func:`category_shares`
        gathers them: per category ``_sy``, ``_syy``, ``_sym`` and the plain sums of ``sums``;
        per group ``_g``, ``_n``, ``_smm``. None when the categories are too many to count in
        an array, or a cluster's rows are not side by side after all. Spends the runs: their
        group codes become the cells' codes."""
        found = _codes(self.data.select(category))
        if found is None:
            return None
        cat, first = found
        cats = self.data.select(category)[first]
        ncat = cats.height
        cells = self.groups.height * ncat
        # the groups' codes made the cells' in place: no array of the rows' length more
        cell = self.variant_group[self.variant] if self.group is None else self.group
        cell *= ncat
        cell += cat
        counted = cluster_sums(self.cluster, self.variant, cell, np.arange(cells) // ncat,
                               np.ones((1, cell.size), dtype=np.uint8))
        if counted is None:
            return None
        per_cell, per_group = counted[0][0], counted[1][0]
        used = np.flatnonzero(per_cell[0] > 0)  # the categories a group holds
        g_of = used // ncat
        df = pl.concat([self.groups[g_of], cats[used % ncat]], how="horizontal")
        return df.with_columns(
            pl.Series("_sy", per_cell[0, used]), pl.Series("_syy", per_cell[1, used]),
            pl.Series("_sym", per_cell[2, used]),
            *[pl.Series(f"{s}", np.bincount(cell, weights=self.data[s].cast(pl.Float64).fill_null(0.0).to_numpy(),
                                            minlength=cells)[used]) for s in sums],
            pl.Series("_g", per_group[0, g_of]), pl.Series("_n", per_group[1, g_of]),
            pl.Series("_smm", per_group[2, g_of]))


def _cluster_runs(ds: Dataset, lf: pl.LazyFrame, group: list[str], values: dict[str, pl.Expr],
                  category: str | None = None) -> _Runs | None:
    """``lf``'s rows as :class:`_Runs` when ``ds`` is in memory in order (:func:`in_memory`,
    its variants numbered) and ``group`` holds every variant column (so no cluster spans
    variants), else None (the caller groups by cluster in polars)."""
    if (not ds.ordered or not group or not set(ds.keys) <= set(group)
            or VARIANT not in lf.collect_schema().names()):
        return None
    cols = [*group, VARIANT, ds.cluster, *([category] if category else [])]
    df = lf.select(*cols, *[e.alias(n) for n, e in values.items()]).collect()
    if df[ds.cluster].null_count():
        return None
    variant = df[VARIANT].to_numpy()
    extra = [g for g in group if g not in ds.keys]  # group holds the variant's columns
    if not extra:  # a group a variant: no code a row
        variant_group, first = _variant_groups(variant)
        return _Runs(df[ds.cluster].to_numpy(), variant, None, df.select(group)[first], df.drop(group, VARIANT),
                     variant_group)
    found = _codes(df.select(extra), variant)
    if found is None:
        return None
    code, first = found
    return _Runs(df[ds.cluster].to_numpy(), variant, code, df.select(group)[first], df.drop(group, VARIANT))


def _variant_groups(variant: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each variant number's group, those present numbered from 0 in the order of the numbers
    (as :func:`_codes` numbers them), and each group's first row: read where the number
    changes, the rows coming a variant at a time (:func:`in_memory`; one met again is refused
    by :func:`sim.clusters.cluster_sums`)."""
    if variant.size == 0:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.r_[0, np.flatnonzero(variant[1:] != variant[:-1]) + 1]
    present, at = np.unique(variant[starts], return_index=True)
    variant_group = np.zeros(int(present[-1]) + 1, dtype=np.int64)
    variant_group[present] = np.arange(present.size)
    return variant_group, starts[at]


def _per_cluster(ds: Dataset, lf: pl.LazyFrame, group: list[str], query) -> pl.LazyFrame:
    """``query(lf, by)``, a query grouping by ``by`` and the cluster: a variant at a time
    (:func:`by_variant`, ``by`` without the variant's columns) where ``group`` holds every
    variant column, so that no cluster's rows are sought across variants; else at once."""
    if ds.keys and set(ds.keys) <= set(group):
        rest = [g for g in group if g not in ds.keys]
        return by_variant(ds, lf, lambda x: query(x, rest))
    return query(lf, group)


def _one_row_per_cluster(ds: Dataset, lf: pl.LazyFrame, group: list[str]) -> bool:
    """Whether each cluster holds at most one row of each group: rounds of a run that is
    not ``--duplicate`` (a round is its own cluster), or its players grouped by seat."""
    if ds.duplicate:
        return False
    names = lf.collect_schema().names()
    if ds.unit_id != "round_id":  # card matches: the matches table only (a match has many hands)
        return "hand" not in names
    return "seat" in group or "seat" not in names


def _intervals(df: pl.DataFrame, group: list[str], values: dict[str, tuple[pl.Expr, bool]],
               names: dict[str, str]) -> pl.DataFrame:
    """The intervals of :func:`clustered_intervals_many` from its per-group cluster statistics."""
    out = df.select(*group)
    for prefix, (_, share) in values.items():
        v = names[prefix]
        acc = np.stack([df[c].cast(pl.Float64).to_numpy() for c in (f"{v}_g", f"{v}_n", f"{v}_sy", f"{v}_syy",
                                                                     f"{v}_sym", f"{v}_smm")])
        _, lo, hi = cluster_interval(acc, share)
        out = out.with_columns(pl.Series(f"{prefix}ci_low", np.atleast_1d(lo)),
                               pl.Series(f"{prefix}ci_high", np.atleast_1d(hi)))
    return out


def category_shares(ds: Dataset, lf: pl.LazyFrame, group: Sequence[str], category: str,
                     sums: dict[str, pl.Expr] | None = None) -> pl.DataFrame:
    """The distribution of ``category`` within each ``group`` of ``lf``, in one pass over
    the data: ``k`` (rows of that value), ``n`` (rows of the group), ``share`` and its
    cluster-robust 95% interval (:func:`clustered_intervals` for each value's indicator: a cluster
    without the value counts zero), and for each of ``sums`` the mean of that expression
    over the value's rows. Columns: ``*group``, ``category``, ``k``, ``n``, ``share``,
    ``ci_low``, ``ci_high``, ``*sums``."""
    group = list(group)
    sums = sums or {}
    cluster = ds.cluster
    if _one_row_per_cluster(ds, lf, group):  # each row its own cluster: plain counts
        df = (lf.group_by(*group, category)
              .agg(pl.len().alias("k"), *[e.cast(pl.Float64).mean().alias(k) for k, e in sums.items()])
              .with_columns(pl.col("k").sum().over(group or pl.lit(1)).alias("n")).collect())
        k, n = df["k"].cast(pl.Float64).to_numpy(), df["n"].cast(pl.Float64).to_numpy()
        _, lo, hi = cluster_interval(np.stack([n, n, k, k, k, n]), True)
        return (df.with_columns((pl.col("k") / pl.col("n")).alias("share"), pl.Series("ci_low", lo),
                                pl.Series("ci_high", hi))
                .select(*group, category, "k", "n", "share", "ci_low", "ci_high", *sums)
                .sort(*group, category, nulls_last=True))
    if cluster not in lf.collect_schema().names():
        lf = lf.join(ds.rounds.select(ds.unit_id, *ds.keys, cluster), on=[ds.unit_id, *ds.keys], how="left",
                     maintain_order="left")
    runs = _cluster_runs(ds, lf, group, {f"_s_{k}": e for k, e in sums.items()}, category)
    df = runs.category_moments(category, [f"_s_{k}" for k in sums]) if runs is not None else None
    if df is not None:
        return _category_frame(df, group, category, sums)
    per = _per_cluster(ds, lf, group, lambda x, by: (
        x.group_by(*by, cluster, category)
        .agg(pl.len().cast(pl.Float64).alias("_y"), *[e.cast(pl.Float64).sum().alias(f"_s_{k}") for k, e in
                                                       sums.items()])
        .with_columns(pl.col("_y").sum().over([*by, cluster]).alias("_m")))).collect()
    sizes = per.group_by(*group, cluster).agg(pl.col("_m").first())
    aggs = (pl.len().alias("_g"), pl.col("_m").sum().alias("_n"), (pl.col("_m") ** 2).sum().alias("_smm"))
    totals = sizes.group_by(*group).agg(*aggs) if group else sizes.select(*aggs)
    y, m = pl.col("_y"), pl.col("_m")
    counts = per.group_by(*group, category).agg(y.sum().alias("_sy"), (y * y).sum().alias("_syy"),
                                                (y * m).sum().alias("_sym"),
                                                *[pl.col(f"_s_{k}").sum() for k in sums])
    df = counts.join(totals, on=group, how="left", nulls_equal=True) if group else counts.join(totals, how="cross")
    return _category_frame(df, group, category, sums)


def _category_frame(df: pl.DataFrame, group: list[str], category: str, sums: dict[str, pl.Expr]) -> pl.DataFrame:
    """:func:`category_shares`'s answer from the cluster statistics of each group's categories."""
    acc = np.stack([df[c].cast(pl.Float64).to_numpy() for c in ("_g", "_n", "_sy", "_syy", "_sym", "_smm")])
    _, lo, hi = cluster_interval(acc, True)
    return (df.with_columns(pl.Series("ci_low", np.atleast_1d(lo)), pl.Series("ci_high", np.atleast_1d(hi)))
            .select(*group, category, pl.col("_sy").cast(pl.UInt32).alias("k"), pl.col("_n").cast(pl.UInt32).alias("n"),
                    (pl.col("_sy") / pl.col("_n")).alias("share"), "ci_low", "ci_high",
                    *[(pl.col(f"_s_{k}") / pl.col("_sy")).alias(k) for k in sums])
            .sort(*group, category, nulls_last=True))


def with_intervals(df: pl.DataFrame, ci: pl.DataFrame, group: Sequence[str], prefix: str = "") -> pl.DataFrame:
    """``df`` with its interval columns replaced by those of ``ci`` (:func:`clustered_intervals`)
    where ``ci`` has them (a category never seen keeps its Wilson interval)."""
    cols = [f"{prefix}ci_low", f"{prefix}ci_high"]
    order = df.columns
    if not group:
        return df.drop(cols).with_columns(ci[c] for c in cols).select(order)
    new = ci.rename({c: f"_new{c}" for c in cols})
    return (df.join(new, on=list(group), how="left", nulls_equal=True)
            .with_columns(pl.coalesce(f"_new{c}", c).alias(c) for c in cols).select(order))


def group_columns(ds: Dataset, by: Sequence[str] | None, extra: Sequence[str] = ()) -> list[str]:
    """``by`` as given, or the variant columns and ``extra``."""
    if by is not None:
        return list(by)
    return list(ds.keys) + [c for c in extra if c not in ds.keys]


# --- opening ---------------------------------------------------------------------------------


def opened_by_turn(ds: Dataset, max_turn: int = 10, by: Sequence[str] | None = None,
                   seats: bool = True) -> pl.DataFrame:
    """P(a player has opened by its own turn t), t = 1..max_turn.

    Columns: ``*by``, ``seat`` (with ``seats``; else every seat together), ``turn``, ``k``
    (players opened by then), ``n`` (players), ``share``, ``ci_low``, ``ci_high``. Default
    ``by``: the dataset's variant columns and ``players``.
    """
    group = [*group_columns(ds, by, ("players",)), *(["seat"] if seats else [])]
    totals = ds.players.group_by(*group).agg(pl.len().alias("n")).collect()
    when = (ds.players.filter(pl.col("opened")).group_by(*group, "open_turn")
            .agg(pl.len().alias("c")).collect())
    turns = pl.DataFrame({"turn": np.arange(1, max_turn + 1, dtype=np.int16)})
    df = (totals.join(turns, how="cross")
          .join(when, on=group, how="left")
          .group_by(*group, "turn", "n")
          .agg(pl.col("c").filter(pl.col("open_turn") <= pl.col("turn")).sum().alias("k"))
          .with_columns(pl.col("k").fill_null(0))
          .select(*group, "turn", "k", "n").sort(*group, "turn"))
    if not ds.duplicate and seats:  # one row per seat and round: independent samples, Wilson is right
        return wilson_shares(df)
    turns = range(1, max_turn + 1)  # every turn's indicator in one pass over the data
    every = clustered_intervals_many(ds, ds.players, group,
                                     {f"t{t}_": ((pl.col("open_turn") <= t).fill_null(False), True) for t in turns})
    ci = pl.concat([every.select(*group, pl.col(f"t{t}_ci_low").alias("ci_low"),
                                 pl.col(f"t{t}_ci_high").alias("ci_high"), pl.lit(t, dtype=pl.Int16).alias("turn"))
                    for t in turns])
    return with_intervals(wilson_shares(df), ci, [*group, "turn"])


def deal_open_shares(paths: Sequence[str | Path]) -> pl.DataFrame:
    """P(a dealt rack can open) from ``sim deal-stats`` files.

    Columns: ``preset``, ``rack_size``, ``racks``, ``way`` (``melds``, ``pairs``,
    ``either``), ``k``, ``n``, ``share``, ``ci_low``, ``ci_high``, ``mean_value``.
    """
    rows = []
    for p in paths:
        if not Path(p).exists():
            raise DatasetError(f"{p} is not there. Make it with `sim deal-stats --rack-size N --out {p}`; "
                               "`make notebook-data` writes the notebooks' defaults")
        meta = read_metadata(Path(p))
        if meta.get("kind") != "deal-stats":
            raise DatasetError(f"{p}: a {meta.get('kind')!r} file, not a deal-stats table")
        rules = rules_from_json(meta["rules"])
        t = pl.scan_parquet(p).select(
            pl.len().alias("n"), pl.col("can_open_melds").sum().alias("melds"),
            pl.col("can_open_pairs").sum().alias("pairs"), pl.col("can_open").sum().alias("either"),
            pl.col("value").mean().alias("mean_value")).collect().row(0, named=True)
        for way in ("melds", "pairs", "either"):
            rows.append({"preset": rules.name, "rack_size": int(meta["rack_size"]), "racks": t["n"],
                         "way": way, "k": t[way], "n": t["n"], "mean_value": t["mean_value"]})
    return wilson_shares(pl.DataFrame(rows)).sort("preset", "rack_size", "way")


# --- thresholds ------------------------------------------------------------------------------


def never_opened(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Share of players who never open in the round.

    Columns: ``*by``, ``k`` (never opened), ``n`` (players), ``share``, ``ci_low``, ``ci_high``.
    """
    group = group_columns(ds, by, ("players",))
    df = (ds.players.group_by(*group).agg((~pl.col("opened")).sum().alias("k"), pl.len().alias("n"))
          .sort(*group).collect())
    return with_intervals(wilson_shares(df), clustered_intervals(ds, ds.players, group, ~pl.col("opened"), True), group)


def round_length(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Turns per round (all seats together).

    Columns: ``*by``, ``n`` (rounds), ``mean``, ``sd``, ``ci_low``, ``ci_high``,
    ``median``, ``q90``.
    """
    group = group_columns(ds, by, ("players",))
    t = pl.col("turns")
    df = _with_quantiles(ds.rounds, group, t, [pl.len().alias("n"), t.mean().alias("mean"),
                                                t.std().fill_null(0).alias("sd")], {"median": None, "q90": 0.9})
    df = df.sort(*group)
    return with_intervals(normal_means(df), clustered_intervals(ds, ds.rounds, group, pl.col("turns"), False), group)


def _with_quantiles(lf: pl.LazyFrame, group: list[str], value: pl.Expr, aggs: list[pl.Expr],
                    quantiles: dict[str, float | None]) -> pl.DataFrame:
    """``lf``'s ``aggs`` by ``group`` followed by the named ``quantiles`` of ``value`` (polars'
    ``nearest``; None: the median), unsorted. An integer value's quantiles are read from how
    many rows hold each value, where polars sorted each group's rows for each quantile; the
    same numbers (a median is the mean of the two middle values, a quantile the value at
    ``(n - 1)·q`` rounded half away from zero)."""
    dtype = lf.select(value).collect_schema().dtypes()[0]
    if not dtype.is_integer():
        aggs = [*aggs, *[value.median().alias(k) if q is None else value.quantile(q).alias(k)
                         for k, q in quantiles.items()]]
        return (lf.group_by(*group).agg(*aggs) if group else lf.select(*aggs)).collect()
    # both in one go: files scanned lazily are read once
    df, counts = pl.collect_all([
        lf.group_by(*group).agg(*aggs) if group else lf.select(*aggs),
        lf.select(*group, value.alias("_x")).drop_nulls("_x").group_by(*group, "_x").len().sort(*group, "_x")])
    starts = _stretch_starts(counts, group)
    ends = np.r_[starts[1:], counts.height][:starts.size]
    x, cum = counts["_x"].to_numpy().astype(float), counts["len"].to_numpy().astype(np.int64)
    columns = {k: [] for k in quantiles}
    for a, b in zip(starts, ends, strict=True):
        at = np.cumsum(cum[a:b])
        n = int(at[-1])

        def nth(i: int, xs=x[a:b], at=at) -> float:  # the i-th value (from 0) in order
            return float(xs[np.searchsorted(at, i, side="right")])
        for k, q in quantiles.items():
            if q is None:
                low = nth((n - 1) // 2)
                columns[k].append(low + (nth(n // 2) - low) * 0.5)  # as polars: to the bit past 2**53
            else:
                f = (n - 1) * q
                columns[k].append(nth(int(np.floor(f)) + (f - np.floor(f) >= 0.5)))
    if not group and not starts.size:  # no values at all: null, as polars says
        columns = {k: [None] for k in quantiles}
    found = pl.DataFrame([pl.Series(k, v, dtype=pl.Float64) for k, v in columns.items()])
    found = counts[starts].select(group).hstack(found) if group else found
    if not group:
        return df.hstack(found)
    return df.join(found, on=group, how="left", nulls_equal=True, maintain_order="left")


def _stretch_starts(df: pl.DataFrame, cols: list[str]) -> np.ndarray:
    """The rows of ``df`` where a stretch of equal values of ``cols`` starts (nulls equal):
    the first row and every row differing from the one before."""
    if df.height == 0:
        return np.zeros(0, dtype=np.int64)
    if not cols:
        return np.zeros(1, dtype=np.int64)
    change = df.select(pl.any_horizontal(pl.col(k).ne_missing(pl.col(k).shift()) for k in cols)).to_series()
    starts = np.flatnonzero(change.to_numpy())
    return np.r_[0, starts[starts > 0]]


# --- penalties -------------------------------------------------------------------------------


def scores(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Score summary by group (default: variant, seat).

    Columns: ``*by``, ``n``, ``mean``, ``sd``, ``ci_low``, ``ci_high``, ``q05``, ``q25``,
    ``median``, ``q75``, ``q95``, ``min``, ``max``.
    """
    group = group_columns(ds, by, ("players", "seat"))
    s = pl.col("score")
    quantiles = {"q05": 0.05, "q25": 0.25, "median": None, "q75": 0.75, "q95": 0.95}
    df = _with_quantiles(ds.players, group, s, [pl.len().alias("n"), s.mean().alias("mean"),
                                                s.std().fill_null(0).alias("sd"), s.min().alias("min"),
                                                s.max().alias("max")], quantiles)
    df = df.select(*group, "n", "mean", "sd", *quantiles, "min", "max").sort(*group)
    return with_intervals(normal_means(df), clustered_intervals(ds, ds.players, group, s, False), group)


def penalties(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Penalties (minus the score) of the players who did not win, by group.

    Columns: ``*by``, ``n``, ``mean``, ``sd``, ``ci_low``, ``ci_high``, ``median``, ``q90``.
    Group by ``open_kind`` (null: never opened) or ``finish`` to see T-SCORE-2/3 at work.
    """
    group = group_columns(ds, by, ("players",))
    won = won_or_shared(ds)  # tied winners (K-END-2) lose nothing
    p = -pl.col("score")
    df = _with_quantiles(ds.players.filter(~won), group, p, [pl.len().alias("n"), p.mean().alias("mean"),
                                                            p.std().fill_null(0).alias("sd")],
                         {"median": None, "q90": 0.9}).sort(*group, nulls_last=True)
    return with_intervals(normal_means(df), clustered_intervals(ds, ds.players.filter(~won), group, p, False), group)


def score_histogram(ds: Dataset, by: Sequence[str] | None = None, width: int = 10) -> pl.DataFrame:
    """Score distribution in bins of ``width`` points.

    Columns: ``*by``, ``bin`` (lower edge), ``k``, ``n``, ``share``, ``ci_low``, ``ci_high``.
    """
    group = group_columns(ds, by, ("players",))
    binned = ds.players.with_columns(((pl.col("score") // width) * width).alias("bin"))
    return category_shares(ds, binned, group, "bin")


def penalty_values(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """How much the players who did not win lose (minus their score), every family.

    Columns: ``*by``, ``penalty`` (points), ``k`` (players losing exactly that), ``n``
    (players who did not win), ``share``, ``ci_low``, ``ci_high``.
    """
    group = group_columns(ds, by, ("players",))
    won = won_or_shared(ds)  # tied winners (K-END-2) lose nothing
    lost = ds.players.filter(~won).with_columns((-pl.col("score")).alias("penalty"))
    return category_shares(ds, lost, group, "penalty")


def finish_rates(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """How rounds end, every finish of the family: Rummy 101 normal, joker, one-turn
    finishes and stock exhaustion (T-FIN, T-END-1); Rummikub out, blocked, last call
    (K-END-1, K-END-2).

    Columns: ``*by``, ``finish``, ``k``, ``n`` (rounds), ``share``, ``ci_low``, ``ci_high``.
    """
    from sim.games import family

    group = group_columns(ds, by, ("players",))
    finishes = pl.DataFrame({"finish": list(family(ds.family).finishes)})
    counts = (ds.rounds.group_by(*group, pl.col("finish").cast(pl.String)).agg(pl.len().alias("k"))
              .collect())
    totals = counts.group_by(group).agg(pl.col("k").sum().alias("n")) if group else \
        pl.DataFrame({"n": [counts["k"].sum()]})
    grid = totals.join(finishes, how="cross")
    df = (grid.join(counts, on=[*group, "finish"], how="left").with_columns(pl.col("k").fill_null(0))
          .sort(*group, "finish"))
    rounds = ds.rounds.with_columns(pl.col("finish").cast(pl.String))
    ci = category_shares(ds, rounds, group, "finish").select(*group, "finish", "ci_low", "ci_high")
    return with_intervals(wilson_shares(df), ci, [*group, "finish"]).select(
        *group, "finish", "k", "n", "share", "ci_low", "ci_high")


def win_shares(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Seat advantage: the share of rounds each seat wins alone (a win shared by tied racks,
    K-END-2, and a round without a winner, T-END-1, count for no seat).

    Columns: ``*by``, ``seat``, ``k`` (rounds won), ``n`` (rounds), ``share``, ``ci_low``,
    ``ci_high``. Default ``by``: the variant columns and ``players``.
    """
    group = [*group_columns(ds, by, ("players",)), "seat"]
    won = (pl.col("winner_seat") == pl.col("seat")).fill_null(False)
    df = ds.players.group_by(*group).agg(won.sum().alias("k"), pl.len().alias("n")).sort(*group).collect()
    return with_intervals(wilson_shares(df), clustered_intervals(ds, ds.players, group, won, True), group)


def _each_round(ds: Dataset) -> list:
    """What tells a round from every other of ``ds`` (its variant and id), for a window over
    its players: in memory in order (:func:`in_memory`), one sorted number, which polars
    groups without hashing."""
    if ds.ordered and VARIANT in ds.players.collect_schema().names():
        return [(pl.col(VARIANT).cast(pl.Int64) * (1 << 40) + pl.col("round_id")).set_sorted()]
    return [*ds.keys, "round_id"]


def seat_advantage(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Each seat's win share and mean score, and its edge over the table: the seat's value
    minus the mean of all seats in the same round (a win alone counts 1; T-END-1 and
    K-END-2 rounds without a single winner count 0 for every seat).

    The edges are paired within rounds; in a ``--duplicate`` run every deal is played
    with each hand at each seat, so the deal's luck cancels and the intervals (clustered
    by deal) are much narrower than over independent rounds.

    Columns: ``*by``, ``seat``, ``rounds``, ``deals``, ``win_share``, ``win_ci_low``,
    ``win_ci_high``, ``win_edge``, ``win_edge_ci_low``, ``win_edge_ci_high``,
    ``mean_score``, ``score_ci_low``, ``score_ci_high``, ``score_edge``,
    ``score_edge_ci_low``, ``score_edge_ci_high``. Default ``by``: the variant columns
    and ``players``.
    """
    group = [*group_columns(ds, by, ("players",)), "seat"]
    table = _each_round(ds)
    won = (pl.col("winner_seat") == pl.col("seat")).fill_null(False).cast(pl.Float64)
    score = pl.col("score").cast(pl.Float64)
    values = {"win": won, "win_edge": won - won.mean().over(table),
              "score": score, "score_edge": score - score.mean().over(table)}
    lf = ds.players.with_columns(**{f"_{k}": v for k, v in values.items()})
    if ds.ordered:  # in memory: the edges over each round's rows once for both questions below
        kept = dict.fromkeys([*group, VARIANT, ds.unit_id, ds.cluster, *[f"_{k}" for k in values]])
        lf = lf.select(*kept).collect().lazy()
    # a deal's rounds with one row each of a group (a seat of a variant) are as many as its rows:
    # no hashing; pooled over variants, which play the same deal ids, the distinct ids are counted
    one = _one_row_per_cluster(ds, lf, group) and set(ds.keys) <= set(group)
    deals = pl.col(ds.cluster).count() if one else pl.col(ds.cluster).n_unique()
    df = (lf.group_by(*group).agg(pl.len().alias("rounds"), deals.alias("deals"),
                                  pl.col("_win").mean().alias("win_share"),
                                  pl.col("_win_edge").mean().alias("win_edge"),
                                  pl.col("_score").mean().alias("mean_score"),
                                  pl.col("_score_edge").mean().alias("score_edge"))
          .sort(*group).collect())
    ci = clustered_intervals_many(ds, lf, group, {f"{name}_": (pl.col(f"_{name}"), name == "win")
                                         for name in ("win", "win_edge", "score", "score_edge")})
    df = df.join(ci, on=group, how="left", nulls_equal=True)
    return df.select(*group, "rounds", "deals", "win_share", "win_ci_low", "win_ci_high", "win_edge",
                     "win_edge_ci_low", "win_edge_ci_high", "mean_score", "score_ci_low", "score_ci_high",
                     "score_edge", "score_edge_ci_low", "score_edge_ci_high")


# --- comparing variants ------------------------------------------------------------------------

# The metrics of every round family (each adds its own: Family.variant_metrics).
ROUND_METRICS = {
    "turns": "turns per round",
    "opened_by_3": "share of players opened by their own 3rd turn",
    "never_opened": "share of players never opening",
    "mean_penalty": "mean penalty of the players who lost (minus their score), pooled over them",
    "seat0_score": "score of the starting seat",
    "seat0_win": "share of rounds the starting seat wins alone",
    "seat0_edge": "the starting seat's win share over an even split of the rounds won alone",
    "winner_gain": "the winner's gain (0 when no player wins alone)",
}


def _family_metrics(ds: Dataset) -> dict[str, tuple[str, tuple[str, ...]]]:
    """The metrics ``ds``'s family adds: name -> (what it is, the finishes it counts)."""
    from sim.games import family

    return family(ds.family).variant_metrics


def metric_texts(ds: Dataset) -> dict[str, str]:
    """What each metric of :func:`metrics_of` measures, for tables and figures."""
    mod = _own_analysis(ds)
    if mod is not None:
        return dict(mod.UNIT_METRICS)
    return {**ROUND_METRICS, **{name: text for name, (text, _) in _family_metrics(ds).items()}}


def _own_analysis(ds: Dataset):
    """The analysis module of a family whose unit is not a round (card matches), or None."""
    if ds.unit_id == "round_id":
        return None
    from sim.games import family

    return family(ds.family).analysis()


def metrics_of(ds: Dataset) -> list[str]:
    """The metrics :func:`compare_variants` can give for ``ds``: every family's and its own
    (card matches: their own only)."""
    mod = _own_analysis(ds)
    if mod is not None:
        return list(mod.UNIT_METRICS)
    return [*ROUND_METRICS, *_family_metrics(ds)]


# A metric that is a share or a mean over the players or hands of a unit (the penalty of the
# players who lost, the share of a match's hands washed out) is compared as a ratio
# estimator: its numerator and denominator are summed over the units of a variant, so the
# paired figures are the pooled quantity the tables print, not a mean of per-unit shares
# (which weighs a short match's hands more and moves with the match length). Such a metric
# comes with two more columns, ``<metric>:num`` and ``<metric>:den``.
NUM, DEN = ":num", ":den"


def round_metrics(ds: Dataset) -> pl.LazyFrame:
    """One row per round (card matches: per match) and variant with the metrics of
    :func:`metrics_of`; a ratio metric also with its numerator and denominator
    (``<metric>:num``, ``<metric>:den``: see :data:`NUM`)."""
    mod = _own_analysis(ds)
    if mod is not None:
        return mod.unit_metrics(ds)
    won = (pl.col("winner_seat") == pl.col("seat")).fill_null(False)
    lost = ~won_or_shared(ds)
    finish = pl.col("finish").cast(pl.String)
    own = _family_metrics(ds)
    rounds = ds.rounds.select(
        "round_id", *ds.keys, *([ds.cluster] if ds.cluster != "round_id" else []), pl.col("turns").cast(pl.Float64),
        *[finish.is_in(kinds).cast(pl.Float64).alias(name) for name, (_, kinds) in own.items()])
    fast = _round_sums(ds, rounds, won, lost)
    if fast is not None:
        return fast.lazy()

    def rounds_of(lf: pl.LazyFrame) -> pl.LazyFrame:
        # in memory in order, a variant's rounds are sorted by id: polars groups them without hashing
        return lf.with_columns(pl.col("round_id").set_sorted()) if ds.ordered else lf

    per_round = by_variant(ds, ds.players, lambda lf: rounds_of(lf).group_by("round_id", maintain_order=True).agg(
        ((pl.col("open_turn") <= 3).fill_null(False)).mean().alias("opened_by_3"),
        (~pl.col("opened")).mean().alias("never_opened"),
        (-pl.col("score")).filter(lost).mean().alias("mean_penalty"),
        (-pl.col("score")).filter(lost).sum().cast(pl.Float64).alias(f"mean_penalty{NUM}"),
        lost.sum().cast(pl.Float64).alias(f"mean_penalty{DEN}"),
        pl.col("score").filter(pl.col("seat") == 0).first().alias("seat0_score"),
        (pl.col("winner_seat") == 0).fill_null(False).first().cast(pl.Float64).alias("seat0_win"),
        # its edge over the table: what it wins alone beyond its even part of the rounds someone won
        ((pl.col("winner_seat") == 0).fill_null(False).first().cast(pl.Float64)
         - pl.col("winner_seat").is_not_null().first().cast(pl.Float64) / pl.len()).alias("seat0_edge"),
        pl.col("score").filter(won).first().fill_null(0).alias("winner_gain"),
    ))
    return rounds.join(per_round, on=["round_id", *ds.keys], maintain_order="left")


def _round_sums(ds: Dataset, rounds: pl.LazyFrame, won: pl.Expr, lost: pl.Expr) -> pl.DataFrame | None:
    """:func:`round_metrics` of a dataset in memory in order (:func:`in_memory`) whose players
    come round by round in the order of its rounds table: sums over each round's stretch of
    player rows (numpy), beside the rounds as they are, where a polars grouping by round and
    a join took three times as long. None when the rows are not so (the caller groups)."""
    if not ds.ordered or VARIANT not in ds.players.collect_schema().names():
        return None
    p = ds.players.select(
        VARIANT, "round_id", "score", (pl.col("open_turn") <= 3).fill_null(False).alias("by_3"),
        (~pl.col("opened")).alias("never"), lost.alias("lost"), (pl.col("seat") == 0).alias("first_seat"),
        won.alias("won"), (pl.col("winner_seat") == 0).fill_null(False).alias("first_won"),
        pl.col("winner_seat").is_not_null().alias("someone_won"),
        pl.when(lost).then(-pl.col("score").cast(pl.Int64)).otherwise(0).alias("lost_score")).collect()
    if (p.height == 0 or not p.schema["score"].is_integer()  # a share of a tie (K-END-2): polars sums it
            or sum(p[c].null_count() for c in ("score", "never", "first_seat", "lost", "won", "by_3"))):
        return None
    order = ds.rounds.select(VARIANT, "round_id").collect()
    start = _stretch_starts(p, [VARIANT, "round_id"])
    if not p[start].select(VARIANT, "round_id").equals(order):  # a round's players side by side, rounds in order
        return None
    count = np.diff(np.r_[start, p.height])
    summed = ("won", "first_seat", "lost", "by_3", "never")
    flags = np.empty((len(summed), p.height), dtype=np.uint8)  # a byte a row: the rows are tens of millions
    for row, name in zip(flags, summed, strict=True):
        row[:] = p[name].to_numpy()
    sums, lost_score = stretch_sums(start, flags, p["lost_score"].to_numpy())
    del flags
    winners, first_seats, den = sums[0], sums[1], sums[2].astype(float)
    if np.any(first_seats != 1) or np.any(winners > 1):
        return None
    score = p["score"].to_numpy()
    num = lost_score.astype(float)
    gain = np.zeros(start.size, dtype=score.dtype)
    gain[winners == 1] = score[p["won"].to_numpy()]  # at most one a round, in the order of the rounds
    first_won = p["first_won"].to_numpy()[start].astype(float)
    someone_won = p["someone_won"].to_numpy()[start].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        penalty = num / den
    dtype = p.schema["score"]
    return rounds.collect().with_columns(
        pl.Series("opened_by_3", sums[3] / count), pl.Series("never_opened", sums[4] / count),
        pl.Series("mean_penalty", penalty, nan_to_null=True), pl.Series(f"mean_penalty{NUM}", num),
        pl.Series(f"mean_penalty{DEN}", den), pl.Series("seat0_score", score[p["first_seat"].to_numpy()], dtype=dtype),
        pl.Series("seat0_win", first_won), pl.Series("seat0_edge", first_won - someone_won / count),
        pl.Series("winner_gain", gain, dtype=dtype))


def round_metrics_frame(ds: Dataset) -> pl.DataFrame:
    """:func:`round_metrics` of ``ds`` collected, once per :class:`Dataset`: a report compares
    the same rounds against several baselines and bots (kept in ``ds.memo``: about 130 bytes
    a round, 1.5 GB for the reference's 12 million rounds of one sweep)."""
    if "round_metrics" not in ds.memo:
        ds.memo["round_metrics"] = round_metrics(ds).collect()
    return ds.memo["round_metrics"]


def by_variant(ds: Dataset, lf: pl.LazyFrame, query) -> pl.LazyFrame:
    """``query`` (a function of a LazyFrame) on each variant's rows of ``lf`` apart, with the
    variant's columns put back: a partition's files alone are read for each, and grouping
    by a unit's id is many times quicker than by the id and the variant's text together."""
    if not ds.keys:
        return query(lf)
    schema = lf.collect_schema()
    parts = []
    for v in ds.variants:
        values = {k: _literal(v["partition"][k], schema[k]) for k in ds.keys}
        parts.append(query(lf.filter(*[pl.col(k) == e for k, e in values.items()]))
                     .with_columns(e.alias(k) for k, e in values.items()))
    return pl.concat(parts, how="diagonal_relaxed")


def _literal(value, dtype) -> pl.Expr:
    """A baseline value (as typed or as text, ``--baseline starter_may_open=true``) in a column's type."""
    if dtype == pl.Boolean:
        return pl.lit(value in (True, 1, "true", "1"))
    return pl.lit(value).cast(dtype)


def _metric_parts(df: pl.DataFrame, metric: str, sides: Sequence[str]) -> tuple[np.ndarray, list]:
    """The rows of ``df`` a metric is estimated on and, for each column suffix of ``sides``
    (``""``, ``"_base"``, ``"_b"``, ...), its numerator and denominator on them: a ratio
    metric's own columns on every row; a plain one its value over 1, on the rows where no
    side is missing (a paired difference needs both)."""
    if f"{metric}{NUM}" in df.columns:
        keep = np.ones(df.height, dtype=bool)
        return keep, [(df[f"{metric}{NUM}{s}"].to_numpy().astype(float),
                       df[f"{metric}{DEN}{s}"].to_numpy().astype(float)) for s in sides]
    values = [df[f"{metric}{s}"].to_numpy().astype(float) for s in sides]
    keep = ~np.any([np.isnan(v) for v in values], axis=0)
    return keep, [(v[keep], np.ones(int(keep.sum()))) for v in values]


def _pooled(num: np.ndarray, den: np.ndarray) -> tuple[float, np.ndarray]:
    """The ratio estimator Σnum / Σden and each unit's linearised share of its error: their
    mean is the estimator minus its value, so the clustered standard error of that mean
    (:func:`sim.stats.cluster_se`) is the estimator's (the delta method)."""
    total = den.sum()
    if total == 0:
        return float("nan"), np.zeros_like(num)
    ratio = float(num.sum() / total)
    return ratio, (num - ratio * den) * (num.size / total)


def _estimate(value: float, error: np.ndarray, deal: np.ndarray) -> tuple[float, float, float]:
    """``value`` with its 95% interval from the linearised errors, clustered by deal
    (``deal``: :func:`sim.stats.cluster_codes` of the deal ids, found once for all metrics)."""
    half = Z95 * cluster_se(cluster_stats(error, deal, codes=True))[1] if error.size > 1 else float("nan")
    return value, value - half, value + half


def compare_variants(ds: Dataset, baseline: dict, metrics: Sequence[str] | None = None,
                     data: pl.DataFrame | None = None) -> pl.DataFrame:
    """Paired differences of every metric between each variant and ``baseline``.

    The rounds of a sweep share their shuffled tiles (common random numbers), so each
    round gives a paired difference; its mean has a much tighter interval than the
    difference of two independent means, shown beside it for comparison.

    Columns: ``variant`` (``k=v, ...``), ``metric``, ``n`` (paired rounds), ``baseline``,
    ``value``, ``diff``, ``ci_low``, ``ci_high`` (paired 95% interval of the difference,
    the rounds of a ``--duplicate`` deal taken together),
    ``unpaired_half_width``. ``data``: :func:`round_metrics` of ``ds``, collected, when
    the caller compares against several baselines (read once).
    """
    known = metrics_of(ds)
    metrics = list(metrics or known)
    unknown = [m for m in metrics if m not in known]
    if unknown:
        raise DatasetError(f"unknown metric {unknown[0]!r} for {ds.family} data; metrics: {', '.join(known)}")
    if not ds.keys:
        raise DatasetError(f"{ds.path} is a single run: comparing variants needs a sweep, e.g. `sim sweep "
                           f"--grid threshold_mode=fixed,increasing --rounds 20000 --out DIR`")
    missing = [k for k in baseline if k not in ds.keys]
    if missing or not baseline:
        raise DatasetError(f"the baseline must name swept fields of {ds.path} ({', '.join(ds.keys)}), "
                           f"got {', '.join(baseline) or 'none'}")
    data = round_metrics_frame(ds) if data is None else data
    keys = list(ds.keys)
    wanted = [c for c in data.columns if c in metrics or (":" in c and c.rsplit(":", 1)[0] in metrics)]
    data = data.select(*dict.fromkeys([ds.unit_id, *keys, ds.cluster, *wanted]))  # only what is compared
    match = [pl.col(k) == _literal(v, data.schema[k]) for k, v in baseline.items()]
    variants = _variant_parts(data, keys)
    heads = pl.DataFrame(list(variants), schema=data.select(keys).schema, orient="row")  # a row a variant
    is_base = heads.select(pl.all_horizontal(match)).to_series().to_list()
    rest = [k for k in keys if k not in baseline]
    bases = {tuple(head[keys.index(k)] for k in rest): variants[head]
             for head, b in zip(variants, is_base, strict=True) if b}
    if not bases:
        raise DatasetError(f"no rounds for the baseline {baseline}")
    base = pl.concat(bases.values(), rechunk=False)
    rows = []
    for combo in heads.filter(~pl.Series(is_base)).sort(keys).rows(named=True):
        v = variants[tuple(combo[k] for k in keys)]
        pair_on = [ds.unit_id, *rest]
        joined = _paired(v, bases.get(tuple(combo[k] for k in rest)), base, list(baseline), pair_on)
        label = ", ".join(f"{k}={str(val).lower() if isinstance(val, bool) else val}" for k, val in combo.items())
        deal = cluster_codes(joined[ds.cluster].to_numpy())
        for m in metrics:
            ok, ((na, da), (nb, db)) = _metric_parts(joined, m, ("", "_base"))
            (a, ea), (b, eb) = _pooled(na, da), _pooled(nb, db)
            n = int(ok.sum())
            # The rounds of a duplicate deal are one sample (cluster-robust error)
            diff, low, high = _estimate(a - b, ea - eb, deal[ok])
            unpaired = Z95 * np.sqrt(ea.var(ddof=1) / n + eb.var(ddof=1) / n) if n > 1 else float("nan")
            rows.append({"variant": label, "metric": m, "n": n, "baseline": b, "value": a, "diff": diff,
                         "ci_low": low, "ci_high": high, "unpaired_half_width": float(unpaired)})
    return pl.DataFrame(rows)


def _variant_parts(data: pl.DataFrame, keys: list[str]) -> dict[tuple, pl.DataFrame]:
    """Each variant's rows of ``data`` by the values of its ``keys``: slices, not copies, where a
    variant's rows lie together (a dataset in memory: :func:`in_memory`), else partitioned."""
    if data.height:
        starts = _stretch_starts(data, keys)
        heads = data[starts].select(keys)
        if heads.n_unique() == heads.height:  # each variant's rows together
            ends = np.r_[starts[1:], data.height]
            return {head: data.slice(s, e - s) for head, s, e in zip(heads.rows(), starts, ends, strict=True)}
    return data.partition_by(keys, as_dict=True)


def _paired(v: pl.DataFrame, b: pl.DataFrame | None, base: pl.DataFrame, baseline: list[str],
            pair_on: list[str]) -> pl.DataFrame:
    """A variant's units ``v`` beside the baseline's (``base``; ``b``: its units with ``v``'s other
    swept values, if known) on the same units: the baseline's columns suffixed ``_base``. Side by
    side when both hold the same units in the same order (a sweep's variants play the same
    rounds), else joined."""
    if b is not None and b.height == v.height and np.array_equal(b[pair_on[0]].to_numpy(), v[pair_on[0]].to_numpy()):
        return pl.concat([v, b.drop(*baseline, *pair_on).rename(lambda c: f"{c}_base")], how="horizontal")
    return v.join(base.drop(baseline), on=pair_on if len(pair_on) > 1 else pair_on[0], suffix="_base")


# --- the same findings played by other bots -----------------------------------------------------

# A finding's verdict across two bots (compare_bots): its effect holds, differs beyond the
# interval of the change, or has opposite signs with both intervals clear of zero.
HOLDS, DIFFERS, CHANGES_SIGN = "holds", "differs", "changes sign"


def _policies(ds: Dataset) -> str:
    return ",".join(ds.manifest.get("policies", []))


def _check_pair(a: Dataset, b: Dataset) -> None:
    """``a`` and ``b`` must be the same sweep (family, swept fields, seed) played by other bots."""
    if a.family != b.family:
        raise DatasetError(f"{a.path} plays {a.family} and {b.path} {b.family}: compare one family's bots")
    if a.keys != b.keys or a.manifest.get("seed") != b.manifest.get("seed"):
        raise DatasetError(f"{a.path} and {b.path} are not the same sweep (swept fields {', '.join(a.keys)} and "
                           f"{', '.join(b.keys)}, seeds {a.manifest.get('seed')} and {b.manifest.get('seed')}): "
                           "play both with the same --grid and --seed, each with its --policy")


def same_sweep(a: Dataset, b: Dataset) -> bool:
    """Whether ``b`` is the sweep ``a`` is (family, swept fields and their values, seed,
    duplicate deals) played by other bots: their common rounds share their tiles."""
    def grid(ds: Dataset) -> list:
        return sorted(json.dumps(v["partition"], sort_keys=True) for v in ds.variants)

    return (a.family == b.family and a.keys == b.keys and bool(a.keys) and grid(a) == grid(b)
            and a.manifest.get("seed") == b.manifest.get("seed") and a.duplicate == b.duplicate
            and a.manifest.get("kind") == b.manifest.get("kind") == "sweep" and _policies(a) != _policies(b))


def verdict(a_low: float, a_high: float, b_low: float, b_high: float, change_low: float, change_high: float) -> str:
    """A finding played by two bots: ``changes sign`` when both effects' intervals are clear
    of zero on opposite sides, ``differs`` when the change's interval is clear of zero,
    else ``holds``."""
    if (a_low > 0 and b_high < 0) or (a_high < 0 and b_low > 0):
        return CHANGES_SIGN
    if change_low > 0 or change_high < 0:
        return DIFFERS
    return HOLDS


def compare_bots(a: Dataset, b: Dataset, baseline: dict, metrics: Sequence[str] | None = None) -> pl.DataFrame:
    """Each variant's paired effect (:func:`compare_variants`) as played by the bots of
    sweep ``a`` and of sweep ``b`` (the same sweep and seed, each with its ``--policy``), on
    the rounds (matches) both played: round *i* has the same tiles in both, so the change
    in an effect from ``a``'s bots to ``b``'s is paired too, its interval clustered by deal.

    Columns: ``variant``, ``metric``, ``n`` (rounds in common), ``a_diff``, ``a_ci_low``,
    ``a_ci_high``, ``b_diff``, ``b_ci_low``, ``b_ci_high``, ``change`` (``b_diff - a_diff``),
    ``change_ci_low``, ``change_ci_high``, ``verdict`` (:func:`verdict`).
    """
    _check_pair(a, b)
    known = metrics_of(a)
    metrics = list(metrics or known)
    unknown = [m for m in metrics if m not in known]
    if unknown:
        raise DatasetError(f"unknown metric {unknown[0]!r} for {a.family} data; metrics: {', '.join(known)}")
    missing = [k for k in baseline if k not in a.keys]
    if missing or not baseline:
        raise DatasetError(f"the baseline must name swept fields of {a.path} ({', '.join(a.keys)}), "
                           f"got {', '.join(baseline) or 'none'}")
    keys = list(a.keys)
    on = [a.unit_id, *keys]
    cluster = a.cluster
    data = _both_played(a, b, metrics)
    match = [pl.col(k) == _literal(v, data.schema[k]) for k, v in baseline.items()]
    base = data.filter(*match)
    if base.height == 0:
        raise DatasetError(f"no rounds both sweeps played for the baseline {baseline}")
    others = data.filter(~pl.all_horizontal(match))
    rows = []
    for combo in others.select(keys).unique().sort(keys).rows(named=True):
        v = others.filter(*[pl.col(k) == val for k, val in combo.items()])
        pair_on = [a.unit_id] + [k for k in keys if k not in baseline]
        joined = v.join(base.drop([*baseline, *([cluster] if cluster not in on else [])]), on=pair_on,
                        suffix="_base")
        label = ", ".join(f"{k}={str(val).lower() if isinstance(val, bool) else val}" for k, val in combo.items())
        deal = cluster_codes(joined[cluster].to_numpy())
        for m in metrics:
            ok, parts = _metric_parts(joined, m, ("", "_base", "_b", "_b_base"))
            if ok.sum() < 2:
                continue
            (av, zav), (ab, zab), (bv, zbv), (bb, zbb) = (_pooled(*p) for p in parts)
            ea, eb, ec = (_estimate(value, error, deal[ok]) for value, error in (
                (av - ab, zav - zab), (bv - bb, zbv - zbb), ((bv - bb) - (av - ab), (zbv - zbb) - (zav - zab))))
            rows.append({"variant": label, "metric": m, "n": int(ok.sum()),
                         "a_diff": ea[0], "a_ci_low": ea[1], "a_ci_high": ea[2],
                         "b_diff": eb[0], "b_ci_low": eb[1], "b_ci_high": eb[2],
                         "change": ec[0], "change_ci_low": ec[1], "change_ci_high": ec[2],
                         "verdict": verdict(ea[1], ea[2], eb[1], eb[2], ec[1], ec[2])})
    return pl.DataFrame(rows)


def _both_played(a: Dataset, b: Dataset, metrics: Sequence[str]) -> pl.DataFrame:
    """One row per round (match) and variant that both sweeps played: ``a``'s metrics, ``b``'s
    with the suffix ``_b``, and the deal to cluster by (joined once for every metric and kept
    in ``a.memo``: a report asks it of every swept field)."""
    on = [a.unit_id, *a.keys]
    da = round_metrics_frame(a)
    columns = [c for c in da.columns if c in metrics or (c.rsplit(":", 1)[0] in metrics and ":" in c)]
    name = f"both played:{id(b)}"
    if name not in a.memo or a.memo[name][0] is not b:
        every = [c for c in da.columns if c not in (*on, a.cluster)]
        a.memo[name] = (b, da.select(*on, *([a.cluster] if a.cluster not in on else []), *every)
                        .join(round_metrics_frame(b).select(*on, *every), on=on, suffix="_b"))
    both = a.memo[name][1]
    return both.select(*on, *([a.cluster] if a.cluster not in on else []), *columns, *[f"{c}_b" for c in columns])


def bot_levels(a: Dataset, b: Dataset, metrics: Sequence[str] | None = None) -> pl.DataFrame:
    """Each variant's metrics as the bots of sweep ``a`` and of sweep ``b`` play it, on the
    rounds (matches) both played, with 95% intervals clustered by deal: the levels beside the
    effects of :func:`compare_bots`.

    Columns: the swept fields, ``metric``, ``n``, ``a_mean``, ``a_ci_low``, ``a_ci_high``,
    ``b_mean``, ``b_ci_low``, ``b_ci_high``.
    """
    _check_pair(a, b)
    metrics = list(metrics or metrics_of(a))
    data = _both_played(a, b, metrics)
    keys = list(a.keys)
    rows = []
    for combo in data.select(keys).unique().sort(keys).rows(named=True) if keys else [{}]:
        v = data.filter(*[pl.col(k) == val for k, val in combo.items()]) if combo else data
        deal = cluster_codes(v[a.cluster].to_numpy())
        for m in metrics:
            ok, parts = _metric_parts(v, m, ("", "_b"))
            if ok.sum() < 2:
                continue
            la, lb = (_estimate(*_pooled(*p), deal[ok]) for p in parts)
            rows.append({**combo, "metric": m, "n": int(ok.sum()),
                         "a_mean": la[0], "a_ci_low": la[1], "a_ci_high": la[2],
                         "b_mean": lb[0], "b_ci_low": lb[1], "b_ci_high": lb[2]})
    return pl.DataFrame(rows)


def compare_seat_edges(a: Dataset, b: Dataset) -> pl.DataFrame:
    """Each seat's edges over the table (:func:`seat_advantage`: win share and score minus the
    round's mean) in every variant as played by the bots of ``a`` and of ``b`` (the same
    sweep and seed), on the rounds both played, and the change, paired by round and
    clustered by deal. Round families only (a card match's seats are its family's).

    Columns: the swept fields, ``seat``, ``n``, then for ``win_edge`` and ``score_edge``:
    ``a_<edge>``, ``b_<edge>`` with ``_ci_low``/``_ci_high`` each, ``<edge>_change`` and its
    interval, and ``<edge>_verdict``.
    """
    _check_pair(a, b)
    keys = list(a.keys)
    table = [*keys, "round_id"]

    def edges(ds: Dataset, other: Dataset) -> pl.LazyFrame:
        won = (pl.col("winner_seat") == pl.col("seat")).fill_null(False).cast(pl.Float64)
        score = pl.col("score").cast(pl.Float64)
        # the rounds the other played only (whole rounds: the same edges): a greedy sweep of
        # millions beside an expert one of thousands is not windowed whole
        both = ds.players.join(other.rounds.select(*table), on=table, how="semi", maintain_order="left")
        return both.select(*table, "seat", *([ds.cluster] if ds.cluster not in table else []),
                           (won - won.mean().over(table)).alias("win_edge"),
                           (score - score.mean().over(table)).alias("score_edge"))

    data = edges(a, b).join(edges(b, a).select(*table, "seat", "win_edge", "score_edge"), on=[*table, "seat"],
                            suffix="_b").collect()
    rows = []
    for (*combo, seat), sub in data.group_by([*keys, "seat"], maintain_order=True):
        deal = cluster_codes(sub[a.cluster].to_numpy())
        row = {**dict(zip(keys, combo, strict=True)), "seat": seat, "n": sub.height}
        for edge in ("win_edge", "score_edge"):
            x, y = sub[edge].to_numpy(), sub[f"{edge}_b"].to_numpy()
            ea, eb, ec = (_estimate(*_pooled(v, np.ones_like(v)), deal) for v in (x, y, y - x))
            row.update({f"a_{edge}": ea[0], f"a_{edge}_ci_low": ea[1], f"a_{edge}_ci_high": ea[2],
                        f"b_{edge}": eb[0], f"b_{edge}_ci_low": eb[1], f"b_{edge}_ci_high": eb[2],
                        f"{edge}_change": ec[0], f"{edge}_change_ci_low": ec[1], f"{edge}_change_ci_high": ec[2],
                        f"{edge}_verdict": verdict(ea[1], ea[2], eb[1], eb[2], ec[1], ec[2])})
        rows.append(row)
    return pl.DataFrame(rows).sort([*keys, "seat"])


def __getattr__(name: str):
    """A family's own analysis (``sim.analysis.match_wins`` for card matches...): the
    functions each family's analysis module lists in ``__all__``."""
    from sim.games import families

    for f in families():
        mod = f.analysis()
        if mod is not None and name in getattr(mod, "__all__", ()):
            return getattr(mod, name)
    raise AttributeError(f"module 'sim.analysis' has no attribute {name!r}")
