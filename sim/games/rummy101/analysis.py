"""Answers only Rummy 101 with tiles datasets give: how players open (melds, pairs, with a
taken discard, T-OPEN, T-TAKE-2), the value of openings, the threshold in force for each
opener (T-THR), the threshold curve of an ``open_points`` sweep, what a round brings a
player and costs those who opened but lost (T-SCORE-1..3), and what the winner gains.

The functions are reached as ``sim.analysis.<name>`` (this module's ``__all__``), take a
:class:`sim.analysis.Dataset` and return polars DataFrames with 95% intervals, built from
the helpers of :mod:`sim.analysis`.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from sim.analysis import (
    Dataset,
    category_shares,
    clustered_intervals,
    clustered_intervals_many,
    group_columns,
    normal_means,
    wilson_shares,
    with_intervals,
)

__all__ = ["discard_openings", "opening_kinds", "opening_values", "outcomes", "penalty_distribution",
           "threshold_by_order", "threshold_curve", "winner_gain"]


def opening_kinds(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """How players open: with melds, with pairs, or never (T-OPEN-1, T-OPEN-2).

    Columns: ``*by``, ``open_kind`` (``melds``, ``pairs``, ``never``), ``k``, ``n``,
    ``share``, ``ci_low``, ``ci_high`` (shares of all players of the group).
    """
    group = group_columns(ds, by, ("players",))
    # as categories in the order of their names (no text built for each of millions of players)
    kinds = pl.Enum(["melds", "never", "pairs"])
    kind = (pl.when(pl.col("open_kind") == "melds").then(pl.lit("melds", dtype=kinds))
            .when(pl.col("open_kind") == "pairs").then(pl.lit("pairs", dtype=kinds))
            .otherwise(pl.lit("never", dtype=kinds)).alias("open_kind"))
    shares = category_shares(ds, ds.players.with_columns(kind), group, "open_kind")
    return shares.with_columns(pl.col("open_kind").cast(pl.String))


def discard_openings(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Openings made by taking the previous player's discard (T-TAKE-2).

    Columns: ``*by``, ``open_kind``, ``k`` (openings with the discard), ``n`` (openings),
    ``share``, ``ci_low``, ``ci_high``.
    """
    group = group_columns(ds, by, ("players",))
    opened = ds.players.filter(pl.col("opened"))  # open_kind's categories sort as their names
    df = (opened.group_by(*group, "open_kind")
          .agg(pl.col("took_discard").sum().alias("k"), pl.len().alias("n"))
          .sort(*group, "open_kind").collect())
    ci = clustered_intervals(ds, opened, [*group, "open_kind"], pl.col("took_discard"), True)
    shares = with_intervals(wilson_shares(df), ci, [*group, "open_kind"])
    return shares.with_columns(pl.col("open_kind").cast(pl.String))


def opening_values(ds: Dataset, kind: str = "melds", by: Sequence[str] | None = None) -> pl.DataFrame:
    """Distribution of opening values: points of melds openings or pairs of pairs ones.

    Columns: ``*by``, ``open_value``, ``k`` (openings of that value), ``n`` (openings of
    the group), ``share``, ``ci_low``, ``ci_high``.
    """
    group = group_columns(ds, by, ("players",))
    openings = ds.players.filter(pl.col("open_kind") == kind)
    return category_shares(ds, openings, group, "open_value")


def threshold_by_order(ds: Dataset, by: Sequence[str] | None = None, kind: str = "melds") -> pl.DataFrame:
    """The requirement in force for the 1st, 2nd, 3rd... opener of a round (T-THR).

    Columns: ``*by``, ``open_order``, ``n`` (openings), ``mean`` (threshold), ``sd``,
    ``ci_low``, ``ci_high``, ``mean_value`` (the opening's value).
    """
    group = group_columns(ds, by, ("players", "threshold_mode"))
    df = (ds.players.filter(pl.col("open_kind") == kind)
          .group_by(*group, "open_order")
          .agg(pl.len().alias("n"), pl.col("open_threshold").mean().alias("mean"),
               pl.col("open_threshold").std().fill_null(0).alias("sd"),
               pl.col("open_value").mean().alias("mean_value"))
          .sort(*group, "open_order").collect())
    return normal_means(df)


def threshold_curve(ds: Dataset, turn: int = 3, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Across an ``open_points`` sweep: P(opened by own turn ``turn``) and the mean penalty
    as functions of the threshold.

    Columns: ``*by``, ``open_points``, ``n`` (players), ``p_open``, ``p_ci_low``,
    ``p_ci_high``, ``mean_penalty``, ``penalty_ci_low``, ``penalty_ci_high`` (penalty:
    minus the score of players who did not win).
    """
    group = [c for c in group_columns(ds, by, ("players",)) if c != "open_points"] + ["open_points"]
    won = (pl.col("winner_seat") == pl.col("seat")).fill_null(False)
    df = (ds.players.group_by(*group)
          .agg(pl.len().alias("n"),
               (pl.col("open_turn") <= turn).fill_null(False).sum().alias("k"),
               (-pl.col("score")).filter(~won).mean().alias("mean_penalty"))
          .sort(*group).collect())
    penalty = pl.when(~won).then(-pl.col("score"))
    ci = clustered_intervals_many(ds, ds.players, group, {"p_": ((pl.col("open_turn") <= turn).fill_null(False), True),
                                                 "penalty_": (penalty, False)})
    return (df.with_columns((pl.col("k") / pl.col("n")).alias("p_open"))
            .join(ci, on=group, how="left", nulls_equal=True)
            .select(*group, "n", "mean_penalty", "p_open", "p_ci_low", "p_ci_high", "penalty_ci_low",
                    "penalty_ci_high"))


def outcomes(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """What a round brings a player: ``won``, or lost having opened with ``melds``, with
    ``pairs``, or ``never opened``.

    Columns: ``*by``, ``outcome``, ``k``, ``n`` (players), ``share``, ``ci_low``, ``ci_high``,
    ``mean_score``.
    """
    group = group_columns(ds, by, ("players",))
    won = (pl.col("winner_seat") == pl.col("seat")).fill_null(False)
    # as categories in the order of their names (no text built for each of millions of players)
    kinds = ["lost, never opened", "lost, opened with melds", "lost, opened with pairs", "won"]
    name = {k: pl.lit(k, dtype=pl.Enum(kinds)) for k in kinds}
    outcome = (pl.when(won).then(name["won"]).when(~pl.col("opened")).then(name["lost, never opened"])
               .when(pl.col("open_kind") == "melds").then(name["lost, opened with melds"])
               .when(pl.col("open_kind") == "pairs").then(name["lost, opened with pairs"])).alias("outcome")
    shares = category_shares(ds, ds.players.with_columns(outcome), group, "outcome", {"mean_score": pl.col("score")})
    return shares.with_columns(pl.col("outcome").cast(pl.String))


def penalty_distribution(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """How much players who opened but did not win lose (T-SCORE-2, T-SCORE-3).

    Columns: ``*by``, ``open_kind``, ``penalty`` (points), ``k`` (players losing exactly
    that), ``n`` (losing openers of that kind), ``share``, ``ci_low``, ``ci_high``.
    """
    group = group_columns(ds, by, ("players",))
    won = (pl.col("winner_seat") == pl.col("seat")).fill_null(False)
    lost = ds.players.filter(~won & pl.col("opened")).with_columns((-pl.col("score")).alias("penalty"))
    shares = category_shares(ds, lost, [*group, "open_kind"], "penalty")  # its categories sort as their names
    return shares.with_columns(pl.col("open_kind").cast(pl.String))


def winner_gain(ds: Dataset, by: Sequence[str] | None = None) -> pl.DataFrame:
    """What the winner gains (T-SCORE-1), over rounds with a winner.

    Columns: ``*by``, ``n`` (rounds won), ``mean``, ``sd``, ``ci_low``, ``ci_high``,
    ``share_doubled`` (share of wins worth more than the base gain).
    """
    group = group_columns(ds, by, ("players",))
    won = (pl.col("winner_seat") == pl.col("seat")).fill_null(False)
    df = (ds.players.filter(won).group_by(*group)
          .agg(pl.len().alias("n"), pl.col("score").mean().alias("mean"),
               pl.col("score").std().fill_null(0).alias("sd"),
               (pl.col("score") > pl.col("score").min()).mean().alias("share_doubled"))
          .sort(*group).collect())
    ci = clustered_intervals(ds, ds.players.filter(won), group, pl.col("score"), False)
    return with_intervals(normal_means(df), ci, group)
