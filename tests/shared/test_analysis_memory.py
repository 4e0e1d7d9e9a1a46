"""A dataset read into memory (:func:`sim.analysis.in_memory`, what ``sim report`` asks its
questions of) answers every question as the lazy scans of its files do, and its clustered
statistics, summed over a cluster's rows side by side (``_cluster_runs``,
:func:`sim.clusters.cluster_sums`), are those of the
polars grouping by cluster that they replace, on hypothesis data too: clusters of one row
or several, nulls, groups a cluster's rows split between, rows out of order (which fall
back to the grouping)."""

from itertools import pairwise
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import sim
from sim import analysis as A
from sim import runner
from sim.games.rummy101 import analysis as R

QUESTIONS = {
    "opened_by_turn": lambda d: A.opened_by_turn(d, by=[*d.keys, "players"] if "players" not in d.keys
                                                 else list(d.keys)),
    "opened_by_turn, seats together": lambda d: A.opened_by_turn(d, seats=False),
    "never_opened": A.never_opened,
    "round_length": A.round_length,
    "scores": A.scores,
    "penalties": A.penalties,
    "score_histogram": A.score_histogram,
    "penalty_values": A.penalty_values,
    "finish_rates": A.finish_rates,
    "win_shares": A.win_shares,
    "seat_advantage": A.seat_advantage,
}
RUMMY101 = {
    "penalties by open_kind": lambda d: A.penalties(d, by=[*d.keys, "open_kind"]),
    "outcomes": R.outcomes,
    "opening_kinds": R.opening_kinds,
    "penalty_distribution": R.penalty_distribution,
    "winner_gain": R.winner_gain,
    "threshold_by_order": R.threshold_by_order,
}


def same(a: pl.DataFrame, b: pl.DataFrame) -> None:
    """Equal up to the order of float additions (a mean over other row orders)."""
    assert_frame_equal(a, b, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


@pytest.fixture(scope="module")
def duplicate(tmp_path_factory):
    """A duplicate sweep: a deal's rounds, one per seat rotation, are one cluster."""
    path = tmp_path_factory.mktemp("duplicate") / "seats"
    variants = runner.grid_variants(sim.preset("rummy101"), {"players": ["2", "3"], "starter_extra": ["1", "0"]})
    runner.run(runner.RunSpec(variants, 60, 5, ("greedy",), 30, kind="sweep", duplicate=True), path, jobs=1,
               progress=False)
    return path


@pytest.mark.parametrize("name", ["variants", "rummikub", "duplicate"])
def test_a_dataset_in_memory_answers_as_its_files_do(small_data, duplicate, name):
    lazy = A.open_dataset(duplicate if name == "duplicate" else small_data / name)
    mem = A.in_memory(lazy)
    assert mem.ordered, "the rows as written: a variant at a time, rounds in order"
    questions = {**QUESTIONS, **(RUMMY101 if lazy.family == "rummy101" else {})}
    for question in questions.values():
        same(question(lazy), question(mem))
    data = A.round_metrics_frame(lazy)
    for k in lazy.keys:
        base = {k: data[k][0]}
        same(A.compare_variants(lazy, base), A.compare_variants(mem, base))


def test_the_report_s_questions_take_the_one_pass(small_data, duplicate, monkeypatch):
    """On data in memory the clustered statistics come from one pass over a cluster's rows
    (sim.clusters), not from a polars grouping by cluster (which would not fit the
    reference's 12 million clusters in time), a duplicate deal's rounds together too."""
    datasets = [A.in_memory(A.open_dataset(path)) for path in (small_data / "variants", duplicate)]

    def grouping(*args, **kwargs):
        raise AssertionError("grouped by cluster in polars")

    monkeypatch.setattr(A, "_per_cluster", grouping)
    for ds in datasets:
        R.outcomes(ds)
        A.never_opened(ds)
        A.opened_by_turn(ds, seats=False)


def synthetic(rows: list[tuple], ordered: bool, duplicate: bool) -> A.Dataset:
    """A two-variant dataset of players rows (variant, cluster, seat, kind, value) held in memory."""
    df = pl.DataFrame(rows, schema={"mode": pl.String, "deal_id": pl.Int64, "seat": pl.Int8,
                                    "kind": pl.Enum(["a", "b", "c"]), "value": pl.Int32}, orient="row")
    df = df.with_columns(pl.col("deal_id").alias("round_id"),
                         (pl.col("mode") == "y").cast(pl.UInt16).alias(A.VARIANT))  # as in_memory numbers them
    manifest = {"family": "rummy101", "kind": "sweep", "duplicate": duplicate,
                "variants": [{"partition": {"mode": m}, "rules": {}} for m in ("x", "y")]}
    rounds = df.select("round_id", "mode", "deal_id", A.VARIANT).unique(maintain_order=True)
    return A.Dataset(Path("."), manifest, ("mode",), rounds.lazy(), df.lazy(),
                     tables={"rounds": rounds.lazy(), "players": df.lazy()}, ordered=ordered)


ROW = st.tuples(st.integers(0, 5), st.integers(0, 3), st.sampled_from(["a", "b", "c", None]),
                st.one_of(st.none(), st.integers(-300, 300)))


@settings(max_examples=60)
@given(st.lists(st.tuples(st.sampled_from("xy"), ROW), min_size=1, max_size=60), st.booleans(), st.randoms())
def test_cluster_statistics_over_stretches_are_those_of_the_grouping(rows, duplicate, rnd):
    """``clustered_intervals_many`` and ``category_shares`` on rows side by side (sorted by
    variant and cluster) against the polars grouping on the same rows; shuffled, the fast
    path declines and the grouping answers."""
    flat = sorted([(m, *r) for m, r in rows], key=lambda r: (r[0], r[1]))
    shuffled = flat[:]
    rnd.shuffle(shuffled)
    reference = synthetic(flat, ordered=False, duplicate=duplicate)
    for data in (flat, shuffled):
        fast = synthetic(data, ordered=True, duplicate=duplicate)
        for group in (["mode"], ["mode", "seat"], ["mode", "kind"]):
            values = {"v_": (pl.col("value"), False), "k_": (pl.col("kind") == "a", True)}
            same(A.clustered_intervals_many(reference, reference.players, group, values).sort(group, nulls_last=True),
                 A.clustered_intervals_many(fast, fast.players, group, values).sort(group, nulls_last=True))
            for category in [c for c in ("kind", "value") if c not in group]:
                sums = {"mean_value": pl.col("value")} if category == "kind" else {}
                same(A.category_shares(reference, reference.players, group, category, sums),
                     A.category_shares(fast, fast.players, group, category, sums))
    if len({(r[0], r[1]) for r in flat}) > 1 and shuffled != flat:
        fast = synthetic(shuffled, ordered=True, duplicate=duplicate)
        runs = A._cluster_runs(fast, fast.players, ["mode", "seat"], {"v": pl.col("value")})
        order = [(r[0], r[1]) for r in shuffled]
        together = all(order.index(x) + order.count(x) - 1 == len(order) - 1 - order[::-1].index(x) for x in order)
        increasing = all(a[1] <= b[1] or a[0] != b[0] for a, b in pairwise(order))
        modes = [m for m, _ in order]
        once = all(modes.index(m) + modes.count(m) - 1 == len(modes) - 1 - modes[::-1].index(m) for m in set(modes))
        assert (runs is not None and runs.moments(["v"]) is not None) == (together and increasing and once)


def test_cluster_codes_of_sorted_ids_need_no_sort():
    from sim.stats import cluster_codes

    ids = np.array([3, 3, 5, 9, 9, 9, 12])
    assert cluster_codes(ids).tolist() == np.unique(ids, return_inverse=True)[1].tolist() == [0, 0, 1, 2, 2, 2, 3]
    assert cluster_codes(np.array([5, 3, 5])).tolist() == [1, 0, 1]
