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
    monkeypatch.setattr(A, "by_variant", grouping)  # round metrics: sums over a round's rows
    monkeypatch.setattr(pl.DataFrame, "partition_by", grouping)  # variants compared: slices of the rows
    for ds in datasets:
        R.outcomes(ds)
        A.never_opened(ds)
        A.opened_by_turn(ds, seats=False)
        A.compare_variants(ds, {ds.keys[0]: A.round_metrics_frame(ds)[ds.keys[0]][0]})


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


@settings(max_examples=80)
@given(st.lists(st.tuples(st.sampled_from(["x", "y", None]), st.integers(0, 2),
                          st.one_of(st.none(), st.integers(-300, 300))), max_size=80),
       st.sampled_from([[], ["g"], ["g", "h"]]))
def test_quantiles_from_counts_are_polars_own(rows, group):
    """The medians and quantiles of scores, penalties and round lengths, read from how many
    rows hold each value, are polars' (``nearest``; a median the mean of the middle two),
    nulls left out and groups of nulls only too."""
    lf = pl.DataFrame(rows, schema={"g": pl.String, "h": pl.Int8, "v": pl.Int32}, orient="row").lazy()
    wanted = {"q05": 0.05, "q25": 0.25, "median": None, "q75": 0.75, "q90": 0.9, "q95": 0.95}
    v = pl.col("v")
    exprs = [v.median().alias(k) if q is None else v.quantile(q).alias(k) for k, q in wanted.items()]
    expected = (lf.group_by(*group).agg(pl.len().alias("n"), *exprs) if group
                else lf.select(pl.len().alias("n"), *exprs)).collect()
    got = A._with_quantiles(lf, group, v, [pl.len().alias("n")], wanted)
    if group:
        expected, got = (d.sort(group, nulls_last=True) for d in (expected, got))
    assert_frame_equal(got, expected, check_exact=True)


@given(st.lists(st.integers(0, 40), max_size=200), st.integers(0, 10))
def test_dense_codes_number_the_codes_present_in_order(codes, spare):
    from sim.clusters import dense_codes

    code = np.array(codes, dtype=np.int64)
    dense, first = dense_codes(code.copy(), 41 + spare)
    _, index, inverse = np.unique(code, return_index=True, return_inverse=True)
    assert dense.tolist() == inverse.tolist() and first.tolist() == index.tolist()


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 3), st.integers(0, 2), st.booleans(), st.booleans()),
                min_size=1, max_size=80))
def test_cluster_sums_of_flags_as_bytes_are_those_of_floats(rows):
    """Values of 0 or 1 (a share) summed a byte a row, as the report's questions pass them,
    give every cell's and group's statistics of the same values as floats, to the bit; and
    booleans are read as bytes. Cells given by variant are those given row by row."""
    from sim.clusters import cluster_sums

    rows = sorted(rows)  # a variant's rows together, a cluster's rows side by side
    variant, cluster, cell, a, b = (np.array(c) for c in zip(*rows, strict=True))
    flags = np.stack([a, b]).astype(np.uint8)
    group_of = np.array([0, 0, 1])
    as_floats = cluster_sums(cluster, variant, cell, group_of, flags.astype(np.float64))
    for x in (flags, flags.astype(np.bool_)):
        as_bytes = cluster_sums(cluster, variant, cell, group_of, x)
        assert all(np.array_equal(f, g) for f, g in zip(as_floats, as_bytes, strict=True))
    assert as_floats[1][0, 1].sum() == len(rows)  # every row counted once in its group
    # grouped by variant alone: each variant's cell, no cell a row
    variant_cell = np.array([1, 0])
    by_row = cluster_sums(cluster, variant, variant_cell[variant], group_of, flags)
    by_variant = cluster_sums(cluster, variant, None, group_of, flags, variant_cell=variant_cell)
    assert all(np.array_equal(f, g) for f, g in zip(by_row, by_variant, strict=True))
    with pytest.raises(ValueError, match="each variant's cell"):
        cluster_sums(cluster, variant, None, group_of, flags, variant_cell=np.array([0, 3]))


@given(st.lists(st.tuples(st.integers(1, 5), st.integers(-300, 300), st.booleans(), st.booleans()), max_size=40))
def test_stretch_sums_are_numpy_s_sums_of_each_stretch(rows):
    """A round's players summed in one pass (``_round_sums``' flags and penalties) are numpy's
    ``add.reduceat`` over the same stretches; starts not from 0 or not increasing are refused."""
    from sim.clusters import stretch_sums

    lengths = [r[0] for r in rows]
    start = np.cumsum([0, *lengths])[:-1].astype(np.int64)
    n = sum(lengths)
    values = np.array([v for r in rows for v in [r[1]] * r[0]], dtype=np.int64)
    flags = np.array([[f for r in rows for f in [r[k]] * r[0]] for k in (2, 3)], dtype=np.bool_).reshape(2, n)
    flag_sums, value_sums = stretch_sums(start, flags, values)
    if rows:
        assert value_sums.tolist() == np.add.reduceat(values, start).tolist()
        assert flag_sums.tolist() == [np.add.reduceat(f, start, dtype=np.int64).tolist() for f in flags]
        with pytest.raises(ValueError, match="increasing"):
            stretch_sums(start[::-1].copy() if start.size > 1 else start + 1, flags, values)
    else:
        assert flag_sums.shape == (2, 0) and value_sums.size == 0


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=50))
def test_cluster_statistics_of_clusters_of_one_are_the_plain_sums(values):
    """Every value its own cluster (the rounds of a run): the statistics skip the grouping,
    to the bit."""
    from sim.stats import cluster_stats

    y = np.array(values)
    codes = np.arange(y.size) * 2  # increasing, some absent
    idx = np.repeat(np.arange(y.size), 1)
    sizes = np.bincount(idx)
    yc, mc = np.bincount(idx, weights=y), sizes.astype(float)
    grouped = np.array([yc.size, y.size, yc.sum(), (yc * yc).sum(), (yc * mc).sum(), (mc * mc).sum()])
    assert cluster_stats(y, codes, codes=True).tolist() == grouped.tolist()


@given(st.lists(st.integers(0, 6), min_size=1, max_size=30), st.randoms())
def test_players_take_their_round_s_columns_as_a_join_would(players, rnd):
    """``in_memory`` gives each player row its round's columns by position when both tables
    are sorted by round id, as written; shuffled, or a round missing, it joins: the same rows."""
    rounds = pl.DataFrame({"round_id": range(0, 7), "mode": "x", "turns": [10 * i for i in range(7)]},
                          schema={"round_id": pl.Int64, "mode": pl.String, "turns": pl.Int16})
    rounds = rounds.filter(pl.col("round_id") != 3)  # a round with no row: its players have none
    for ids in (sorted(players), rnd.sample(players, len(players))):
        p = pl.DataFrame({"round_id": ids, "mode": "x", "seat": range(len(ids))},
                         schema={"round_id": pl.Int64, "mode": pl.String, "seat": pl.Int8})
        joined = p.join(rounds, on=["round_id", "mode"], how="left", maintain_order="left")
        assert_frame_equal(A._with_rounds(p, rounds, ["mode"]), joined)


def test_seat_edges_count_distinct_deals_when_variants_are_pooled(small_data):
    """``deals`` is the number of distinct deals of a group; pooled over variants, which play
    the same deals (the same round ids), a deal counts once (a count of rows would not do)."""
    for ds in (A.open_dataset(small_data / "variants"), A.in_memory(A.open_dataset(small_data / "variants"))):
        for by in ([], ["players"], list(ds.keys)):
            adv = A.seat_advantage(ds, by=by)
            group = [*by, "seat"]
            deals = ds.players.group_by(*group).agg(pl.col(ds.cluster).n_unique().alias("want")).collect()
            both = adv.join(deals, on=group, nulls_equal=True)
            assert both.height == adv.height and (both["deals"] == both["want"]).all()


def test_round_metrics_of_a_share_of_a_tie_are_polars_own(small_data):
    """A Rummikub score may be a share of a tie (K-END-2), a fraction: the round sums (integers)
    decline it and polars sums, so a fractional penalty is not truncated."""
    mem = A.in_memory(A.open_dataset(small_data / "rummikub"))
    players = mem.players.with_columns(
        pl.when(pl.col("seat") == 1).then(pl.col("score").cast(pl.Float64) - 0.5)
        .otherwise(pl.col("score").cast(pl.Float64)).alias("score"))

    def with_players(ordered: bool) -> A.Dataset:
        return A.Dataset(mem.path, mem.manifest, mem.keys, mem.rounds, players,
                         tables={"rounds": mem.rounds, "players": players}, ordered=ordered)

    fast, grouped = A.round_metrics(with_players(True)).collect(), A.round_metrics(with_players(False)).collect()
    same(fast, grouped)
    assert (fast["mean_penalty"] % 1 != 0).any()  # the halves kept


def test_group_codes_decline_a_column_with_no_room_for_its_nulls():
    """A group column reaching the largest Int64 with a null gets no code (the polars grouping answers)."""
    df = pl.DataFrame({"g": [2**63 - 1, None]}, schema={"g": pl.Int64})
    assert A._codes(df) is None
    assert A._codes(pl.DataFrame({"g": [5, None, 7]}, schema={"g": pl.Int64}))[0].tolist() == [0, 2, 1]


def test_a_median_of_huge_integers_is_polars_own_to_the_bit():
    lf = pl.DataFrame({"v": [-214449326732510543, 4221110912479390162]}).lazy()
    got = A._with_quantiles(lf, [], pl.col("v"), [pl.len().alias("n")], {"median": None})
    assert got["median"].item() == lf.select(pl.col("v").median()).collect().item()
